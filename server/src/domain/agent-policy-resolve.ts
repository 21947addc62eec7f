import type { AgentPolicy } from '../schemas/agent-policy.ts'
import type { DocumentPath } from './document-fields.ts'
import type { DocumentError } from './document-text.ts'
import { agentNamed, type PolicyAgentGrant, type PolicyRuleModel, type PolicyTool, type ResolvedPolicy } from './agent-policy-model.ts'
import { ruleConflicts } from './agent-policy-rule-checks.ts'
import type { Condition, RuleStructure } from './agent-rules.ts'

/**
 * A policy document (already read against the schema) resolved against its workspace: agents named
 * by id or name become ids, rules become the structures the gateway judges, and everything the
 * schema alone cannot know is checked here, each error naming the line, column and field.
 *
 * The document is the whole catalogue: an `allow` or a rule may name only the tools and actions it
 * lists (a tool it leaves out is retired). An agent it does not list keeps what it has, less the
 * actions the document retires. Rule ids are those of the workspace's rules in force (kept from
 * export); a rule without one is new.
 */

type Position = { line: number; column: number }
export type Resolution = { ok: true; policy: ResolvedPolicy } | { ok: false; errors: DocumentError[] }

const pathText = (path: DocumentPath) =>
  path.reduce<string>((s, k) => (typeof k === 'number' ? `${s}[${k}]` : s ? `${s}.${String(k)}` : String(k)), '')

/** `data_access` and permissions are sets: kept sorted, so that equal grants compare equal. */
export const sortedPermissions = (ps: { tool: string; action: string }[]) =>
  [...ps].sort((a, b) => a.tool.localeCompare(b.tool) || a.action.localeCompare(b.action))

export function resolvePolicy(doc: AgentPolicy, at: (path: DocumentPath) => Position, current: ResolvedPolicy): Resolution {
  const errors: DocumentError[] = []
  const fail = (path: DocumentPath, message: string) => errors.push({ ...at(path), path: pathText(path), message })

  const tools: PolicyTool[] = doc.tools.map((t) => ({
    key: t.key,
    name: t.name,
    description: t.description,
    actions: t.actions.map((a) => ({ key: a.key, name: a.name, risk: a.risk, dataUsed: a.dataUsed, reversible: a.reversible })),
  }))
  const actions = new Map<string, PolicyTool["actions"][number]>(tools.flatMap((t) => t.actions.map((a) => [`${t.key}.${a.key}`, a] as const)))
  const dataKnown = new Set([...actions.values()].flatMap((a) => a.dataUsed))
  const toolKeys = tools.map((t) => t.key)

  const agentOf = (label: string, path: DocumentPath): PolicyAgentGrant | undefined => {
    const found = agentNamed(current.agents, label)
    if (found.agent) return found.agent
    const { named, active } = found
    const list = active.map((a) => `${a.name} (${a.id})`).join(', ') || 'none; register one with growth admin agent create'
    if (named.length > 1) fail(path, `${named.length} agents are named ${label} (${named.map((a) => a.id).join(', ')}); name it by its id`)
    else fail(path, `no agent ${label} in this workspace; its agents: ${list}`)
    return undefined
  }
  const unknownToolAction = (tool: string, action: string) =>
    !toolKeys.includes(tool)
      ? `unknown tool ${tool}; the document's tools: ${toolKeys.join(', ') || 'none'}`
      : `unknown action ${action} of tool ${tool}; its actions: ${tools.find((t) => t.key === tool)!.actions.map((a) => a.key).join(', ') || 'none'}`

  const listed = new Map<string, PolicyAgentGrant>()
  ;(doc.agents ?? []).forEach((entry, i) => {
    const agent = agentOf(entry.agent, ['agents', i, 'agent'])
    if (!agent) return
    if (listed.has(agent.id)) return fail(['agents', i, 'agent'], `${entry.agent} is the agent ${agent.id}, listed already; list each agent once`)
    const permissions: { tool: string; action: string }[] = []
    entry.allow.forEach((pair, j) => {
      const [tool, action] = pair.split('.') as [string, string]
      if (!actions.has(pair)) fail(['agents', i, 'allow', j], unknownToolAction(tool, action))
      else if (!permissions.some((p) => p.tool === tool && p.action === action)) permissions.push({ tool, action })
    })
    entry.dataAccess?.forEach((d, j) => {
      if (!dataKnown.has(d)) fail(['agents', i, 'dataAccess', j], `unknown data ${d}: no action of the document uses it; the data its actions use: ${[...dataKnown].sort().join(', ')}`)
    })
    const used = permissions.flatMap((p) => actions.get(`${p.tool}.${p.action}`)?.dataUsed ?? [])
    listed.set(agent.id, {
      id: agent.id,
      name: agent.name,
      retired_at: agent.retired_at,
      ceilings: storedCeilings(entry.ceilings),
      data_access: [...new Set(entry.dataAccess ?? used)].sort(),
      max_unattended_risk: entry.maxUnattendedRisk ?? 'medium',
      permissions: sortedPermissions(permissions),
    })
  })
  // An agent the document leaves out keeps what it has, except actions the document retires.
  const agents = current.agents.map(
    (a) => listed.get(a.id) ?? { ...a, data_access: [...a.data_access].sort(), permissions: sortedPermissions(a.permissions.filter((p) => actions.has(`${p.tool}.${p.action}`))) },
  )

  const inForce = new Set(current.rules.map((r) => r.id))
  const rules: PolicyRuleModel[] = []
  const rulePaths: DocumentPath[] = []
  ;(doc.rules ?? []).forEach((rule, i) => {
    const before = errors.length
    if (rule.id !== undefined && !inForce.has(rule.id)) {
      fail(['rules', i, 'id'], `${rule.id} is not a rule in force in this workspace (ids are kept from growth admin policy export); leave id out to add the rule as new`)
    }
    rule.match.forEach((m, j) => {
      if (!toolKeys.includes(m.tool)) fail(['rules', i, 'match', j, 'tool'], unknownToolAction(m.tool, ''))
      else if (m.action !== undefined && !actions.has(`${m.tool}.${m.action}`)) fail(['rules', i, 'match', j, 'action'], unknownToolAction(m.tool, m.action))
    })
    const ids = rule.agents?.map((label, j) => agentOf(label, ['rules', i, 'agents', j])?.id)
    if (errors.length > before) return
    const structure: RuleStructure = {
      match: rule.match.map((m) => (m.action ? { tool: m.tool, action: m.action } : { tool: m.tool })),
      ...(ids ? { agents: [...new Set(ids as string[])] } : {}),
      when: (rule.when ?? []).map((c) => ({ ...c }) as Condition),
    }
    rules.push({ id: rule.id ?? null, structure, effect: rule.effect })
    rulePaths.push(['rules', i])
  })
  for (const c of ruleConflicts(rules)) {
    const line = (n: number) => at(rulePaths[n]!).line
    const path = c.other === undefined ? [...rulePaths[c.rule]!, ...c.path] : rulePaths[c.rule]!
    const message = c.other === undefined ? c.message : c.message.replace('{other}', `the rule at line ${line(c.other)} (rules[${String(rulePaths[c.other]![1])}])`)
    fail(path, message)
  }

  if (errors.length) {
    errors.sort((a, b) => a.line - b.line || a.column - b.column)
    return { ok: false, errors }
  }
  return { ok: true, policy: { tools, agents, missingFacts: doc.missingFacts ?? 'require_approval', rules } }
}

/** The document's ceilings in the form agents rows hold them (`amounts` by currency). */
function storedCeilings(c: NonNullable<AgentPolicy['agents']>[number]['ceilings']): Record<string, unknown> {
  if (!c) return {}
  const amounts = Object.entries(c.amountMinor ?? {})
    .map(([currency, amountMinor]) => ({ amountMinor, currency }))
    .sort((a, b) => a.currency.localeCompare(b.currency))
  return {
    ...(amounts.length ? { amounts } : {}),
    ...(c.amountPercent !== undefined ? { amountPercent: c.amountPercent } : {}),
    ...(c.recipients !== undefined ? { recipients: c.recipients } : {}),
    ...(c.records !== undefined ? { records: c.records } : {}),
  }
}
