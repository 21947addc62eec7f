import type { Db } from '../core/db.ts'
import type { MissingFacts, RuleEffect } from '../core/enums.ts'
import type { AgentRow } from '../store/agents.ts'
import { selectAgents } from '../store/agents.ts'
import { selectRules } from '../store/agent-rules.ts'
import { selectTools, type ToolActionJson } from '../store/agent-tools.ts'
import { parseRuleStructure, type RuleStructure } from './agent-rules.ts'

/**
 * A workspace's agent policy as values, resolved against the workspace: agents by their ids, rules
 * as the gateway judges them (agent-rules.ts RuleStructure, agents by id). One shape for the policy
 * in force (read from the database, `policyInForce`) and for a document resolved against the
 * workspace (agent-policy-resolve.ts), so that plan compares two of them, apply writes one, and the
 * backtest and `policy test` decide under either by the same code.
 *
 * Agents are registered with `growth admin agent create`; a policy says what each may do. An agent
 * the document does not list keeps what it has (the resolved policy carries it unchanged).
 */
export type PolicyTool = { key: string; name: string; description: string; actions: ToolActionJson[] }

/**
 * What one agent may do, as agents rows hold it (ceilings in their stored form), and whether it was
 * retired (`retired_at`): a document names a retired agent by its id only, and the export leaves it
 * out (a name belongs to the workspace's active agents: agentNamed).
 */
export type PolicyAgentGrant = Pick<AgentRow, 'id' | 'name' | 'ceilings' | 'data_access' | 'max_unattended_risk' | 'permissions'> & Partial<Pick<AgentRow, 'retired_at'>>

/**
 * The agent a policy document or a `policy test` case names: by its id (a retired agent too), or by
 * its name among the active agents (a retired agent's name may have been given to a new one). Not
 * exactly one: the active agents of that name (none: unknown; several: name it by its id).
 */
export function agentNamed<A extends Pick<AgentRow, 'id' | 'name'> & Partial<Pick<AgentRow, 'retired_at'>>>(agents: A[], label: string): { agent: A } | { agent?: undefined; named: A[]; active: A[] } {
  const byId = agents.find((a) => a.id === label)
  if (byId) return { agent: byId }
  const active = agents.filter((a) => !a.retired_at)
  const named = active.filter((a) => a.name === label)
  return named.length === 1 ? { agent: named[0]! } : { named, active }
}

/** A rule: `id` null for a rule the document adds (apply gives it one). */
export type PolicyRuleModel = { id: string | null; structure: RuleStructure; effect: RuleEffect }

export type ResolvedPolicy = {
  /** The whole catalogue in force; a tool not here is retired. */
  tools: PolicyTool[]
  /** Every agent of the workspace, with what it may do. */
  agents: PolicyAgentGrant[]
  missingFacts: MissingFacts
  /** The rules, in order (oldest first for the policy in force). */
  rules: PolicyRuleModel[]
}

/** The policy in force in a workspace, as values (the workspace is known to exist). */
export async function policyInForce(db: Db, workspaceId: string, missingFacts: MissingFacts): Promise<ResolvedPolicy> {
  const [tools, agents, rules] = await Promise.all([selectTools(db, workspaceId), selectAgents(db, workspaceId), selectRules(db, workspaceId)])
  return {
    tools: tools.map((t) => ({ key: t.key, name: t.name, description: t.description, actions: t.actions })),
    agents: agents.map((a) => ({
      id: a.id, name: a.name, ceilings: a.ceilings, data_access: a.data_access, max_unattended_risk: a.max_unattended_risk,
      permissions: a.permissions.map((p) => ({ tool: p.tool, action: p.action })), retired_at: a.retired_at,
    })),
    missingFacts,
    rules: rules.map((r) => ({ id: r.id, structure: parseRuleStructure(r.structure), effect: r.effect })),
  }
}
