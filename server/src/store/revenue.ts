import type { Sql, Tx } from '../core/db.ts'
import { insertRows } from './keyset.ts'

/** The order ledger, which revenue is read from. */

export type RevenueRow = { currency: string; channel: string | null; total: number; orders: number }

/** Order-ledger revenue in [from, to), per currency and marketing channel (null: not traced). */
export async function selectRevenue(sql: Sql, workspaceId: string, from: Date, to: Date): Promise<RevenueRow[]> {
  return sql<RevenueRow[]>`
    SELECT currency::text AS currency, attributed_channel AS channel, sum(amount_minor)::int8 AS total, count(*)::int AS orders
    FROM orders
    WHERE workspace_id = ${workspaceId} AND placed_at >= ${from} AND placed_at < ${to}
    GROUP BY currency, attributed_channel
    ORDER BY currency, attributed_channel NULLS FIRST`
}

export type OrderInsert = {
  workspace_id: string; id: string; customer_id: string; amount_minor: number; currency: string
  attributed_channel: string | null; placed_at: Date; created_at: Date
}

export const insertOrders = (tx: Tx, rows: OrderInsert[]) => insertRows(tx, 'orders', rows)
