import { z } from 'zod'
import { Timestamp } from './common.ts'

/** The most entries a section of the aggregate lists (the store reads no more). */
const SECTION = 100

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
        .describe(`How each author's predictions held up, most measured first: at most ${SECTION} authors (authorCount says how many there are).`),
      authorCount: z.number().int().describe('How many authors have measured predictions.'),
      byMeasure: z
        .array(z.object({ measure: z.string().describe('The metric predicted.'), ...PredictionGroup, statedConfidence: z.number().describe('Mean stated confidence, 0 to 1.') }))
        .describe(`How predictions about each measure held up, most measured first: at most ${SECTION} measures (measureCount says how many there are).`),
      measureCount: z.number().int().describe('How many measures have measured predictions.'),
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
            findings: z.array(z.object({ id: z.string().describe('The finding.'), title: z.string().describe('What it claimed.'), createdAt: Timestamp })).describe(`The findings turned down for this reason, newest first: at most ${SECTION} (count says how many).`),
          }),
        )
        .describe(`Why findings were turned down, most common reason first: at most ${SECTION} reasons (reasonCount says how many there are).`),
      reasonCount: z.number().int().describe('How many different reasons findings were turned down for.'),
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

export type Outcomes = z.infer<typeof Outcomes>
