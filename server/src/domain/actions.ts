import { actorOfDecider } from '../core/actor.ts'
import type { Sql, Tx } from '../core/db.ts'
import { type Decider, describeDecider } from '../core/decider.ts'
import type { ActionStatus } from '../core/enums.ts'
import { ConflictError, DomainError, NotFoundError, RuleError } from '../core/errors.ts'
import { newId } from '../core/ids.ts'
import { byCreation, type Positioned, type TimePosition } from '../core/paging.ts'
import { iso, isoOrNull } from '../core/time.ts'
import { ACTION_KINDS, type Action, type ActionKind, type CreateActionInput } from '../schemas/actions.ts'
import * as store from '../store/actions.ts'
import { appendEvent, appendEvents } from '../store/events.ts'
import { type EventSpec, type KindContext, kindOf, type Outcome } from './action-kinds.ts'
import { recordAudit } from './audit.ts'
import { decisionReason } from './deciders.ts'
import { checkWorkspaceLimits, loadWorkspaceLimits } from './limits.ts'
import { noticeWaiting } from './notices.ts'

export function toAction(a: store.ActionRow): Action {
  return {
    id: a.id,
    kind: a.kind,
    args: a.args,
    plannedEffect: a.planned_effect,
    limits: { allowed: a.limits_allowed, reason: a.refusal_reason },
    proposedBy: a.proposed_by,
    status: a.status,
    decidedBy: a.decided_by,
    decidedAt: isoOrNull(a.decided_at),
    decisionReason: a.decision_reason,
    outcome: a.outcome ? { ok: a.outcome.ok, detail: a.outcome.detail ?? null, error: a.outcome.error ?? null } : null,
    appliedAt: isoOrNull(a.applied_at),
    createdAt: iso(a.created_at),
  }
}

export type Proposer = { kind: 'api' | 'agent' | 'product'; id: string | null; name: string }

/**
 * POST /actions: plan the change (404 for an id of another workspace, 409 when the record's state
 * refuses it), check the plan against the workspace limits (the same check the agent gateway
 * makes), and record it: `refused` with the reason, or `proposed` to wait for a person. Nothing here
 * approves or carries out a change.
 */
export async function proposeAction(tx: Tx, workspaceId: string, input: CreateActionInput, proposedBy: Proposer, now = new Date()): Promise<Action> {
  const plan = await (kindOf(input.kind) as ReturnType<typeof kindOf>).plan({ tx, workspaceId, now }, input.args as never)
  const verdict = checkWorkspaceLimits(await loadWorkspaceLimits(tx, workspaceId), plan.facts)
  const row = await store.insertAction(tx, {
    workspace_id: workspaceId,
    id: newId('action'),
    kind: input.kind,
    args: input.args as Record<string, unknown>,
    status: verdict.passed ? 'proposed' : 'refused',
    planned_effect: plan.effect,
    limits_allowed: verdict.passed,
    refusal_reason: verdict.passed ? null : verdict.reasons.join(' '),
    proposed_by: proposedBy,
  })
  const action = toAction(row)
  await appendEvent(tx, workspaceId, verdict.passed ? 'action.proposed' : 'action.refused', { action })
  // A change waiting for a person: its owners and approvers are told by mail (sent later).
  if (verdict.passed) await noticeWaiting(tx, workspaceId, { kind: 'action', id: action.id }, now)
  return action
}

/** Proposed changes newest first, of one status or every status. */
export async function listActions(
  sql: Sql,
  workspaceId: string,
  opts: { status?: ActionStatus; after?: TimePosition; limit: number },
): Promise<Positioned<Action, TimePosition>[]> {
  return (await store.selectActions(sql, workspaceId, opts)).map((a) => ({ position: byCreation(a), item: toAction(a) }))
}

/**
 * A person's decision on a proposed change (the operator command `growth admin action approve|reject`).
 *
 * Reject: proposed -> rejected, with an `action.rejected` event. Approve: proposed -> applying with
 * who decided and when, committed (so others see it being carried out), then the stand-in executor
 * carries it out in a second transaction: -> applied (action.applied) or failed (action.failed),
 * with the outcome.
 *
 * Approving an action that is already approved or applying carries it out (the first approval's
 * second transaction failed, or its process stopped in between), keeping who decided and when. The
 * second transaction locks the action and carries it out only if it is still approved or applying,
 * so two people approving at once apply it once; the other is refused with what became of it, as
 * is any other decision on an action that is no longer proposed. `workspaceId`, when given (the
 * console), limits the decision to that workspace's actions.
 */
export async function decideAction(
  sql: Sql,
  opts: { actionId: string; decision: 'approve' | 'reject'; decider: Decider; reason?: string | null; now?: () => Date; workspaceId?: string },
): Promise<Action> {
  const now = opts.now ?? (() => new Date())
  const reason = decisionReason(opts.reason)
  const decided = await sql.begin(async (tx) => {
    const a = await store.lockActionById(tx, opts.actionId)
    // A person of the console decides only in their workspace: another's id is not found, alike.
    if (!a || (opts.workspaceId !== undefined && a.workspace_id !== opts.workspaceId)) throw new NotFoundError('action', opts.actionId, `No action ${opts.actionId}.`)
    if (opts.decision === 'approve' && beingCarriedOut(a)) return a
    if (a.status !== 'proposed') throw new ConflictError(alreadyDecided(a))
    const at = now()
    const note = opts.decider.kind === 'operator' ? opts.decider.note : undefined
    await recordAudit(tx, a.workspace_id, actorOfDecider(opts.decider), opts.decision === 'reject' ? 'action.rejected' : 'action.approved', a.id, { kind: a.kind, reason, note }, at)
    if (opts.decision === 'reject') {
      const row = await store.updateAction(tx, a.workspace_id, a.id, { status: 'rejected', decision: { by: opts.decider, at, reason } })
      await appendEvent(tx, a.workspace_id, 'action.rejected', { action: toAction(row) })
      return row
    }
    return store.updateAction(tx, a.workspace_id, a.id, { status: 'applying', decision: { by: opts.decider, at, reason } })
  })
  if (decided.status === 'rejected') return toAction(decided)
  return sql.begin(async (tx) => {
    const a = (await store.lockActionById(tx, decided.id))!
    if (!beingCarriedOut(a)) throw new ConflictError(alreadyDecided(a))
    const events: EventSpec[] = []
    const ctx = { tx, workspaceId: a.workspace_id, now: now(), emit: (e: EventSpec[]) => events.push(...e) }
    // A failed outcome, or a refusal met while carrying out (a list deleted meanwhile, an allowance
    // used up, ...), undoes whatever the executor had begun; anything else is a crash of ours and propagates.
    const outcome = await tx.savepoint((sp) => execute({ ...ctx, tx: sp }, a)).catch((err): Outcome => {
      if (err instanceof FailedOutcome) return err.outcome
      if (err instanceof DomainError) return { ok: false, error: `${err.message} Nothing was changed.` }
      throw err
    })
    if (!outcome.ok) events.length = 0
    const row = await store.updateAction(tx, a.workspace_id, a.id, {
      status: outcome.ok ? 'applied' : 'failed',
      outcome,
      appliedAt: outcome.ok ? now() : null,
    })
    await appendEvents(tx, a.workspace_id, [...events, { type: outcome.ok ? 'action.applied' : 'action.failed', data: { action: toAction(row) } }])
    return toAction(row)
  })
}

/** Approved but not yet applied or failed: approving it (again) carries it out. */
const beingCarriedOut = (a: store.ActionRow) => a.status === 'approved' || a.status === 'applying'

async function execute(ctx: KindContext, a: store.ActionRow): Promise<Outcome> {
  if (!(ACTION_KINDS as readonly string[]).includes(a.kind)) return { ok: false, error: `The kind ${a.kind} has no executor; nothing was changed.` }
  const outcome = await kindOf(a.kind as ActionKind).execute(ctx, a.args as never, a.planned_effect)
  if (!outcome.ok) throw new FailedOutcome(outcome)
  return outcome
}

/** Thrown out of the executor's savepoint so that a failed outcome leaves nothing behind. */
class FailedOutcome extends Error {
  constructor(readonly outcome: Outcome) {
    super('failed outcome')
  }
}

function alreadyDecided(a: store.ActionRow): string {
  const by = a.decided_by ? ` by ${describeDecider(a.decided_by)}` : ''
  const at = a.decided_at ? ` at ${iso(a.decided_at)}` : ''
  switch (a.status) {
    case 'refused':
      return `Action ${a.id} was refused by the workspace's limits (${a.refusal_reason}); it cannot be decided.`
    case 'rejected':
      return `Action ${a.id} was already rejected${by}${at}.`
    case 'approved':
    case 'applying':
      return `Action ${a.id} was already approved${by}${at} and is being carried out; if that was interrupted, approve it again to finish it.`
    case 'applied':
      return `Action ${a.id} was already approved${by}${at} and applied.`
    case 'failed':
      return `Action ${a.id} was already approved${by}${at} and failed: ${a.outcome?.error ?? 'no detail'}.`
    default:
      return `Action ${a.id} is ${a.status}; only a proposed action can be decided.`
  }
}
