import { describe, expect, test } from 'bun:test'
import { awayFromMonthEnd, call, expectError, getHarness, makeWorkspace } from '../harness.ts'
import { daysAgo, insertRows } from '../rows.ts'

const ids = (r: { body: any }) => r.body.data.map((x: any) => x.id)

/** A customer with orders in the given currencies: [amountMinor, currency, channel | null, days ago]. */
async function customerWithOrders(workspaceId: string, stage: string, orders: [number, string, string | null, number][], createdAt = new Date()) {
  const [id] = await insertRows('customers', 'customer', workspaceId, [{ name: `Buyer ${stage}`, email: `${stage}-${Math.random()}@example.com`, stage, created_at: createdAt }])
  await insertRows('orders', 'order', workspaceId, orders.map(([amount_minor, currency, attributed_channel, ago]) => ({ customer_id: id, amount_minor, currency, attributed_channel, placed_at: daysAgo(ago) })))
  return id!
}

describe('GET /customers', () => {
  test('buyers of every stage when omitted, newest first, spend per currency (USD, EUR, JPY) never added across', async () => {
    const ws = await makeWorkspace()
    const repeat = await customerWithOrders(ws.id, 'repeat', [[2_500, 'USD', null, 10], [1_999, 'USD', 'email', 5], [3_400, 'EUR', null, 4], [4_800, 'JPY', 'ads', 2]], daysAgo(3))
    const prospect = await customerWithOrders(ws.id, 'prospect', [], daysAgo(2))
    const firstTime = await customerWithOrders(ws.id, 'first_time', [[6_000, 'JPY', null, 1]], daysAgo(1))
    const lapsed = await customerWithOrders(ws.id, 'lapsed', [[1_000, 'EUR', null, 120]], daysAgo(0.5))
    const all = await call('GET', '/api/v1/customers', { token: ws.live })
    expect(all.status).toBe(200)
    expect(ids(all)).toEqual([lapsed, firstTime, prospect, repeat])
    const r = all.body.data[3]
    expect(r.orders).toBe(4)
    expect(r.spend).toEqual([
      { amountMinor: 3_400, currency: 'EUR' },
      { amountMinor: 4_800, currency: 'JPY' },
      { amountMinor: 4_499, currency: 'USD' },
    ])
    expect(all.body.data[2]).toMatchObject({ stage: 'prospect', orders: 0, spend: [], firstOrderAt: null })
    for (const stage of ['prospect', 'first_time', 'repeat', 'lapsed']) {
      const one = await call('GET', `/api/v1/customers?stage=${stage}`, { token: ws.live })
      expect(one.body.data.map((c: any) => c.stage)).toEqual([stage])
    }
    expectError(await call('GET', '/api/v1/customers?stage=vip', { token: ws.live }), 400, 'invalid_parameter', 'stage')
  })

  test('paged with signed cursors, every customer once; the cursor is bound to its stage filter', async () => {
    const ws = await makeWorkspace()
    const made: string[] = []
    for (let i = 0; i < 7; i++) made.unshift(await customerWithOrders(ws.id, 'repeat', [[100 + i, 'USD', null, 1]], daysAgo(10 - i)))
    const seen: string[] = []
    let cursor: string | undefined
    let first: string | undefined
    do {
      const r = await call('GET', `/api/v1/customers?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { token: ws.live })
      seen.push(...ids(r))
      cursor = r.body.meta?.nextCursor
      first ??= cursor
    } while (cursor)
    expect(seen).toEqual(made)
    expectError(await call('GET', `/api/v1/customers?stage=lapsed&cursor=${encodeURIComponent(first!)}`, { token: ws.live }), 400, 'invalid_parameter', 'cursor')
  })

  test('needs read:contacts, not read:growth', async () => {
    const ws = await makeWorkspace({ scoped: 'read:growth' })
    expectError(await call('GET', '/api/v1/customers', { token: ws.scoped }), 403, 'forbidden', 'read:contacts')
  })
})

describe('GET /revenue', () => {
  test('per currency over the span, with the share traced to marketing; USD, EUR and JPY kept apart', async () => {
    const ws = await makeWorkspace()
    await customerWithOrders(ws.id, 'repeat', [
      [10_000, 'USD', 'email', 5], [5_000, 'USD', null, 6], [2_500, 'USD', 'ads', 7], [2_500, 'USD', 'email', 8],
      [3_000, 'EUR', null, 3],
      [12_000, 'JPY', 'social', 2], [6_000, 'JPY', 'social', 2], [6_000, 'JPY', null, 1],
      [99_999, 'USD', 'email', 45], // outside the default 30 days
    ])
    const r = await call('GET', '/api/v1/revenue', { token: ws.live })
    expect(r.status).toBe(200)
    const d = r.body.data
    expect(Date.parse(d.to) - Date.parse(d.from)).toBe(30 * 86_400_000)
    expect(d.currencies).toEqual([
      { currency: 'EUR', orders: 1, total: { amountMinor: 3_000, currency: 'EUR' }, marketing: { amount: { amountMinor: 0, currency: 'EUR' }, orders: 0, share: 0, byChannel: [] } },
      {
        currency: 'JPY', orders: 3, total: { amountMinor: 24_000, currency: 'JPY' },
        marketing: { amount: { amountMinor: 18_000, currency: 'JPY' }, orders: 2, share: 0.75, byChannel: [{ channel: 'social', amount: { amountMinor: 18_000, currency: 'JPY' }, orders: 2 }] },
      },
      {
        currency: 'USD', orders: 4, total: { amountMinor: 20_000, currency: 'USD' },
        marketing: {
          amount: { amountMinor: 15_000, currency: 'USD' }, orders: 3, share: 0.75,
          byChannel: [{ channel: 'email', amount: { amountMinor: 12_500, currency: 'USD' }, orders: 2 }, { channel: 'ads', amount: { amountMinor: 2_500, currency: 'USD' }, orders: 1 }],
        },
      },
    ])
    const wide = await call('GET', `/api/v1/revenue?from=${daysAgo(60).toISOString()}&to=${new Date().toISOString()}`, { token: ws.live })
    expect(wide.body.data.currencies.find((c: any) => c.currency === 'USD').total).toEqual({ amountMinor: 119_999, currency: 'USD' })
    const onlyOld = await call('GET', `/api/v1/revenue?from=${daysAgo(46).toISOString()}&to=${daysAgo(44).toISOString()}`, { token: ws.live })
    expect(onlyOld.body.data.currencies).toEqual([
      { currency: 'USD', orders: 1, total: { amountMinor: 99_999, currency: 'USD' }, marketing: { amount: { amountMinor: 99_999, currency: 'USD' }, orders: 1, share: 1, byChannel: [{ channel: 'email', amount: { amountMinor: 99_999, currency: 'USD' }, orders: 1 }] } },
    ])
  })

  test('from after to, a span over 366 days, or a malformed date-time is 400 invalid_parameter naming it', async () => {
    const ws = await makeWorkspace()
    expectError(await call('GET', '/api/v1/revenue?from=2026-11-01T00:00:00Z&to=2026-10-01T00:00:00Z', { token: ws.live }), 400, 'invalid_parameter', 'from (2026-11-01T00:00:00.000Z) is after to')
    expectError(await call('GET', '/api/v1/revenue?from=2024-01-01T00:00:00Z&to=2026-01-01T00:00:00Z', { token: ws.live }), 400, 'invalid_parameter', 'longer than 366 days')
    expectError(await call('GET', '/api/v1/revenue?from=2026-11-01', { token: ws.live }), 400, 'invalid_parameter', 'from is not an ISO 8601 date-time')
    expectError(await call('GET', '/api/v1/revenue?to=yesterday', { token: ws.live }), 400, 'invalid_parameter', 'to is not an ISO 8601 date-time')
    expectError(await call('GET', '/api/v1/revenue?to=2026-11-01T00:00:00', { token: ws.live }), 400, 'invalid_parameter', 'to')
    // offsets are honoured
    const r = await call('GET', '/api/v1/revenue?from=2026-09-01T02:00:00%2B02:00&to=2026-10-01T02:00:00%2B02:00', { token: ws.live })
    expect(r.status).toBe(200)
    expect(r.body.data).toMatchObject({ from: '2026-09-01T00:00:00.000Z', to: '2026-10-01T00:00:00.000Z', currencies: [] })
  })

  test('from defaults to 30 days ago and to to now, each on its own (spec)', async () => {
    const ws = await makeWorkspace()
    const near = (at: string, expected: number) => expect(Math.abs(Date.parse(at) - expected)).toBeLessThan(60_000)
    // to alone: from is still 30 days ago
    const later = new Date(Date.now() + 10 * 86_400_000)
    const toAlone = await call('GET', `/api/v1/revenue?to=${later.toISOString()}`, { token: ws.live })
    expect(toAlone.status).toBe(200)
    expect(toAlone.body.data.to).toBe(later.toISOString())
    near(toAlone.body.data.from, Date.now() - 30 * 86_400_000)
    // from alone: to is now
    const fromAlone = await call('GET', `/api/v1/revenue?from=${daysAgo(90).toISOString()}`, { token: ws.live })
    expect(fromAlone.status).toBe(200)
    near(fromAlone.body.data.to, Date.now())
    // a to alone earlier than 30 days ago leaves the defaulted from after it
    expectError(
      await call('GET', `/api/v1/revenue?to=${daysAgo(45).toISOString()}`, { token: ws.live }),
      400,
      'invalid_parameter',
      /^from defaulted to 30 days ago \(.+\), which is after to \(.+\)/,
    )
  })

  test('a date-time outside the years 0001 to 9999 (UTC) is 400 invalid_parameter naming it, never a 500', async () => {
    const ws = await makeWorkspace()
    for (const [query, name] of [
      ['from=0000-01-01T00:00:00Z&to=0000-06-01T00:00:00Z', 'from'],
      ['from=0001-01-01T00:00:00%2B01:00&to=0001-06-01T00:00:00Z', 'from'],
      ['from=9999-12-31T00:00:00Z&to=9999-12-31T23:00:00-05:00', 'to'],
      ['to=0000-12-31T23:00:00Z', 'to'],
    ]) {
      expectError(await call('GET', `/api/v1/revenue?${query}`, { token: ws.live }), 400, 'invalid_parameter', `${name} "`)
    }
    // the first and last instants are answered
    const edges = await call('GET', '/api/v1/revenue?from=0001-01-01T00:00:00Z&to=0001-06-01T00:00:00Z', { token: ws.live })
    expect(edges.status).toBe(200)
    expect((await call('GET', '/api/v1/revenue?from=9999-12-31T00:00:00Z&to=9999-12-31T23:59:59.999Z', { token: ws.live })).status).toBe(200)
  })
})

describe('GET /usage', () => {
  test('each allowance as the contract shapes it, the contacts allowance standing, and API calls counted this period', async () => {
    await awayFromMonthEnd()
    const ws = await makeWorkspace()
    const { sql } = await getHarness()
    const now = new Date()
    const monthStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1))
    const nextMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1))
    await sql`INSERT INTO usage_counters (workspace_id, name, period_start, used) VALUES
      (${ws.id}, 'emails', ${monthStart.toISOString().slice(0, 10)}, 1234),
      (${ws.id}, 'emails', ${new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1)).toISOString().slice(0, 10)}, 99999)`
    await sql`INSERT INTO allowances (workspace_id, name, amount) VALUES (${ws.id}, 'sms', 42)`
    await insertRows('contacts', 'contact', ws.id, [{ email: 'a@example.com', email_key: 'a@example.com' }, { email: 'B@example.com', email_key: 'b@example.com' }])
    const first = await call('GET', '/api/v1/usage', { token: ws.live })
    expect(first.status).toBe(200)
    const u = first.body.data
    const period = { periodStart: monthStart.toISOString(), periodEnd: nextMonth.toISOString() }
    expect(u.allowances).toEqual([
      { name: 'emails', limit: 100_000, used: 1_234, remaining: 98_766, ...period },
      { name: 'sms', limit: 42, used: 0, remaining: 42, ...period },
      { name: 'trackedEvents', limit: 250_000, used: 0, remaining: 250_000, ...period },
      { name: 'agentRequests', limit: 50_000, used: 0, remaining: 50_000, ...period },
      { name: 'contacts', limit: 25_000, used: 2, remaining: 24_998, periodStart: null, periodEnd: null },
    ])
    expect(u.apiCalls).toMatchObject({ ...period, countingBeganAt: '2026-09-11T00:00:00.000Z' })
    // Every call is counted, refusals included: three more (one refused) show up once flushed.
    await call('GET', '/api/v1/connections', { token: ws.live })
    await call('GET', '/api/v1/signals?status=nope', { token: ws.live })
    await call('GET', '/api/v1/usage', { token: ws.live })
    let later = u.apiCalls.count
    for (let i = 0; i < 50 && later < u.apiCalls.count + 4; i++) {
      await Bun.sleep(100)
      later = (await call('GET', '/api/v1/usage', { token: ws.live })).body.data.apiCalls.count
    }
    expect(later).toBeGreaterThanOrEqual(u.apiCalls.count + 4)
  })
})

describe('GET /connections', () => {
  test('each connection with whether it still delivers and since when it stopped', async () => {
    const ws = await makeWorkspace()
    const since = daysAgo(1.1)
    const [shop, google] = await insertRows('connections', 'connection', ws.id, [
      { kind: 'store', provider: 'shopify', name: 'Shop', delivering: true, last_delivered_at: daysAgo(0.01), created_at: daysAgo(100) },
      { kind: 'ad_account', provider: 'google_ads', name: 'Google Ads EU', delivering: false, failing_since: since, last_delivered_at: since, created_at: daysAgo(50) },
    ])
    const r = await call('GET', '/api/v1/connections', { token: ws.live })
    expect(ids(r)).toEqual([shop, google])
    expect(r.body.data[0]).toMatchObject({ kind: 'store', delivering: true, failingSince: null })
    expect(r.body.data[1]).toMatchObject({ kind: 'ad_account', provider: 'google_ads', delivering: false, failingSince: since.toISOString(), lastDeliveredAt: since.toISOString() })
    expectError(await call('GET', '/api/v1/connections?kind=store', { token: ws.live }), 400, 'invalid_parameter', 'kind')
  })
})
