import { z } from 'zod'
import { ACTION_KIND_NAMES, ACTION_KINDS } from '../domain/action-kinds.ts'
import { Timestamp } from './common.ts'

export const ACTION_STATUSES = ['proposed', 'approved', 'applying', 'applied', 'rejected', 'refused', 'failed'] as const

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
    decidedBy: z.string().nullable().describe('The person who approved or rejected it.'),
    decidedAt: Timestamp.nullable(),
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

export type ActionT = z.infer<typeof Action>

const kindList = ACTION_KIND_NAMES.map((k) => `- \`${k}\`: ${ACTION_KINDS[k].description}`).join('\n')

/**
 * The body of POST /actions. `args` is checked against its kind's own schema here, in the body
 * schema, so a bad arg is refused with the other validation errors: before any transaction, and
 * never kept under an Idempotency-Key. Issues are told under args (e.g. args.campaignId).
 */
export const CreateActionRequest = z
  .strictObject({
    kind: z.enum(ACTION_KIND_NAMES).describe(`The kind of change. The kinds and their args:\n${kindList}`),
    args: z.record(z.string(), z.unknown()).describe('The arguments, as the kind declares them (see kind). An unknown or malformed arg is 400 naming it; an id not in this workspace is 404.'),
  })
  .transform((body, ctx) => {
    const parsed = ACTION_KINDS[body.kind].args.safeParse(body.args, { reportInput: true })
    if (parsed.success) return { kind: body.kind, args: parsed.data as Record<string, unknown> }
    for (const issue of parsed.error.issues) ctx.addIssue({ ...issue, path: ['args', ...issue.path] } as z.core.$ZodRawIssue)
    return z.NEVER
  })
  .describe('A change to propose; it waits for a person, or is refused by the workspace limits.')
