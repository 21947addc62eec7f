import { z } from 'zod'
import { CUSTOMER_STAGES } from '../core/enums.ts'
import * as customers from '../domain/customers.ts'
import { Customer } from '../schemas/customers.ts'
import { CAPPED_LIST, defineList, model } from './operation.ts'

export const customerOperations = [
  defineList({
    method: 'GET',
    path: '/customers',
    operationId: 'listCustomers',
    sdk: 'customers.list',
    summary: 'List customers',
    description: 'Buyers newest first, with order count and spend per currency; every stage unless `stage` says one.',
    tag: 'Contacts',
    auth: { kind: 'workspace', scope: 'read:contacts' },
    query: z.strictObject({ stage: z.enum(CUSTOMER_STAGES).optional().describe('prospect, first_time, repeat or lapsed; buyers of every stage when omitted.') }),
    paging: CAPPED_LIST,
    response: model('Customer', Customer),
    example: { query: { stage: 'repeat', limit: '10' } },
    handler: ({ sql, caller, query, page }) => customers.listCustomers(sql, caller.workspaceId, { stage: query.stage, ...page }),
  }),
]
