import type { Db } from '../core/db.ts'
import { canonicalJson } from '../core/canonical-json.ts'
import { NotFoundError } from '../core/errors.ts'
import type { AgentPolicy } from '../schemas/agent-policy.ts'
import { selectTools } from '../store/agent-tools.ts'
import { selectRules } from '../store/agent-rules.ts'
import { selectAgents, type AgentRow } from '../store/agents.ts'
import { selectMissingFacts } from '../store/workspaces.ts'
import { isCount, parseRuleStructure } from './agent-rules.ts'
import { parseCeilings } from './agents.ts'

/**
 * The policy in force in a workspace as the agent policy document (CONTRACT: Agent policy), read
 * from its tools and their actions, its agents' permissions, data access, risk and ceilings, and its
 * rules in force: what `growth admin policy export` prints, ready to be edited and planned.
 * `missingFacts` is the workspace's own (require_approval unless set otherwise): what the gateway
 * does with a rule, ceiling or limit that reads a fact a request did not state (agent-decision.ts).
 * Retired agents are left out (an agent the document does not list keeps what it has, so applying
 * the export changes nothing), and agents are named among the active ones: a rule that still names
 * a retired agent names it by its id.
 */
export async function exportPolicy(sql: Db, workspaceId: string): Promise<AgentPolicy> {
  const missingFacts = await selectMissingFacts(sql, workspaceId)
  if (!missingFacts) throw new NotFoundError('workspace', workspaceId, `No workspace ${workspaceId}.`)
  const [tools, every, rules] = await Promise.all([selectTools(sql, workspaceId), selectAgents(sql, workspaceId), selectRules(sql, workspaceId)])
  const agents = every.filter((a) => a.retired_at === null)
  const dataUsed = new Map(tools.flatMap((t) => t.actions.map((a) => [`${t.key}.${a.key}`, a.dataUsed] as const)))
  const policy: AgentPolicy = {
    tools: tools.map((t) => ({
      key: t.key,
      name: t.name,
      description: t.description,
      actions: t.actions.map((a) => ({ key: a.key, name: a.name, risk: a.risk, dataUsed: a.dataUsed, reversible: a.reversible })),
    })),
    agents: agents.map((a) => policyAgent(a, policyAgentLabel(a, agents), dataUsed)),
    missingFacts,
    rules: rules.map((r) => {
      const { match, agents: ids, when } = parseRuleStructure(r.structure)
      // Fields in the order people write them (jsonb keeps its own).
      const conditions = when.map((c) =>
        isCount(c) ? { count: c.count, window: c.window, op: c.op, value: c.value } : { fact: c.fact, op: c.op, value: c.value, ...('currency' in c ? { currency: c.currency } : {}) },
      ) as PolicyRule['when']
      const label = (id: string) => {
        const a = agents.find((x) => x.id === id)
        return a ? policyAgentLabel(a, agents) : id
      }
      return {
        id: r.id,
        effect: r.effect,
        match: match.map((m) => ({ tool: m.tool, ...(m.action ? { action: m.action } : {}) })),
        ...(ids ? { agents: ids.map(label) } : {}),
        ...(when.length ? { when: conditions } : {}),
      }
    }),
  }
  return policy
}

type PolicyRule = NonNullable<AgentPolicy['rules']>[number]

/**
 * How the policy document names an agent: by its name, or by its id when another of `all` (the
 * workspace's active agents) has the same name. The console's policy forms post it.
 */
export function policyAgentLabel(agent: Pick<AgentRow, 'id' | 'name'>, all: Pick<AgentRow, 'id' | 'name'>[]): string {
  return all.some((other) => other.id !== agent.id && other.name === agent.name) ? agent.id : agent.name
}

/**
 * An agent's grant as the document writes it. Its `dataAccess` only when it is not the default (the
 * data its allowed actions use): written out, it would stay as it is when an owner adds an action to
 * `allow`, and the agent would be denied the new action for the data it uses.
 */
function policyAgent(row: AgentRow, label: string, dataUsed: ReadonlyMap<string, readonly string[]>): NonNullable<AgentPolicy['agents']>[number] {
  const c = parseCeilings(row.ceilings)
  const ceilings = {
    ...(c.amounts?.length ? { amountMinor: Object.fromEntries(c.amounts.map((m) => [m.currency, m.amountMinor])) } : {}),
    ...(c.amountPercent !== undefined ? { amountPercent: c.amountPercent } : {}),
    ...(c.recipients !== undefined ? { recipients: c.recipients } : {}),
    ...(c.records !== undefined ? { records: c.records } : {}),
  }
  const allow = row.permissions.map((p) => `${p.tool}.${p.action}`)
  const byDefault = [...new Set(allow.flatMap((a) => dataUsed.get(a) ?? []))].sort()
  const access = [...row.data_access].sort()
  return {
    agent: label,
    allow,
    ...(canonicalJson(access) === canonicalJson(byDefault) ? {} : { dataAccess: row.data_access }),
    maxUnattendedRisk: row.max_unattended_risk,
    ...(Object.keys(ceilings).length ? { ceilings } : {}),
  }
}
