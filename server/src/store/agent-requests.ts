import type { Db, Tx } from '../core/db.ts'
import type { GatewayDecision, ResultStatus, RuleEffect } from '../core/enums.ts'
import type { TimePosition } from '../core/paging.ts'
import type { ApprovalRow } from './approvals.ts'
import { insertRows, olderThan } from './keyset.ts'

/** The agent gateway's record: every request an agent made and what was decided, and the results reported. */

/** An approval of an agent request: it always has an expiry. */
export type PriorApprovalRow = Pick<ApprovalRow, 'id' | 'status' | 'decided_by' | 'decided_at' | 'decision_reason' | 'used_at'> & { expires_at: Date }

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
    SELECT ap.id, ap.status, ap.decided_by, ap.decided_at, ap.decision_reason, ap.expires_at, ap.used_at
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
  /** The facts the decision was judged on, when they differ from `facts` (read from params); else null or absent. */
  judgedFacts?: unknown
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

export type ResultRow = {
  id: string
  authorization_id: string
  agent_id: string
  status: ResultStatus
  summary: string | null
  error: string | null
  verified: boolean
  created_at: Date
}

type AuthorizationForResult = {
  id: string
  decision: GatewayDecision
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
  decision: GatewayDecision
  reason: string
  checks: { name: string; passed: boolean; detail: string }[]
  rules: { id: string; sentence: string; effect: RuleEffect }[]
  rules_version: number
  approval_id: string | null
  approval_status: ApprovalRow['status'] | null
  decided_by: ApprovalRow['decided_by']
  decided_at: Date | null
  decision_reason: string | null
  expires_at: Date | null
  created_at: Date
  result: { id: string; status: ResultRow['status']; summary: string | null; error: string | null; created_at: string } | null
}

/** Agent requests newest first, keyset-paged on (created_at, id), with the result reported for each. */
export async function selectRequests(
  sql: Db,
  workspaceId: string,
  opts: { decision?: GatewayDecision; agentId?: string; after?: TimePosition; limit: number },
): Promise<RequestRow[]> {
  const decision = opts.decision ? sql`AND r.decision = ${opts.decision}` : sql``
  const agent = opts.agentId ? sql`AND r.agent_id = ${opts.agentId}` : sql``
  const before = olderThan(sql, opts.after, 'r')
  return sql<RequestRow[]>`
    SELECT r.id, r.agent_id, a.name AS agent_name, r.tool, r.action, r.resource, r.summary, r.facts, r.decision, r.reason,
           r.checks, r.rules, r.rules_version, r.approval_id, ap.status AS approval_status, ap.decided_by, ap.decided_at, ap.decision_reason, r.expires_at, r.created_at,
           CASE WHEN res.id IS NULL THEN NULL ELSE json_build_object('id', res.id, 'status', res.status, 'summary', res.summary,
                'error', res.error, 'created_at', res.created_at) END AS result
    FROM agent_requests r
    JOIN agents a ON a.workspace_id = r.workspace_id AND a.id = r.agent_id
    LEFT JOIN approvals ap ON ap.workspace_id = r.workspace_id AND ap.id = r.approval_id
    LEFT JOIN agent_results res ON res.workspace_id = r.workspace_id AND res.authorization_id = r.id
    WHERE r.workspace_id = ${workspaceId} ${decision} ${agent} ${before}
    ORDER BY r.created_at DESC, r.id DESC
    LIMIT ${opts.limit}`
}

/** Requests and results as given (history loaded after the fact: the demo's). */
export const insertRequestHistory = (tx: Tx, workspaceId: string, rows: RequestInsert[]) =>
  insertRows(
    tx,
    'agent_requests',
    rows.map((r) => ({
      workspace_id: workspaceId, id: r.id, agent_id: r.agentId, tool: r.tool, action: r.action, resource: r.resource, summary: r.summary,
      facts: tx.json(r.facts as never), judged_facts: r.judgedFacts == null ? null : tx.json(r.judgedFacts as never), params_digest: r.paramsDigest, decision: r.decision, reason: r.reason,
      checks: tx.json(r.checks as never), rules: tx.json(r.rules as never), rules_version: r.rulesVersion,
      approval_id: r.approvalId, expires_at: r.expiresAt, created_at: r.createdAt,
    })),
  )
export const insertResultHistory = (tx: Tx, workspaceId: string, rows: Omit<ResultRow, 'verified'>[]) =>
  insertRows(tx, 'agent_results', rows.map((r) => ({ workspace_id: workspaceId, ...r, verified: false })))
