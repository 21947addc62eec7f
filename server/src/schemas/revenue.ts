import { z } from 'zod'
import { Money, Timestamp } from './common.ts'

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

export type Revenue = z.infer<typeof Revenue>
