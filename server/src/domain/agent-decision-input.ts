import type { Db } from '../core/db.ts'
import type { Facts } from '../schemas/agent-gateway.ts'
import type { GatewayView } from '../store/agent-gateway.ts'
import { selectToolKeys } from '../store/agent-tools.ts'
import type { ActionDef, DecisionInput } from './agent-decision.ts'
import { judgedFactsOf } from './agent-param-facts.ts'
import { rulesInForce } from './agent-rules.ts'
import { toProfile } from './agents.ts'
import { toWorkspaceLimits } from './limits.ts'

/**
 * What a request asks, as a decision reads it: the tool action, the facts stated and the params
 * (read for the facts they imply, agent-param-facts.ts; a recorded request has none, its judged
 * facts stand in `judgedFacts`).
 */
export type DecisionAsk = { agentId: string; tool: string; action: string; facts: Facts; params?: Record<string, unknown>; judgedFacts?: Facts }

/**
 * What `decide` (agent-decision.ts) judges one request on, made from the view it is judged against
 * (store/agent-gateway.ts, selectGatewayView): the gateway's live decisions (agent-gateway.ts) and
 * `growth admin policy test` (agent-policy-test.ts) both call this, then the same `decide`, so they
 * cannot disagree. Everything but the prior approval, which only the gateway reads (and only when a
 * check needs a person). Reads nothing but, for the refusal of a tool the workspace has not, its
 * tool keys.
 */
/**
 * What a view's agent and rules become for a decision, kept per view object: a view decided again
 * (a kept view of the gateway, a policy in memory in the backtest and `policy test`) makes its
 * agent's profile and its rules' sentences once, not once per decision. Views are never changed
 * once made, so what is kept for one stays true of it.
 */
const profiles = new WeakMap<object, ReturnType<typeof toProfile>>()
const ruleLists = new WeakMap<object, ReturnType<typeof rulesInForce>>()

function profileOf(agent: NonNullable<GatewayView['agent']>) {
  let p = profiles.get(agent)
  if (!p) profiles.set(agent, (p = toProfile(agent)))
  return p
}

function rulesOf(view: GatewayView) {
  let r = ruleLists.get(view.rules)
  if (!r) ruleLists.set(view.rules, (r = rulesInForce(view.rules, view.toolNames, view.agentNames)))
  return r
}

export async function decisionInputOf(db: Db, workspaceId: string, view: GatewayView, ask: DecisionAsk, at: Date): Promise<Omit<DecisionInput, 'prior'>> {
  if (!view.agent) throw new Error(`agent ${ask.agentId} is missing from the view it is judged against`)
  if (!view.limits) throw new Error(`workspace ${workspaceId} has no limits row`)
  const { gate, tool } = view
  const actionDef: ActionDef | null = tool?.action ? { tool: tool.key, ...tool.action } : null
  return {
    agent: profileOf(view.agent),
    stopped: gate.agents_stopped ? { at: gate.stopped_at, by: gate.stopped_by, reason: gate.stopped_reason } : null,
    tool: ask.tool,
    action: ask.action,
    toolActions: tool ? (tool.actionKeys ?? []) : null,
    // Named only in the refusal of a tool the workspace has not, so read only then.
    toolKeys: tool ? [] : (view.toolKeys ?? (await selectToolKeys(db, workspaceId))),
    actionDef,
    facts: ask.judgedFacts ?? judgedFactsOf(ask.tool, ask.action, ask.facts, ask.params),
    stated: ask.facts,
    missingFacts: gate.missing_facts,
    allowedCounts: view.allowedCounts,
    rules: rulesOf(view),
    rulesInForce: gate.rules_in_force,
    rulesVersion: gate.rules_version,
    limits: toWorkspaceLimits(view.limits),
    at,
  }
}
