import { z } from 'zod'
import * as requests from '../domain/agent-requests.ts'
import { GatewayDecisionSchema } from '../schemas/agent-gateway.ts'
import { AgentRequest } from '../schemas/agent-requests.ts'
import { idOf } from '../schemas/common.ts'
import { EXAMPLE } from './examples.ts'
import { defineList, model } from './operation.ts'

export const agentRequestOperations = [
  defineList({
    method: 'GET',
    path: '/agents/requests',
    operationId: 'listAgentRequests',
    sdk: 'agents.requests',
    summary: 'List agent requests',
    description:
      'Every gateway decision, refusals included, newest first, each with the result reported for it (or null). Filter by status (the decision) and agentId (404 if that agent is not in this workspace); page with meta.nextBefore.',
    tag: 'Agents',
    auth: { kind: 'workspace', scope: 'read:agents' },
    query: z.strictObject({
      status: GatewayDecisionSchema.optional().describe('Only decisions of this value: allowed, denied or requires_approval.'),
      agentId: idOf('agent', 'an agent').optional().describe("Only this agent's requests (agt_...)."),
    }),
    paging: { style: 'before', defaultLimit: 20, maxLimit: 100 },
    response: model('AgentRequest', AgentRequest),
    example: { query: { status: 'denied', agentId: EXAMPLE.agent, limit: '5' } },
    handler: ({ sql, caller, query, page }) => requests.listRequests(sql, caller.workspaceId, { decision: query.status, agentId: query.agentId, ...page }),
  }),
]
