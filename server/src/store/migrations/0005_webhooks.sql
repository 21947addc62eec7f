-- Webhook delivery. The tables of 0001 were placeholders nothing used: they are replaced.
DROP TABLE webhook_attempts;
DROP TABLE webhook_deliveries;
DROP TABLE webhook_endpoints;

-- An endpoint: where a workspace's subscribed events go, and the state of its circuit breaker.
CREATE TABLE webhook_endpoints (
  workspace_id          text NOT NULL REFERENCES workspaces,
  id                    text NOT NULL,
  url                   text NOT NULL,
  events                text[] NOT NULL,
  status                text NOT NULL DEFAULT 'enabled' CHECK (status IN ('enabled', 'disabled')),
  disabled_reason       text,
  disabled_at           timestamptz,
  -- The breaker: consecutive failed attempts; closed, open until circuit_open_until, or half_open
  -- while its one probe (probe_delivery_id) is out; the current cool-down, doubling on each re-open.
  consecutive_failures  integer NOT NULL DEFAULT 0,
  circuit               text NOT NULL DEFAULT 'closed' CHECK (circuit IN ('closed', 'open', 'half_open')),
  circuit_open_until    timestamptz,
  cooldown_ms           integer NOT NULL DEFAULT 0,
  probe_delivery_id     text,
  -- After the circuit closes (or the endpoint is enabled) its backlog drains at a bounded pace: one
  -- delivery may start at next_send_at, which each start pushes on by 1 / the drain rate.
  draining              boolean NOT NULL DEFAULT false,
  next_send_at          timestamptz,
  -- Fair turns between endpoints, and how long it has failed without a success.
  last_claimed_at       timestamptz,
  last_success_at       timestamptz,
  failing_since         timestamptz,
  created_at            timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, id)
);
CREATE INDEX webhook_endpoints_by_workspace ON webhook_endpoints (workspace_id, status, created_at, id);

-- Signing secrets: the live ones (no expiry, or not yet expired) sign, newest first.
CREATE TABLE webhook_secrets (
  workspace_id  text NOT NULL,
  endpoint_id   text NOT NULL,
  id            text NOT NULL,
  secret        text NOT NULL,
  expires_at    timestamptz,
  created_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, endpoint_id, id)
);

-- One delivery of one event to one endpoint, created in the transaction of the event (an outbox).
-- pending: waiting until next_attempt_at; delivering: leased by a worker until lease_until (a lease
-- that runs out is pending again); succeeded; failed (the retry schedule ran out).
CREATE TABLE webhook_deliveries (
  workspace_id     text NOT NULL,
  id               text NOT NULL,
  endpoint_id      text NOT NULL,
  event_id         text NOT NULL,
  event_seq        bigint NOT NULL,
  status           text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivering', 'succeeded', 'failed')),
  attempts         integer NOT NULL DEFAULT 0,
  next_attempt_at  timestamptz NOT NULL DEFAULT now(),
  lease_until      timestamptz,
  lease_owner      text,
  delivered_at     timestamptz,
  created_at       timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, id),
  UNIQUE (workspace_id, endpoint_id, event_id)
);
-- An endpoint's due deliveries, oldest first; its deliveries out now (its in-flight bound).
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (workspace_id, endpoint_id, next_attempt_at, id) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_out ON webhook_deliveries (workspace_id, endpoint_id, lease_until) WHERE status = 'delivering';
-- The workers' two cross-workspace scans: leases that ran out, endpoints with due work. Under
-- sharding by workspace these are per shard, as the workers' queue is.
CREATE INDEX webhook_deliveries_leases ON webhook_deliveries (lease_until) WHERE status = 'delivering';

-- Every attempt, as an operator reads it (growth admin webhook attempts), newest first.
CREATE TABLE webhook_attempts (
  workspace_id     text NOT NULL,
  delivery_id      text NOT NULL,
  attempt          integer NOT NULL,
  endpoint_id      text NOT NULL,
  event_id         text NOT NULL,
  event_type       text NOT NULL,
  url              text NOT NULL,
  address          text,
  status_code      integer,
  error            text,
  duration_ms      integer NOT NULL,
  next_attempt_at  timestamptz,
  created_at       timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, delivery_id, attempt)
);
CREATE INDEX webhook_attempts_by_endpoint ON webhook_attempts (workspace_id, endpoint_id, created_at DESC, delivery_id, attempt);
