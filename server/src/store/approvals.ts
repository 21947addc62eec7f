import type { Sql } from './db.ts'
import type { Position } from './growth.ts'

export type ApprovalRow = {
  id: string; kind: 'send' | 'agent_request'; status: 'pending' | 'approved' | 'rejected'; summary: string
  subject_id: string | null; requested_by: string; decided_by: string | null; decided_at: Date | null
  expires_at: Date | null; used_at: Date | null; created_at: Date
}

/** Approvals newest first, optionally of one status, keyset-paged on (created_at, id). */
export async function selectApprovals(
  sql: Sql,
  workspaceId: string,
  opts: { status?: string; before?: Position; limit: number },
): Promise<ApprovalRow[]> {
  const status = opts.status ? sql`AND status = ${opts.status}` : sql``
  const before = opts.before ? sql`AND (created_at, id) < (${opts.before.t}::timestamptz, ${opts.before.id})` : sql``
  return sql<ApprovalRow[]>`
    SELECT id, kind, status, summary, subject_id, requested_by, decided_by, decided_at, expires_at, used_at, created_at
    FROM approvals
    WHERE workspace_id = ${workspaceId} ${status} ${before}
    ORDER BY created_at DESC, id DESC
    LIMIT ${opts.limit}`
}
