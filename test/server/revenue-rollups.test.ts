import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { newId } from '../../server/src/core/ids.ts'
import { type RevenueRow, revenuePieces, selectRevenue } from '../../server/src/store/revenue.ts'
import { call, getHarness, makeWorkspace } from '../harness.ts'

/**
 * GET /revenue reads rollups kept by triggers on orders (migration 0008) instead of every order of
 * the span. These tests hold the rollups to the orders themselves: the span's pieces cover it
 * exactly, and after orders are inserted, moved, changed and deleted, every span reads what summing
 * the orders gives, over HTTP too; a rebuild from the orders gives the same rollups.
 */

const DAY = 86_400_000
const MIN_MS = Date.UTC(1, 0, 1)
const MAX_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999)

describe('revenuePieces: a span cut into rollup pieces', () => {
  const aligned: Record<string, (t: number) => boolean> = {
    month: (t) => { const d = new Date(t); return d.getUTCDate() === 1 && t % DAY === 0 },
    day: (t) => t % DAY === 0,
    hour: (t) => t % 3_600_000 === 0,
    minute: (t) => t % 60_000 === 0,
  }

  test('every instant in exactly one piece, none outside the span, each rollup piece on its grain, a bounded number of buckets', () => {
    const span = fc
      .tuple(fc.integer({ min: MIN_MS, max: MAX_MS }), fc.integer({ min: 0, max: 366 * DAY }), fc.boolean())
      .map(([a, len, round]) => {
        // Spans on whole minutes, hours and days come up as often as any: round half of them.
        const from = round ? a - (a % 60_000) : a
        return [from, Math.min(MAX_MS, from + len)] as const
      })
    fc.assert(
      fc.property(span, ([from, to]) => {
        const pieces = revenuePieces(from, to)
        if (from === to) return expect(pieces).toEqual([])
        expect(pieces[0]!.from).toBe(from)
        expect(pieces.at(-1)!.to).toBe(to)
        const buckets: Record<string, number> = { month: 0, day: 0, hour: 0, minute: 0, orders: 0 }
        pieces.forEach((p, i) => {
          expect(p.from).toBeLessThan(p.to)
          if (i > 0) expect(p.from).toBe(pieces[i - 1]!.to)
          if (p.grain === 'orders') {
            // Orders are read only where no whole minute lies (that minute is read from its rollup):
            // at most the two partial minutes at the span's edges, which may be one piece up to 2 minutes.
            const firstWholeMinute = Math.ceil(p.from / 60_000) * 60_000
            expect(firstWholeMinute + 60_000).toBeGreaterThan(p.to)
            buckets.orders!++
            return
          }
          expect(aligned[p.grain]!(p.from) && aligned[p.grain]!(p.to)).toBe(true)
          const size = p.grain === 'month' ? 28 * DAY : p.grain === 'day' ? DAY : p.grain === 'hour' ? 3_600_000 : 60_000
          buckets[p.grain]! += Math.round((p.to - p.from) / size)
        })
        // At most a year of months; a partial month at each end in days, a day in hours, an hour in minutes.
        expect(buckets.month!).toBeLessThanOrEqual(14)
        expect(buckets.day!).toBeLessThanOrEqual(2 * 30)
        expect(buckets.hour!).toBeLessThanOrEqual(2 * 23)
        expect(buckets.minute!).toBeLessThanOrEqual(2 * 59)
        expect(buckets.orders!).toBeLessThanOrEqual(2)
      }),
      // The example: a minute's length that starts 1 ms past a minute (two partial minutes, one piece of orders).
      { numRuns: 2_000, examples: [[[Date.UTC(2951, 10, 9, 7, 36, 0, 1), Date.UTC(2951, 10, 9, 7, 37, 0, 1)]]] },
    )
  })
})

/** What the orders themselves say for [from, to): the query GET /revenue ran before the rollups. */
async function summedFromOrders(workspaceId: string, from: Date, to: Date): Promise<RevenueRow[]> {
  const { sql } = await getHarness()
  return sql<RevenueRow[]>`
    SELECT currency::text AS currency, attributed_channel AS channel, sum(amount_minor)::int8 AS total, count(*)::int AS orders
    FROM orders WHERE workspace_id = ${workspaceId} AND placed_at >= ${from} AND placed_at < ${to}
    GROUP BY currency, attributed_channel ORDER BY currency, attributed_channel NULLS FIRST`
}

const rollups = async (workspaceId: string) => {
  const { sql } = await getHarness()
  return sql`SELECT grain, bucket, currency, channel, orders::int, total::int8 FROM revenue_rollups
             WHERE workspace_id = ${workspaceId} ORDER BY grain, bucket, currency, channel NULLS FIRST`
}

describe('the rollups read what the orders hold', () => {
  test('after inserts, moves, changes and deletes, every span reads the orders\' sums, over HTTP too; a rebuild gives the same rollups', async () => {
    const { sql } = await getHarness()
    const ws = await makeWorkspace()
    const [customer] = await sql<{ id: string }[]>`
      INSERT INTO customers (workspace_id, id, name, email, stage) VALUES (${ws.id}, ${newId('customer')}, 'Buyer', 'buyer@example.com', 'repeat') RETURNING id`
    const now = Date.now()
    // Orders in a band of 400 days, clustered on a few instants (so buckets hold several) and spread.
    const order = fc.record({
      at: fc.oneof(fc.integer({ min: now - 400 * DAY, max: now }), fc.constantFrom(now - 3 * DAY, now - 40 * DAY, now - 40 * DAY + 59_999)),
      amount: fc.integer({ min: 0, max: 1_000_000 }),
      currency: fc.constantFrom('USD', 'EUR', 'JPY'),
      channel: fc.constantFrom(null, 'email', 'ads', 'social'),
    })
    const orders = fc.sample(order, { numRuns: 400, seed: 4_242 }).map((o) => ({
      workspace_id: ws.id, id: newId('order'), customer_id: customer!.id, amount_minor: o.amount, currency: o.currency,
      attributed_channel: o.channel, placed_at: new Date(o.at),
    }))
    // Several statements of several rows (statement triggers see each batch at once).
    for (let i = 0; i < orders.length; i += 57) await sql`INSERT INTO orders ${sql(orders.slice(i, i + 57))}`
    const ids = orders.map((o) => o.id)
    await sql`UPDATE orders SET placed_at = placed_at - interval '17 days 3 hours' WHERE workspace_id = ${ws.id} AND id = ANY(${ids.slice(0, 40)})`
    await sql`UPDATE orders SET amount_minor = amount_minor + 7, attributed_channel = 'email' WHERE workspace_id = ${ws.id} AND id = ANY(${ids.slice(30, 70)})`
    await sql`UPDATE orders SET currency = 'EUR' WHERE workspace_id = ${ws.id} AND id = ANY(${ids.slice(60, 80)})`
    await sql`DELETE FROM orders WHERE workspace_id = ${ws.id} AND id = ANY(${ids.slice(75, 120)})`
    // A bucket emptied entirely: every order at one instant gone.
    await sql`DELETE FROM orders WHERE workspace_id = ${ws.id} AND placed_at = ${new Date(now - 3 * DAY)}`

    const span = fc.tuple(fc.integer({ min: now - 420 * DAY, max: now }), fc.integer({ min: 1, max: 366 * DAY }), fc.constantFrom(1, 60_000, 3_600_000, DAY))
      .map(([a, len, unit]) => [new Date(a - (a % unit)), new Date(Math.min(now + DAY, a - (a % unit) + len))] as const)
    const spans = [
      ...fc.sample(span, { numRuns: 150, seed: 7 }),
      [new Date(now - 40 * DAY), new Date(now - 40 * DAY + 60_000)] as const,
      [new Date(now - 40 * DAY + 1), new Date(now - 40 * DAY + 59_999)] as const,
      [new Date(now - 366 * DAY), new Date(now)] as const,
    ]
    for (const [from, to] of spans) {
      expect({ from, rows: await selectRevenue(sql, ws.id, from, to) }).toEqual({ from, rows: await summedFromOrders(ws.id, from, to) })
    }

    // Over HTTP: the answer's totals are the orders' own.
    const [from, to] = [new Date(now - 366 * DAY + 12_345), new Date(now - 5_000)]
    const r = await call('GET', `/api/v1/revenue?from=${from.toISOString()}&to=${to.toISOString()}`, { token: ws.live })
    expect(r.status).toBe(200)
    const expected = new Map<string, { total: number; orders: number }>()
    for (const row of await summedFromOrders(ws.id, from, to)) {
      const c = expected.get(row.currency) ?? { total: 0, orders: 0 }
      expected.set(row.currency, { total: c.total + Number(row.total), orders: c.orders + row.orders })
    }
    expect(expected.size).toBe(3)
    expect(Object.fromEntries(r.body.data.currencies.map((c: any) => [c.currency, { total: c.total.amountMinor, orders: c.orders }]))).toEqual(Object.fromEntries(expected))

    // Rebuilt from the orders, the rollups are what the triggers kept.
    const kept = await rollups(ws.id)
    expect(kept.length).toBeGreaterThan(100)
    await sql`SELECT rebuild_revenue_rollups(${ws.id})`
    expect(await rollups(ws.id)).toEqual(kept)
  }, 60_000)
})
