import { z } from 'zod'
import { Timestamp } from './common.ts'

export const Decision = z
  .object({
    id: z.string().describe('dec_...'),
    missionId: z.string().describe('The mission (msn_...) the decision serves.'),
    author: z
      .object({ name: z.string().describe("The agent's or the person's name."), kind: z.enum(['agent', 'person']).describe('An agent or a person.') })
      .describe('Who made the call.'),
    title: z.string().describe('The call, in a line.'),
    rationale: z.string().describe('The argument for the call, as written when it was made.'),
    prediction: z
      .object({
        measure: z.string().describe('The metric the prediction is about.'),
        change: z.number().describe('Predicted relative change of the measure, in percent.'),
        confidence: z.number().min(0).max(1).describe('Stated confidence that the prediction holds, 0 to 1.'),
      })
      .describe('What the decision predicted, and how sure its author was.'),
    status: z.enum(['recorded', 'measured']).describe('recorded until the outcome is measured.'),
    outcome: z
      .object({
        change: z.number().describe('Measured relative change, in percent.'),
        held: z.boolean().describe('Whether the prediction came true.'),
        measuredAt: Timestamp,
      })
      .nullable()
      .describe('What happened, once measured.'),
    createdAt: Timestamp,
  })
  .describe('An entry of the decision ledger: a prediction and, once measured, what happened.')

export type Decision = z.infer<typeof Decision>
