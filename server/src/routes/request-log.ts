import { z } from 'zod'
import { RuleError } from '../core/errors.ts'
import { closestField } from '../domain/document-fields.ts'
import { listRequestLog } from '../domain/request-log.ts'
import { idOf } from '../schemas/common.ts'
import { RequestLogEntry, StatusFilter } from '../schemas/request-log.ts'
import { defineList, model } from './operation.ts'

/**
 * GET /logs. `operations`: every operation of the API (read when a call filters by one, so the
 * table this is part of can be passed in): an operationId that names none is a 400 naming it,
 * never an empty page that reads as "no such calls".
 */
export const requestLogOperations = (operations: () => readonly { operationId: string }[]) => [
  defineList({
    method: 'GET',
    path: '/logs',
    operationId: 'listRequestLogs',
    sdk: 'logs.list',
    summary: 'List the request log',
    description:
      "Every call the workspace's credentials made in the last 7 days, refusals included, newest first: method, path, operation, status, the error's code and message, duration, which credential, the Idempotency-Key and whether the answer was a replay. `id` is the request id the answer carried. Filter by status (2xx, 4xx, 5xx or one status), operation and credentialId (404 if that credential is not this workspace's); page with meta.nextBefore. A call shows here within about a second.",
    tag: 'Logs',
    auth: { kind: 'workspace', scope: 'read:logs' },
    query: z.strictObject({
      status: StatusFilter.optional().describe('Only calls answered with this status: 2xx, 4xx, 5xx or one status such as 429.'),
      operation: z.string().regex(/^[a-zA-Z]{1,64}$/, { message: 'must be an operationId such as createExperiment' }).optional().describe('Only calls of this operation (its operationId, e.g. createExperiment).'),
      credentialId: idOf('credential', 'a credential').optional().describe('Only calls made with this credential (cred_...).'),
    }),
    rules: [{ description: 'operation names an operation of this API: an operationId of this document.', message: /is not an operation of this API/ }],
    paging: { style: 'before', defaultLimit: 20, maxLimit: 100 },
    response: model('RequestLogEntry', RequestLogEntry),
    example: { query: { status: '4xx', limit: '5' } },
    handler: ({ sql, caller, query, page }) => {
      const ids = query.operation ? operations().map((o) => o.operationId) : []
      if (query.operation && !ids.includes(query.operation)) {
        const meant = closestField(query.operation, ids)
        const how = meant ? `did you mean ${meant}?` : 'give an operationId such as createExperiment or listMissions.'
        throw new RuleError('operation.known', `operation ${JSON.stringify(query.operation)} is not an operation of this API: ${how}`, 'operation')
      }
      return listRequestLog(sql, caller.workspaceId, { ...query, ...page })
    },
  }),
]
