import { describe, expect, test } from 'bun:test'
import { createToken, revokeToken } from '../../server/src/domain/credentials.ts'
import { loadConfig } from '../../server/src/config.ts'
import { MemoryLimiter } from '../../server/src/http/rate-limit.ts'
import { createLogger } from '../../server/src/core/log.ts'
import { startServer } from '../../server/src/server.ts'
import { call, expectError, getHarness, makeWorkspace } from '../harness.ts'
import { operations } from '../../server/src/http/operations.ts'
import { HOUR_MS, MINUTE_MS, withinOneWindow } from '../support/clock-window.ts'

describe('credentials', () => {
  test('missing, malformed, unknown, revoked and expired credentials all get the same 401', async () => {
    const { sql } = await getHarness()
    const ws = await makeWorkspace()
    const revoked = await createToken(sql, { workspaceId: ws.id })
    await revokeToken(sql, revoked.id)
    const expired = await createToken(sql, { workspaceId: ws.id, expiresAt: '2020-01-01T00:00:00Z', allowPast: true })
    const unknown = ws.live.slice(0, -6) + '000000'
    const answers = [
      await call('GET', '/api/v1/missions'),
      await call('GET', '/api/v1/missions', { headers: { Authorization: 'Basic abc' } }),
      await call('GET', '/api/v1/missions', { token: 'svc_live_nonsense' }),
      await call('GET', '/api/v1/missions', { token: unknown }),
      await call('GET', '/api/v1/missions', { token: revoked.token }),
      await call('GET', '/api/v1/missions', { token: expired.token }),
    ]
    const messages = new Set<string>()
    for (const a of answers) {
      expectError(a, 401, 'unauthorized')
      messages.add(a.body.error.message)
    }
    expect(messages.size).toBe(1)
    // the revoked token worked before it was revoked: it is the revocation that refuses it
    const fresh = await createToken(sql, { workspaceId: ws.id })
    expect((await call('GET', '/api/v1/missions', { token: fresh.token })).status).toBe(200)
    await revokeToken(sql, fresh.id)
    expectError(await call('GET', '/api/v1/missions', { token: fresh.token }), 401, 'unauthorized')
  })

  test('the bearer scheme is case-insensitive', async () => {
    const ws = await makeWorkspace()
    const r = await call('GET', '/api/v1/missions', { headers: { Authorization: `bearer ${ws.live}` } })
    expect(r.status).toBe(200)
  })

  test('a workspace whose plan lacks API access gets 402 plan_required', async () => {
    const ws = await makeWorkspace({ plan: 'starter' })
    expectError(await call('GET', '/api/v1/missions', { token: ws.live }), 402, 'plan_required', 'API access')
  })

  test('a token without the scope gets 403 forbidden naming the scope', async () => {
    const ws = await makeWorkspace({ scoped: 'read:analytics' })
    expectError(await call('GET', '/api/v1/missions', { token: ws.scoped }), 403, 'forbidden', 'read:growth')
    const writer = await makeWorkspace({ scoped: 'read:growth' })
    expect((await call('GET', '/api/v1/missions', { token: writer.scoped })).status).toBe(200)
    expectError(
      await call('POST', '/api/v1/experiments', { token: writer.scoped, body: {} }),
      403,
      'forbidden',
      'write:experiments',
    )
  })

  test('an agent credential does not open workspace endpoints', async () => {
    const ws = await makeWorkspace()
    const r = await call('GET', '/api/v1/missions', { token: ws.agent.credential })
    expectError(r, 403, 'forbidden', '/api/v1/agent/')
    // its own rate limit applies: 1200 an hour
    expect(r.headers.get('x-ratelimit-limit')).toBe('1200')
  })

  test('test tokens read like live ones and every answer says X-Service-Mode: test', async () => {
    const ws = await makeWorkspace()
    const live = await call('GET', '/api/v1/missions', { token: ws.live })
    const test = await call('GET', '/api/v1/missions', { token: ws.test })
    expect(test.status).toBe(200)
    expect(test.body).toEqual(live.body)
    expect(test.headers.get('x-service-mode')).toBe('test')
    expect(live.headers.get('x-service-mode')).toBeNull()
    const refused = await call('GET', '/api/v1/decisions?limit=0', { token: ws.test })
    expect(refused.status).toBe(400)
    expect(refused.headers.get('x-service-mode')).toBe('test')
  })

  test('every workspace-token route refuses a missing token (401), a starter plan (402) and a missing scope (403)', async () => {
    const starter = await makeWorkspace({ plan: 'starter' })
    const none = await makeWorkspace({ scoped: 'read:agents' })
    const routes = operations.filter((op) => op.auth.kind === 'workspace')
    expect(routes.length).toBeGreaterThan(0)
    for (const op of routes) {
      const path = `/api/v1${op.path}`
      const body = op.method === 'POST' ? {} : undefined
      expectError(await call(op.method, path, { body }), 401, 'unauthorized')
      expectError(await call(op.method, path, { token: starter.live, body }), 402, 'plan_required')
      if (op.auth.kind === 'workspace' && op.auth.scope !== 'read:agents') {
        expectError(await call(op.method, path, { token: none.scoped, body }), 403, 'forbidden', op.auth.scope)
      }
    }
  })
})

describe('revocation', () => {
  test('a revoked token is refused by the very next request (no credential is cached)', async () => {
    const { sql } = await getHarness()
    const ws = await makeWorkspace()
    const token = await createToken(sql, { workspaceId: ws.id })
    for (let i = 0; i < 3; i++) expect((await call('GET', '/api/v1/missions', { token: token.token })).status).toBe(200)
    await revokeToken(sql, token.id)
    const refused = await call('GET', '/api/v1/missions', { token: token.token })
    expectError(refused, 401, 'unauthorized')
    // Another token of the same workspace is untouched.
    expect((await call('GET', '/api/v1/missions', { token: ws.live })).status).toBe(200)
  })
})

describe('failed authentication is throttled per client address', () => {
  test('past the limit, failures from the address get 429; a valid token from the same address is still answered', async () => {
    // Failures are counted a minute of the clock: all of this test's in one minute.
    await withinOneWindow(MINUTE_MS, 5_000)
    const ws = await makeWorkspace()
    const { db } = await getHarness()
    const config = loadConfig({ ...process.env, PORT: '0', HOST: '127.0.0.1' })
    const server = await startServer(config, { db, log: createLogger('silent'), authFailures: new MemoryLimiter(3, 60_000) })
    try {
      const get = (token: string) => fetch(`${server.url}/api/v1/missions`, { headers: { Authorization: `Bearer ${token}` } })
      // A well-formed token that names nothing (it reaches the database) and a malformed one both count.
      const unknown = ws.live.slice(0, -6) + '000000'
      for (const guess of ['svc_live_guess', unknown, 'svc_live_guess']) expect((await get(guess)).status).toBe(401)
      for (const guess of ['svc_live_guess', unknown]) {
        const throttled = await get(guess)
        expect(throttled.status).toBe(429)
        expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(0)
        expect(((await throttled.json()) as any).error.code).toBe('rate_limited')
      }
      // Someone else behind the same address, with a valid credential: never refused for those failures.
      for (const token of [ws.live, ws.agent.credential]) {
        const path = token === ws.live ? '/api/v1/missions' : '/api/v1/agent/me'
        const ok = await fetch(`${server.url}${path}`, { headers: { Authorization: `Bearer ${token}` } })
        expect(ok.status).toBe(200)
        expect(ok.headers.get('retry-after')).toBe('0')
      }
      expect((await get(unknown)).status).toBe(429)
    } finally {
      await server.stop()
    }
  })
})

describe('calls without a credential are limited per client address', () => {
  test('the public endpoints answer 429 past the anonymous limit', async () => {
    await withinOneWindow(HOUR_MS, 5_000)
    const { db } = await getHarness()
    const config = loadConfig({ ...process.env, PORT: '0', HOST: '127.0.0.1' })
    const server = await startServer(config, { db, log: createLogger('silent'), anonymous: new MemoryLimiter(2, 3_600_000) })
    try {
      const first = await fetch(`${server.url}/api/v1`)
      expect(first.status).toBe(200)
      expect(first.headers.get('x-ratelimit-limit')).toBe('2')
      expect(first.headers.get('x-ratelimit-remaining')).toBe('1')
      expect((await fetch(`${server.url}/api/v1/openapi.json`)).status).toBe(200)
      const over = await fetch(`${server.url}/api/v1`)
      expect(over.status).toBe(429)
      expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0)
      expect(((await over.json()) as any).error.code).toBe('rate_limited')
    } finally {
      await server.stop()
    }
  })
})
