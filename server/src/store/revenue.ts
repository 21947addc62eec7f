import type { Sql, Tx } from '../core/db.ts'
import { insertRows } from './keyset.ts'

/** The order ledger, which revenue is read from. */

export type RevenueRow = { currency: string; channel: string | null; total: number; orders: number }

/** The grains orders are rolled up in (migration 0008), coarsest first; each one's spans nest in the one before. */
const GRAINS = ['month', 'day', 'hour', 'minute'] as const
type Grain = (typeof GRAINS)[number]

const FIXED_MS = { day: 86_400_000, hour: 3_600_000, minute: 60_000 } as const

/** The start of the UTC grain span holding `t` (what date_trunc(grain, t, 'UTC') gives). */
function floorTo(grain: Grain, t: number): number {
  if (grain === 'month') {
    const d = new Date(t)
    const start = new Date(0)
    start.setUTCFullYear(d.getUTCFullYear(), d.getUTCMonth(), 1)
    return start.getTime()
  }
  return t - (((t % FIXED_MS[grain]) + FIXED_MS[grain]) % FIXED_MS[grain])
}

/** The first grain boundary at or after `t`. */
function ceilTo(grain: Grain, t: number): number {
  const f = floorTo(grain, t)
  if (f === t) return t
  if (grain !== 'month') return f + FIXED_MS[grain]
  const next = new Date(f)
  next.setUTCMonth(next.getUTCMonth() + 1)
  return next.getTime()
}

/** A piece of a span: the rollups of one grain whose buckets start in [from, to), or the orders themselves placed in it. */
type RevenuePiece = { grain: Grain | 'orders'; from: number; to: number }

/**
 * [from, to) cut into pieces the rollups answer: whole months, then whole days, hours and minutes
 * at each end, and the orders of the two partial minutes at its edges. Every instant of the span
 * lies in exactly one piece, and no piece reaches outside the span.
 */
export function revenuePieces(from: number, to: number): RevenuePiece[] {
  const pieces: RevenuePiece[] = []
  const cover = (a: number, b: number, level: number) => {
    if (a >= b) return
    const grain = GRAINS[level]
    if (!grain) return void pieces.push({ grain: 'orders', from: a, to: b })
    const lo = ceilTo(grain, a)
    const hi = floorTo(grain, b)
    if (lo >= hi) return cover(a, b, level + 1)
    cover(a, lo, level + 1)
    pieces.push({ grain, from: lo, to: hi })
    cover(hi, b, level + 1)
  }
  cover(from, to, 0)
  return pieces
}

/**
 * Order-ledger revenue in [from, to), per currency and marketing channel (null: not traced), read
 * from the rollups (see revenuePieces) and the orders of the span's partial minutes: its cost does
 * not grow with how many orders the workspace holds.
 */
export async function selectRevenue(sql: Sql, workspaceId: string, from: Date, to: Date): Promise<RevenueRow[]> {
  const pieces = revenuePieces(from.getTime(), to.getTime())
  // A fixed shape, two slots a grain and two for the orders (an unused one is an empty range), so
  // every part is a plain range read of an index, whatever plan the statement is given.
  const slots = [...GRAINS, 'orders' as const].flatMap((grain) => {
    const mine = pieces.filter((p) => p.grain === grain)
    return [0, 1].map((i) => ({ grain, from: new Date(mine[i]?.from ?? from.getTime()), to: new Date(mine[i]?.to ?? from.getTime()) }))
  })
  const parts = slots.map((p) =>
    p.grain === 'orders'
      ? sql`SELECT currency, attributed_channel AS channel, amount_minor AS total, 1 AS orders FROM orders
            WHERE workspace_id = ${workspaceId} AND placed_at >= ${p.from} AND placed_at < ${p.to}`
      : sql`SELECT currency, channel, total, orders FROM revenue_rollups
            WHERE workspace_id = ${workspaceId} AND grain = ${p.grain} AND bucket >= ${p.from} AND bucket < ${p.to}`,
  )
  const union = parts.reduce((all, part) => sql`${all} UNION ALL ${part}`)
  return sql<RevenueRow[]>`
    SELECT x.currency::text AS currency, x.channel, sum(x.total)::int8 AS total, sum(x.orders)::int AS orders
    FROM (${union}) x
    GROUP BY x.currency, x.channel
    ORDER BY x.currency, x.channel NULLS FIRST`
}

export type OrderInsert = {
  workspace_id: string; id: string; customer_id: string; amount_minor: number; currency: string
  attributed_channel: string | null; placed_at: Date; created_at: Date
}

export const insertOrders = (tx: Tx, rows: OrderInsert[]) => insertRows(tx, 'orders', rows)
