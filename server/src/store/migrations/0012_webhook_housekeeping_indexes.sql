-- The webhook workers' housekeeping (store/webhook-deliveries.ts reapLeases, disableLongFailing) runs
-- every second in every server process. Its three questions about endpoints (which half-open ones
-- lost their probe, which have drained their backlog, which have failed too long) each read every
-- endpoint of the service: 26 ms a second at 50,000 idle endpoints, growing with them. Each is a
-- partial index of the few endpoints in that state, so housekeeping costs what is out of the
-- ordinary, not what exists.
CREATE INDEX webhook_endpoints_half_open ON webhook_endpoints (workspace_id, id) WHERE circuit = 'half_open';
CREATE INDEX webhook_endpoints_draining ON webhook_endpoints (workspace_id, id) WHERE draining;
CREATE INDEX webhook_endpoints_failing ON webhook_endpoints (failing_since) WHERE status = 'enabled' AND failing_since IS NOT NULL;
