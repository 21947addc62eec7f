import { beforeEach, describe, expect, test } from 'bun:test'
import { loadConfig } from '../../server/src/config.ts'
import { createLogger } from '../../server/src/core/log.ts'
import { startServer } from '../../server/src/server.ts'
import { createToken, revokeToken } from '../../server/src/domain/credentials.ts'
import { call, expectError, getHarness, makeWorkspace } from '../harness.ts'
import { withinOneWindow } from '../support/clock-window.ts'

describe('rate limits', () => {
  // Each test reads counts one after another: all of them in one hour of the clock.
  beforeEach(() => withinOneWindow())

  test('600 an hour per workspace token: the headers count down on every answer', async () => {
    const ws = await makeWorkspace()
    const a = await call('GET', '/api/v1/missions', { token: ws.live })
    const b = await call('GET', '/api/v1/missions', { token: ws.live })
    expect(a.headers.get('x-ratelimit-limit')).toBe('600')
    expect(Number(a.headers.get('x-ratelimit-remaining'))).toBe(599)
    expect(Number(b.headers.get('x-ratelimit-remaining'))).toBe(598)
    expect(a.headers.get('retry-after')).toBe('0')
    const reset = Number(a.headers.get('x-ratelimit-reset'))
    const now = Date.now() / 1000
    expect(reset).toBeGreaterThan(now)
    expect(reset).toBeLessThanOrEqual(now + 3600 + 1)
    // refusals count too
    const refused = await call('GET', '/api/v1/decisions?limit=0', { token: ws.live })
    expect(Number(refused.headers.get('x-ratelimit-remaining'))).toBe(597)
    // each token has its own budget
    const other = await call('GET', '/api/v1/missions', { token: ws.test })
    expect(Number(other.headers.get('x-ratelimit-remaining'))).toBe(599)
  })

  test('past the limit: 429 rate_limited with a positive Retry-After, and the limit is the exact count', async () => {
    const ws = await makeWorkspace()
    const { sql } = await getHarness()
    const first = await call('GET', '/api/v1/missions', { token: ws.live })
    expect(first.status).toBe(200)
    // Spend the rest of this hour's budget through the database the limiter counts in.
    await sql`UPDATE rate_limit_counters SET count = 599 WHERE workspace_id = ${ws.id} AND count = 1`
    const last = await call('GET', '/api/v1/missions', { token: ws.live })
    expect(last.status).toBe(200)
    expect(last.headers.get('x-ratelimit-remaining')).toBe('0')
    const over = await call('GET', '/api/v1/missions', { token: ws.live })
    expectError(over, 429, 'rate_limited', '600')
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(Number(over.headers.get('retry-after'))).toBeLessThanOrEqual(3600)
    expect(over.headers.get('x-ratelimit-remaining')).toBe('0')
  })

  test('1200 an hour per agent credential: the 1200th call is answered, the next is 429 naming 1200', async () => {
    const ws = await makeWorkspace()
    const { sql } = await getHarness()
    const first = await call('GET', '/api/v1/agent/me', { token: ws.agent.credential })
    expect(first.status).toBe(200)
    expect(first.headers.get('x-ratelimit-remaining')).toBe('1199')
    // Spend the rest of the agent's hour but one call, past a workspace token's 600.
    await sql`UPDATE rate_limit_counters SET count = 1199 WHERE workspace_id = ${ws.id} AND count = 1`
    const last = await call('POST', '/api/v1/agent/authorize', { token: ws.agent.credential, body: { tool: 'ads', action: 'pause_campaign' } })
    expect(last.status).toBe(201)
    expect(last.headers.get('x-ratelimit-remaining')).toBe('0')
    const over = await call('GET', '/api/v1/agent/me', { token: ws.agent.credential })
    expectError(over, 429, 'rate_limited', '1200')
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0)
    // The workspace's own tokens keep their budgets.
    expect((await call('GET', '/api/v1/missions', { token: ws.live })).status).toBe(200)
  })

  test('two server processes on one database share one exact count', async () => {
    const ws = await makeWorkspace()
    const { db, url } = await getHarness()
    const config = loadConfig({ ...process.env, PORT: '0', HOST: '127.0.0.1' })
    const second = await startServer(config, { db, log: createLogger('silent') })
    try {
      const remaining: number[] = []
      for (let i = 0; i < 6; i++) {
        const base = i % 2 === 0 ? url : second.url
        const r = await fetch(`${base}/api/v1/missions`, { headers: { Authorization: `Bearer ${ws.live}` } })
        expect(r.status).toBe(200)
        remaining.push(Number(r.headers.get('x-ratelimit-remaining')))
      }
      expect(remaining).toEqual([599, 598, 597, 596, 595, 594])
    } finally {
      await second.stop()
    }
  })

  test('concurrent requests are each counted once', async () => {
    const ws = await makeWorkspace()
    const answers = await Promise.all(Array.from({ length: 20 }, () => call('GET', '/api/v1/missions', { token: ws.live })))
    const remaining = answers.map((a) => Number(a.headers.get('x-ratelimit-remaining'))).sort((a, b) => a - b)
    expect(remaining).toEqual(Array.from({ length: 20 }, (_, i) => 580 + i))
  })

  test('concurrent requests of several tokens, one revoked, are each counted once against their own token', async () => {
    const ws = await makeWorkspace()
    const { sql } = await getHarness()
    const revoked = await createToken(sql, { workspaceId: ws.id })
    await revokeToken(sql, revoked.id)
    const tokens = [ws.live, ws.test, revoked.token]
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) => call('GET', '/api/v1/missions', { token: tokens[i % 3] }).then((a) => ({ a, token: tokens[i % 3] }))),
    )
    for (const token of [ws.live, ws.test]) {
      const mine = answers.filter((x) => x.token === token)
      expect(mine.every((x) => x.a.status === 200)).toBe(true)
      expect(mine.map((x) => Number(x.a.headers.get('x-ratelimit-remaining'))).sort((a, b) => a - b)).toEqual(
        Array.from({ length: 10 }, (_, i) => 590 + i),
      )
    }
    for (const x of answers.filter((x) => x.token === revoked.token)) expectError(x.a, 401, 'unauthorized')
  })
})
