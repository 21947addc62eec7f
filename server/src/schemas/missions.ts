import { z } from 'zod'
import { AUTOMATION_STATUSES, MISSION_STATUSES } from '../core/enums.ts'
import { Timestamp } from './common.ts'

export const Automation = z
  .object({
    id: z.string().describe('aut_...'),
    name: z.string().describe('What people call it.'),
    kind: z.string().describe('What the automation does, e.g. winback_flow, ad_budget_pacing.'),
    status: z.enum(AUTOMATION_STATUSES).describe('Whether it is working now.'),
  })
  .describe('An automation working on a mission.')

export const Mission = z
  .object({
    id: z.string().describe('msn_...'),
    name: z.string().describe('The mission in a few words.'),
    objective: z.string().describe('What the mission is for, in a sentence.'),
    status: z.enum(MISSION_STATUSES).describe('active, paused or completed.'),
    metric: z
      .object({
        name: z.string().describe('The measure the mission moves, e.g. repeat_purchase_rate.'),
        unit: z.string().describe("'count', 'percent', or an ISO 4217 currency code for amounts in minor units."),
        baseline: z.number().describe('Where the measure stood when the mission started.'),
        current: z.number().describe('The latest measurement.'),
        target: z.number().describe('Where the mission means to bring it.'),
        measuredAt: Timestamp.nullable(),
      })
      .describe('The measure the mission moves, from baseline to target.'),
    progress: z.number().min(0).max(1).describe('Share of the way from baseline to target, 0 to 1.'),
    automations: z.array(Automation).describe('The automations working on this mission, oldest first: at most 100 (automationCount says how many there are).'),
    automationCount: z.number().int().describe('How many automations work on this mission.'),
    startedAt: Timestamp,
    dueAt: Timestamp.nullable(),
    createdAt: Timestamp,
  })
  .describe('A growth mission, its measured progress and the automations working on it.')

export type Mission = z.infer<typeof Mission>
