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
    status: z.enum(SIGNAL_STATUSES).describe('open, resolved or dismissed.'),
    opportunity: z
      .object({
        id: z.string().describe('opp_...'),
        title: z.string().describe('The opportunity in a line.'),
        status: z.enum(OPPORTUNITY_STATUSES).describe('Its status now.'),
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
    title: z.string().describe('The thing worth doing, in a line.'),
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
      measured: z.number().int().describe('Of those, how many have been measured.'),
      held: z.number().int().describe('Of those measured, how many came true.'),
      heldRate: Rate,
      byAuthor: z
        .array(z.object({ author: z.object({ name: z.string().describe("The agent's or person's name."), kind: z.enum(['agent', 'person']).describe('An agent or a person.') }).describe('Who made the predictions.'), ...PredictionGroup, statedConfidence: z.number().describe('Mean stated confidence, 0 to 1.') }))
        .describe('How each author\'s predictions held up, most measured first.'),
      byMeasure: z
        .array(z.object({ measure: z.string().describe('The metric predicted.'), ...PredictionGroup, statedConfidence: z.number().describe('Mean stated confidence, 0 to 1.') }))
        .describe('How predictions about each measure held up, most measured first.'),
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
    }).describe('How the predictions of the decision ledger held up.'),
    findings: z.object({
      open: z.number().int().describe('Findings waiting for a person.'),
      accepted: z.number().int().describe('Findings a person accepted.'),
      rejected: z.number().int().describe('Findings a person turned down.'),
      turnedDown: z
        .array(
          z.object({
            reason: z.string().describe('The reason a person gave.'),
            count: z.number().int().describe('How many findings were turned down for it.'),
            findings: z.array(z.object({ id: z.string().describe('The finding.'), title: z.string().describe('What it claimed.'), createdAt: Timestamp })).describe('The findings turned down for this reason, newest first.'),
          }),
        )
        .describe('Why findings were turned down, most common reason first.'),
    }).describe('Findings the product raised, and why people turned some down.'),
    tests: z.object({
      abTests: z
        .object({
          running: z.number().int().describe('Tests still running.'),
          decided: z.number().int().describe('Tests decided.'),
          aWon: z.number().int().describe('Decided for variant A.'),
          bWon: z.number().int().describe('Decided for variant B.'),
          noDifference: z.number().int().describe('Decided with no difference.'),
        })
        .describe('Email A/B tests by what they showed.'),
      holdouts: z.object({
        decided: z.number().int().describe('Hold-backs decided.'),
        sendAdded: z.number().int().describe('Decided hold-backs where the send beat its hold-back group.'),
        meanLiftPercent: z.number().nullable().describe('Mean measured lift of the send over its hold-back, in percent.'),
      }).describe('Sends measured against a group held back from them.'),
      hypotheses: z
        .object({
          written: z.number().int().describe('Hypotheses recorded.'),
          decided: z.number().int().describe('Of those, how many tests have been decided.'),
          held: z.number().int().describe('Of those decided, how many showed what the hypothesis expected.'),
          heldRate: Rate,
        })
        .describe('Hypotheses written before their tests, and how they held.'),
    }).describe('What tests showed.'),
  })
  .describe('Aggregates only: how predictions held up, why findings were turned down, what tests showed.')

export const APPROVAL_STATUSES = ['pending', 'approved', 'rejected'] as const

export const Approval = z
  .object({
    id: z.string().describe('apr_...'),
    kind: z.enum(['send', 'agent_request']).describe('A send waiting to go out, or an agent request the gateway held for a person.'),
    status: z.enum(APPROVAL_STATUSES).describe('pending, approved or rejected.'),
    summary: z.string().describe('What a person is asked to approve, in a line.'),
    subjectId: z.string().nullable().describe('The email send (snd_...) or the agent request (auth_...) waiting.'),
    requestedBy: z.string().describe('Who asked: an agent, a person or the API.'),
    decidedBy: z.string().nullable().describe('The person who decided, once decided.'),
    decidedAt: Timestamp.nullable(),
    expiresAt: Timestamp.nullable().describe('Until when a decision or an approval can be used.'),
    expired: z.boolean().describe('Pending past expiresAt: it can no longer be approved. Expiry is not a rejection.'),
    usedAt: Timestamp.nullable().describe('When an approved request was carried out (an approval is used once).'),
    createdAt: Timestamp,
  })
  .describe("A send or an agent's request waiting for, or given, a person's approval.")
