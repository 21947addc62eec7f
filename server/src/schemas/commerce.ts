import { z } from 'zod'
import { Money, MoneyList, Timestamp } from './common.ts'

export const CUSTOMER_STAGES = ['prospect', 'first_time', 'repeat', 'lapsed'] as const

export const Customer = z
  .object({
    id: z.string().describe('cus_...'),
    name: z.string(),
    email: z.string(),
    stage: z.enum(CUSTOMER_STAGES),
    orders: z.number().int().describe('Orders placed, in every currency.'),
    spend: MoneyList.describe('Total spend, one entry per currency the customer paid in; empty for a prospect.'),
    firstOrderAt: Timestamp.nullable(),
    lastOrderAt: Timestamp.nullable(),
    createdAt: Timestamp,
  })
  .describe('A buyer in a stage, with spend per currency.')

export const Revenue = z
  .object({
    from: Timestamp.describe('Start of the span (inclusive).'),
    to: Timestamp.describe('End of the span (exclusive).'),
    currencies: z
      .array(
        z.object({
          currency: z.string().describe('ISO 4217 code.'),
          orders: z.number().int(),
          total: Money.describe('Order-ledger revenue in this currency.'),
          marketing: z.object({
            amount: Money.describe('The part traced to a marketing channel.'),
            orders: z.number().int(),
            share: z.number().min(0).max(1).describe('amount / total, 0 to 1 (0 when total is 0).'),
            byChannel: z.array(z.object({ channel: z.string(), amount: Money, orders: z.number().int() })),
          }),
        }),
      )
      .describe('One entry per currency, ordered by currency code; never converted or added across currencies.'),
  })
  .describe('Order-ledger revenue per currency over a span, with the share traced to marketing.')

export const Usage = z
  .object({
    allowances: z.array(
      z.object({
        name: z.enum(['emails', 'sms', 'trackedEvents', 'agentRequests', 'contacts']),
        limit: z.number().int(),
        used: z.number().int(),
        remaining: z.number().int(),
        periodStart: Timestamp.nullable().describe('Start of the calendar month (UTC); null for the standing contacts allowance.'),
        periodEnd: Timestamp.nullable().describe('Start of the next month; null for contacts.'),
      }),
    ),
    apiCalls: z.object({
      count: z.number().int().describe('Calls counted this period, whatever the outcome: success, refusal, rate limit or failure.'),
      periodStart: Timestamp,
      periodEnd: Timestamp,
      countingBeganAt: Timestamp.describe('Counting began on this date; nothing earlier is reconstructed.'),
    }),
  })
  .describe("Each allowance of the workspace's plan and the API calls counted this period.")

export const Connection = z
  .object({
    id: z.string().describe('conn_...'),
    kind: z.enum(['store', 'ad_account', 'email_platform', 'social_account']),
    provider: z.string().describe('e.g. shopify, meta_ads, google_ads, klaviyo, instagram.'),
    name: z.string(),
    delivering: z.boolean().describe('Whether it still delivers data.'),
    failingSince: Timestamp.nullable().describe('When it stopped delivering; null while it delivers.'),
    lastDeliveredAt: Timestamp.nullable(),
    createdAt: Timestamp,
  })
  .describe('A connected store, ad account, email platform or social account, and whether it still delivers.')
