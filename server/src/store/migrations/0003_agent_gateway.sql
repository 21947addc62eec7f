-- The agent gateway: what data each agent may use, the highest risk it may take without a person,
-- the record of refused results, the catalogue's new tools, and rules as structure with lists of
-- tools and actions and several conditions.

-- The data an agent may use (the gateway's `data` check) and the highest risk it may take without
-- a person (the `risk` check; above it a request needs an approval).
ALTER TABLE agents ADD COLUMN data_access text[] NOT NULL DEFAULT '{}';
ALTER TABLE agents ADD COLUMN max_unattended_risk text NOT NULL DEFAULT 'medium'
  CHECK (max_unattended_risk IN ('low', 'medium', 'high'));

-- The catalogue grew: SMS, reporting, ending a discount; ad spend is named as such.
INSERT INTO tools (workspace_id, key, name, description)
SELECT w.workspace_id, t.key, t.name, t.description
FROM workspaces w CROSS JOIN (VALUES
  ('sms', 'SMS', 'Text messages to contacts who agreed to receive them.'),
  ('reporting', 'Reporting', 'Revenue and customer reports from the order ledger.')
) AS t (key, name, description)
ON CONFLICT DO NOTHING;

INSERT INTO tool_actions (workspace_id, tool_key, key, name, risk, data_used, reversible)
SELECT w.workspace_id, a.tool_key, a.key, a.name, a.risk, a.data_used, a.reversible
FROM workspaces w CROSS JOIN (VALUES
  ('sms', 'send_message', 'Send an SMS message', 'high', ARRAY['contacts', 'segments'], false),
  ('discounts', 'end_discount', 'End a discount code', 'low', ARRAY['discounts'], true),
  ('reporting', 'read_revenue', 'Read revenue', 'low', ARRAY['revenue'], true),
  ('reporting', 'read_customer_spend', 'Read customer spend', 'medium', ARRAY['customer_spend', 'personal_data'], true)
) AS a (tool_key, key, name, risk, data_used, reversible)
ON CONFLICT DO NOTHING;

UPDATE tool_actions SET data_used = CASE key
    WHEN 'read_performance' THEN ARRAY['campaigns', 'ad_spend']
    WHEN 'adjust_budget' THEN ARRAY['campaigns', 'ad_spend']
    WHEN 'draft_campaign' THEN ARRAY['templates', 'segments']
    WHEN 'send_campaign' THEN ARRAY['contacts', 'segments', 'templates']
    WHEN 'create_discount' THEN ARRAY['products', 'discounts']
  END
WHERE key IN ('read_performance', 'adjust_budget', 'draft_campaign', 'send_campaign', 'create_discount')
  AND tool_key IN ('ads', 'email', 'discounts');

-- Agents registered before: they may use the data of the actions they are permitted.
UPDATE agents ag SET data_access = COALESCE((
  SELECT array_agg(DISTINCT d ORDER BY d)
  FROM agent_permissions p
  JOIN tool_actions t ON t.workspace_id = p.workspace_id AND t.tool_key = p.tool_key AND t.key = p.action_key
  CROSS JOIN LATERAL unnest(t.data_used) AS d
  WHERE p.workspace_id = ag.workspace_id AND p.agent_id = ag.id), '{}');

-- Rules as structure: { match: [{ tool, action? }], when: [{ fact, op, value, currency? }] }.
-- The first shape ({ tool, action, when: {...} }) becomes one match and one condition.
UPDATE rules SET structure = jsonb_build_object(
    'match', jsonb_build_array(jsonb_build_object('tool', structure -> 'tool', 'action', structure -> 'action')),
    'when', CASE WHEN structure ? 'when' THEN jsonb_build_array(structure -> 'when') ELSE '[]'::jsonb END)
WHERE structure ? 'tool';

-- Agent requests listed by decision (GET /agents/requests?status=...), newest first.
CREATE INDEX agent_requests_by_decision ON agent_requests (workspace_id, decision, created_at DESC, id DESC);
-- Approvals waiting on, or given for, an agent request: found again by the request's agent.
CREATE INDEX agent_requests_with_approval ON agent_requests (workspace_id, agent_id, tool, action)
  WHERE approval_id IS NOT NULL;

-- Results the gateway refused (not allowed, already reported, expired): kept for the record, apart
-- from agent_results, which holds only accepted results (at most one per authorization).
CREATE TABLE agent_result_refusals (
  workspace_id      text NOT NULL REFERENCES workspaces,
  id                text NOT NULL,
  authorization_id  text NOT NULL,
  agent_id          text NOT NULL,
  status            text NOT NULL,
  summary           text,
  error             text,
  reason            text NOT NULL,
  created_at        timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, id)
);
CREATE INDEX agent_result_refusals_by_authorization ON agent_result_refusals (workspace_id, authorization_id);
