-- Every authenticated request adds to its credential's rate-limit window (store/credentials.ts):
-- the busiest write of the service. The counters need no WAL: they are kept UNLOGGED (no
-- write-ahead log, so no WAL write or flush per batch), and pages are left half empty so the count's
-- update stays on its page (a HOT update, no index entry). What it gives up: after a PostgreSQL
-- crash (not a clean restart) or a failover to a replica, the hour's windows start again from zero,
-- as a cache-held limiter's would (README: Running several instances).
ALTER TABLE rate_limit_counters SET UNLOGGED;
ALTER TABLE rate_limit_counters SET (fillfactor = 50);
