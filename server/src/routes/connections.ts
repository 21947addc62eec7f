import * as connections from '../domain/connections.ts'
import { Connection } from '../schemas/connections.ts'
import { CAPPED_LIST, defineList, model } from './operation.ts'

export const connectionOperations = [
  defineList({
    method: 'GET',
    path: '/connections',
    operationId: 'listConnections',
    sdk: 'connections.list',
    summary: 'List connections',
    description: 'The connected store, ad accounts, email platform and social accounts, oldest first, each with whether it still delivers and since when it stopped, if it did.',
    tag: 'Analytics',
    auth: { kind: 'workspace', scope: 'read:analytics' },
    paging: CAPPED_LIST,
    response: model('Connection', Connection),
    example: { query: {} },
    handler: ({ sql, caller, page }) => connections.listConnections(sql, caller.workspaceId, page),
  }),
]
