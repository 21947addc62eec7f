import type { z } from 'zod'
import { invalidParameter } from '../errors.ts'
import type { Connection, Customer, Revenue } from '../schemas/commerce.ts'
import { iso, isoOrNull } from '../schemas/common.ts'
import * as store from '../store/commerce.ts'
import type { Sql } from '../store/db.ts'
import type { Position } from '../store/growth.ts'
import { newestFirstPosition } from './growth.ts'
import { byCurrency } from './money.ts'

type CustomerT = z.infer<typeof Customer>
type RevenueT = z.infer<typeof Revenue>
type ConnectionT = z.infer<typeof Connection>

export function toCustomer(c: store.CustomerRow): CustomerT {
  return {
    id: c.id,
    name: c.name,
    email: c.email,
    stage: c.stage,
    orders: c.orders,
    spend: byCurrency(c.spend),
    firstOrderAt: isoOrNull(c.first_order_at),
    lastOrderAt: isoOrNull(c.last_order_at),
    createdAt: iso(c.created_at),
  }
}

export const customersPage = (sql: Sql, workspaceId: string, opts: { stage?: string; after?: Position; limit: number }) =>
  store.selectCustomers(sql, workspaceId, { stage: opts.stage, before: opts.after, limit: opts.limit })

export const customerPosition = newestFirstPosition

const DAY = 86_400_000
/** The default span of GET /revenue, and the longest one it answers. */
export const REVENUE_DEFAULT_DAYS = 30
export const REVENUE_MAX_DAYS = 366

/**
 * The span of a revenue report: from defaults to 30 days ago and to to now, each on its own (spec);
 * from must not be after to, and the span is at most REVENUE_MAX_DAYS long.
 */
export function revenueSpan(q: { from?: Date; to?: Date }, now = new Date()): { from: Date; to: Date } {
  const to = q.to ?? now
  const from = q.from ?? new Date(now.getTime() - REVENUE_DEFAULT_DAYS * DAY)
  if (from.getTime() > to.getTime()) {
    throw invalidParameter(
      q.from === undefined
        ? `from defaulted to ${REVENUE_DEFAULT_DAYS} days ago (${iso(from)}), which is after to (${iso(to)}); give a from before to.`
        : `from (${iso(from)}) is after to (${iso(to)}); from must come first.`,
    )
  }
  if (to.getTime() - from.getTime() > REVENUE_MAX_DAYS * DAY) {
    throw invalidParameter(`The span from ${iso(from)} to ${iso(to)} is longer than ${REVENUE_MAX_DAYS} days; ask for at most ${REVENUE_MAX_DAYS} days at a time (move from or to).`)
  }
  return { from, to }
}

/** Revenue per currency, each on its own: nothing is converted or added across currencies. */
export async function revenue(sql: Sql, workspaceId: string, span: { from: Date; to: Date }): Promise<RevenueT> {
  const rows = await store.selectRevenue(sql, workspaceId, span.from, span.to)
  const per = new Map<string, RevenueT['currencies'][number]>()
  for (const r of rows) {
    let c = per.get(r.currency)
    if (!c) {
      c = { currency: r.currency, orders: 0, total: { amountMinor: 0, currency: r.currency }, marketing: { amount: { amountMinor: 0, currency: r.currency }, orders: 0, share: 0, byChannel: [] } }
      per.set(r.currency, c)
    }
    c.orders += r.orders
    c.total.amountMinor += r.total
    if (r.channel !== null) {
      c.marketing.amount.amountMinor += r.total
      c.marketing.orders += r.orders
      c.marketing.byChannel.push({ channel: r.channel, amount: { amountMinor: r.total, currency: r.currency }, orders: r.orders })
    }
  }
  const currencies = byCurrency([...per.values()]).map((c) => ({
    ...c,
    marketing: {
      ...c.marketing,
      share: c.total.amountMinor === 0 ? 0 : Math.round((c.marketing.amount.amountMinor / c.total.amountMinor) * 10_000) / 10_000,
      byChannel: c.marketing.byChannel.sort((a, b) => b.amount.amountMinor - a.amount.amountMinor || a.channel.localeCompare(b.channel)),
    },
  }))
  return { from: iso(span.from), to: iso(span.to), currencies }
}

export async function listConnections(sql: Sql, workspaceId: string): Promise<ConnectionT[]> {
  const rows = await store.selectConnections(sql, workspaceId)
  return rows.map((c) => ({
    id: c.id,
    kind: c.kind,
    provider: c.provider,
    name: c.name,
    delivering: c.delivering,
    failingSince: c.delivering ? null : isoOrNull(c.failing_since),
    lastDeliveredAt: isoOrNull(c.last_delivered_at),
    createdAt: iso(c.created_at),
  }))
}
