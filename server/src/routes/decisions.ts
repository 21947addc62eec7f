import { z } from 'zod'
import * as decisions from '../domain/decisions.ts'
import { idOf } from '../schemas/common.ts'
import { Decision } from '../schemas/decisions.ts'
import { EXAMPLE } from './examples.ts'
import { defineList, model, SPEC_PAGE } from './operation.ts'

export const decisionOperations = [
  defineList({
    method: 'GET',
    path: '/decisions',
    operationId: 'listDecisions',
    sdk: 'decisions.list',
    summary: 'List decisions',
    description: 'The decision ledger, newest first, paged with meta.nextCursor. Filter by missionId (404 if that mission is not in this workspace).',
    tag: 'Growth',
    auth: { kind: 'workspace', scope: 'read:growth' },
    query: z.strictObject({ missionId: idOf('mission', 'a mission').optional().describe('Only decisions of this mission (msn_...).') }),
    paging: SPEC_PAGE,
    response: model('Decision', Decision),
    example: { query: { missionId: EXAMPLE.mission, limit: '5' } },
    handler: ({ sql, caller, query, page }) => decisions.listDecisions(sql, caller.workspaceId, { missionId: query.missionId, ...page }),
  }),
]
