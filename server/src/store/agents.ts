import type { Decision } from '../domain/agent-decision.ts'
import type { RuleEffect } from '../domain/agent-rules.ts'
import type { Risk } from '../domain/tool-catalogue.ts'
import type { ApprovalRow } from './approvals.ts'
import type { Sql, Tx } from './db.ts'
import type { Position } from './growth.ts'

/** SQL of the agent gateway and the workspace's view of its agents. Every query is scoped by workspace. */

type Q = Sql | Tx

export type AgentRow = {
  id: string
  name: string
  owner: 'product' | 'workspace'
  description: string | null
  ceilings: Record<string, unknown>
  data_access: string[]
  max_unattended_risk: Risk
  last_acted_at: Date | null
  created_at: Date
  permissions: { tool: string; action: string }[]
}

const agentColumns = (sql: Q) => sql`
  a.id, a.name, a.owner, a.description, a.ceilings, a.data_access, a.max_unattended_risk, a.last_acted_at, a.created_at,
  COALESCE((SELECT json_agg(json_build_object('tool', p.tool_key, 'action', p.action_key) ORDER BY p.tool_key, p.action_key)
            FROM agent_permissions p WHERE p.workspace_id = a.workspace_id AND p.agent_id = a.id), '[]') AS permissions`

export async function selectAgents(sql: Q, workspaceId: string): Promise<AgentRow[]> {
  return sql<AgentRow[]>`
    SELECT ${agentColumns(sql)} FROM agents a WHERE a.workspace_id = ${workspaceId} ORDER BY a.created_at, a.id`
}

export async function selectAgent(sql: Q, workspaceId: string, agentId: string): Promise<AgentRow | undefined> {
  const [row] = await sql<AgentRow[]>`
    SELECT ${agentColumns(sql)} FROM agents a WHERE a.workspace_id = ${workspaceId} AND a.id = ${agentId}`
  return row
}

export async function agentExists(sql: Q, workspaceId: string, agentId: string): Promise<boolean> {
  return (await sql`SELECT 1 FROM agents WHERE workspace_id = ${workspaceId} AND id = ${agentId}`).length > 0
}

export type ToolRow = {
  key: string
  name: string
  description: string
  created_at: Date
  actions: { key: string; name: string; risk: Risk; dataUsed: string[]; reversible: boolean }[]
}

export async function selectTools(sql: Q, workspaceId: string): Promise<ToolRow[]> {
  return sql<ToolRow[]>`
    SELECT t.key, t.name, t.description, t.created_at,
           COALESCE((SELECT json_agg(json_build_object('key', a.key, 'name', a.name, 'risk', a.risk, 'dataUsed', a.data_used,
                                                       'reversible', a.reversible) ORDER BY a.created_at, a.key)
                     FROM tool_actions a WHERE a.workspace_id = t.workspace_id AND a.tool_key = t.key), '[]') AS actions
    FROM tools t WHERE t.workspace_id = ${workspaceId}
    ORDER BY t.created_at, t.key`
}

export type RuleRow = { id: string; structure: unknown; effect: RuleEffect; created_at: Date }

export async function selectRules(sql: Q, workspaceId: string): Promise<RuleRow[]> {
  return sql<RuleRow[]>`
    SELECT id, structure, effect, created_at FROM rules
    WHERE workspace_id = ${workspaceId} AND enabled ORDER BY created_at, id`
}

/** A new rule in force: the workspace's rules version moves on with it. */
export async function insertRule(tx: Tx, workspaceId: string, r: { id: string; structure: unknown; effect: string; createdAt?: Date }) {
  await tx`
    INSERT INTO rules (workspace_id, id, structure, effect, created_at)
    VALUES (${workspaceId}, ${r.id}, ${tx.json(r.structure as never)}, ${r.effect}, ${r.createdAt ?? new Date()})`
  await tx`UPDATE workspaces SET rules_version = rules_version + 1 WHERE workspace_id = ${workspaceId}`
}

export type WorkspaceGate = {
  agents_stopped: boolean
  rules_version: number
  stopped_at: Date | null
  stopped_by: string | null
  stopped_reason: string | null
}

/** The stop switch (with its latest stop: who, when, why), the rules version and the digest key. */
export async function selectWorkspaceGate(sql: Q, workspaceId: string): Promise<WorkspaceGate> {
  const [row] = await sql<WorkspaceGate[]>`
    SELECT w.agents_stopped, w.rules_version, s.created_at AS stopped_at, s.actor AS stopped_by, s.reason AS stopped_reason
    FROM workspaces w
    LEFT JOIN LATERAL (
      SELECT created_at, actor, reason FROM agent_switch_log l
      WHERE l.workspace_id = w.workspace_id AND l.action = 'stop' ORDER BY created_at DESC, id DESC LIMIT 1
    ) s ON w.agents_stopped
    WHERE w.workspace_id = ${workspaceId}`
  if (!row) throw new Error(`no workspace ${workspaceId}`)
  return row
}

/** An approval of an agent request: it always has an expiry. */
export type PriorApprovalRow = Pick<ApprovalRow, 'id' | 'status' | 'decided_by' | 'decided_at' | 'used_at'> & { expires_at: Date }

/**
 * Serialises requests that are the same request (same agent, tool, action, resource, facts and
 * params digest) until the transaction ends, so two arriving at once cannot both open an approval.
 */
export async function lockSameRequest(tx: Tx, workspaceId: string, key: string) {
  await tx`SELECT pg_advisory_xact_lock(hashtextextended(${'agent-request\u0001' + workspaceId + '\u0001' + key}, 0))`
}

/**
 * The latest approval asked for this same request (agent, tool, action, resource, facts, params
 * digest), locked so two requests cannot use one approval.
 */
export async function lockPriorApproval(
  tx: Tx,
  workspaceId: string,
  q: { agentId: string; tool: string; action: string; resource: string | null; facts: unknown; paramsDigest: string },
): Promise<PriorApprovalRow | undefined> {
  const [row] = await tx<PriorApprovalRow[]>`
    SELECT ap.id, ap.status, ap.decided_by, ap.decided_at, ap.expires_at, ap.used_at
    FROM agent_requests r
    JOIN approvals ap ON ap.workspace_id = r.workspace_id AND ap.id = r.approval_id
    WHERE r.workspace_id = ${workspaceId} AND r.agent_id = ${q.agentId} AND r.tool = ${q.tool} AND r.action = ${q.action}
      AND r.approval_id IS NOT NULL AND r.decision = 'requires_approval'
      AND r.resource IS NOT DISTINCT FROM ${q.resource} AND r.facts = ${tx.json(q.facts as never)}
      AND r.params_digest = ${q.paramsDigest}
    ORDER BY ap.created_at DESC, ap.id DESC
    LIMIT 1
    FOR UPDATE OF ap`
  return row
}

export type RequestInsert = {
  id: string
  agentId: string
  tool: string
  action: string
  resource: string | null
  summary: string | null
  facts: unknown
  paramsDigest: string
  decision: string
  reason: string
  checks: unknown
  rules: unknown
  rulesVersion: number
  approvalId: string | null
  expiresAt: Date | null
  createdAt: Date
}

export async function insertAgentRequest(tx: Tx, workspaceId: string, r: RequestInsert) {
  await tx`
    INSERT INTO agent_requests (workspace_id, id, agent_id, tool, action, resource, summary, facts, params_digest, decision,
                                reason, checks, rules, rules_version, approval_id, expires_at, created_at)
    VALUES (${workspaceId}, ${r.id}, ${r.agentId}, ${r.tool}, ${r.action}, ${r.resource}, ${r.summary}, ${tx.json(r.facts as never)},
            ${r.paramsDigest}, ${r.decision}, ${r.reason}, ${tx.json(r.checks as never)}, ${tx.json(r.rules as never)},
            ${r.rulesVersion}, ${r.approvalId}, ${r.expiresAt}, ${r.createdAt})`
}

export async function touchAgent(tx: Tx, workspaceId: string, agentId: string, at: Date) {
  await tx`
    UPDATE agents SET last_acted_at = GREATEST(COALESCE(last_acted_at, ${at}), ${at})
    WHERE workspace_id = ${workspaceId} AND id = ${agentId}`
}

export type ResultRow = {
  id: string
  authorization_id: string
  agent_id: string
  status: 'completed' | 'failed' | 'cancelled'
  summary: string | null
  error: string | null
  verified: boolean
  created_at: Date
}

export type AuthorizationForResult = {
  id: string
  decision: Decision
  expires_at: Date | null
  /** The result already reported against it, if any. */
  result: Pick<ResultRow, 'id' | 'status' | 'created_at'> | null
}

/**
 * This agent's authorization, locked, with the result already reported against it, if any. Two
 * statements on purpose: a result committed by a report that held the lock while this one waited
 * is invisible to the statement that waited (its snapshot is older), but under READ COMMITTED the
 * next statement sees it.
 */
export async function lockAuthorization(tx: Tx, workspaceId: string, agentId: string, id: string): Promise<AuthorizationForResult | undefined> {
  const [row] = await tx<Omit<AuthorizationForResult, 'result'>[]>`
    SELECT id, decision, expires_at FROM agent_requests
    WHERE workspace_id = ${workspaceId} AND id = ${id} AND agent_id = ${agentId}
    FOR UPDATE`
  if (!row) return undefined
  const [result] = await tx<Pick<ResultRow, 'id' | 'status' | 'created_at'>[]>`
    SELECT id, status, created_at FROM agent_results WHERE workspace_id = ${workspaceId} AND authorization_id = ${id}`
  return { ...row, result: result ?? null }
}

export async function insertResult(tx: Tx, workspaceId: string, r: Omit<ResultRow, 'verified'>) {
  await tx`
    INSERT INTO agent_results (workspace_id, id, authorization_id, agent_id, status, summary, error, verified, created_at)
    VALUES (${workspaceId}, ${r.id}, ${r.authorization_id}, ${r.agent_id}, ${r.status}, ${r.summary}, ${r.error}, false, ${r.created_at})`
}

export async function insertResultRefusal(
  tx: Tx,
  workspaceId: string,
  r: { id: string; authorizationId: string; agentId: string; status: string; summary: string | null; error: string | null; reason: string; createdAt: Date },
) {
  await tx`
    INSERT INTO agent_result_refusals (workspace_id, id, authorization_id, agent_id, status, summary, error, reason, created_at)
    VALUES (${workspaceId}, ${r.id}, ${r.authorizationId}, ${r.agentId}, ${r.status}, ${r.summary}, ${r.error}, ${r.reason}, ${r.createdAt})`
}

export type RequestRow = {
  id: string
  agent_id: string
  agent_name: string
  tool: string
  action: string
  resource: string | null
  summary: string | null
  facts: Record<string, unknown>
  decision: Decision
  reason: string
  checks: { name: string; passed: boolean; detail: string }[]
  rules: { id: string; sentence: string; effect: RuleEffect }[]
  rules_version: number
  approval_id: string | null
  expires_at: Date | null
  created_at: Date
  result: { id: string; status: ResultRow['status']; summary: string | null; error: string | null; created_at: string } | null
}

/** Agent requests newest first, keyset-paged on (created_at, id), with the result reported for each. */
export async function selectRequests(
  sql: Q,
  workspaceId: string,
  opts: { decision?: string; agentId?: string; before?: Position; limit: number },
): Promise<RequestRow[]> {
  const decision = opts.decision ? sql`AND r.decision = ${opts.decision}` : sql``
  const agent = opts.agentId ? sql`AND r.agent_id = ${opts.agentId}` : sql``
  const before = opts.before ? sql`AND (r.created_at, r.id) < (${opts.before.t}::timestamptz, ${opts.before.id})` : sql``
  return sql<RequestRow[]>`
    SELECT r.id, r.agent_id, a.name AS agent_name, r.tool, r.action, r.resource, r.summary, r.facts, r.decision, r.reason,
           r.checks, r.rules, r.rules_version, r.approval_id, r.expires_at, r.created_at,
           CASE WHEN res.id IS NULL THEN NULL ELSE json_build_object('id', res.id, 'status', res.status, 'summary', res.summary,
                'error', res.error, 'created_at', res.created_at) END AS result
    FROM agent_requests r
    JOIN agents a ON a.workspace_id = r.workspace_id AND a.id = r.agent_id
    LEFT JOIN agent_results res ON res.workspace_id = r.workspace_id AND res.authorization_id = r.id
    WHERE r.workspace_id = ${workspaceId} ${decision} ${agent} ${before}
    ORDER BY r.created_at DESC, r.id DESC
    LIMIT ${opts.limit}`
}
