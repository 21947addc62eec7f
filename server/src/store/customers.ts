import type { Sql, Tx } from '../core/db.ts'
import type { CustomerStage } from '../core/enums.ts'
import type { TimePosition } from '../core/paging.ts'
import { insertRows, olderThan } from './keyset.ts'

type CustomerRow = {
  id: string; name: string; email: string; stage: CustomerStage
  first_order_at: Date | null; last_order_at: Date | null; created_at: Date
  orders: number; spend: { amountMinor: number; currency: string }[]
}

/**
 * Customers newest first, optionally of one stage, keyset-paged on (created_at, id); each with its
 * order count and spend per currency, summed per currency in the same statement.
 */
export async function selectCustomers(
  sql: Sql,
  workspaceId: string,
  opts: { stage?: CustomerStage; after?: TimePosition; limit: number },
): Promise<CustomerRow[]> {
  const stage = opts.stage ? sql`AND c.stage = ${opts.stage}` : sql``
  return sql<CustomerRow[]>`
    SELECT c.id, c.name, c.email, c.stage, c.first_order_at, c.last_order_at, c.created_at,
           COALESCE(s.orders, 0)::int AS orders, COALESCE(s.spend, '[]'::json) AS spend
    FROM customers c
    LEFT JOIN LATERAL (
      SELECT sum(n)::int AS orders,
             json_agg(json_build_object('amountMinor', total, 'currency', currency) ORDER BY currency) AS spend
      FROM (SELECT o.currency::text AS currency, sum(o.amount_minor)::int8 AS total, count(*) AS n
            FROM orders o WHERE o.workspace_id = c.workspace_id AND o.customer_id = c.id
            GROUP BY o.currency) per_currency
    ) s ON true
    WHERE c.workspace_id = ${workspaceId} ${stage} ${olderThan(sql, opts.after, 'c')}
    ORDER BY c.created_at DESC, c.id DESC
    LIMIT ${opts.limit}`
}

export type CustomerInsert = Omit<CustomerRow, 'orders' | 'spend'> & { workspace_id: string }

export const insertCustomers = (tx: Tx, rows: CustomerInsert[]) => insertRows(tx, 'customers', rows)
