import { z } from 'zod'
import { Timestamp } from './common.ts'

export const Automation = z.object({
  id: z.string().describe('aut_...'),
  name: z.string().describe('What people call it.'),
  kind: z.string().describe('What the automation does, e.g. winback_flow, ad_budget_pacing.'),
  status: z.enum(['running', 'paused', 'finished']).describe('Whether it is working now.'),
})

export const Mission = z
  .object({
    id: z.string().describe('msn_...'),
    name: z.string().describe('The mission in a few words.'),
    objective: z.string().describe('What the mission is for, in a sentence.'),
    status: z.enum(['active', 'paused', 'completed']).describe('active, paused or completed.'),
    metric: z.object({
      name: z.string().describe('The measure the mission moves, e.g. repeat_purchase_rate.'),
      unit: z.string().describe("'count', 'percent', or an ISO 4217 currency code for amounts in minor units."),
      baseline: z.number().describe('Where the measure stood when the mission started.'),
      current: z.number().describe('The latest measurement.'),
      target: z.number().describe('Where the mission means to bring it.'),
      measuredAt: Timestamp.nullable(),
    }).describe('The measure the mission moves, from baseline to target.'),
    progress: z.number().min(0).max(1).describe('Share of the way from baseline to target, 0 to 1.'),
    automations: z.array(Automation).describe('The automations working on this mission.'),
    startedAt: Timestamp,
    dueAt: Timestamp.nullable(),
    createdAt: Timestamp,
  })
  .describe('A growth mission, its measured progress and the automations working on it.')

export const Decision = z
  .object({
    id: z.string().describe('dec_...'),
    missionId: z.string().describe('The mission (msn_...) the decision serves.'),
    author: z
      .object({ name: z.string().describe("The agent's or the person's name."), kind: z.enum(['agent', 'person']).describe('An agent or a person.') })
      .describe('Who made the call.'),
    title: z.string().describe('The call, in a line.'),
    rationale: z.string().describe('The argument for the call, as written when it was made.'),
    prediction: z.object({
      measure: z.string().describe('The metric the prediction is about.'),
      change: z.number().describe('Predicted relative change of the measure, in percent.'),
      confidence: z.number().min(0).max(1).describe('Stated confidence that the prediction holds, 0 to 1.'),
    }).describe('What the decision predicted, and how sure its author was.'),
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

export const EXPERIMENT_KINDS = ['email_ab_test', 'email_holdout', 'sms_holdout'] as const
export const EXPECTATIONS = ['a_better', 'b_better', 'no_difference', 'send_adds'] as const

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
        observed: z.enum(['a_better', 'b_better', 'no_difference', 'send_adds']).describe('What the test showed.'),
        held: z.boolean().describe('Whether the test showed what the hypothesis expected.'),
        decidedAt: Timestamp.nullable(),
      })
      .nullable()
      .describe('What the test said, once decided.'),
    createdAt: Timestamp,
  })
  .describe('A hypothesis written before its test was decided, and what the test said.')

export const CreateExperimentRequest = z
  .strictObject({
    hypothesis: z.string().trim().min(10).max(2000).describe('What is expected and why; at least 10 characters.'),
    kind: z.enum(EXPERIMENT_KINDS).describe('email_ab_test for an A/B test; email_holdout or sms_holdout for a hold-back.'),
    subjectId: z.string().min(1).max(64).describe('The A/B test id, or the email send id for a hold-back.'),
    expectation: z
      .enum(EXPECTATIONS)
      .describe('a_better, b_better or no_difference for an A/B test; send_adds or no_difference for a hold-back.'),
    decisionId: z.string().min(1).max(64).optional().describe('The decision whose argument this tests.'),
  })
  .describe('A hypothesis to record against a test that has not been decided yet.')

export type MissionT = z.infer<typeof Mission>
export type DecisionT = z.infer<typeof Decision>
export type ExperimentT = z.infer<typeof Experiment>
export type CreateExperimentInput = z.infer<typeof CreateExperimentRequest>
