import { z } from 'zod'
import { SIGNAL_STATUSES } from '../core/enums.ts'
import * as signals from '../domain/signals.ts'
import { Signal } from '../schemas/signals.ts'
import { CAPPED_LIST, defineList, model } from './operation.ts'

export const signalOperations = [
  defineList({
    method: 'GET',
    path: '/signals',
    operationId: 'listSignals',
    sdk: 'signals.list',
    summary: 'List signals',
    description: 'What the product noticed in the business, newest first, each with the opportunity it speaks for. Open signals unless `status` says otherwise.',
    tag: 'Growth',
    auth: { kind: 'workspace', scope: 'read:growth' },
    query: z.strictObject({ status: z.enum(SIGNAL_STATUSES).default('open').describe('open (default), resolved or dismissed.') }),
    paging: CAPPED_LIST,
    response: model('Signal', Signal),
    example: { query: { status: 'resolved' } },
    handler: ({ sql, caller, query, page }) => signals.listSignals(sql, caller.workspaceId, { status: query.status, ...page }),
  }),
]
