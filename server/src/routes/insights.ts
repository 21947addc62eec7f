import { z } from 'zod'
import * as insights from '../domain/insights.ts'
import { paged } from '../http/paging.ts'
import { cursorParam, limitParam } from '../schemas/common.ts'
import { APPROVAL_STATUSES, Approval, OPPORTUNITY_STATUSES, Opportunity, Outcomes, SIGNAL_STATUSES, Signal } from '../schemas/insights.ts'
import { defineRead } from './operation.ts'

const tag = 'Growth'
const auth = { kind: 'workspace', scope: 'read:growth' } as const

export const insightOperations = [
  defineRead({
    method: 'GET',
    path: '/signals',
    operationId: 'listSignals',
    summary: 'List signals',
    description: 'What the product noticed in the business, newest first, each with the opportunity it speaks for. Open signals unless `status` says otherwise.',
    tag,
    auth,
    query: z.strictObject({
      status: z.enum(SIGNAL_STATUSES).default('open').describe('open (default), resolved or dismissed.'),
    }),
    response: { model: { name: 'Signal', schema: Signal }, shape: 'list' },
    handler: ({ sql, caller, query }) => insights.listSignals(sql, caller.workspaceId, query.status),
  }),

  defineRead({
    method: 'GET',
    path: '/opportunities',
    operationId: 'listOpportunities',
    summary: 'List opportunities',
    description:
      'Things worth doing, in the order they are worth doing (worth, highest first; ties broken by id), with measured impact where there is one. Open ones unless `status` says otherwise; an open opportunity past its expiresAt is listed as expired.',
    tag,
    auth,
    query: z.strictObject({
      status: z.enum(OPPORTUNITY_STATUSES).default('open').describe('open (default), actioned, dismissed or expired.'),
    }),
    response: { model: { name: 'Opportunity', schema: Opportunity }, shape: 'list' },
    handler: ({ sql, caller, query }) => insights.listOpportunities(sql, caller.workspaceId, query.status),
  }),

  defineRead({
    method: 'GET',
    path: '/outcomes',
    operationId: 'getOutcomes',
    summary: 'How predictions, findings and tests turned out',
    description:
      'Aggregates only: how predictions held up by author, by measure and by stated confidence (calibration), why findings were turned down, and what tests showed.',
    tag,
    auth,
    response: { model: { name: 'Outcomes', schema: Outcomes }, shape: 'item' },
    handler: ({ sql, caller }) => insights.outcomes(sql, caller.workspaceId),
  }),

  defineRead({
    method: 'GET',
    path: '/approvals',
    operationId: 'listApprovals',
    summary: 'List approvals',
    description:
      "Sends and agent requests waiting for, or given, a person's approval, newest first. Every status unless `status` says one. Paged with meta.nextCursor like the other long lists.",
    tag,
    auth,
    query: z.strictObject({
      status: z.enum(APPROVAL_STATUSES).optional().describe('pending, approved or rejected; every status when omitted.'),
      limit: limitParam(20),
      cursor: cursorParam(),
    }),
    response: { model: { name: 'Approval', schema: Approval }, shape: 'page' },
    handler: ({ sql, caller, query }) =>
      paged({
        caller,
        list: 'approvals',
        filter: { status: query.status },
        cursor: query.cursor,
        limit: query.limit,
        fetch: (after, limit) => insights.approvalsPage(sql, caller.workspaceId, { status: query.status, after, limit }),
        positionOf: insights.approvalPosition,
        toItem: insights.toApproval,
      }),
  }),
]
