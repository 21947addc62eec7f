import type { Db } from '../core/db.ts'
import type { GatewayDecision } from '../core/enums.ts'
import { NotFoundError } from '../core/errors.ts'
import { formatCountOf, formatMoney } from '../core/money.ts'
import type { Facts } from '../schemas/agent-gateway.ts'
import { type HistoryRow, requestHistory, selectAllowedTimes } from '../store/agent-request-history.ts'
import { selectWorkspaceLimits } from '../store/limits.ts'
import { selectWorkspaceGate } from '../store/workspaces.ts'
import { decisionOf } from './agent-decision.ts'
import { type DecisionAsk, decisionInputOf } from './agent-decision-input.ts'
import { countWithin, HistoryCounts } from './agent-policy-counts.ts'
import type { ResolvedPolicy } from './agent-policy-model.ts'
import { policyViews, type PolicyViews } from './agent-policy-views.ts'
import { type CountCondition, countHolds, isCount, windowMs } from './agent-rules.ts'
import { wordsOf } from './agent-tools.ts'

/**
 * The backtest of a planned policy (CONTRACT: Agent policy, `growth admin policy plan`): every agent
 * request recorded in the window decided again, by the gateway's own decision function (its judging
 * alone, `decisionOf`: the sentences are not kept), under the policy in force and under the planned
 * one; each whose decision would change, listed.
 *
 * Each request is decided as the gateway would have decided it when it arrived (its own createdAt):
 * the facts it stated, the workspace's limits of today, the agents running (the stop switch is not
 * policy: a backtest asks what the policy would decide), no approval (a backtest asks what the
 * policy decides, not what a person did), and count conditions counted on the recorded history
 * (agent-policy-counts.ts). A request of an agent the workspace no longer has cannot be decided: it
 * is counted (`undecidable`), not listed.
 */
type BacktestChange = {
  authorizationId: string
  agentId: string
  agentName: string
  tool: string
  action: string
  createdAt: string
  before: GatewayDecision
  after: GatewayDecision
  sentence: string
}

/** Requests, changed, undecidable, and per transition ("allowed->requires_approval") how many. */
type Tally = { requests: number; changed: number; undecidable: number; [transition: string]: number }

export type Backtest = {
  since: string
  requests: number
  /** Requests of agents the workspace no longer has: counted in `requests`, not decided. */
  undecidable: number
  changed: BacktestChange[]
  /** By agent name (name and id when two agents share a name; the id for an agent no longer there). */
  byAgent: Record<string, Tally>
  /** By `tool.action`. */
  byToolAction: Record<string, Tally>
  /** How many times the decision function ran (each distinct input once, under each policy). */
  decided: number
}

export async function backtestPolicy(db: Db, workspaceId: string, policies: { current: ResolvedPolicy; planned: ResolvedPolicy }, window: { since: Date; at: Date }): Promise<Backtest> {
  const [gate, limits] = await Promise.all([selectWorkspaceGate(db, workspaceId), selectWorkspaceLimits(db, workspaceId)])
  if (!gate || !limits) throw new NotFoundError('workspace', workspaceId)
  const counts = new HistoryCounts()
  // The stop switch is not policy: both are judged with the agents running.
  const running = { ...gate, agents_stopped: false, stopped_at: null, stopped_by: null, stopped_reason: null }
  const quietHours = limits.quiet_hours_start !== null && limits.quiet_hours_end !== null
  const currentViews = policyViews(policies.current, { gate: running, limits, counts })
  const plannedViews = policyViews(policies.planned, { gate: { ...running, rules_version: gate.rules_version + 1 }, limits, counts })
  const current = deciderOf(db, workspaceId, currentViews, quietHours)
  const planned = deciderOf(db, workspaceId, plannedViews, quietHours)
  // A request whose view is the same under both policies (its agent's grant, its tool action and the
  // rules that could match it) is decided alike under both: decided once. A plan changes a few
  // tool actions or agents; the rest of the history is decided once, not twice.
  const sameAgents = sameGrants(policies.current, policies.planned)
  const sameMissing = policies.current.missingFacts === policies.planned.missingFacts

  // A count condition looks back from the first request too: the allowed requests of its window before the backtest's.
  const lookBack = Math.max(0, ...[policies.current, policies.planned].flatMap((p) => p.rules.flatMap((r) => r.structure.when.filter(isCount).map((c) => windowMs(c.window) ?? 0))))
  if (lookBack) {
    for (const r of await selectAllowedTimes(db, workspaceId, { since: new Date(window.since.getTime() - lookBack), until: window.since })) {
      counts.add(r.agent_id, r.tool, r.action, r.created_at.getTime())
    }
  }

  const names = agentNames(policies.current, policies.planned)
  const decidable = new Set(policies.current.agents.map((a) => a.id).filter((id) => policies.planned.agents.some((a) => a.id === id)))
  const out: Backtest = { since: window.since.toISOString(), requests: 0, undecidable: 0, changed: [], byAgent: {}, byToolAction: {}, decided: 0 }
  // What a request needs besides its own row, made once per agent, tool action, and agent and tool
  // action, and found through maps within maps (agent, tool, action: no key string made per request).
  const agents = new Map<string, AgentPart>()
  const agentOf = (id: string): AgentPart =>
    getOrMake(agents, id, () => {
      const name = names.get(id) ?? id
      return { name, tally: (out.byAgent[name] ??= tally()), decidable: decidable.has(id), sameGrant: sameAgents.has(id) }
    })
  // Per tool action: its tally, and whether the two policies view it alike (their digests, compared once).
  const actions = new Map<string, Map<string, ActionPart>>()
  const actionOf = (tool: string, action: string): ActionPart => {
    const ofTool = getOrMake(actions, tool, newMap)
    let a = ofTool.get(action)
    if (!a) {
      const alike = currentViews.actionDigest(tool, action) === plannedViews.actionDigest(tool, action)
      ofTool.set(action, (a = { tally: (out.byToolAction[`${tool}.${action}`] ??= tally()), alike }))
    }
    return a
  }
  const cells = new Map<string, Map<string, Map<string, Cell>>>()
  const cellOf = (agentId: string, tool: string, action: string): Cell => {
    const ofAction = getOrMake(getOrMake(cells, agentId, newMap), tool, newMap)
    let cell = ofAction.get(action)
    if (!cell) {
      const agent = agentOf(agentId)
      const toolAction = actionOf(tool, action)
      const same = sameMissing && toolAction.alike && agent.sameGrant
      cell = { agent, tally: toolAction.tally, times: counts.timesOf(agentId, tool, action), current: current.nodeOf(tool, action), planned: same ? null : planned.nodeOf(tool, action) }
      ofAction.set(action, cell)
    }
    return cell
  }
  for await (const rows of requestHistory(db, workspaceId, { since: window.since, until: window.at })) {
    for (const row of rows) {
      const cell = cellOf(row.agent_id, row.tool, row.action)
      const byAgent = cell.agent.tally
      const byToolAction = cell.tally
      out.requests++
      byAgent.requests++
      byToolAction.requests++
      if (!cell.agent.decidable) {
        out.undecidable++
        byAgent.undecidable++
        byToolAction.undecidable++
        continue
      }
      const at = row.created_at
      // The facts' text keys the decisions (with the facts it was judged on, params read as facts,
      // which stand in for its params, kept only as a digest); they are parsed only for an ask not decided yet.
      const factsKey = row.judged_facts === null ? row.facts : `${row.facts}\u0002${row.judged_facts}`
      // A decision already made is answered at once, not through a promise (most are: see deciderOf).
      const b = current.decision(cell.current, cell.times, row, at, factsKey)
      const before = typeof b === 'string' ? b : await b
      const a = cell.planned ? planned.decision(cell.planned, cell.times, row, at, factsKey) : before
      const after = typeof a === 'string' ? a : await a
      // Counted after it is decided: a count is of the requests allowed before this one, as recorded.
      if (row.decision === 'allowed') cell.times.push(at.getTime())
      if (before === after) continue
      const transition = `${before}->${after}`
      out.changed.push({
        authorizationId: row.id, agentId: row.agent_id, agentName: cell.agent.name, tool: row.tool, action: row.action, createdAt: at.toISOString(), before, after,
        sentence: changeSentence(cell.agent.name, row.tool, row.action, JSON.parse(row.facts) as Facts, at, before, after),
      })
      for (const t of [byAgent, byToolAction]) {
        t.changed++
        t[transition] = (t[transition] ?? 0) + 1
      }
    }
  }
  out.decided = current.distinct + planned.distinct
  return out
}

const tally = (): Tally => ({ requests: 0, changed: 0, undecidable: 0 })

/** An agent as the backtest's loop needs it: its name in the tallies, its tally, whether it can be decided, whether its grant is the same under both policies. */
type AgentPart = { name: string; tally: Tally; decidable: boolean; sameGrant: boolean }
type ActionPart = { tally: Tally; alike: boolean }
/**
 * An agent's tool action: its tallies, the times of its allowed requests (HistoryCounts' own list,
 * pushed to as the history is read), and its decisions under each policy (`planned` null when the
 * two policies view it alike: decided once, under the policy in force).
 */
type Cell = { agent: AgentPart; tally: Tally; times: number[]; current: DecisionNode; planned: DecisionNode | null }

/**
 * An agent's tool action under one policy: the count conditions of the rules that could match it,
 * and the decisions made, by facts, which of those conditions hold, and the hour.
 */
type DecisionNode = { conditions: readonly CountCondition[]; decided: KeyTree }

/** What the backtest reads of a recorded request to decide it (store/agent-request-history.ts). */
type Recorded = Pick<HistoryRow, 'agent_id' | 'tool' | 'action' | 'facts' | 'judged_facts'>

/**
 * `factsKey`: the recorded facts' text (and the judged facts'); `times`: the agent's allowed
 * requests of the tool action (the counts of its count conditions).
 */
type Decider = {
  nodeOf(tool: string, action: string): DecisionNode
  decision(node: DecisionNode, times: number[], recorded: Recorded, at: Date, factsKey: string): GatewayDecision | Promise<GatewayDecision>
  distinct: number
}

/**
 * Deciding under one policy, each distinct input once. A decision is a pure function of its input,
 * and the input of a recorded request is a function of the policy's view (agent-policy-views.ts:
 * one per agent and tool action, with the counts of its count conditions), the stated facts, and
 * the time, which decide reads only to place a send in the workspace's quiet hours (whole UTC
 * hours; the stop switch, which also carries a time, is off here). A count is read only through
 * the count conditions of the rules that could match (judgeRule compares it, nothing more), so
 * what a decision depends on is whether each of those holds, not the count itself. Requests that
 * agree on all of these are decided once: a history repeats its asks, and the gateway's code
 * (decisionInputOf, decide) then runs once per distinct ask instead of once per request.
 */
function deciderOf(db: Db, workspaceId: string, views: PolicyViews, quietHours: boolean): Decider {
  let distinct = 0
  return {
    get distinct() {
      return distinct
    },
    nodeOf(tool, action) {
      return { conditions: views.countConditionsOf(tool, action), decided: new Map() }
    },
    decision(node, times, recorded, at, factsKey) {
      // The facts, whether each count condition holds, the hour: maps within maps, so no key string
      // is built (and hashed) per request from them.
      // The last part keys the decision itself (an ask whose decision reads no count and no hour: its facts).
      let n = node.decided
      let part: string | boolean | number = factsKey
      for (const c of node.conditions) {
        n = branch(n, part)
        part = countHolds(c, countWithin(times, c.window, at.getTime()))
      }
      if (quietHours) {
        n = branch(n, part)
        part = at.getUTCHours()
      }
      const known = n.get(part)
      if (known !== undefined) return known as GatewayDecision
      const leaf = n
      const last = part
      // Not decided yet: the ask, the view (it counts again, in HistoryCounts, the same list) and the gateway's own decision.
      const ask: DecisionAsk = {
        agentId: recorded.agent_id,
        tool: recorded.tool,
        action: recorded.action,
        facts: JSON.parse(recorded.facts) as Facts,
        judgedFacts: recorded.judged_facts === null ? undefined : (JSON.parse(recorded.judged_facts) as Facts),
      }
      return decisionInputOf(db, workspaceId, views.viewOf(ask, at), ask, at).then((input) => {
        const decided = decisionOf({ ...input, prior: null })
        leaf.set(last, decided)
        distinct++
        return decided
      })
    },
  }
}

/** A level of deciderOf's maps: a key part (facts as text, whether a count condition holds, an hour) to the next level, or at the last to the decision. */
type KeyTree = Map<string | number | boolean, KeyTree | GatewayDecision>

function branch(node: KeyTree, key: string | number | boolean): KeyTree {
  return getOrMake(node, key, newMap) as KeyTree
}

/** `map.get(key)`, made by `make` and kept the first time it is asked for. */
function getOrMake<K, V>(map: Map<K, V>, key: K, make: () => NoInfer<V>): V {
  let v = map.get(key)
  if (v === undefined) map.set(key, (v = make()))
  return v
}

const newMap = <K, V>() => new Map<K, V>()

/** The agents whose grant (permissions, data, ceilings, risk) is the same under both policies. */
function sameGrants(a: ResolvedPolicy, b: ResolvedPolicy): Set<string> {
  const grant = (g: ResolvedPolicy['agents'][number]) =>
    JSON.stringify([g.name, g.ceilings, [...g.data_access].sort(), g.max_unattended_risk, g.permissions.map((p) => `${p.tool}.${p.action}`).sort()])
  const before = new Map(a.agents.map((g) => [g.id, grant(g)]))
  return new Set(b.agents.filter((g) => before.get(g.id) === grant(g)).map((g) => g.id))
}

/** Each agent's name as the tallies key it: the name, or the name and id when two agents share it. */
function agentNames(...policies: ResolvedPolicy[]): Map<string, string> {
  const agents = new Map(policies.flatMap((p) => p.agents.map((a) => [a.id, a.name] as const)))
  const seen = new Map<string, number>()
  for (const name of agents.values()) seen.set(name, (seen.get(name) ?? 0) + 1)
  return new Map([...agents].map(([id, name]) => [id, seen.get(name)! > 1 ? `${name} (${id})` : name]))
}

const OUTCOME: Record<GatewayDecision, { would: string; instead: string }> = {
  allowed: { would: 'would be allowed', instead: 'being allowed' },
  denied: { would: 'would be denied', instead: 'being denied' },
  requires_approval: { would: 'would need a person', instead: 'needing a person' },
}

/**
 * A changed decision as a person reads it: "Budget Pacer's request to raise a daily budget by 17%
 * on 2026-11-20 14:02 UTC would need a person instead of being allowed."
 */
function changeSentence(agentName: string, tool: string, action: string, f: Facts, at: Date, before: GatewayDecision, after: GatewayDecision): string {
  return `${agentName}'s request to ${askWords(tool, action, f)} on ${at.toISOString().slice(0, 16).replace('T', ' ')} UTC ${OUTCOME[after].would} instead of ${OUTCOME[before].instead}.`
}

/** What was asked, in words: "raise a daily budget by 17%", "send an email campaign to 16,900 recipients". */
function askWords(tool: string, action: string, f: Facts): string {
  const w = wordsOf(tool, action)
  const directed = f.increase === true ? w.raises : f.increase === false ? w.lowers : undefined
  const verb = directed ? directed.replace(/^raises/, 'raise').replace(/^lowers/, 'lower') : w.verb
  const parts: string[] = []
  if (f.amountPercent !== undefined) parts.push(`${w.percentWord ?? 'of'} ${f.amountPercent}%`)
  if (f.amountMinor !== undefined && f.currency) parts.push(`${parts.length ? 'to ' : 'for '}${formatMoney({ amountMinor: f.amountMinor, currency: f.currency })}`)
  if (f.recipients !== undefined) parts.push(`to ${formatCountOf(f.recipients, 'recipient', 'recipients')}`)
  if (f.records !== undefined) parts.push(`affecting ${formatCountOf(f.records, 'record', 'records')}`)
  return [verb, ...parts].join(' ')
}
