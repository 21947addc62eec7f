import { z } from 'zod'
import { OPPORTUNITY_STATUSES } from '../core/enums.ts'
import * as opportunities from '../domain/opportunities.ts'
import { Opportunity } from '../schemas/opportunities.ts'
import { CAPPED_LIST, defineList, model } from './operation.ts'

export const opportunityOperations = [
  defineList({
    method: 'GET',
    path: '/opportunities',
    operationId: 'listOpportunities',
    sdk: 'opportunities.list',
    summary: 'List opportunities',
    description:
      'Things worth doing, in the order they are worth doing (worth, highest first; ties broken by id), with measured impact where there is one. Open ones unless `status` says otherwise; an open opportunity past its expiresAt is listed as expired.',
    tag: 'Growth',
    auth: { kind: 'workspace', scope: 'read:growth' },
    query: z.strictObject({ status: z.enum(OPPORTUNITY_STATUSES).default('open').describe('open (default), actioned, dismissed or expired.') }),
    paging: CAPPED_LIST,
    response: model('Opportunity', Opportunity),
    example: { query: { status: 'open', limit: '10' } },
    handler: ({ sql, caller, query, page }) => opportunities.listOpportunities(sql, caller.workspaceId, { status: query.status, ...page }),
  }),
]
