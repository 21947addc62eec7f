-- The server's housekeeping (every 10 minutes in every process) deletes idempotency records past
-- their 24 hours and rate-limit windows past their hour. Both read the whole table to find them:
-- the idempotency index led with workspace_id, which the purge (across every workspace) cannot
-- use, and the counters had only their key. Each now has an index on its time, so a purge reads
-- what it deletes, not the day's records of every workspace. The old idempotency index served
-- nothing else (a key is found by its primary key), so a keyed write still updates one index.
DROP INDEX idempotency_keys_expiry;
CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at);
-- window_start never changes after the row is made, so the count's update stays a HOT update.
CREATE INDEX rate_limit_counters_window ON rate_limit_counters (window_start);
