-- The whole schema of the Growth Automation Service.
--
-- Every table holding workspace data carries workspace_id, and every primary key, unique key and
-- index begins with it, so the data can be sharded by workspace. The one exception is `plans`, a
-- small reference table of plan definitions that holds no workspace data (it would be replicated to
-- every shard).
--
-- Ids are opaque, prefixed, time-sortable strings made by the application (server/src/ids.ts),
-- never database serials. Money is stored as (amount_minor bigint, currency char(3)), never summed
-- across currencies.

CREATE TABLE plans (
  plan        text PRIMARY KEY,
  api_access  boolean NOT NULL,
  allowances  jsonb NOT NULL            -- { "emails": 50000, "contacts": 10000, ... }
);

INSERT INTO plans (plan, api_access, allowances) VALUES
  ('starter', false, '{"emails": 5000, "sms": 500, "trackedEvents": 10000, "agentRequests": 1000, "contacts": 1000}'),
  ('growth',  true,  '{"emails": 100000, "sms": 10000, "trackedEvents": 250000, "agentRequests": 50000, "contacts": 25000}'),
  ('scale',   true,  '{"emails": 1000000, "sms": 100000, "trackedEvents": 5000000, "agentRequests": 1000000, "contacts": 250000}');

CREATE TABLE workspaces (
  workspace_id        text PRIMARY KEY,
  name                text NOT NULL,
  plan                text NOT NULL REFERENCES plans (plan),
  secret_key          text NOT NULL,      -- per-workspace key for signed cursors and params digests
  agents_stopped      boolean NOT NULL DEFAULT false,
  rules_version       integer NOT NULL DEFAULT 1,
  event_seq           bigint NOT NULL DEFAULT 0,
  created_at          timestamptz NOT NULL DEFAULT now()
);

-- The stop switch's history: who stopped or resumed the workspace's agents, when and why.
CREATE TABLE agent_switch_log (
  workspace_id  text NOT NULL REFERENCES workspaces,
  id            text NOT NULL,
  action        text NOT NULL CHECK (action IN ('stop', 'resume')),
  actor         text NOT NULL,
  reason        text,
  created_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, id)
);

-- Per-workspace overrides of a plan's allowances (absent: the plan's figure applies).
CREATE TABLE allowances (
  workspace_id  text NOT NULL REFERENCES workspaces,
  name          text NOT NULL CHECK (name IN ('emails', 'sms', 'trackedEvents', 'agentRequests', 'contacts')),
  amount        bigint NOT NULL CHECK (amount >= 0),
  PRIMARY KEY (workspace_id, name)
);

-- Use of each monthly allowance, per calendar month (UTC).
CREATE TABLE usage_counters (
  workspace_id  text NOT NULL REFERENCES workspaces,
  name          text NOT NULL,
  period_start  date NOT NULL,
  used          bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (workspace_id, name, period_start)
);

-- Credentials: live and test workspace tokens, and agent credentials. Only a SHA-256 hash of the
-- token is stored. The token embeds its workspace id, so the lookup is (workspace_id, token_hash).
CREATE TABLE credentials (
  workspace_id  text NOT NULL REFERENCES workspaces,
  id            text NOT NULL,
  kind          text NOT NULL CHECK (kind IN ('live', 'test', 'agent')),
  agent_id      text,
  token_hash    text NOT NULL,
  token_hint    text NOT NULL,            -- last four characters, for people telling tokens apart
  scopes        text[] NOT NULL DEFAULT '{}',
  expires_at    timestamptz,
  revoked_at    timestamptz,
  created_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, id),
  UNIQUE (workspace_id, token_hash),
  CHECK ((kind = 'agent') = (agent_id IS NOT NULL))
);

-- Rate-limit counters: one row per credential per fixed one-hour window.
CREATE TABLE rate_limit_counters (
  workspace_id   text NOT NULL,
  credential_id  text NOT NULL,
  window_start   timestamptz NOT NULL,
  count          integer NOT NULL DEFAULT 0,
  PRIMARY KEY (workspace_id, credential_id, window_start)
);

-- Every call, counted where it was answered. workspace_id '' holds calls no credential could be
-- attributed to (unknown or missing tokens).
CREATE TABLE call_counts (
  workspace_id   text NOT NULL,
  day            date NOT NULL,
  credential_id  text NOT NULL,
  operation      text NOT NULL,
  status         integer NOT NULL,
  count          bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (workspace_id, day, credential_id, operation, status)
);

-- Idempotency records. scope is the credential mode ('live', 'test') or 'agent:<agent id>'.
CREATE TABLE idempotency_keys (
  workspace_id   text NOT NULL,
  scope          text NOT NULL,
  key            text NOT NULL,
  request_hash   text NOT NULL,
  status_code    integer NOT NULL,
  response_body  text NOT NULL,
  created_at     timestamptz NOT NULL DEFAULT now(),
  expires_at     timestamptz NOT NULL,
  PRIMARY KEY (workspace_id, scope, key)
);
CREATE INDEX idempotency_keys_expiry ON idempotency_keys (workspace_id, expires_at);

-- Growth records --------------------------------------------------------------------------------

CREATE TABLE missions (
  workspace_id    text NOT NULL REFERENCES workspaces,
  id              text NOT NULL,
  name            text NOT NULL,
  objective       text NOT NULL,
  status          text NOT NULL CHECK (status IN ('active', 'paused', 'completed')),
  metric_name     text NOT NULL,
  metric_unit     text NOT NULL,          -- 'count', 'percent', or an ISO 4217 currency code
  baseline_value  numeric NOT NULL,
  current_value   numeric NOT NULL,
  target_value    numeric NOT NULL,
  measured_at     timestamptz,
  started_at      timestamptz NOT NULL,
  due_at          timestamptz,
  created_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, id)
);
CREATE INDEX missions_by_created ON missions (workspace_id, created_at DESC, id DESC);

CREATE TABLE automations (
  workspace_id  text NOT NULL REFERENCES workspaces,
  id            text NOT NULL,
  mission_id    text NOT NULL,
  name          text NOT NULL,
  kind          text NOT NULL,
  status        text NOT NULL CHECK (status IN ('running', 'paused', 'finished')),
  created_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, id),
  FOREIGN KEY (workspace_id, mission_id) REFERENCES missions (workspace_id, id)
);
CREATE INDEX automations_by_mission ON automations (workspace_id, mission_id);

CREATE TABLE decisions (
  workspace_id      text NOT NULL REFERENCES workspaces,
  id                text NOT NULL,
  mission_id        text NOT NULL,
  author            text NOT NULL,       -- who made the call: an agent's or a person's name
  author_kind       text NOT NULL CHECK (author_kind IN ('agent', 'person')),
  title             text NOT NULL,
  rationale         text NOT NULL,
  measure           text NOT NULL,       -- the metric the prediction is about
  predicted_change  numeric NOT NULL,    -- predicted relative change, in percent
  confidence        numeric NOT NULL CHECK (confidence >= 0 AND confidence <= 1),
  status            text NOT NULL CHECK (status IN ('recorded', 'measured')),
  actual_change     numeric,
  held              boolean,             -- did the prediction come true
  measured_at       timestamptz,
  created_at        timestamptz NOT NULL,
  PRIMARY KEY (workspace_id, id),
  FOREIGN KEY (workspace_id, mission_id) REFERENCES missions (workspace_id, id)
);
CREATE INDEX decisions_newest ON decisions (workspace_id, created_at DESC, id DESC);
CREATE INDEX decisions_by_mission ON decisions (workspace_id, mission_id, created_at DESC, id DESC);

-- Findings the product raised and a person turned down (GET /outcomes reports why).
CREATE TABLE findings (
  workspace_id      text NOT NULL REFERENCES workspaces,
  id                text NOT NULL,
  title             text NOT NULL,
  status            text NOT NULL CHECK (status IN ('open', 'accepted', 'rejected')),
  rejection_reason  text,
  created_at        timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, id)
);

CREATE TABLE opportunities (
  workspace_id     text NOT NULL REFERENCES workspaces,
  id               text NOT NULL,
  title            text NOT NULL,
  detail           text NOT NULL,
  status           text NOT NULL CHECK (status IN ('open', 'actioned', 'dismissed', 'expired')),
  worth            numeric NOT NULL,     -- ordering score: higher is worth doing sooner
  estimated_impact jsonb NOT NULL DEFAULT '[]',   -- list of { amountMinor, currency }
  measured_impact  jsonb,                          -- list of { amountMinor, currency } once measured
  expires_at       timestamptz,
  created_at       timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, id)
);
CREATE INDEX opportunities_by_worth ON opportunities (workspace_id, status, worth DESC, id);

CREATE TABLE signals (
  workspace_id    text NOT NULL REFERENCES workspaces,
  id              text NOT NULL,
  kind            text NOT NULL,
  title           text NOT NULL,
  detail          text NOT NULL,
  status          text NOT NULL CHECK (status IN ('open', 'resolved', 'dismissed')),
  opportunity_id  text,
  resolved_at     timestamptz,
  created_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, id)
);
CREATE INDEX signals_by_status ON signals (workspace_id, status, created_at DESC, id DESC);

CREATE TABLE campaigns (
  workspace_id        text NOT NULL REFERENCES workspaces,
  id                  text NOT NULL,
  name                text NOT NULL,
  channel             text NOT NULL CHECK (channel IN ('email', 'sms', 'ads', 'social')),
  status              text NOT NULL CHECK (status IN ('draft', 'active', 'paused', 'finished')),
  daily_budget_minor  bigint,
  currency            char(3),
  created_at          timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, id)
);

CREATE TABLE ab_tests (
  workspace_id  text NOT NULL REFERENCES workspaces,
  id            text NOT NULL,
  campaign_id   text,
  name          text NOT NULL,
  variant_a     text NOT NULL,
  variant_b     text NOT NULL,
  status        text NOT NULL CHECK (status IN ('running', 'decided')),
  winner        text CHECK (winner IN ('a', 'b', 'none')),
  decided_at    timestamptz,
  created_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, id)
);

CREATE TABLE email_sends (
  workspace_id    text NOT NULL REFERENCES workspaces,
  id              text NOT NULL,
  campaign_id     text,
  subject         text NOT NULL,
  recipients      integer NOT NULL DEFAULT 0,
  holdout_status  text NOT NULL DEFAULT 'open' CHECK (holdout_status IN ('open', 'decided')),
  holdout_lift    numeric,             -- measured lift of the send over its hold-back, in percent
  decided_at      timestamptz,
  sent_at         timestamptz,
  created_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, id)
);

CREATE TABLE experiments (
  workspace_id  text NOT NULL REFERENCES workspaces,
  id            text NOT NULL,
  hypothesis    text NOT NULL,
  kind          text NOT NULL CHECK (kind IN ('email_ab_test', 'email_holdout', 'sms_holdout')),
  subject_id    text NOT NULL,
  expectation   text NOT NULL CHECK (expectation IN ('a_better', 'b_better', 'no_difference', 'send_adds')),
  decision_id   text,
  created_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, id)
);
CREATE INDEX experiments_newest ON experiments (workspace_id, created_at DESC, id DESC);
CREATE INDEX experiments_by_subject ON experiments (workspace_id, subject_id);

-- Measured outcomes of decisions: one row per measurement.
CREATE TABLE outcomes (
  workspace_id   text NOT NULL REFERENCES workspaces,
  id             text NOT NULL,
  decision_id    text NOT NULL,
  measure        text NOT NULL,
  predicted      numeric NOT NULL,
  actual         numeric NOT NULL,
  held           boolean NOT NULL,
  measured_at    timestamptz NOT NULL,
  created_at     timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, id)
);
CREATE INDEX outcomes_by_decision ON outcomes (workspace_id, decision_id);

CREATE TABLE approvals (
  workspace_id    text NOT NULL REFERENCES workspaces,
  id              text NOT NULL,
  kind            text NOT NULL CHECK (kind IN ('send', 'agent_request')),
  status          text NOT NULL CHECK (status IN ('pending', 'approved', 'rejected')),
  summary         text NOT NULL,
  subject_id      text,                 -- the email send or the agent request waiting
  requested_by    text NOT NULL,
  decided_by      text,
  decided_at      timestamptz,
  expires_at      timestamptz,
  used_at         timestamptz,
  created_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, id)
);
CREATE INDEX approvals_newest ON approvals (workspace_id, created_at DESC, id DESC);
CREATE INDEX approvals_by_status ON approvals (workspace_id, status, created_at DESC, id DESC);

-- Proposed changes.
CREATE TABLE actions (
  workspace_id    text NOT NULL REFERENCES workspaces,
  id              text NOT NULL,
  kind            text NOT NULL,
  args            jsonb NOT NULL,
  status          text NOT NULL CHECK (status IN ('proposed', 'approved', 'applying', 'applied', 'rejected', 'refused', 'failed')),
  planned_effect  jsonb NOT NULL,
  limits_allowed  boolean NOT NULL,
  refusal_reason  text,
  proposed_by     jsonb NOT NULL,       -- { kind: 'api' | 'agent' | 'product', id, name }
  decided_by      text,
  decided_at      timestamptz,
  outcome         jsonb,
  applied_at      timestamptz,
  created_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, id)
);
CREATE INDEX actions_newest ON actions (workspace_id, created_at DESC, id DESC);
CREATE INDEX actions_by_status ON actions (workspace_id, status, created_at DESC, id DESC);

-- The workspace's limits on changes, shared by the action planner and the agent gateway.
CREATE TABLE workspace_limits (
  workspace_id              text PRIMARY KEY REFERENCES workspaces,
  max_budget_change_percent numeric NOT NULL DEFAULT 30,
  max_discount_percent      numeric NOT NULL DEFAULT 25,
  max_send_recipients       integer NOT NULL DEFAULT 50000,
  quiet_hours_start         smallint,       -- hour of day, UTC
  quiet_hours_end           smallint
);

-- Contacts, lists and the do-not-contact list ---------------------------------------------------

CREATE TABLE contacts (
  workspace_id  text NOT NULL REFERENCES workspaces,
  id            text NOT NULL,
  email         text NOT NULL,
  email_key     text NOT NULL,          -- lower-cased address, for comparing without regard to case
  name          text,
  first_name    text,
  last_name     text,
  company       text,
  phone         text,
  tags          text[] NOT NULL DEFAULT '{}',
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, id),
  UNIQUE (workspace_id, email_key)
);

CREATE TABLE lists (
  workspace_id  text NOT NULL REFERENCES workspaces,
  id            text NOT NULL,
  name          text NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, id)
);

CREATE TABLE list_members (
  workspace_id  text NOT NULL,
  list_id       text NOT NULL,
  contact_id    text NOT NULL,
  added_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, list_id, contact_id)
);

CREATE TABLE segments (
  workspace_id  text NOT NULL REFERENCES workspaces,
  id            text NOT NULL,
  name          text NOT NULL,
  definition    jsonb NOT NULL DEFAULT '{}',
  size          integer NOT NULL DEFAULT 0,
  created_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, id)
);

CREATE TABLE do_not_contact (
  workspace_id  text NOT NULL REFERENCES workspaces,
  email_key     text NOT NULL,
  reason        text NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, email_key)
);

-- Workflows started by tracked events -------------------------------------------------------------

CREATE TABLE workflows (
  workspace_id   text NOT NULL REFERENCES workspaces,
  id             text NOT NULL,
  name           text NOT NULL,
  trigger_event  text NOT NULL,          -- lower-cased event name
  status         text NOT NULL CHECK (status IN ('active', 'paused')),
  created_at     timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, id)
);
CREATE INDEX workflows_by_trigger ON workflows (workspace_id, trigger_event, status);

CREATE TABLE workflow_runs (
  workspace_id  text NOT NULL,
  id            text NOT NULL,
  workflow_id   text NOT NULL,
  contact_id    text NOT NULL,
  event         text NOT NULL,
  properties    jsonb NOT NULL DEFAULT '{}',
  status        text NOT NULL DEFAULT 'started',
  created_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, id)
);
CREATE INDEX workflow_runs_by_workflow ON workflow_runs (workspace_id, workflow_id, created_at DESC);

-- Commerce ------------------------------------------------------------------------------------------

CREATE TABLE customers (
  workspace_id    text NOT NULL REFERENCES workspaces,
  id              text NOT NULL,
  name            text NOT NULL,
  email           text NOT NULL,
  stage           text NOT NULL CHECK (stage IN ('prospect', 'first_time', 'repeat', 'lapsed')),
  first_order_at  timestamptz,
  last_order_at   timestamptz,
  created_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, id)
);
CREATE INDEX customers_by_stage ON customers (workspace_id, stage, created_at DESC, id DESC);
CREATE INDEX customers_newest ON customers (workspace_id, created_at DESC, id DESC);

CREATE TABLE orders (
  workspace_id          text NOT NULL REFERENCES workspaces,
  id                    text NOT NULL,
  customer_id           text NOT NULL,
  amount_minor          bigint NOT NULL CHECK (amount_minor >= 0),
  currency              char(3) NOT NULL,
  attributed_channel    text,            -- the marketing channel the order is traced to, if any
  placed_at             timestamptz NOT NULL,
  created_at            timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, id)
);
CREATE INDEX orders_by_time ON orders (workspace_id, placed_at, currency);
CREATE INDEX orders_by_customer ON orders (workspace_id, customer_id);

CREATE TABLE connections (
  workspace_id       text NOT NULL REFERENCES workspaces,
  id                 text NOT NULL,
  kind               text NOT NULL CHECK (kind IN ('store', 'ad_account', 'email_platform', 'social_account')),
  provider           text NOT NULL,
  name               text NOT NULL,
  delivering         boolean NOT NULL DEFAULT true,
  failing_since      timestamptz,
  last_delivered_at  timestamptz,
  created_at         timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, id)
);

-- Events: the outbox every change writes to, in the same transaction as the change. seq is
-- assigned from workspaces.event_seq under that row's lock, so it follows commit order.
CREATE TABLE events (
  workspace_id  text NOT NULL REFERENCES workspaces,
  seq           bigint NOT NULL,
  id            text NOT NULL,
  type          text NOT NULL,
  data          jsonb NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, seq),
  UNIQUE (workspace_id, id)
);
CREATE INDEX events_by_type ON events (workspace_id, type, seq);

-- Agents and the gateway ------------------------------------------------------------------------

CREATE TABLE agents (
  workspace_id   text NOT NULL REFERENCES workspaces,
  id             text NOT NULL,
  name           text NOT NULL,
  owner          text NOT NULL CHECK (owner IN ('product', 'workspace')),
  description    text,
  ceilings       jsonb NOT NULL DEFAULT '{}',   -- { amounts: [{amountMinor, currency}], amountPercent, recipients, records }
  last_acted_at  timestamptz,
  created_at     timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, id)
);

CREATE TABLE tools (
  workspace_id  text NOT NULL REFERENCES workspaces,
  key           text NOT NULL,
  name          text NOT NULL,
  description   text NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, key)
);

CREATE TABLE tool_actions (
  workspace_id  text NOT NULL,
  tool_key      text NOT NULL,
  key           text NOT NULL,
  name          text NOT NULL,
  risk          text NOT NULL CHECK (risk IN ('low', 'medium', 'high')),
  data_used     text[] NOT NULL DEFAULT '{}',
  reversible    boolean NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, tool_key, key),
  FOREIGN KEY (workspace_id, tool_key) REFERENCES tools (workspace_id, key)
);

CREATE TABLE agent_permissions (
  workspace_id  text NOT NULL,
  agent_id      text NOT NULL,
  tool_key      text NOT NULL,
  action_key    text NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, agent_id, tool_key, action_key),
  FOREIGN KEY (workspace_id, agent_id) REFERENCES agents (workspace_id, id)
);

CREATE TABLE rules (
  workspace_id  text NOT NULL REFERENCES workspaces,
  id            text NOT NULL,
  structure     jsonb NOT NULL,          -- the rule as data; its sentence is rendered from this
  effect        text NOT NULL CHECK (effect IN ('deny', 'require_approval')),
  enabled       boolean NOT NULL DEFAULT true,
  created_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, id)
);

CREATE TABLE agent_requests (
  workspace_id    text NOT NULL REFERENCES workspaces,
  id              text NOT NULL,
  agent_id        text NOT NULL,
  tool            text NOT NULL,
  action          text NOT NULL,
  resource        text,
  summary         text,
  facts           jsonb NOT NULL DEFAULT '{}',
  params_digest   text,
  decision        text NOT NULL CHECK (decision IN ('allowed', 'denied', 'requires_approval')),
  reason          text NOT NULL,
  checks          jsonb NOT NULL,
  rules           jsonb NOT NULL DEFAULT '[]',
  rules_version   integer NOT NULL,
  approval_id     text,
  expires_at      timestamptz,
  created_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, id)
);
CREATE INDEX agent_requests_newest ON agent_requests (workspace_id, created_at DESC, id DESC);
CREATE INDEX agent_requests_by_agent ON agent_requests (workspace_id, agent_id, created_at DESC, id DESC);

CREATE TABLE agent_results (
  workspace_id      text NOT NULL REFERENCES workspaces,
  id                text NOT NULL,
  authorization_id  text NOT NULL,
  agent_id          text NOT NULL,
  status            text NOT NULL CHECK (status IN ('completed', 'failed', 'cancelled')),
  summary           text,
  error             text,
  verified          boolean NOT NULL DEFAULT false,
  created_at        timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, id),
  UNIQUE (workspace_id, authorization_id)
);

-- Webhooks ----------------------------------------------------------------------------------------

CREATE TABLE webhook_endpoints (
  workspace_id          text NOT NULL REFERENCES workspaces,
  id                    text NOT NULL,
  url                   text NOT NULL,
  events                text[] NOT NULL,
  secrets               jsonb NOT NULL,    -- [{ secret, createdAt, expiresAt }], newest first
  status                text NOT NULL DEFAULT 'enabled' CHECK (status IN ('enabled', 'disabled')),
  disabled_reason       text,
  consecutive_failures  integer NOT NULL DEFAULT 0,
  circuit_open_until    timestamptz,
  circuit_cooldown_s    integer NOT NULL DEFAULT 0,
  last_success_at       timestamptz,
  created_at            timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, id)
);

CREATE TABLE webhook_deliveries (
  workspace_id     text NOT NULL,
  id               text NOT NULL,
  endpoint_id      text NOT NULL,
  event_id         text NOT NULL,
  status           text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
  attempts         integer NOT NULL DEFAULT 0,
  next_attempt_at  timestamptz,
  locked_until     timestamptz,
  created_at       timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, id),
  UNIQUE (workspace_id, endpoint_id, event_id)
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (workspace_id, status, next_attempt_at);

CREATE TABLE webhook_attempts (
  workspace_id   text NOT NULL,
  delivery_id    text NOT NULL,
  attempt        integer NOT NULL,
  url            text NOT NULL,
  status_code    integer,
  error          text,
  duration_ms    integer,
  created_at     timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, delivery_id, attempt)
);
