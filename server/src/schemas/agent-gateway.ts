import { z } from 'zod'
import { CHECK_NAMES, GATEWAY_DECISIONS, RESULT_STATUSES } from '../core/enums.ts'
import { Currency, idOf, line, text, Timestamp } from './common.ts'
import { AgentOwnerSchema, Ceilings, DataAccess, MaxRisk, Permissions } from './agents.ts'
import { RuleEffectSchema } from './agent-rules.ts'
import { DecidedBy } from './decided-by.ts'
import { DECISION_REASON_MAX } from '../core/decider.ts'

/** What became of an action, as the agent says. */
export const ResultStatusSchema = z.enum(RESULT_STATUSES).describe('What became of the action, as the agent says.')
export const GatewayDecisionSchema = z.enum(GATEWAY_DECISIONS).describe('Only allowed is a yes.')

export const Check = z
  .object({
    name: z.enum(CHECK_NAMES).describe('Which check.'),
    passed: z.boolean().describe('False when it denied or needs a person.'),
    detail: z.string().describe('What was compared and, where it failed, what would have passed.'),
  })
  .describe('One check of the gateway and what it found.')
const BitRule = z
  .object({ id: z.string().describe('rule_...'), sentence: z.string().describe('The rule in words.'), effect: RuleEffectSchema })
  .describe('A rule that bit.')
export const Checks = z.array(Check).describe(`Every check, in order: ${CHECK_NAMES.join(', ')}.`)
export const BitRules = z.array(BitRule).describe('The rules that bit.')

// --- Request bodies ---------------------------------------------------------------------------------

/** The six facts of the contract; any other name is refused, never ignored. */
export const Facts = z
  .strictObject({
    amountMinor: z.number().int().min(0).optional().describe("An amount in the currency's minor unit (integer >= 0); needs currency."),
    currency: Currency.optional().describe('ISO 4217 code in capitals, e.g. USD; needed with amountMinor.'),
    amountPercent: z.number().min(0).optional().describe('A percentage in percentage points (25 means 25%), >= 0.'),
    increase: z.boolean().optional().describe('Whether the change raises (true) or lowers (false) what it changes.'),
    recipients: z.number().int().min(0).optional().describe('How many people the action would reach.'),
    records: z.number().int().min(0).optional().describe('How many records the action would touch.'),
  })
  .meta({ dependentRequired: { amountMinor: ['currency'] } })
  .superRefine((f, ctx) => {
    if (f.amountMinor !== undefined && f.currency === undefined) {
      ctx.addIssue({ code: 'custom', path: ['currency'], message: 'is required when amountMinor is given (money is always in a currency)' })
    }
  })
  .describe('What the action would do, in the terms the gateway judges: amountMinor, currency, amountPercent, increase, recipients, records.')

const key = (what: string) => text(1, 64).describe(what)

export const AuthorizeRequest = z.strictObject({
  tool: key('The tool key, as GET /agents/tools lists it.'),
  action: key('The action key within that tool.'),
  resource: text(1, 500).optional().describe('What it would act on, in your own terms (e.g. a campaign id).'),
  summary: line(1, 500).optional().describe('One line a person reads if the request waits for them: no line breaks or control characters.'),
  facts: Facts.optional(),
  params: z
    .record(z.string(), z.unknown())
    .optional()
    .describe('The parameters of the action. Kept only as a keyed digest, to recognise the same request again; never stored.'),
})
export type AuthorizeInput = z.output<typeof AuthorizeRequest>

export const ResultRequest = z.strictObject({
  authorizationId: idOf('authorization', 'an authorization').describe('The authorizationId the authorize call returned (auth_...).'),
  status: ResultStatusSchema.describe('What became of the action.'),
  summary: line(1, 500).optional().describe('One line on what happened: no line breaks or control characters.'),
  error: text(1, 2000).optional().describe('What went wrong, when it did.'),
})
export type ResultInput = z.output<typeof ResultRequest>

// --- Response models --------------------------------------------------------------------------------

/** A person's decision on an approval of this same request, as the agent reads it in its own answer. */
const ApprovalDecision = z
  .object({
    approvalId: z.string().describe('apr_...: the approval that was decided.'),
    status: z.enum(['approved', 'rejected']).describe('approved: this request used it (allowed once); rejected: this request is denied by it.'),
    decidedBy: DecidedBy,
    decidedAt: Timestamp.describe('When it was decided.'),
    reason: z.string().max(DECISION_REASON_MAX).nullable().describe('The reason given with the decision, or null when none was given (a rejection in the console always has one).'),
  })
  .describe("Who decided this same request's approval, when and why.")

/** What every answer of the gateway carries, whatever its decision. */
const authorizationFields = {
  id: z.string().describe('auth_... (the same as authorizationId)'),
  authorizationId: z.string().describe('auth_...; echo it in POST /agent/result.'),
  reason: z.string().describe('One sentence a person can read.'),
  checks: Checks,
  rules: BitRules,
  rulesVersion: z.number().int().describe("The version of the workspace's rules this was decided under."),
  createdAt: Timestamp,
}

const AllowedAuthorization = z
  .object({
    ...authorizationFields,
    decision: z.literal('allowed').describe('allowed: do it, then report what became of it.'),
    mayProceed: z.literal(true).describe('True only when decision is allowed.'),
    approvalId: z.string().nullable().describe("apr_...: the person's approval this used (allowed once), or null."),
    expiresAt: Timestamp.describe('Valid until then (15 minutes): act and report before.'),
    approvalDecision: ApprovalDecision.nullable().describe('The approval of this same request that this used (status approved), or null when none was needed.'),
  })
  .describe('Allowed: the agent may act.')

const DeniedAuthorization = z
  .object({
    ...authorizationFields,
    decision: z.literal('denied').describe('denied: do not do it; checks say which check refused and what would have passed.'),
    mayProceed: z.literal(false).describe('True only when decision is allowed.'),
    approvalId: z.null().describe('Null: a denial waits for no one.'),
    expiresAt: z.null().describe('Null: only an allowed authorization is valid for a time.'),
    approvalDecision: ApprovalDecision.nullable().describe("A person's rejection of this same request that denies it (status rejected), or null when a check denied it."),
  })
  .describe('Denied: the agent may not act.')

const PendingAuthorization = z
  .object({
    ...authorizationFields,
    decision: z.literal('requires_approval').describe('requires_approval: a person decides first; the same request asked again once approved is allowed, once.'),
    mayProceed: z.literal(false).describe('True only when decision is allowed.'),
    approvalId: z.string().describe('apr_...: the approval waiting for a person.'),
    expiresAt: z.null().describe('Null: only an allowed authorization is valid for a time.'),
    approvalDecision: z.null().describe('Null: nobody has decided yet.'),
  })
  .describe("Needs a person's approval first.")

export const AgentAuthorization = z
  .discriminatedUnion('decision', [AllowedAuthorization, DeniedAuthorization, PendingAuthorization])
  .meta({ discriminator: { propertyName: 'decision' } })
  .describe("The gateway's decision on one request of an agent, by `decision`: allowed (mayProceed, until expiresAt), denied, or requires_approval (approvalId).")

export const AgentResult = z
  .object({
    id: z.string().describe('res_...'),
    authorizationId: z.string().describe('The authorization it reports on.'),
    agentId: z.string().describe('The agent that reported it.'),
    status: ResultStatusSchema,
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
        owner: AgentOwnerSchema,
      })
      .describe('The calling agent.'),
    permissions: Permissions,
    dataAccess: DataAccess,
    maxUnattendedRisk: MaxRisk,
    ceilings: Ceilings,
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

export type Facts = z.output<typeof Facts>
export type AgentAuthorization = z.infer<typeof AgentAuthorization>
export type AgentResult = z.infer<typeof AgentResult>
export type AgentSelf = z.infer<typeof AgentSelf>
export type Check = z.infer<typeof Check>
