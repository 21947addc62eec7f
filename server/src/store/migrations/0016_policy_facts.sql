-- A rule's count condition ("count allowed in 24h >= 5") reads how often the agent was already
-- allowed the asked tool action within a window: the gateway's view (store/agent-gateway.ts) counts
-- them by this index, newest first, and stops one past the largest figure a condition compares the
-- count with, so the read costs no more than the rule's own figures, whatever the history holds.
CREATE INDEX agent_requests_allowed ON agent_requests (workspace_id, agent_id, tool, action, created_at DESC)
  WHERE decision = 'allowed';

-- The facts a decision was judged on when they differ from those the agent stated (`facts`): the
-- stated facts merged with those read from the action's params (domain/agent-param-facts.ts), which
-- are themselves never kept. NULL when equal to `facts`, and for requests recorded before. The
-- backtest decides a recorded request again on COALESCE(judged_facts, facts), stated: facts.
ALTER TABLE agent_requests ADD COLUMN judged_facts jsonb;
