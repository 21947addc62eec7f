import { describe, expect, test } from 'bun:test'
import { createDemoWorkspace } from '../../server/src/demo/index.ts'
import { awayFromMonthEnd, call, getHarness } from '../harness.ts'

/** The demo workspace has something real behind every read: every status, stage and currency. */
describe('the demo workspace', () => {
  test('every read endpoint has something to show, in every status', async () => {
    await awayFromMonthEnd()
    const { sql } = await getHarness()
    const demo = await createDemoWorkspace(sql, { name: 'Demo check' })
    const get = async (path: string) => {
      const r = await call('GET', `/api/v1${path}`, { token: demo.tokens.live })
      expect(`${path} ${r.status}`).toBe(`${path} 200`)
      return r.body.data
    }
    for (const status of ['open', 'resolved', 'dismissed']) expect((await get(`/signals?status=${status}`)).length).toBeGreaterThan(0)
    expect((await get('/signals')).some((s: any) => s.opportunity)).toBe(true)
    for (const status of ['open', 'actioned', 'dismissed', 'expired']) expect((await get(`/opportunities?status=${status}`)).length).toBeGreaterThan(0)
    expect((await get('/opportunities?status=actioned')).every((o: any) => o.measuredImpact?.length > 0)).toBe(true)
    for (const status of ['pending', 'approved', 'rejected']) expect((await get(`/approvals?status=${status}`)).length).toBeGreaterThan(0)
    for (const stage of ['prospect', 'first_time', 'repeat', 'lapsed']) expect((await get(`/customers?stage=${stage}`)).length).toBeGreaterThan(0)

    const outcomes = await get('/outcomes')
    expect(outcomes.predictions.measured).toBeGreaterThan(50)
    expect(outcomes.predictions.calibration.length).toBeGreaterThan(2)
    expect(outcomes.findings.turnedDown.length).toBeGreaterThan(1)

    // Revenue in USD, EUR and JPY, in each of the last several months.
    for (let m = 1; m <= 4; m++) {
      const to = new Date(Date.now() - (m - 1) * 30 * 86_400_000)
      const from = new Date(to.getTime() - 30 * 86_400_000)
      const revenue = await get(`/revenue?from=${from.toISOString()}&to=${to.toISOString()}`)
      expect(revenue.currencies.map((c: any) => c.currency)).toEqual(['EUR', 'JPY', 'USD'])
      expect(revenue.currencies.every((c: any) => c.total.amountMinor > 0 && c.marketing.share > 0 && c.marketing.share < 1)).toBe(true)
    }

    const usage = await get('/usage')
    for (const a of usage.allowances) {
      expect(a.used).toBeGreaterThan(0)
      expect(a.remaining).toBeGreaterThan(0)
    }
    const connections = await get('/connections')
    expect(connections.filter((c: any) => !c.delivering).length).toBe(1)
    expect(connections.find((c: any) => !c.delivering).failingSince).toMatch(/Z$/)
    expect(new Set(connections.map((c: any) => c.kind))).toEqual(new Set(['store', 'ad_account', 'email_platform', 'social_account']))
  }, 60_000)

  test('is made in one transaction: a seed that fails leaves no workspace and no credentials behind', async () => {
    const { sql } = await getHarness()
    const name = `Demo that fails ${Date.now()}`
    // An impossible "now" makes the seed throw after the workspace, tokens and agents were written.
    await expect(createDemoWorkspace(sql, { name, now: new Date(Number.NaN) })).rejects.toThrow()
    const [left] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM workspaces WHERE name = ${name}`
    expect(left!.n).toBe(0)
  })
})
