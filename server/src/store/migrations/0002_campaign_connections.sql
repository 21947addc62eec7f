-- Which connected account carries out a campaign's changes (an ad account, the email platform, the
-- social account). The stand-in executor of approved actions fails a change when that connection
-- is missing or not delivering, as the real platform would.
ALTER TABLE campaigns ADD COLUMN connection_id text;
CREATE INDEX campaigns_by_connection ON campaigns (workspace_id, connection_id);
