import type { Decider } from '../core/decider.ts'
import type { ApprovalKind, ApprovalStatus } from '../core/enums.ts'
import { newId } from '../core/ids.ts'
import { formatCount } from '../core/money.ts'
import { toApproval } from '../domain/approvals.ts'
import { type ApprovalInsert, insertApprovals } from '../store/approvals.ts'
import type { EmailSendInsert } from '../store/experiments.ts'
import { DAY, type DemoContext, HOUR } from './context.ts'
import { operatorDecision, PEOPLE } from './people.ts'

type DemoApproval = {
  kind: ApprovalKind
  status: ApprovalStatus
  summary: string
  subjectId: string
  requestedBy: string
  decidedBy: Decider | null
  decisionReason?: string
  createdAt: Date
  decidedAt: Date | null
  usedAt: Date | null
}

/**
 * One approval as it stands now (it expires a day after it was asked for), with the events of its
 * history: requested, then approved or rejected if decided.
 */
export function approvalRow(ctx: DemoContext, a: DemoApproval): ApprovalInsert & { expires_at: Date } {
  const row = {
    ...ctx.ws, id: newId('approval', a.createdAt), kind: a.kind, status: a.status, summary: a.summary, subject_id: a.subjectId,
    requested_by: a.requestedBy, decided_by: a.decidedBy, decided_at: a.decidedAt, decision_reason: a.decisionReason ?? null, expires_at: new Date(a.createdAt.getTime() + DAY),
    used_at: a.usedAt, created_at: a.createdAt,
  }
  // The same payload the live approval events carry: the Approval as GET /approvals shows it then.
  const approvalEvent = (as: ApprovalInsert, type: 'approval.requested' | 'approval.approved' | 'approval.rejected', at: Date) =>
    ctx.events.add(type, at, { approval: toApproval(as, at) })
  approvalEvent({ ...row, status: 'pending', decided_by: null, decided_at: null, decision_reason: null, used_at: null }, 'approval.requested', a.createdAt)
  if (a.decidedAt) approvalEvent({ ...row, used_at: null }, a.status === 'approved' ? 'approval.approved' : 'approval.rejected', a.decidedAt)
  return row
}

/** Approvals of sends: four approved and sent, one waiting for a person, one rejected. */
export async function seedSendApprovals(ctx: DemoContext, sends: EmailSendInsert[]) {
  const { r } = ctx
  const approvals: ApprovalInsert[] = []
  const writerName = ctx.agents[1]?.name ?? ctx.agents[0]?.name ?? 'API'
  const sendSummary = (s: EmailSendInsert) => `Send "${s.subject}" to ${formatCount(s.recipients)} contacts`
  for (const [i, by, decider] of [[2, writerName, 0], [3, writerName, 2], [4, 'Sofia Lindqvist', 0], [5, writerName, 2]] as const) {
    const s = sends[i]
    const sentAt = s.sent_at!
    approvals.push(
      approvalRow(ctx, {
        kind: 'send', status: 'approved', summary: sendSummary(s), subjectId: s.id, requestedBy: by, decidedBy: operatorDecision(PEOPLE[decider].name),
        createdAt: new Date(sentAt.getTime() - r.float(4, 9) * HOUR), decidedAt: new Date(sentAt.getTime() - r.float(0.5, 2) * HOUR), usedAt: sentAt,
      }),
    )
  }
  approvals.push(
    approvalRow(ctx, {
      kind: 'send', status: 'pending', summary: sendSummary(sends[6]), subjectId: sends[6].id, requestedBy: writerName, decidedBy: null,
      createdAt: sends[6].created_at, decidedAt: null, usedAt: null,
    }),
    approvalRow(ctx, {
      kind: 'send', status: 'rejected', summary: sendSummary(sends[7]), subjectId: sends[7].id, requestedBy: 'API', decidedBy: operatorDecision('Maya Chen'),
      decisionReason: 'The subject line promises free shipping, which ended last week.',
      createdAt: sends[7].created_at, decidedAt: new Date(sends[7].created_at.getTime() + 2.5 * HOUR), usedAt: null,
    }),
  )
  await insertApprovals(ctx.tx, approvals)
}
