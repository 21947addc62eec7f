import type { Sql } from '../core/db.ts'
import { RuleError } from '../core/errors.ts'
import { byCurrency } from '../core/money.ts'
import { inStoredYears, iso } from '../core/time.ts'
import type { Revenue } from '../schemas/revenue.ts'
import * as store from '../store/revenue.ts'

const DAY = 86_400_000
/** The default span of GET /revenue, and the longest one it answers. */
export const REVENUE_DEFAULT_DAYS = 30
export const REVENUE_MAX_DAYS = 366

/**
 * The span of a revenue report: from defaults to 30 days ago and to to now, each on its own (spec);
 * from must not be after to, and the span is at most REVENUE_MAX_DAYS long.
 */
function revenueSpan(q: { from?: string; to?: string }, now = new Date()): { from: Date; to: Date } {
  const given = { from: instant('from', q.from), to: instant('to', q.to) }
  const to = given.to ?? now
  const from = given.from ?? new Date(now.getTime() - REVENUE_DEFAULT_DAYS * DAY)
  if (from.getTime() > to.getTime()) {
    throw new RuleError(
      'revenue.from_before_to',
      q.from === undefined
        ? `from defaulted to ${REVENUE_DEFAULT_DAYS} days ago (${iso(from)}), which is after to (${iso(to)}); give a from before to.`
        : `from (${iso(from)}) is after to (${iso(to)}); from must come first.`,
      'from',
    )
  }
  if (to.getTime() - from.getTime() > REVENUE_MAX_DAYS * DAY) {
    throw new RuleError(
      'revenue.span',
      `The span from ${iso(from)} to ${iso(to)} is longer than ${REVENUE_MAX_DAYS} days; ask for at most ${REVENUE_MAX_DAYS} days at a time (move from or to).`,
      'from',
    )
  }
  return { from, to }
}

/**
 * A date-time of the query (its form checked by the schema: ISO 8601 with a zone) as an instant,
 * within the years PostgreSQL stores, 0001 to 9999 in UTC, which an offset can leave
 * (0001-01-01T00:00:00+01:00 is in year 0).
 */
function instant(name: string, value: string | undefined): Date | undefined {
  if (value === undefined) return undefined
  const d = new Date(value)
  if (!inStoredYears(d)) {
    throw new RuleError('revenue.years', `${name} ${JSON.stringify(value)} is outside 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z.`, name)
  }
  return d
}

/** Revenue per currency over a span, each on its own: nothing is converted or added across currencies. */
export async function getRevenue(sql: Sql, workspaceId: string, query: { from?: string; to?: string }, now = new Date()): Promise<Revenue> {
  const span = revenueSpan(query, now)
  const rows = await store.selectRevenue(sql, workspaceId, span.from, span.to)
  const per = new Map<string, Revenue['currencies'][number]>()
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
