import { z } from 'zod'
import { MONTHLY_ALLOWANCES } from '../domain/allowances.ts'
import { Money, MoneyList, Timestamp } from './common.ts'

export const CUSTOMER_STAGES = ['prospect', 'first_time', 'repeat', 'lapsed'] as const

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

export const Revenue = z
  .object({
    from: Timestamp.describe('Start of the span (inclusive).'),
    to: Timestamp.describe('End of the span (exclusive).'),
    currencies: z
      .array(
        z.object({
          currency: z.string().describe('ISO 4217 code.'),
          orders: z.number().int().describe('Orders placed in this currency.'),
          total: Money.describe('Order-ledger revenue in this currency.'),
          marketing: z.object({
            amount: Money.describe('The part traced to a marketing channel.'),
            orders: z.number().int().describe('Orders traced to a marketing channel.'),
            share: z.number().min(0).max(1).describe('amount / total, 0 to 1 (0 when total is 0).'),
            byChannel: z
              .array(z.object({ channel: z.string().describe('email, sms, ads or social.'), amount: Money, orders: z.number().int().describe('Orders traced to this channel.') }))
              .describe('The marketing part by channel, largest first.'),
          }).describe('The part of the revenue traced to marketing.'),
        }),
      )
      .describe('One entry per currency, ordered by currency code; never converted or added across currencies.'),
  })
  .describe('Order-ledger revenue per currency over a span, with the share traced to marketing.')

export const Usage = z
  .object({
    allowances: z.array(
      z.object({
        name: z.enum([...MONTHLY_ALLOWANCES, 'contacts']).describe('The allowance.'),
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

export const Connection = z
  .object({
    id: z.string().describe('conn_...'),
    kind: z.enum(['store', 'ad_account', 'email_platform', 'social_account']).describe('What is connected.'),
    provider: z.string().describe('e.g. shopify, meta_ads, google_ads, klaviyo, instagram.'),
    name: z.string().describe('The name people know it by.'),
    delivering: z.boolean().describe('Whether it still delivers data.'),
    failingSince: Timestamp.nullable().describe('When it stopped delivering; null while it delivers.'),
    lastDeliveredAt: Timestamp.nullable(),
    createdAt: Timestamp,
  })
  .describe('A connected store, ad account, email platform or social account, and whether it still delivers.')
