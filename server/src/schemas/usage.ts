import { z } from 'zod'
import { ALLOWANCES } from '../core/enums.ts'
import { Timestamp } from './common.ts'

export const Usage = z
  .object({
    allowances: z.array(
      z.object({
        name: z.enum(ALLOWANCES).describe('The allowance.'),
        limit: z.number().int().describe("What the workspace's plan allows."),
        used: z.number().int().describe('Used this period (for contacts: contacts held now).'),
        remaining: z.number().int().describe('limit - used, never below 0.'),
        periodStart: Timestamp.nullable().describe('Start of the calendar month (UTC); null for the standing contacts allowance.'),
        periodEnd: Timestamp.nullable().describe('Start of the next month; null for contacts.'),
      }),
    ).describe('Each monthly allowance, then the standing contacts allowance.'),
    apiCalls: z.object({
      count: z.number().int().describe('Calls counted this period, whatever the outcome: success, refusal, rate limit or failure.'),
      periodStart: Timestamp,
      periodEnd: Timestamp,
      countingBeganAt: Timestamp.describe('Counting began on this date; nothing earlier is reconstructed.'),
    }).describe('API calls counted this month.'),
  })
  .describe("Each allowance of the workspace's plan and the API calls counted this period.")

export type Usage = z.infer<typeof Usage>
