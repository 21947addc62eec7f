-- Recovery: enabling an endpoint sends again what failed to it (its retry schedule ran out) in the
-- last 72 hours (store/webhooks.ts requeueFailed). A failed delivery's next_attempt_at is when it
-- failed. This partial index holds only failed deliveries, so the enable reads the endpoint's
-- recent failures and nothing else, and a delivery that succeeds or waits never touches it.
CREATE INDEX webhook_deliveries_failed ON webhook_deliveries (workspace_id, endpoint_id, next_attempt_at) WHERE status = 'failed';
