-- A rotated credential names the one that took its place (growth admin token rotate, Rotate on the
-- console's Tokens page or on an agent's page): the token list and the pages say which one, where
-- before only the audit list did. Filled from the audit list for the rotations already made.
ALTER TABLE credentials ADD COLUMN replaced_by text;
UPDATE credentials c SET replaced_by = a.detail->>'credentialId'
  FROM audit_entries a
 WHERE a.workspace_id = c.workspace_id AND a.action = 'token.rotated' AND a.subject = c.id;
UPDATE credentials c SET replaced_by = a.detail->>'credentialId'
  FROM audit_entries a
 WHERE a.workspace_id = c.workspace_id AND a.action = 'agent.credential_rotated' AND a.detail->>'replaces' = c.id;
