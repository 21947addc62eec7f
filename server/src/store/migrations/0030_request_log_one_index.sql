-- The request log with one index instead of three (docs/performance.md, "The request log"): its key
-- is the list's order, (workspace_id, created_at, id), which serves the list and its filters, the
-- sweep (each workspace's oldest calls are the start of its range) and the uniqueness a flush written
-- again needs (ON CONFLICT on the same key). Each index of a table written at every call's rate costs
-- its share of every flush: the key on (workspace_id, id), the list's index and the sweep's index on
-- created_at made a batch's INSERT about twice what this one index does.
ALTER TABLE request_log DROP CONSTRAINT request_log_pkey;
DROP INDEX request_log_list;
DROP INDEX request_log_age;
ALTER TABLE request_log ADD PRIMARY KEY (workspace_id, created_at, id);
