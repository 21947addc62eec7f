import * as tools from '../domain/agent-tools.ts'
import { Tool } from '../schemas/agent-tools.ts'
import { CAPPED_LIST, defineList, model } from './operation.ts'

export const agentToolOperations = [
  defineList({
    method: 'GET',
    path: '/agents/tools',
    operationId: 'listAgentTools',
    sdk: 'agents.tools',
    summary: 'List agent tools',
    description: 'Every tool an agent can be permitted, in the order they were added, with each action: its risk, the data it uses, and whether it can be undone.',
    tag: 'Agents',
    auth: { kind: 'workspace', scope: 'read:agents' },
    paging: CAPPED_LIST,
    response: model('Tool', Tool),
    example: { query: {} },
    handler: ({ sql, caller, page }) => tools.listTools(sql, caller.workspaceId, page as { after?: tools.ToolPosition; limit: number }),
  }),
]
