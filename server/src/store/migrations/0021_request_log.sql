-- The request log (CONTRACT: Observability): every call a workspace's credential made, kept 7 days.
-- Written in batches by each server process (http/request-log.ts), never on a request's own path.
-- No query string, header or body is kept: method, path, the operation, the answer's status, code
-- and message, which credential, the Idempotency-Key and whether the answer was a replay.
CREATE TABLE request_log (
  workspace_id     text NOT NULL,
  id               text NOT NULL,              -- req_..., the X-Request-Id the answer carried
  method           text NOT NULL,
  path             text NOT NULL,
  operation        text NOT NULL,
  status           integer NOT NULL,
  code             text,                       -- the error's code; null on a success
  message          text,                       -- the error's message; null on a success
  duration_ms      numeric(10, 3) NOT NULL,
  credential_id    text NOT NULL,
  idempotency_key  text,
  replayed         boolean NOT NULL DEFAULT false,
  created_at       timestamptz(3) NOT NULL,
  PRIMARY KEY (workspace_id, id)
);
-- The list, newest first (and its filters, read within a workspace's last 7 days).
CREATE INDEX request_log_list ON request_log (workspace_id, created_at, id);
-- The sweep (every 10 minutes, across workspaces) reads what it deletes, as the idempotency purge does (0013).
CREATE INDEX request_log_age ON request_log (created_at);

-- A token made with every scope (`all`) before read:logs existed gets it too: "all" meant all.
UPDATE credentials SET scopes = scopes || ARRAY['read:logs']
 WHERE kind IN ('live', 'test')
   AND scopes @> ARRAY['read:growth', 'write:experiments', 'write:actions', 'write:contacts', 'write:events',
                       'read:contacts', 'read:analytics', 'read:events', 'read:agents']
   AND NOT scopes @> ARRAY['read:logs'];
