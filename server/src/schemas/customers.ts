import { z } from 'zod'
import { CUSTOMER_STAGES } from '../core/enums.ts'
import { MoneyList, Timestamp } from './common.ts'

export const Customer = z
  .object({
    id: z.string().describe('cus_...'),
    name: z.string().describe('The buyer\'s name.'),
    email: z.string().describe('The buyer\'s email address.'),
    stage: z.enum(CUSTOMER_STAGES).describe('prospect (no order yet), first_time, repeat or lapsed.'),
    orders: z.number().int().describe('Orders placed, in every currency.'),
    spend: MoneyList.describe('Total spend, one entry per currency the customer paid in; empty for a prospect.'),
    firstOrderAt: Timestamp.nullable(),
    lastOrderAt: Timestamp.nullable(),
    createdAt: Timestamp,
  })
  .describe('A buyer in a stage, with spend per currency.')

export type Customer = z.infer<typeof Customer>
