import { z } from 'zod'
import * as gateway from '../domain/agent-gateway.ts'
import * as agents from '../domain/agents.ts'
import { paged } from '../http/paging.ts'
import {
  Agent,
  AgentAuthorization,
  AgentRequest,
  AgentResult,
  AgentSelf,
  AuthorizeRequest,
  Decision,
  RequestsPageMeta,
  ResultRequest,
  RuleModel,
  Tool,
} from '../schemas/agents.ts'
import { idOf, limitParam } from '../schemas/common.ts'
import { type Caller, defineRead, defineWrite } from './operation.ts'

const asAgent = (caller: Caller) => ({ workspaceId: caller.workspaceId, agentId: caller.agentId!, secretKey: caller.secretKey, rateLimit: caller.rateLimit })

/** The agent gateway (an agent's own credential) and the workspace's view of its agents (read:agents). */
export const agentOperations = [
  defineWrite({
    method: 'POST',
    path: '/agent/authorize',
    operationId: 'authorizeAgentAction',
    summary: 'Ask whether the agent may act',
    description:
      'The gateway decides against the stop switch, the tool, the agent\'s permissions, the data the action uses, the agent\'s ceilings and the workspace\'s limits, the risk, and the owner\'s rules, in that order; every check reports. ' +
      'decision is allowed (mayProceed, valid until expiresAt), denied, or requires_approval (approvalId names the approval waiting for a person; once approved, the same request is allowed once within 24 hours). ' +
      'Every decision is recorded (GET /agents/requests) and counts against the agentRequests allowance (402 plan_required past it). An unknown fact name is 400.',
    tag: 'Agent gateway',
    auth: { kind: 'agent' },
    body: { model: { name: 'AuthorizeAgentActionRequest', schema: AuthorizeRequest } },
    response: { model: { name: 'AgentAuthorization', schema: AgentAuthorization }, shape: 'item' },
    handler: ({ tx, caller, body }) => gateway.authorize(tx, asAgent(caller), body),
  }),

  defineWrite({
    method: 'POST',
    path: '/agent/result',
    operationId: 'reportAgentResult',
    summary: 'Report what became of an allowed action',
    description:
      'Recorded against an authorization of this agent (404 otherwise) and kept as unverified: a claim, not a check. ' +
      'A result for an authorization that was not allowed, a second result, or one after the authorization expired is 409 conflict, and the refusal is recorded.',
    tag: 'Agent gateway',
    auth: { kind: 'agent' },
    body: { model: { name: 'ReportAgentResultRequest', schema: ResultRequest } },
    response: { model: { name: 'AgentResult', schema: AgentResult }, shape: 'item' },
    handler: ({ tx, caller, body }) => gateway.reportResult(tx, asAgent(caller), body),
  }),

  defineRead({
    method: 'GET',
    path: '/agent/me',
    operationId: 'getAgentSelf',
    summary: 'The calling agent: what it may do and ask for',
    description: "The agent's permissions in words, the data it may use, its ceilings, its own rate limit and what remains, and whether the workspace has stopped its agents (and why).",
    tag: 'Agent gateway',
    auth: { kind: 'agent' },
    response: { model: { name: 'AgentSelf', schema: AgentSelf }, shape: 'item' },
    handler: ({ sql, caller }) => gateway.agentSelf(sql, asAgent(caller)),
  }),

  defineRead({
    method: 'GET',
    path: '/agents',
    operationId: 'listAgents',
    summary: 'List agents',
    description: "The workspace's agents (the product's own and the workspace's), with their permissions in words, the data they may use, their ceilings, and when each last acted.",
    tag: 'Agents',
    auth: { kind: 'workspace', scope: 'read:agents' },
    response: { model: { name: 'Agent', schema: Agent }, shape: 'list' },
    handler: ({ sql, caller }) => agents.listAgents(sql, caller.workspaceId),
  }),

  defineRead({
    method: 'GET',
    path: '/agents/tools',
    operationId: 'listAgentTools',
    summary: 'List agent tools',
    description: 'Every tool an agent can be permitted, with each action: its risk, the data it uses, and whether it can be undone.',
    tag: 'Agents',
    auth: { kind: 'workspace', scope: 'read:agents' },
    response: { model: { name: 'Tool', schema: Tool }, shape: 'list' },
    handler: ({ sql, caller }) => agents.listTools(sql, caller.workspaceId),
  }),

  defineRead({
    method: 'GET',
    path: '/agents/rules',
    operationId: 'listAgentRules',
    summary: 'List agent rules',
    description: 'The rules in force for agents, oldest first, each as a sentence and as the structure the gateway judges.',
    tag: 'Agents',
    auth: { kind: 'workspace', scope: 'read:agents' },
    response: { model: { name: 'Rule', schema: RuleModel }, shape: 'list' },
    handler: ({ sql, caller }) => agents.listRules(sql, caller.workspaceId),
  }),

  defineRead({
    method: 'GET',
    path: '/agents/requests',
    operationId: 'listAgentRequests',
    summary: 'List agent requests',
    description:
      'Every gateway decision, refusals included, newest first, each with the result reported for it (or null). Filter by status (the decision) and agentId (404 if that agent is not in this workspace); page with meta.nextBefore.',
    tag: 'Agents',
    auth: { kind: 'workspace', scope: 'read:agents' },
    query: z.strictObject({
      status: Decision.optional().describe('Only decisions of this value.'),
      agentId: idOf('agt', 'an agent').optional().describe("Only this agent's requests."),
      limit: limitParam(20),
      before: z.string().min(1).optional().describe('The meta.nextBefore of the previous page.'),
    }),
    response: { model: { name: 'AgentRequest', schema: AgentRequest }, shape: 'page', meta: { name: 'AgentRequestsPageMeta', schema: RequestsPageMeta } },
    handler: async ({ sql, caller, query }) => {
      const page = await paged({
        caller,
        list: 'agent_requests',
        filter: { status: query.status, agentId: query.agentId },
        cursor: query.before,
        cursorParam: 'before',
        limit: query.limit,
        fetch: (before, limit) => agents.requestsPage(sql, caller.workspaceId, { decision: query.status, agentId: query.agentId, before, limit }),
        positionOf: agents.requestPosition,
        toItem: agents.toAgentRequest,
      })
      return page.meta ? { data: page.data, meta: { nextBefore: page.meta.nextCursor } } : { data: page.data }
    },
  }),
]
