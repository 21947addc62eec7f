import type { GatewayView } from '../store/agent-gateway.ts'
import type { RuleRow } from '../store/agent-rules.ts'
import type { WorkspaceLimitsRow } from '../store/limits.ts'
import type { DecisionAsk } from './agent-decision-input.ts'
import type { PolicyAgentGrant, ResolvedPolicy } from './agent-policy-model.ts'
import { type CountCondition, isCount } from './agent-rules.ts'

/**
 * The gateway's view (store/agent-gateway.ts GatewayView) of a policy held in memory: what a request
 * would be judged against under a policy that is not (or not yet) in force, made without reading
 * the database. The backtest decides every recorded request under two of them, and `policy test`
 * its cases under a document, by the same decisionInputOf and decide as the gateway; so this file
 * has to make, for every ask, the view the gateway's SQL (viewsOf) would read if the policy were
 * in force. test/server/agent-policy-views.test.ts proves it over the demo workspace.
 *
 * Everything that does not depend on the request's time is made once per tool action and kept, so
 * a view costs two map lookups, plus one count per count condition's window when a rule of the
 * tool action counts.
 */

/** How often an agent was already allowed a tool action within a window ending at `at` (a count condition's). */
export type AllowedCounts = { allowedWithin(agentId: string, tool: string, action: string, window: string, at: Date): number }

type PolicyViewContext = {
  /** The stop switch and rules version the views carry (rules in force and missing facts come from the policy). */
  gate: Omit<GatewayView['gate'], 'rules_in_force' | 'missing_facts'>
  limits: WorkspaceLimitsRow
  counts: AllowedCounts
}

export type PolicyViews = {
  viewOf(ask: DecisionAsk, at: Date): GatewayView
  /**
   * What a decision of this tool action reads of the policy, whatever the agent, as text: the tool
   * and action, and the rules that could match (their structure and effect, in order). Two
   * policies giving the same text (and the same agent, and missingFacts) decide its requests alike.
   */
  actionDigest(tool: string, action: string): string
  /**
   * The count conditions of the rules that could match this tool action (each alike once): a
   * decision of it reads the counts only through them (judgeRule compares a count, nothing more).
   */
  countConditionsOf(tool: string, action: string): readonly CountCondition[]
}

/** What a view of one tool action holds, whatever the agent and time. */
type ActionPart = {
  tool: GatewayView['tool']
  rules: RuleRow[]
  toolNames: Record<string, string>
  agentNames: Record<string, string>
  windows: string[]
  digest?: string
  countConditions: CountCondition[]
}

const NONE: Record<string, number> = Object.freeze({}) as Record<string, number>
/** Rules of a policy carry no creation time; their order is the policy's (oldest first for the policy in force). */
const UNDATED = new Date(0)

export function policyViews(policy: ResolvedPolicy, ctx: PolicyViewContext): PolicyViews {
  const tools = new Map(policy.tools.map((t) => [t.key, t]))
  const agents = new Map<string, PolicyAgentGrant>(policy.agents.map((a) => [a.id, a]))
  const toolKeys = policy.tools.map((t) => t.key)
  const gate = { ...ctx.gate, rules_in_force: policy.rules.length, missing_facts: policy.missingFacts }

  // The rules by what they name: `tool|action`, and `tool|` for a rule naming every action of a tool
  // (rule_matches, in SQL). A rule without an id (new in a document) is named by its place.
  const byMatch = new Map<string, { at: number; row: RuleRow }[]>()
  policy.rules.forEach((r, at) => {
    const row: RuleRow = { id: r.id ?? `new rule ${at + 1}`, structure: r.structure, effect: r.effect, created_at: UNDATED }
    for (const key of new Set(r.structure.match.map((m) => `${m.tool}|${m.action ?? ''}`))) {
      let list = byMatch.get(key)
      if (!list) byMatch.set(key, (list = []))
      list.push({ at, row })
    }
  })

  // By tool, then action: found without making a key string per request.
  const parts = new Map<string, Map<string, ActionPart>>()
  function partOf(tool: string, action: string): ActionPart {
    let ofTool = parts.get(tool)
    if (!ofTool) parts.set(tool, (ofTool = new Map()))
    let part = ofTool.get(action)
    if (part) return part
    const key = `${tool}|${action}`
    const matched = new Map<number, RuleRow>()
    for (const m of [...(byMatch.get(key) ?? []), ...(byMatch.get(`${tool}|`) ?? [])]) matched.set(m.at, m.row)
    const rules = [...matched.entries()].sort((a, b) => a[0] - b[0]).map(([, row]) => row)
    const toolNames: Record<string, string> = {}
    const agentNames: Record<string, string> = {}
    const countConditions = new Map<string, CountCondition>()
    for (const r of policy.rules.filter((_, i) => matched.has(i))) {
      for (const m of r.structure.match) {
        const named = tools.get(m.tool)
        if (!named) continue
        // Tools by key, actions by 'tool.action': the names the rule's sentence uses (as the gateway's view holds them).
        if (m.action === undefined) toolNames[m.tool] = named.name
        else {
          const a = named.actions.find((x) => x.key === m.action)
          if (a) toolNames[`${m.tool}.${m.action}`] = a.name
        }
      }
      for (const id of r.structure.agents ?? []) {
        const named = agents.get(id)
        if (named) agentNames[id] = named.name
      }
      for (const c of r.structure.when) if (isCount(c)) countConditions.set(`${c.window} ${c.op} ${c.value}`, c)
    }
    const t = tools.get(tool)
    const def = t?.actions.find((a) => a.key === action) ?? null
    part = {
      tool: t ? { key: t.key, name: t.name, action: def, actionKeys: def ? null : t.actions.map((a) => a.key) } : null,
      rules,
      toolNames,
      agentNames,
      windows: [...new Set([...countConditions.values()].map((c) => c.window))],
      countConditions: [...countConditions.values()],
    }
    ofTool.set(action, part)
    return part
  }

  return {
    actionDigest(tool, action) {
      const part = partOf(tool, action)
      part.digest ??= JSON.stringify([part.tool, part.rules.map((r) => [r.structure, r.effect])])
      return part.digest
    },
    countConditionsOf(tool, action) {
      return partOf(tool, action).countConditions
    },
    viewOf(ask, at) {
      const part = partOf(ask.tool, ask.action)
      let allowedCounts = NONE
      if (part.windows.length) {
        allowedCounts = {}
        for (const w of part.windows) allowedCounts[w] = ctx.counts.allowedWithin(ask.agentId, ask.tool, ask.action, w, at)
      }
      return {
        gate,
        agent: agents.get(ask.agentId) ?? null,
        tool: part.tool,
        limits: ctx.limits,
        rules: part.rules,
        toolNames: part.toolNames,
        agentNames: part.agentNames,
        allowedCounts,
        toolKeys,
      }
    },
  }
}
