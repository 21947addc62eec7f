import { z } from 'zod'
import { OPPORTUNITY_STATUSES, SIGNAL_STATUSES } from '../core/enums.ts'
import { Timestamp } from './common.ts'

export const Signal = z
  .object({
    id: z.string().describe('sig_...'),
    kind: z.string().describe('What sort of notice this is, e.g. repeat_rate_drop, stock_low, cpc_spike.'),
    title: z.string().describe('What the product noticed, in a line.'),
    detail: z.string().describe('The figures behind it.'),
    status: z.enum(SIGNAL_STATUSES).describe('open, resolved or dismissed.'),
    opportunity: z
      .object({
        id: z.string().describe('opp_...'),
        title: z.string().describe('The opportunity in a line.'),
        status: z.enum(OPPORTUNITY_STATUSES).describe('Its status now.'),
      })
      .nullable()
      .describe('The opportunity this notice speaks for, or null when it speaks for none.'),
    resolvedAt: Timestamp.nullable(),
    createdAt: Timestamp,
  })
  .describe('What the product noticed in the business, and the opportunity it speaks for.')

export type Signal = z.infer<typeof Signal>
