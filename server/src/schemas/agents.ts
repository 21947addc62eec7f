import { z } from 'zod'
import { CHECK_NAMES, DECISIONS } from '../domain/agent-decision.ts'
import { FACT_NAMES } from '../domain/agent-rules.ts'
import { isCurrency } from '../domain/money.ts'
import { RISKS } from '../domain/tool-catalogue.ts'
import { idOf, Money, Timestamp } from './common.ts'

/** What became of an action, as the agent says. */
const ResultStatus = z.enum(['completed', 'failed', 'cancelled']).describe('What became of the action, as the agent says.')

// --- Request bodies ---------------------------------------------------------------------------------

/** The six facts of the contract; any other name is refused, never ignored. */
export const Facts = z
  .strictObject({
    amountMinor: z.number().int().min(0).optional().describe("An amount in the currency's minor unit (integer >= 0); needs currency."),
    currency: z
      .string()
      .refine(isCurrency, { message: 'must be an ISO 4217 currency code in capitals, e.g. USD' })
      .optional()
      .describe('ISO 4217 code in capitals.'),
    amountPercent: z.number().min(0).optional().describe('A percentage in percentage points (25 means 25%), >= 0.'),
    increase: z.boolean().optional().describe('Whether the change raises (true) or lowers (false) what it changes.'),
    recipients: z.number().int().min(0).optional().describe('How many people the action would reach.'),
    records: z.number().int().min(0).optional().describe('How many records the action would touch.'),
  })
  .superRefine((f, ctx) => {
    if (f.amountMinor !== undefined && f.currency === undefined) {
      ctx.addIssue({ code: 'custom', path: ['currency'], message: 'is required when amountMinor is given (money is always in a currency)' })
    }
  })
  .describe('What the action would do, in the terms the gateway judges: amountMinor, currency, amountPercent, increase, recipients, records.')

const key = (what: string) => z.string().min(1).max(64).describe(what)

export const AuthorizeRequest = z.strictObject({
  tool: key('The tool key, as GET /agents/tools lists it.'),
  action: key('The action key within that tool.'),
  resource: z.string().min(1).max(500).optional().describe('What it would act on, in your own terms (e.g. a campaign id).'),
  summary: z.string().min(1).max(500).optional().describe('One line a person reads if the request waits for them.'),
  facts: Facts.optional(),
  params: z
    .record(z.string(), z.unknown())
    .optional()
    .describe('The parameters of the action. Kept only as a keyed digest, to recognise the same request again; never stored.'),
})
export type AuthorizeInput = z.output<typeof AuthorizeRequest>

export const ResultRequest = z.strictObject({
  authorizationId: idOf('auth', 'an authorization').describe('The authorizationId the authorize call returned (auth_...).'),
  status: ResultStatus.describe('What became of the action.'),
  summary: z.string().min(1).max(500).optional().describe('One line on what happened.'),
  error: z.string().min(1).max(2000).optional().describe('What went wrong, when it did.'),
})
export type ResultInput = z.output<typeof ResultRequest>

// --- Shared parts -----------------------------------------------------------------------------------

export const CheckSchema = z.object({
  name: z.enum(CHECK_NAMES).describe('Which check.'),
  passed: z.boolean().describe('False when it denied or needs a person.'),
  detail: z.string().describe('What was compared and, where it failed, what would have passed.'),
})

const Effect = z.enum(['deny', 'require_approval']).describe('deny refuses; require_approval waits for a person.')
export const BitRule = z.object({ id: z.string().describe('rule_...'), sentence: z.string().describe('The rule in words.'), effect: Effect })

export const Decision = z.enum(DECISIONS).describe('Only allowed is a yes.')

export const Permission = z.object({
  tool: z.string().describe('The tool key.'),
  action: z.string().describe('The action key within the tool.'),
  sentence: z.string().describe('The permission in words.'),
})
const Permissions = z.array(Permission).describe('Each action the agent is permitted, in words.')
const DataAccess = z.array(z.string()).describe('The data it may use (the keys of the tools\' dataUsed).')

export const CeilingsSchema = z
  .object({
    amounts: z.array(Money).describe('The most it may ask for, per currency; an amount in any other currency is denied.'),
    amountPercent: z.number().nullable().describe('The largest percentage it may ask for; null: no ceiling of its own.'),
    recipients: z.number().int().nullable().describe('The most recipients of one request; null: no ceiling of its own.'),
    records: z.number().int().nullable().describe('The most records one request may touch; null: no ceiling of its own.'),
    sentences: z.array(z.string()).describe('The same ceilings in words.'),
  })
  .describe("The most the agent may ask for. The workspace's own limits apply as well.")

const RiskSchema = z.enum(RISKS).describe('low, medium or high.')
const MaxRisk = RiskSchema.describe('The highest risk it may take without a person; above it, a person approves.')
const Checks = z.array(CheckSchema).describe(`Every check, in order: ${CHECK_NAMES.join(', ')}.`)
const BitRules = z.array(BitRule).describe('The rules that bit.')

// --- Response models --------------------------------------------------------------------------------

export const AgentAuthorization = z
  .object({
    id: z.string().describe('auth_... (the same as authorizationId)'),
    authorizationId: z.string().describe('auth_...; echo it in POST /agent/result.'),
    decision: Decision,
    mayProceed: z.boolean().describe('True only when decision is allowed.'),
    reason: z.string().describe('One sentence a person can read.'),
    checks: Checks,
    rules: BitRules,
    rulesVersion: z.number().int().describe("The version of the workspace's rules this was decided under."),
    approvalId: z.string().nullable().describe('apr_...: the approval waiting for a person (requires_approval), or the one this used (allowed).'),
    expiresAt: Timestamp.nullable().describe('An allowed authorization is valid until then (15 minutes); null otherwise.'),
    createdAt: Timestamp,
  })
  .describe("The gateway's decision on one request of an agent.")

export const AgentResult = z
  .object({
    id: z.string().describe('res_...'),
    authorizationId: z.string().describe('The authorization it reports on.'),
    agentId: z.string().describe('The agent that reported it.'),
    status: ResultStatus,
    summary: z.string().nullable().describe('One line on what happened, if given.'),
    error: z.string().nullable().describe('What went wrong, if given.'),
    verified: z.literal(false).describe('Always false: a result is what the agent says happened, a claim and not a check.'),
    createdAt: Timestamp,
  })
  .describe('What an agent reports became of an allowed action; kept as unverified.')

export const AgentSelf = z
  .object({
    agent: z
      .object({
        id: z.string().describe('agt_...'),
        name: z.string().describe('Its name, as people see it.'),
        owner: z.enum(['product', 'workspace']).describe("product: the product's own agent; workspace: the workspace's own."),
      })
      .describe('The calling agent.'),
    permissions: Permissions,
    dataAccess: DataAccess,
    maxUnattendedRisk: MaxRisk,
    ceilings: CeilingsSchema,
    limits: z.object({
      requestsPerHour: z.number().int().describe('Its rate limit: requests per hour on its credential.'),
      remaining: z.number().int().describe('Requests left in the current hour, this one counted.'),
      resetAt: Timestamp.describe('When the current window ends.'),
    }).describe('Its own rate limit and what remains.'),
    agentsStopped: z.boolean().describe("Whether the workspace's stop switch is on: then every request is denied."),
    stoppedReason: z.string().optional().describe('Why, when stopped.'),
    stoppedAt: Timestamp.optional(),
  })
  .describe('An agent asking about itself.')

export const Agent = z
  .object({
    id: z.string().describe('agt_...'),
    name: z.string().describe('Its name, as people see it.'),
    owner: z.enum(['product', 'workspace']).describe("product: the product's own agent; workspace: the workspace's own."),
    description: z.string().nullable().describe('What it is for.'),
    permissions: Permissions,
    dataAccess: DataAccess,
    maxUnattendedRisk: MaxRisk,
    ceilings: CeilingsSchema,
    lastActedAt: Timestamp.nullable().describe('When it last asked the gateway or reported a result.'),
    createdAt: Timestamp,
  })
  .describe('An agent of the workspace, what it may do and the most it may ask for.')

export const Tool = z
  .object({
    key: z.string().describe('The tool key, e.g. ads (authorize takes it as tool).'),
    name: z.string().describe('The tool in words.'),
    description: z.string().describe('What it reaches.'),
    actions: z
      .array(
        z.object({
          key: z.string().describe('The action key (authorize takes it as action).'),
          name: z.string().describe('The action in words.'),
          risk: RiskSchema,
          dataUsed: z.array(z.string()).describe('The data it uses, e.g. contacts, ad_spend, customer_spend, revenue.'),
          reversible: z.boolean().describe('Whether it can be undone.'),
        }),
      )
      .describe('Every action of the tool.'),
    createdAt: Timestamp,
  })
  .describe('A tool an agent can be permitted, with each action: risk, data used, whether it can be undone.')

export const RuleModel = z
  .object({
    id: z.string().describe('rule_...'),
    sentence: z.string().describe('The rule in words, built from its structure.'),
    effect: Effect,
    structure: z.object({
      match: z
        .array(
          z.object({
            tool: z.string().describe('A tool key.'),
            action: z.string().optional().describe('An action key of it; absent: every action of the tool.'),
          }),
        )
        .describe('The tool actions it covers (no action: every action of the tool).'),
      when: z
        .array(
          z.object({
            fact: z.enum(FACT_NAMES).describe('The fact compared.'),
            op: z.enum(['>', '>=', '<', '<=', '=']).describe('How it is compared.'),
            value: z.union([z.number(), z.boolean(), z.string()]).describe('What it is compared with (minor units for amountMinor).'),
            currency: z.string().optional().describe('For amountMinor: the currency the amount is in.'),
          }),
        )
        .describe('Every condition must hold on the stated facts; none: always.'),
    }).describe('The rule as the gateway judges it.'),
    createdAt: Timestamp,
  })
  .describe('A rule in force for agents.')

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
    decision: Decision,
    status: Decision.describe('The decision again, by the name GET /agents/requests?status= filters on.'),
    mayProceed: z.boolean().describe('True only when allowed.'),
    reason: z.string().describe('One sentence a person can read.'),
    checks: Checks,
    rules: BitRules,
    rulesVersion: z.number().int().describe("The version of the workspace's rules it was decided under."),
    approvalId: z.string().nullable().describe('The approval it waited for, or used.'),
    expiresAt: Timestamp.nullable().describe('An allowed authorization is valid until then.'),
    result: z
      .object({
        id: z.string().describe('res_...'),
        status: ResultStatus,
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

export const RequestsPageMeta = z
  .object({ nextBefore: z.string().describe('Pass as `before` to get the next (older) page.') })
  .describe('Present only when there is another page.')

export type AgentAuthorizationT = z.output<typeof AgentAuthorization>
export type AgentResultT = z.output<typeof AgentResult>
export type AgentSelfT = z.output<typeof AgentSelf>
export type AgentT = z.output<typeof Agent>
export type ToolT = z.output<typeof Tool>
export type RuleT = z.output<typeof RuleModel>
export type AgentRequestT = z.output<typeof AgentRequest>
export type CeilingsT = z.output<typeof CeilingsSchema>
