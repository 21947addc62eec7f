import { actorOfDecider } from '../core/actor.ts'
import type { Sql } from '../core/db.ts'
import { type Decider, describeDecider } from '../core/decider.ts'
import type { ApprovalStatus } from '../core/enums.ts'
import { ConflictError, NotFoundError, RuleError } from '../core/errors.ts'
import { idPattern } from '../core/ids.ts'
import { byCreation, type Positioned, type TimePosition } from '../core/paging.ts'
import { iso, isoOrNull } from '../core/time.ts'
import type { Approval } from '../schemas/approvals.ts'
import * as store from '../store/approvals.ts'
import { appendEvent } from '../store/events.ts'
import { recordAudit } from './audit.ts'
import { decisionReason } from './deciders.ts'

/** An approval as GET /approvals shows it; `expired`: pending past its expiry (not a rejection). */
export function toApproval(a: store.ApprovalRow, now = new Date()): Approval {
  return {
    id: a.id,
    kind: a.kind,
    status: a.status,
    summary: a.summary,
    subjectId: a.subject_id,
    requestedBy: a.requested_by,
    decidedBy: a.decided_by,
    decidedAt: isoOrNull(a.decided_at),
    decisionReason: a.decision_reason,
    expiresAt: isoOrNull(a.expires_at),
    expired: a.status === 'pending' && a.expires_at !== null && a.expires_at.getTime() <= now.getTime(),
    usedAt: isoOrNull(a.used_at),
    createdAt: iso(a.created_at),
  }
}

/** Approvals newest first, of one status or every status. */
export async function listApprovals(
  sql: Sql,
  workspaceId: string,
  opts: { status?: ApprovalStatus; after?: TimePosition; limit: number },
): Promise<Positioned<Approval, TimePosition>[]> {
  const now = new Date()
  return (await store.selectApprovals(sql, workspaceId, opts)).map((a) => ({ position: byCreation(a), item: toApproval(a, now) }))
}

/**
 * A person deciding an approval (the operator command `growth admin approval approve|reject ID`):
 * a send, or an agent's request waiting for a person. The decision is final and recorded with who
 * decided (`decider`: an operator's login, with a note; later a person of the console), when, and
 * the reason if one was given; an expired approval can no longer be decided (the agent may ask again, which
 * asks for a new approval). An approved agent request is then allowed once, within the approval's
 * validity, when the agent asks again the same way. `workspaceId`, when given (the console), limits
 * the decision to that workspace's approvals.
 */
export async function decideApproval(
  sql: Sql,
  opts: { id: string; approve: boolean; decider: Decider; reason?: string | null; at?: Date; workspaceId?: string },
) {
  const id = opts.id.trim()
  if (!idPattern('approval').test(id)) throw new RuleError('id_prefix', `An approval id starts with apr_ (got ${opts.id}).`, 'id')
  const reason = decisionReason(opts.reason)
  const at = opts.at ?? new Date()
  return sql.begin(async (tx) => {
    const row = await store.lockApproval(tx, id)
    // A person of the console decides only in their workspace: another's id is not found, alike.
    if (!row || (opts.workspaceId !== undefined && row.workspace_id !== opts.workspaceId)) throw new NotFoundError('approval', id, `No approval ${id}.`)
    if (row.status !== 'pending') {
      throw new ConflictError(
        `Approval ${id} was already ${row.status}${row.decided_by ? ` by ${describeDecider(row.decided_by)}` : ''}${row.decided_at ? ` at ${iso(row.decided_at)}` : ''}; a decision is final.`,
      )
    }
    if (row.expires_at && row.expires_at.getTime() <= at.getTime()) {
      throw new ConflictError(
        `Approval ${id} expired at ${iso(row.expires_at)} without a decision; it can no longer be decided.` +
          (row.kind === 'agent_request' ? ` If ${row.requested_by} asks again, a new approval will wait for a person.` : ''),
      )
    }
    const decided = await store.decideApprovalRow(tx, row.workspace_id, id, opts.approve ? 'approved' : 'rejected', { by: opts.decider, at, reason })
    if (!decided) throw new ConflictError(`Approval ${id} was decided by someone else at this moment.`)
    // The same shape GET /approvals shows.
    const approval = toApproval(decided, at)
    await appendEvent(tx, row.workspace_id, opts.approve ? 'approval.approved' : 'approval.rejected', { approval })
    const note = opts.decider.kind === 'operator' ? opts.decider.note : undefined
    await recordAudit(tx, row.workspace_id, actorOfDecider(opts.decider), opts.approve ? 'approval.approved' : 'approval.rejected', id, { kind: row.kind, summary: row.summary, reason, note }, at)
    return { workspaceId: row.workspace_id, ...approval }
  })
}
