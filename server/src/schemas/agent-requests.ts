import { z } from 'zod'
import { Timestamp } from './common.ts'
import { decisionFields } from './decided-by.ts'
import { BitRules, Checks, GatewayDecisionSchema, ResultStatusSchema } from './agent-gateway.ts'

export const AgentRequest = z
  .object({
    id: z.string().describe('auth_...'),
    authorizationId: z.string().describe('auth_..., as the agent was answered.'),
    agentId: z.string().describe('The agent that asked.'),
    agentName: z.string().describe("The agent's name."),
    tool: z.string().describe('The tool asked for.'),
    action: z.string().describe('The action asked for.'),
    resource: z.string().nullable().describe('What it would act on, in the agent\'s terms.'),
    summary: z.string().nullable().describe('The line the agent gave for a person.'),
    facts: z.record(z.string(), z.unknown()).describe('The facts it stated.'),
    decision: GatewayDecisionSchema,
    status: GatewayDecisionSchema.describe('The decision again, by the name GET /agents/requests?status= filters on.'),
    mayProceed: z.boolean().describe('True only when allowed.'),
    reason: z.string().describe('One sentence a person can read.'),
    checks: Checks,
    rules: BitRules,
    rulesVersion: z.number().int().describe("The version of the workspace's rules it was decided under."),
    approvalId: z.string().nullable().describe('The approval it waited for, or used.'),
    ...decisionFields("its approval (a request the gateway decided alone has none: null)"),
    expiresAt: Timestamp.nullable().describe('An allowed authorization is valid until then.'),
    result: z
      .object({
        id: z.string().describe('res_...'),
        status: ResultStatusSchema,
        summary: z.string().nullable().describe('One line on what happened, if given.'),
        error: z.string().nullable().describe('What went wrong, if given.'),
        verified: z.literal(false).describe('Always false: a claim, not a check.'),
        createdAt: Timestamp,
      })
      .nullable()
      .describe('What the agent reported became of it, unverified; null if nothing was reported.'),
    createdAt: Timestamp,
  })
  .describe('A gateway decision: what was asked, what was decided, which checks passed, which rules bit, and what became of it.')

export const AgentRequestsPageMeta = z
  .object({ nextBefore: z.string().describe('Pass as `before` to get the next (older) page.') })
  .describe('Present only when there is another page.')

export type AgentRequest = z.infer<typeof AgentRequest>
