import type { Sql } from './db.ts'
import { olderThan, type Position } from './growth.ts'

type MoneyRow = { amountMinor: number; currency: string }

export type CustomerRow = {
  id: string; name: string; email: string; stage: 'prospect' | 'first_time' | 'repeat' | 'lapsed'
  first_order_at: Date | null; last_order_at: Date | null; created_at: Date
  orders: number; spend: MoneyRow[]
}

/**
 * Customers newest first, optionally of one stage, keyset-paged on (created_at, id); each with its
 * order count and spend per currency, summed per currency in the same statement.
 */
export async function selectCustomers(
  sql: Sql,
  workspaceId: string,
  opts: { stage?: string; before?: Position; limit: number },
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
    WHERE c.workspace_id = ${workspaceId} ${stage} ${olderThan(sql, opts.before, 'c')}
    ORDER BY c.created_at DESC, c.id DESC
    LIMIT ${opts.limit}`
}

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

export type ConnectionRow = {
  id: string; kind: 'store' | 'ad_account' | 'email_platform' | 'social_account'; provider: string; name: string
  delivering: boolean; failing_since: Date | null; last_delivered_at: Date | null; created_at: Date
}

export async function selectConnections(sql: Sql, workspaceId: string): Promise<ConnectionRow[]> {
  return sql<ConnectionRow[]>`
    SELECT id, kind, provider, name, delivering, failing_since, last_delivered_at, created_at
    FROM connections WHERE workspace_id = ${workspaceId}
    ORDER BY created_at, id`
}
