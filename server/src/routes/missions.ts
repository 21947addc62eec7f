import * as missions from '../domain/missions.ts'
import { Mission } from '../schemas/missions.ts'
import { CAPPED_LIST, defineList, model } from './operation.ts'

export const missionOperations = [
  defineList({
    method: 'GET',
    path: '/missions',
    operationId: 'listMissions',
    sdk: 'missions.list',
    summary: 'List missions',
    description: 'Every growth mission of the workspace with its measured progress and the automations working on it, newest first.',
    tag: 'Growth',
    auth: { kind: 'workspace', scope: 'read:growth' },
    paging: CAPPED_LIST,
    response: model('Mission', Mission),
    example: { query: { limit: '10' } },
    handler: ({ sql, caller, page }) => missions.listMissions(sql, caller.workspaceId, page),
  }),
]
