import { z } from 'zod'
import { ACTION_STATUSES } from '../core/enums.ts'
import { Currency, idOf, text, Timestamp } from './common.ts'
import { decisionFields } from './decided-by.ts'

export const Action = z
  .object({
    id: z.string().describe('act_...'),
    kind: z.string().describe('The kind of change, e.g. adjust_budget (POST /actions lists every kind).'),
    args: z.record(z.string(), z.unknown()).describe('The arguments as the kind declares them.'),
    plannedEffect: z
      .object({ summary: z.string().describe('What the change would do, in one line a person can read.') })
      .catchall(z.unknown())
      .describe(
        'What the change would do, in words (summary) and figures: e.g. adjust_budget has campaign, from, to (money, per currency) and changePercent; send_campaign has campaign, audience, recipients and sendAt.',
      ),
    limits: z
      .object({
        allowed: z.boolean().describe("Whether the workspace's limits allowed the proposal."),
        reason: z.string().nullable().describe('Why the limits refused it; null when allowed.'),
      })
      .describe("The check against the workspace's limits, made when the change was proposed."),
    proposedBy: z
      .object({
        kind: z.enum(['api', 'agent', 'product']).describe('Proposed through the API, by an agent, or by the product itself.'),
        id: z.string().nullable().describe('The credential (cred_...) or agent (agt_...) that proposed it, when known.'),
        name: z.string().describe('Who proposed it, as people know them.'),
      })
      .describe('Who proposed the change.'),
    status: z.enum(ACTION_STATUSES).describe('proposed, approved, applying, applied, rejected, refused or failed.'),
    ...decisionFields('the change (approved or rejected)'),
    outcome: z
      .object({
        ok: z.boolean().describe('Whether the change went through.'),
        detail: z.string().nullable().describe('What was done, when it went through.'),
        error: z.string().nullable().describe('What went wrong, when it failed.'),
      })
      .nullable()
      .describe('What became of the change once carried out (applied or failed); null before.'),
    appliedAt: Timestamp.nullable(),
    createdAt: Timestamp,
  })
  .describe('A proposed change: its planned effect, whether the limits allowed it, who proposed it, and what became of it.')

// --- The args of each kind ---------------------------------------------------------------------------

const campaignId = idOf('campaign', 'a campaign').describe('The campaign (cmp_...).')
const listId = idOf('list', 'a list').describe('A list (lst_...); give listId or segmentId.')
const segmentId = idOf('segment', 'a segment').describe('A segment (seg_...); give listId or segmentId.')
const dateTime = z.iso.datetime({ offset: true })

/** Exactly one of two members, stated for the document (JSON Schema) and checked with a clear message. */
function exactlyOne<S extends z.ZodObject>(schema: S, a: string, b: string) {
  return schema
    .refine((v: Record<string, unknown>) => (v[a] === undefined) !== (v[b] === undefined), { message: `give exactly one of ${a} or ${b}` })
    .meta({ oneOf: [{ required: [a] }, { required: [b] }] })
}

const CampaignArgs = z.strictObject({ campaignId }).describe('args of pause_campaign and resume_campaign.')

const BudgetArgs = exactlyOne(
  z.strictObject({
    campaignId,
    dailyBudget: z
      .strictObject({
        amountMinor: z.number().int().positive().max(Number.MAX_SAFE_INTEGER).describe("The new daily budget in the currency's minor unit."),
        currency: Currency,
      })
      .optional()
      .describe("The new daily budget, in the campaign's own currency (never converted)."),
    changePercent: z.number().gt(-100).max(10_000).optional().describe('The change in percent: 15 raises by 15%, -20 lowers by 20%.'),
  }),
  'dailyBudget',
  'changePercent',
).describe('args of adjust_budget: campaignId and either dailyBudget or changePercent.')

const SendArgs = exactlyOne(
  z.strictObject({
    campaignId,
    listId: listId.optional(),
    segmentId: segmentId.optional(),
    sendAt: dateTime.optional().describe('When the send starts (ISO 8601 with a time zone, in the future); checked against quiet hours. Without it, the send goes once approved.'),
  }),
  'listId',
  'segmentId',
).describe('args of send_campaign: campaignId, listId or segmentId, and optionally sendAt.')

const DiscountArgs = z
  .strictObject({
    code: z
      .string()
      .regex(/^[A-Za-z0-9_-]{3,32}$/, { message: 'must be 3 to 32 letters, digits, dashes or underscores' })
      .transform((s) => s.toUpperCase())
      .describe('The code: 3 to 32 letters, digits, dashes or underscores; stored in capitals.'),
    percentOff: z.number().gt(0).max(100).describe('Percent off, above 0 and at most 100.'),
    expiresAt: dateTime.transform((s) => new Date(s).toISOString()).describe('When the code stops working (ISO 8601 with a time zone, in the future).'),
  })
  .describe('args of create_discount.')

const TagArgs = exactlyOne(
  z.strictObject({
    tag: text(1, 64).describe('The tag to add, 1 to 64 characters.'),
    listId: listId.optional(),
    segmentId: segmentId.optional(),
  }),
  'listId',
  'segmentId',
).describe('args of tag_contacts: tag, and listId or segmentId.')

/** Every kind of change, with what it does and its args. */
export const ACTION_KIND_ARGS = {
  pause_campaign: { args: CampaignArgs, description: 'Pause an active campaign. args: { campaignId }.' },
  resume_campaign: { args: CampaignArgs, description: 'Resume a paused campaign. args: { campaignId }.' },
  adjust_budget: {
    args: BudgetArgs,
    description:
      "Change a campaign's daily budget. args: { campaignId, dailyBudget: { amountMinor, currency } } in the campaign's own currency, or { campaignId, changePercent } (e.g. 15 or -20).",
  },
  send_campaign: {
    args: SendArgs,
    description:
      'Send an email or SMS campaign to a list or a segment. args: { campaignId, listId | segmentId, sendAt? } (sendAt: ISO 8601 time; without it, the send goes once approved). Addresses on the do-not-contact list are not counted or sent to.',
  },
  create_discount: {
    args: DiscountArgs,
    description: 'Create a discount code in the store. args: { code (3 to 32 letters, digits, dashes, underscores; stored in capitals), percentOff (above 0, at most 100), expiresAt (ISO 8601, in the future) }.',
  },
  tag_contacts: { args: TagArgs, description: 'Add a tag to every contact of a list or a segment. args: { tag (1 to 64 characters), listId | segmentId }.' },
} as const

export type ActionKind = keyof typeof ACTION_KIND_ARGS
export const ACTION_KINDS = Object.keys(ACTION_KIND_ARGS) as [ActionKind, ...ActionKind[]]

const proposal = <K extends ActionKind>(kind: K) =>
  z
    .strictObject({ kind: z.literal(kind).describe(ACTION_KIND_ARGS[kind].description), args: ACTION_KIND_ARGS[kind].args as (typeof ACTION_KIND_ARGS)[K]['args'] })
    .describe(`A proposal to ${kind.replaceAll('_', ' ')}.`)

/** The body of POST /actions: one shape per kind, its args as that kind declares them. */
export const CreateActionRequest = z
  .discriminatedUnion('kind', [
    proposal('pause_campaign'),
    proposal('resume_campaign'),
    proposal('adjust_budget'),
    proposal('send_campaign'),
    proposal('create_discount'),
    proposal('tag_contacts'),
  ])
  .describe('A change to propose: it waits for a person, or is refused by the workspace limits.')

export type Action = z.infer<typeof Action>
export type CreateActionInput = z.output<typeof CreateActionRequest>
export type ActionArgs = { [K in ActionKind]: z.output<(typeof ACTION_KIND_ARGS)[K]['args']> }
