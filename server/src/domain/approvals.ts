import { idOf, iso } from '../schemas/common.ts'
import type { Sql } from '../store/db.ts'
import { appendEvent } from '../store/events.ts'
import * as store from '../store/approvals.ts'
import { AdminError } from './admin.ts'
import { toApproval } from './insights.ts'

const ApprovalId = idOf('apr', 'an approval')

/**
 * A person deciding an approval (the operator command `growth admin approval approve|reject ID`):
 * a send, or an agent's request waiting for a person. The decision is final and recorded with who
 * decided and when; an expired approval can no longer be decided (the agent may ask again, which
 * asks for a new approval). An approved agent request is then allowed once, within the approval's
 * validity, when the agent asks again the same way.
 */
export async function decideApproval(sql: Sql, opts: { id: string; approve: boolean; actor: string; at?: Date }) {
  const id = opts.id.trim()
  if (!ApprovalId.safeParse(id).success) throw new AdminError(`An approval id looks like apr_ followed by 26 letters and digits (got ${opts.id}).`)
  if (!opts.actor.trim()) throw new AdminError('The person deciding an approval must be named.')
  const at = opts.at ?? new Date()
  return sql.begin(async (tx) => {
    const row = await store.lockApproval(tx, id)
    if (!row) throw new AdminError(`No approval ${id}.`)
    if (row.status !== 'pending') {
      throw new AdminError(
        `Approval ${id} was already ${row.status}${row.decided_by ? ` by ${row.decided_by}` : ''}${row.decided_at ? ` at ${iso(row.decided_at)}` : ''}; a decision is final.`,
      )
    }
    if (row.expires_at && row.expires_at.getTime() <= at.getTime()) {
      throw new AdminError(
        `Approval ${id} expired at ${iso(row.expires_at)} without a decision; it can no longer be decided.` +
          (row.kind === 'agent_request' ? ` If ${row.requested_by} asks again, a new approval will wait for a person.` : ''),
      )
    }
    const decided = await store.decideApprovalRow(tx, row.workspace_id, id, opts.approve ? 'approved' : 'rejected', opts.actor, at)
    if (!decided) throw new AdminError(`Approval ${id} was decided by someone else at this moment.`)
    // The same shape GET /approvals shows.
    const approval = toApproval(decided, at)
    await appendEvent(tx, row.workspace_id, opts.approve ? 'approval.approved' : 'approval.rejected', { approval })
    return { workspaceId: row.workspace_id, ...approval }
  })
}
