import { z } from 'zod'
import { APPROVAL_STATUSES } from '../core/enums.ts'
import * as approvals from '../domain/approvals.ts'
import { Approval } from '../schemas/approvals.ts'
import { defineList, model, SPEC_PAGE } from './operation.ts'

export const approvalOperations = [
  defineList({
    method: 'GET',
    path: '/approvals',
    operationId: 'listApprovals',
    sdk: 'approvals.list',
    summary: 'List approvals',
    description:
      "Sends and agent requests waiting for, or given, a person's approval, newest first. Every status unless `status` says one. Paged with meta.nextCursor like the other long lists.",
    tag: 'Growth',
    auth: { kind: 'workspace', scope: 'read:growth' },
    query: z.strictObject({ status: z.enum(APPROVAL_STATUSES).optional().describe('pending, approved or rejected; every status when omitted.') }),
    paging: SPEC_PAGE,
    response: model('Approval', Approval),
    example: { query: { status: 'pending', limit: '10' } },
    handler: ({ sql, caller, query, page }) => approvals.listApprovals(sql, caller.workspaceId, { status: query.status, ...page }),
  }),
]
