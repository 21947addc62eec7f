-- When each credential was last used, kept on the credential by the call counts' flush (at most a
-- minute behind: http/count.ts), so the console's tokens page reads it from the row instead of
-- searching the request log for the credential's newest call (7 days of the workspace's calls
-- walked for a token not used in them). Filled once from the request log, all it knows.
ALTER TABLE credentials ADD COLUMN last_used_at timestamptz;
UPDATE credentials c SET last_used_at = l.at
  FROM (SELECT workspace_id, credential_id, max(created_at) AS at FROM request_log GROUP BY workspace_id, credential_id) l
 WHERE c.workspace_id = l.workspace_id AND c.id = l.credential_id;
