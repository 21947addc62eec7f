import { z } from 'zod'
import { MoneyList, Timestamp } from './common.ts'

export const SIGNAL_STATUSES = ['open', 'resolved', 'dismissed'] as const
export const OPPORTUNITY_STATUSES = ['open', 'actioned', 'dismissed', 'expired'] as const

export const Signal = z
  .object({
    id: z.string().describe('sig_...'),
    kind: z.string().describe('What sort of notice this is, e.g. repeat_rate_drop, stock_low, cpc_spike.'),
    title: z.string().describe('What the product noticed, in a line.'),
    detail: z.string().describe('The figures behind it.'),
    status: z.enum(SIGNAL_STATUSES),
    opportunity: z
      .object({
        id: z.string().describe('opp_...'),
        title: z.string(),
        status: z.enum(OPPORTUNITY_STATUSES),
      })
      .nullable()
      .describe('The opportunity this notice speaks for, or null when it speaks for none.'),
    resolvedAt: Timestamp.nullable(),
    createdAt: Timestamp,
  })
  .describe('What the product noticed in the business, and the opportunity it speaks for.')

export const Opportunity = z
  .object({
    id: z.string().describe('opp_...'),
    title: z.string(),
    detail: z.string().describe('Why it is worth doing.'),
    status: z.enum(OPPORTUNITY_STATUSES).describe('An open opportunity whose expiresAt has passed is reported as expired.'),
    worth: z.number().describe('The score opportunities are ordered by: higher is worth doing sooner.'),
    estimatedImpact: MoneyList.describe('Expected revenue, one entry per currency.'),
    measuredImpact: MoneyList.nullable().describe('Measured revenue once it was actioned and measured, one entry per currency; null until then.'),
    signals: z.number().int().describe('How many signals speak for it.'),
    expiresAt: Timestamp.nullable(),
    createdAt: Timestamp,
  })
  .describe('A thing worth doing, with its expected and, where measured, its measured impact.')

const Rate = z.number().min(0).max(1).nullable().describe('held / measured, 0 to 1; null when nothing was measured.')

const PredictionGroup = {
  measured: z.number().int().describe('Predictions measured.'),
  held: z.number().int().describe('Of those, how many came true.'),
  heldRate: Rate,
}

export const Outcomes = z
  .object({
    predictions: z.object({
      recorded: z.number().int().describe('Every decision in the ledger.'),
      measured: z.number().int(),
      held: z.number().int(),
      heldRate: Rate,
      byAuthor: z.array(z.object({ author: z.object({ name: z.string(), kind: z.enum(['agent', 'person']) }), ...PredictionGroup, statedConfidence: z.number().describe('Mean stated confidence, 0 to 1.') })),
      byMeasure: z.array(z.object({ measure: z.string(), ...PredictionGroup, statedConfidence: z.number() })),
      calibration: z
        .array(
          z.object({
            confidenceFrom: z.number().describe('Stated confidence bucket, from (inclusive).'),
            confidenceTo: z.number().describe('To (exclusive; 1.0 includes 1).'),
            statedConfidence: z.number().describe('Mean confidence stated in this bucket.'),
            ...PredictionGroup,
          }),
        )
        .describe('Stated confidence against how often it came true: a calibrated author holds about as often as they say.'),
    }),
    findings: z.object({
      open: z.number().int(),
      accepted: z.number().int(),
      rejected: z.number().int(),
      turnedDown: z
        .array(z.object({ reason: z.string(), count: z.number().int(), findings: z.array(z.object({ id: z.string(), title: z.string(), createdAt: Timestamp })) }))
        .describe('Why findings were turned down, most common reason first.'),
    }),
    tests: z.object({
      abTests: z.object({ running: z.number().int(), decided: z.number().int(), aWon: z.number().int(), bWon: z.number().int(), noDifference: z.number().int() }),
      holdouts: z.object({
        decided: z.number().int(),
        sendAdded: z.number().int().describe('Decided hold-backs where the send beat its hold-back group.'),
        meanLiftPercent: z.number().nullable().describe('Mean measured lift of the send over its hold-back, in percent.'),
      }),
      hypotheses: z.object({ written: z.number().int(), decided: z.number().int(), held: z.number().int(), heldRate: Rate }),
    }),
  })
  .describe('Aggregates only: how predictions held up, why findings were turned down, what tests showed.')

export const APPROVAL_STATUSES = ['pending', 'approved', 'rejected'] as const

export const Approval = z
  .object({
    id: z.string().describe('apr_...'),
    kind: z.enum(['send', 'agent_request']).describe('A send waiting to go out, or an agent request the gateway held for a person.'),
    status: z.enum(APPROVAL_STATUSES),
    summary: z.string().describe('What a person is asked to approve, in a line.'),
    subjectId: z.string().nullable().describe('The email send (snd_...) or the agent request (auth_...) waiting.'),
    requestedBy: z.string().describe('Who asked: an agent, a person or the API.'),
    decidedBy: z.string().nullable(),
    decidedAt: Timestamp.nullable(),
    expiresAt: Timestamp.nullable().describe('Until when a decision or an approval can be used.'),
    expired: z.boolean().describe('Pending past expiresAt: it can no longer be approved. Expiry is not a rejection.'),
    usedAt: Timestamp.nullable().describe('When an approved request was carried out (an approval is used once).'),
    createdAt: Timestamp,
  })
  .describe("A send or an agent's request waiting for, or given, a person's approval.")
