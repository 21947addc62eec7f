import type { Db, Sql, Tx } from '../core/db.ts'
import type { Decider } from '../core/decider.ts'
import type { ApprovalKind, ApprovalStatus } from '../core/enums.ts'
import type { TimePosition } from '../core/paging.ts'
import { insertRows, olderThan } from './keyset.ts'

/** Approvals of sends and of agent requests: listed for a person, decided by an operator, used by the gateway. */

export type ApprovalRow = {
  id: string; kind: ApprovalKind; status: ApprovalStatus; summary: string
  subject_id: string | null; requested_by: string; decided_by: Decider | null; decided_at: Date | null; decision_reason: string | null
  expires_at: Date | null; used_at: Date | null; created_at: Date
}

const columns = (sql: Db) => sql`id, kind, status, summary, subject_id, requested_by, decided_by, decided_at, decision_reason, expires_at, used_at, created_at`

/** Approvals newest first, optionally of one status, keyset-paged on (created_at, id). */
export async function selectApprovals(
  sql: Sql,
  workspaceId: string,
  opts: { status?: ApprovalRow['status']; after?: TimePosition; limit: number },
): Promise<ApprovalRow[]> {
  const status = opts.status ? sql`AND status = ${opts.status}` : sql``
  return sql<ApprovalRow[]>`
    SELECT ${columns(sql)}
    FROM approvals
    WHERE workspace_id = ${workspaceId} ${status} ${olderThan(sql, opts.after)}
    ORDER BY created_at DESC, id DESC
    LIMIT ${opts.limit}`
}

/** A new pending approval, as stored. */
export async function insertApproval(
  tx: Tx,
  workspaceId: string,
  a: { id: string; kind: ApprovalRow['kind']; summary: string; subjectId: string; requestedBy: string; expiresAt: Date; createdAt: Date },
): Promise<ApprovalRow> {
  const [row] = await tx<ApprovalRow[]>`
    INSERT INTO approvals (workspace_id, id, kind, status, summary, subject_id, requested_by, expires_at, created_at)
    VALUES (${workspaceId}, ${a.id}, ${a.kind}, 'pending', ${a.summary}, ${a.subjectId}, ${a.requestedBy}, ${a.expiresAt}, ${a.createdAt})
    RETURNING ${columns(tx)}`
  return row!
}

/** An approval by id, in whichever workspace holds it (operators name approvals by id alone), locked. */
export async function lockApproval(tx: Tx, id: string): Promise<(ApprovalRow & { workspace_id: string }) | undefined> {
  const [row] = await tx<(ApprovalRow & { workspace_id: string })[]>`SELECT workspace_id, ${columns(tx)} FROM approvals WHERE id = ${id} FOR UPDATE`
  return row
}

/** A person's decision on a pending approval; undefined when it was no longer pending. */
export async function decideApprovalRow(
  tx: Tx,
  workspaceId: string,
  id: string,
  status: 'approved' | 'rejected',
  decision: { by: Decider; at: Date; reason: string | null },
): Promise<ApprovalRow | undefined> {
  const [row] = await tx<ApprovalRow[]>`
    UPDATE approvals SET status = ${status}, decided_by = ${tx.json(decision.by as never)}, decided_at = ${decision.at}, decision_reason = ${decision.reason}
    WHERE workspace_id = ${workspaceId} AND id = ${id} AND status = 'pending'
    RETURNING ${columns(tx)}`
  return row
}

/** Uses an approved, unexpired, unused approval once; false when it is not (any longer) usable. */
export async function useApproval(tx: Tx, workspaceId: string, id: string, at: Date): Promise<boolean> {
  const rows = await tx`
    UPDATE approvals SET used_at = ${at}
    WHERE workspace_id = ${workspaceId} AND id = ${id} AND status = 'approved' AND used_at IS NULL AND expires_at > ${at}
    RETURNING id`
  return rows.length === 1
}

export type ApprovalInsert = ApprovalRow & { workspace_id: string }

export const insertApprovals = (tx: Tx, rows: ApprovalInsert[]) =>
  insertRows(tx, 'approvals', rows.map((r) => ({ ...r, decided_by: r.decided_by ? tx.json(r.decided_by as never) : null })))
