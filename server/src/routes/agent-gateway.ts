import type { Caller } from '../core/caller.ts'
import * as gateway from '../domain/agent-gateway.ts'
import { AgentAuthorization, AgentResult, AgentSelf, AuthorizeRequest, ResultRequest } from '../schemas/agent-gateway.ts'
import { EXAMPLE } from './examples.ts'
import { defineItem, defineWrite, model } from './operation.ts'

/** The calling agent, as the gateway knows it: an agent credential always names its agent. */
const asAgent = (caller: Caller) => ({ workspaceId: caller.workspaceId, agentId: caller.agentId!, secretKey: caller.secretKey, rateLimit: caller.rateLimit })

/** The agent gateway: an agent asking, reporting, and asking about itself, on its own credential. */
export const agentGatewayOperations = [
  defineWrite({
    method: 'POST',
    path: '/agent/authorize',
    operationId: 'authorizeAgentAction',
    sdk: 'agent.authorize',
    summary: 'Ask whether the agent may act',
    description:
      "The gateway decides against the stop switch, the tool, the agent's permissions, the data the action uses, the agent's ceilings and the workspace's limits, the risk, and the owner's rules, in that order; every check reports. " +
      'decision is allowed (mayProceed, valid until expiresAt), denied, or requires_approval (approvalId names the approval waiting for a person; once approved, the same request is allowed once within 24 hours). ' +
      'A denial is an answer (201), not an error. Every decision is recorded (GET /agents/requests) and counts against the agentRequests allowance (402 plan_required past it). An unknown fact name is 400.',
    tag: 'Agent gateway',
    auth: { kind: 'agent' },
    body: model('AuthorizeAgentActionRequest', AuthorizeRequest),
    response: model('AgentAuthorization', AgentAuthorization),
    example: {
      body: {
        tool: 'ads',
        action: 'adjust_budget',
        resource: EXAMPLE.campaign,
        summary: 'Raise Spring espresso from 120.00 USD to 132.00 USD a day',
        facts: { amountMinor: 13200, currency: 'USD', amountPercent: 10, increase: true },
        params: { campaignId: EXAMPLE.campaign, dailyBudget: { amountMinor: 13200, currency: 'USD' } },
      },
    },
    // One statement records the decision, so the rows every request of the workspace locks are held only until it commits.
    atomic: 'self',
    handler: ({ tx, caller, body, services }) => gateway.authorize(tx, asAgent(caller), body, services.recordDecision),
  }),

  defineWrite({
    method: 'POST',
    path: '/agent/result',
    operationId: 'reportAgentResult',
    sdk: 'agent.result',
    summary: 'Report what became of an allowed action',
    description:
      'Recorded against an authorization of this agent (404 otherwise) and kept as unverified: a claim, not a check. ' +
      'A result for an authorization that was not allowed, a second result, or one after the authorization expired is 409 conflict, and the refusal is recorded.',
    tag: 'Agent gateway',
    auth: { kind: 'agent' },
    body: model('ReportAgentResultRequest', ResultRequest),
    response: model('AgentResult', AgentResult),
    example: { body: { authorizationId: EXAMPLE.authorization, status: 'completed', summary: 'Daily budget now 132.00 USD on Meta Ads.' } },
    handler: ({ tx, caller, body }) => gateway.reportResult(tx, asAgent(caller), body),
  }),

  defineItem({
    method: 'GET',
    path: '/agent/me',
    operationId: 'getAgentSelf',
    sdk: 'agent.me',
    summary: 'The calling agent: what it may do and ask for',
    description: "The agent's permissions in words, the data it may use, its ceilings, its own rate limit and what remains, and whether the workspace has stopped its agents (and why).",
    tag: 'Agent gateway',
    auth: { kind: 'agent' },
    response: model('AgentSelf', AgentSelf),
    example: { query: {} },
    handler: ({ sql, caller }) => gateway.agentSelf(sql, asAgent(caller)),
  }),
]
