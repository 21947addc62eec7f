import { z } from 'zod'
import { isCurrency } from '../domain/money.ts'
import { idOf, Money, Timestamp } from './common.ts'

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
  authorizationId: idOf('auth', 'an authorization'),
  status: z.enum(['completed', 'failed', 'cancelled']),
  summary: z.string().min(1).max(500).optional().describe('One line on what happened.'),
  error: z.string().min(1).max(2000).optional().describe('What went wrong, when it did.'),
})
export type ResultInput = z.output<typeof ResultRequest>

// --- Shared parts -----------------------------------------------------------------------------------

export const CheckSchema = z.object({
  name: z.enum(['agents_enabled', 'tool', 'permission', 'data', 'limits', 'risk', 'rules']),
  passed: z.boolean(),
  detail: z.string().describe('What was compared and, where it failed, what would have passed.'),
})

export const BitRule = z.object({ id: z.string().describe('rule_...'), sentence: z.string(), effect: z.enum(['deny', 'require_approval']) })

const Decision = z.enum(['allowed', 'denied', 'requires_approval']).describe('Only allowed is a yes.')

export const Permission = z.object({ tool: z.string(), action: z.string(), sentence: z.string() })

export const CeilingsSchema = z
  .object({
    amounts: z.array(Money).describe('The most it may ask for, per currency; an amount in any other currency is denied.'),
    amountPercent: z.number().nullable().describe('The largest percentage it may ask for; null: no ceiling of its own.'),
    recipients: z.number().int().nullable(),
    records: z.number().int().nullable(),
    sentences: z.array(z.string()).describe('The same ceilings in words.'),
  })
  .describe("The most the agent may ask for. The workspace's own limits apply as well.")

const RiskSchema = z.enum(['low', 'medium', 'high'])

// --- Response models --------------------------------------------------------------------------------

export const AgentAuthorization = z
  .object({
    id: z.string().describe('auth_... (the same as authorizationId)'),
    authorizationId: z.string().describe('auth_...; echo it in POST /agent/result.'),
    decision: Decision,
    mayProceed: z.boolean().describe('True only when decision is allowed.'),
    reason: z.string().describe('One sentence a person can read.'),
    checks: z.array(CheckSchema).describe('Every check, in order: agents_enabled, tool, permission, data, limits, risk, rules.'),
    rules: z.array(BitRule).describe('The rules that bit.'),
    rulesVersion: z.number().int().describe("The version of the workspace's rules this was decided under."),
    approvalId: z.string().nullable().describe('apr_...: the approval waiting for a person (requires_approval), or the one this used (allowed).'),
    expiresAt: Timestamp.nullable().describe('An allowed authorization is valid until then (15 minutes); null otherwise.'),
    createdAt: Timestamp,
  })
  .describe("The gateway's decision on one request of an agent.")

export const AgentResult = z
  .object({
    id: z.string().describe('res_...'),
    authorizationId: z.string(),
    agentId: z.string(),
    status: z.enum(['completed', 'failed', 'cancelled']),
    summary: z.string().nullable(),
    error: z.string().nullable(),
    verified: z.literal(false).describe('Always false: a result is what the agent says happened, a claim and not a check.'),
    createdAt: Timestamp,
  })
  .describe('What an agent reports became of an allowed action; kept as unverified.')

export const AgentSelf = z
  .object({
    agent: z.object({ id: z.string(), name: z.string(), owner: z.enum(['product', 'workspace']) }),
    permissions: z.array(Permission).describe('Each action the agent is permitted, in words.'),
    dataAccess: z.array(z.string()).describe('The data it may use.'),
    maxUnattendedRisk: RiskSchema.describe('The highest risk it may take without a person; above it, a person approves.'),
    ceilings: CeilingsSchema,
    limits: z.object({
      requestsPerHour: z.number().int(),
      remaining: z.number().int().describe('Requests left in the current hour, this one counted.'),
      resetAt: Timestamp.describe('When the current window ends.'),
    }),
    agentsStopped: z.boolean().describe("Whether the workspace's stop switch is on: then every request is denied."),
    stoppedReason: z.string().optional().describe('Why, when stopped.'),
    stoppedAt: Timestamp.optional(),
  })
  .describe('An agent asking about itself.')

export const Agent = z
  .object({
    id: z.string().describe('agt_...'),
    name: z.string(),
    owner: z.enum(['product', 'workspace']).describe("product: the product's own agent; workspace: the workspace's own."),
    description: z.string().nullable(),
    permissions: z.array(Permission),
    dataAccess: z.array(z.string()),
    maxUnattendedRisk: RiskSchema,
    ceilings: CeilingsSchema,
    lastActedAt: Timestamp.nullable().describe('When it last asked the gateway or reported a result.'),
    createdAt: Timestamp,
  })
  .describe('An agent of the workspace, what it may do and the most it may ask for.')

export const Tool = z
  .object({
    key: z.string(),
    name: z.string(),
    description: z.string(),
    actions: z.array(
      z.object({
        key: z.string(),
        name: z.string(),
        risk: RiskSchema,
        dataUsed: z.array(z.string()),
        reversible: z.boolean().describe('Whether it can be undone.'),
      }),
    ),
    createdAt: Timestamp,
  })
  .describe('A tool an agent can be permitted, with each action: risk, data used, whether it can be undone.')

export const RuleModel = z
  .object({
    id: z.string().describe('rule_...'),
    sentence: z.string().describe('The rule in words, built from its structure.'),
    effect: z.enum(['deny', 'require_approval']),
    structure: z.object({
      match: z.array(z.object({ tool: z.string(), action: z.string().optional() })).describe('The tool actions it covers (no action: every action of the tool).'),
      when: z
        .array(
          z.object({
            fact: z.enum(['amountMinor', 'currency', 'amountPercent', 'increase', 'recipients', 'records']),
            op: z.enum(['>', '>=', '<', '<=', '=']),
            value: z.union([z.number(), z.boolean(), z.string()]),
            currency: z.string().optional().describe('For amountMinor: the currency the amount is in.'),
          }),
        )
        .describe('Every condition must hold on the stated facts; none: always.'),
    }),
    createdAt: Timestamp,
  })
  .describe('A rule in force for agents.')

export const AgentRequest = z
  .object({
    id: z.string().describe('auth_...'),
    authorizationId: z.string(),
    agentId: z.string(),
    agentName: z.string(),
    tool: z.string(),
    action: z.string(),
    resource: z.string().nullable(),
    summary: z.string().nullable(),
    facts: z.record(z.string(), z.unknown()),
    decision: Decision,
    mayProceed: z.boolean(),
    reason: z.string(),
    checks: z.array(CheckSchema),
    rules: z.array(BitRule),
    rulesVersion: z.number().int(),
    approvalId: z.string().nullable(),
    expiresAt: Timestamp.nullable(),
    result: z
      .object({
        id: z.string(),
        status: z.enum(['completed', 'failed', 'cancelled']),
        summary: z.string().nullable(),
        error: z.string().nullable(),
        verified: z.boolean(),
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
