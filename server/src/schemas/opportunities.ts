import { z } from 'zod'
import { OPPORTUNITY_STATUSES } from '../core/enums.ts'
import { MoneyList, Timestamp } from './common.ts'

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

export type Opportunity = z.infer<typeof Opportunity>
