import { z } from 'zod'
import { CONNECTION_KINDS } from '../core/enums.ts'
import { Timestamp } from './common.ts'

export const Connection = z
  .object({
    id: z.string().describe('conn_...'),
    kind: z.enum(CONNECTION_KINDS).describe('What is connected.'),
    provider: z.string().describe('e.g. shopify, meta_ads, google_ads, klaviyo, instagram.'),
    name: z.string().describe('The name people know it by.'),
    delivering: z.boolean().describe('Whether it still delivers data.'),
    failingSince: Timestamp.nullable().describe('When it stopped delivering; null while it delivers.'),
    lastDeliveredAt: Timestamp.nullable(),
    createdAt: Timestamp,
  })
  .describe('A connected store, ad account, email platform or social account, and whether it still delivers.')

export type Connection = z.infer<typeof Connection>
