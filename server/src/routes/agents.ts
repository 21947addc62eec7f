import * as agents from '../domain/agents.ts'
import { Agent } from '../schemas/agents.ts'
import { CAPPED_LIST, defineList, model } from './operation.ts'

export const agentOperations = [
  defineList({
    method: 'GET',
    path: '/agents',
    operationId: 'listAgents',
    sdk: 'agents.list',
    summary: 'List agents',
    description: "The workspace's agents (the product's own and the workspace's), oldest first, with their permissions in words, the data they may use, their ceilings, and when each last acted.",
    tag: 'Agents',
    auth: { kind: 'workspace', scope: 'read:agents' },
    paging: CAPPED_LIST,
    response: model('Agent', Agent),
    example: { query: {} },
    handler: ({ sql, caller, page }) => agents.listAgents(sql, caller.workspaceId, page),
  }),
]
