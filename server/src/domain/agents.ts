import { notFound } from '../errors.ts'
import { newId } from '../ids.ts'
import type { AgentRequestT, AgentT, CeilingsT, RuleT, ToolT } from '../schemas/agents.ts'
import { iso, isoOrNull } from '../schemas/common.ts'
import type { Sql, Tx } from '../store/db.ts'
import * as store from '../store/agents.ts'
import type { Position } from '../store/growth.ts'
import type { AgentProfile, Ceilings } from './agent-decision.ts'
import { parseRuleStructure, ruleSentence, type Rule, type RuleEffect } from './agent-rules.ts'
import { byCurrency, formatCount, formatMoney, isCurrency } from './money.ts'
import { wordsOf } from './tool-catalogue.ts'

/**
 * The workspace's view of its agents (GET /agents, /agents/tools, /agents/rules, /agents/requests)
 * and the words the gateway and GET /agent/me share: permissions and ceilings as sentences.
 */

const num = (x: unknown) => (typeof x === 'number' && Number.isFinite(x) && x >= 0 ? x : undefined)

/** Ceilings as stored (jsonb), kept to what the gateway understands. */
export function parseCeilings(raw: unknown): Ceilings {
  const c = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>
  const amounts = Array.isArray(c.amounts)
    ? (c.amounts as { amountMinor: unknown; currency: unknown }[])
        .filter((m) => Number.isInteger(m?.amountMinor) && typeof m.currency === 'string' && isCurrency(m.currency))
        .map((m) => ({ amountMinor: m.amountMinor as number, currency: m.currency as string }))
    : []
  return { amounts: byCurrency(amounts), amountPercent: num(c.amountPercent), recipients: num(c.recipients), records: num(c.records) }
}

export function ceilingsView(c: Ceilings): CeilingsT {
  const sentences = [
    ...(c.amounts ?? []).map((m) => `At most ${formatMoney(m)} in one request.`),
    ...(c.amounts?.length ? ['No amount in any other currency.'] : ['No amount in any currency.']),
    ...(c.amountPercent !== undefined ? [`At most ${c.amountPercent}% in one request.`] : []),
    ...(c.recipients !== undefined ? [`At most ${formatCount(c.recipients)} recipients in one request.`] : []),
    ...(c.records !== undefined ? [`At most ${formatCount(c.records)} records in one request.`] : []),
  ]
  return {
    amounts: c.amounts ?? [],
    amountPercent: c.amountPercent ?? null,
    recipients: c.recipients ?? null,
    records: c.records ?? null,
    sentences,
  }
}

export function permissionsView(agentName: string, perms: { tool: string; action: string }[]) {
  return perms.map((p) => ({ tool: p.tool, action: p.action, sentence: `${agentName} may ${wordsOf(p.tool, p.action).verb} (${p.tool}.${p.action}).` }))
}

export function toProfile(row: store.AgentRow): AgentProfile {
  return {
    id: row.id,
    name: row.name,
    permissions: new Set(row.permissions.map((p) => `${p.tool}.${p.action}`)),
    dataAccess: row.data_access,
    ceilings: parseCeilings(row.ceilings),
    maxUnattendedRisk: row.max_unattended_risk,
  }
}

function toAgent(row: store.AgentRow): AgentT {
  return {
    id: row.id,
    name: row.name,
    owner: row.owner,
    description: row.description,
    permissions: permissionsView(row.name, row.permissions),
    dataAccess: row.data_access,
    maxUnattendedRisk: row.max_unattended_risk,
    ceilings: ceilingsView(parseCeilings(row.ceilings)),
    lastActedAt: isoOrNull(row.last_acted_at),
    createdAt: iso(row.created_at),
  }
}

export async function listAgents(sql: Sql, workspaceId: string): Promise<AgentT[]> {
  return (await store.selectAgents(sql, workspaceId)).map(toAgent)
}

export async function listTools(sql: Sql, workspaceId: string): Promise<ToolT[]> {
  return (await store.selectTools(sql, workspaceId)).map((t) => ({
    key: t.key,
    name: t.name,
    description: t.description,
    actions: t.actions,
    createdAt: iso(t.created_at),
  }))
}

export type RuleInForce = Rule & { sentence: string; createdAt: Date }

/** The rules in force, each with its sentence. */
export function rulesInForce(rows: store.RuleRow[], toolNames: Record<string, string>): RuleInForce[] {
  return rows.map((r) => {
    const structure = parseRuleStructure(r.structure)
    return { id: r.id, structure, effect: r.effect, sentence: ruleSentence({ structure, effect: r.effect }, toolNames), createdAt: r.created_at }
  })
}

export async function listRules(sql: Sql, workspaceId: string): Promise<RuleT[]> {
  const [tools, rows] = await Promise.all([store.selectTools(sql, workspaceId), store.selectRules(sql, workspaceId)])
  const rules = rulesInForce(rows, Object.fromEntries(tools.map((t) => [t.key, t.name])))
  return rules.map((r) => ({ id: r.id, sentence: r.sentence, effect: r.effect, structure: r.structure as RuleT['structure'], createdAt: iso(r.createdAt) }))
}

/** A rule written by the owner: checked, stored, and the workspace's rules version moves on. */
export async function addRule(tx: Tx, workspaceId: string, rule: { structure: unknown; effect: RuleEffect; createdAt?: Date }) {
  const structure = parseRuleStructure(rule.structure)
  const id = newId('rule', rule.createdAt)
  await store.insertRule(tx, workspaceId, { id, structure, effect: rule.effect, createdAt: rule.createdAt })
  return { id, structure, effect: rule.effect, sentence: ruleSentence({ structure, effect: rule.effect }) }
}

export function toAgentRequest(r: store.RequestRow): AgentRequestT {
  return {
    id: r.id,
    authorizationId: r.id,
    agentId: r.agent_id,
    agentName: r.agent_name,
    tool: r.tool,
    action: r.action,
    resource: r.resource,
    summary: r.summary,
    facts: r.facts,
    decision: r.decision,
    status: r.decision,
    mayProceed: r.decision === 'allowed',
    reason: r.reason,
    checks: r.checks as AgentRequestT['checks'],
    rules: r.rules,
    rulesVersion: r.rules_version,
    approvalId: r.approval_id,
    expiresAt: isoOrNull(r.expires_at),
    result: r.result
      ? {
          id: r.result.id,
          status: r.result.status,
          summary: r.result.summary,
          error: r.result.error,
          verified: false,
          createdAt: iso(r.result.created_at),
        }
      : null,
    createdAt: iso(r.created_at),
  }
}

/**
 * Agent requests newest first; an unknown agentId is 404 rather than a silently empty list. Only an
 * empty page can hide an unknown agent, so only then is the agent looked up.
 */
export async function requestsPage(
  sql: Sql,
  workspaceId: string,
  opts: { decision?: string; agentId?: string; before?: Position; limit: number },
) {
  const rows = await store.selectRequests(sql, workspaceId, opts)
  if (rows.length === 0 && opts.agentId && !(await store.agentExists(sql, workspaceId, opts.agentId))) throw notFound('agent', opts.agentId)
  return rows
}

export const requestPosition = (r: store.RequestRow): Position => ({ t: iso(r.created_at), id: r.id })
