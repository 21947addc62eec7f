import { z } from 'zod'
import { EXPECTATIONS, EXPERIMENT_KINDS } from '../core/enums.ts'
import { idOf, text, Timestamp } from './common.ts'

export const Experiment = z
  .object({
    id: z.string().describe('exp_...'),
    hypothesis: z.string().describe('What is expected and why, as written before the test was decided.'),
    kind: z.enum(EXPERIMENT_KINDS).describe('email_ab_test, email_holdout or sms_holdout.'),
    subjectId: z.string().describe('The A/B test (abt_...) or, for a hold-back, the email send (snd_...).'),
    expectation: z.enum(EXPECTATIONS).describe('What the hypothesis expects the test to show.'),
    decisionId: z.string().nullable().describe('The decision (dec_...) whose argument this tests, if any.'),
    status: z.enum(['open', 'decided']).describe('Whether the test it is about has been decided.'),
    result: z
      .object({
        observed: z.enum(EXPECTATIONS).describe('What the test showed.'),
        held: z.boolean().describe('Whether the test showed what the hypothesis expected.'),
        decidedAt: Timestamp.nullable(),
      })
      .nullable()
      .describe('What the test said, once decided.'),
    createdAt: Timestamp,
  })
  .describe('A hypothesis written before its test was decided, and what the test said.')

const hypothesis = text(10, 2000).describe('What is expected and why; at least 10 characters.')
const decisionId = idOf('decision', 'a decision').optional().describe('The decision (dec_...) whose argument this tests.')

/** The expectations an A/B test can show, and those a hold-back can show. */
const AB_EXPECTATIONS = ['a_better', 'b_better', 'no_difference'] as const
const HOLDOUT_EXPECTATIONS = ['send_adds', 'no_difference'] as const

/**
 * The body of POST /experiments, one shape per kind: the subject and the expectations must fit the
 * kind of test (an A/B test shows a winner; a hold-back shows whether the send added anything).
 */
export const CreateExperimentRequest = z
  .discriminatedUnion('kind', [
    z
      .strictObject({
        hypothesis,
        kind: z.literal('email_ab_test').describe('A hypothesis about an email A/B test.'),
        subjectId: idOf('abTest', 'an A/B test').describe('The A/B test (abt_...).'),
        expectation: z.enum(AB_EXPECTATIONS).describe('a_better, b_better or no_difference.'),
        decisionId,
      })
      .describe('A hypothesis about an email A/B test.'),
    z
      .strictObject({
        hypothesis,
        kind: z.enum(['email_holdout', 'sms_holdout']).describe('A hypothesis about a send measured against a group held back from it.'),
        subjectId: idOf('emailSend', 'an email send').describe('The send (snd_...) with the hold-back group.'),
        expectation: z.enum(HOLDOUT_EXPECTATIONS).describe('send_adds or no_difference.'),
        decisionId,
      })
      .describe('A hypothesis about a send and its hold-back group.'),
  ])
  .describe('A hypothesis to record against a test that has not been decided yet; its subject and expectation fit its kind.')

export type Experiment = z.infer<typeof Experiment>
export type CreateExperimentInput = z.output<typeof CreateExperimentRequest>
