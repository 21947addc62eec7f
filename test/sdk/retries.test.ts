import { beforeAll, describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { getHarness, makeWorkspace } from '../harness.ts'
import { insertContacts, insertWorkflow } from '../write-fixtures.ts'
import { type FaultAction, type FaultProxy, type SeenRequest, startFaultProxy } from './support/fault-proxy.ts'
import { PACK_TIMEOUT, RUNTIMES, type Runtime, runScript, scriptInProject } from './support/pack.ts'

/**
 * Retries, faults, time-outs and aborts of the SDK as a user gets it: the packed package, installed
 * into an empty project, run by a plain script under Node.js, Bun and Deno, against the real test
 * server behind a scripted fault proxy (test/sdk/support/fault-proxy.ts) that answers 429/409/5xx,
 * delays answers or drops connections, and records every attempt with its Idempotency-Key and time.
 *
 * Every scenario runs under the three runtimes, as each is quick (Retry-After: 1, maxRetries <= 1 or
 * 2, time-outs of a few hundred ms) and depends on what differs between them (fetch's failures on a
 * dropped, refused or aborted connection, timers, AbortSignal), except the backoff shape: it waits
 * 3.5 s, and its arithmetic is the SDK's own, so it runs under Node.js only (waiting out Retry-After
 * and the backoff before a retry are checked under all three). Timing assertions bound from below
 * exactly (never sooner than the wait the SDK owes), and from above only with generous slack.
 */

/** What the script reports of one step (see support/retry-scenario.mjs). */
type StepResult = {
  ok: boolean
  data?: any
  replayed?: boolean
  requestId?: string
  status?: number
  elapsedMs: number
  sinceAbortMs?: number
  fetchCalls: number
  error?: {
    name: string
    message: string
    status?: number
    code?: string
    requestId?: string
    idempotencyKey?: string
    retryAfter?: number
    classes: string[]
    isAbortReason: boolean
  }
}

type Step = {
  call: string
  arg?: unknown
  options?: { idempotencyKey?: string; maxRetries?: number; timeout?: number | 'Infinity' }
  client?: { maxRetries?: number; timeout?: number | 'Infinity' }
  token?: string
  baseUrl?: string
  abort?: { afterMs: number; reason?: string; from?: 'start' | 'fetch' | 'answer' }
  countFetch?: boolean
  keyFromErrorOf?: number
}

/** A generated key: `sdk-` and a UUID. */
const SDK_KEY = /^sdk-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
/** Slack above a computed wait, for scheduling and the round trip; waits are never checked short of it. */
const SLACK_MS = 400

let script: string

beforeAll(async () => {
  script = await scriptInProject('retry-scenario.mjs', readFileSync(join(import.meta.dir, 'support', 'retry-scenario.mjs'), 'utf8'))
}, PACK_TIMEOUT)

async function withProxy(fn: (proxy: FaultProxy) => Promise<void>): Promise<void> {
  const { url } = await getHarness()
  const proxy = await startFaultProxy(url)
  try {
    await fn(proxy)
  } finally {
    await proxy.stop()
  }
}

/** Runs the steps in one process of the runtime, through the proxy; resolves when the process has exited. */
async function runSteps(runtime: Runtime, proxy: FaultProxy, token: string, steps: Step[]): Promise<StepResult[]> {
  const run = await runScript(runtime, script, { BASE_URL: `${proxy.url}/api/v1`, TOKEN: token, STEPS: JSON.stringify(steps) })
  if (run.code !== 0) throw new Error(`${runtime} exited ${run.code}:\n${run.stderr}\n${run.stdout}`)
  const results = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as StepResult[]
  expect(results).toHaveLength(steps.length)
  return results
}

/** The attempts of step `index` that reached the proxy. */
function attemptsOf(proxy: FaultProxy, index: number): SeenRequest[] {
  return proxy.seen.filter((r) => r.headers['x-test-step'] === String(index))
}

const status = (code: number, retryAfter?: number): FaultAction => ({ kind: 'status', status: code, retryAfter })

/** Step i's requests take scripts[i] in order, then pass through to the server. */
function scriptSteps(proxy: FaultProxy, scripts: FaultAction[][]) {
  proxy.scriptByHeader('x-test-step', Object.fromEntries(scripts.map((actions, i) => [String(i), actions])))
}

/** Every attempt of a write carries one generated key, the same on each. */
function expectOneGeneratedKey(attempts: SeenRequest[]) {
  expect(attempts[0]!.idempotencyKey).toMatch(SDK_KEY)
  expect(new Set(attempts.map((a) => a.idempotencyKey))).toEqual(new Set([attempts[0]!.idempotencyKey]))
}

async function contactEmails(workspaceId: string): Promise<string[]> {
  const { sql } = await getHarness()
  return (await sql<{ email: string }[]>`SELECT email FROM contacts WHERE workspace_id = ${workspaceId} ORDER BY email_key`).map((r) => r.email)
}

/** A port nothing listens on: one the system gave out a moment ago and that was closed again. */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  const port = (server.address() as { port: number }).port
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

describe.each(RUNTIMES)('the packed SDK under %s', (runtime) => {
  test('429 with Retry-After: 1 is waited out, never sooner, and retried with the same key; with maxRetries 0 it is a RateLimitError', async () => {
    const ws = await makeWorkspace()
    await withProxy(async (proxy) => {
      scriptSteps(proxy, [[status(429, 1)], [status(429, 1)]])
      const [retried, refused] = await runSteps(runtime, proxy, ws.live, [
        { call: 'contacts.import', arg: { contacts: [{ email: 'ann@example.com' }] } },
        { call: 'contacts.import', arg: { contacts: [{ email: 'bob@example.com' }] }, options: { maxRetries: 0 } },
      ])
      expect(retried).toMatchObject({ ok: true, status: 201, replayed: false })
      expect(retried!.data.totals).toEqual({ created: 1, updated: 0, skipped: 0 })
      const first = attemptsOf(proxy, 0)
      expect(first.map((a) => [a.method, a.action])).toEqual([['POST', 'status'], ['POST', 'pass']])
      expectOneGeneratedKey(first)
      expect(proxy.gaps(first)[0]).toBeGreaterThanOrEqual(1000)

      const [only] = attemptsOf(proxy, 1)
      expect(attemptsOf(proxy, 1)).toHaveLength(1)
      expect(refused!.ok).toBe(false)
      expect(refused!.error).toMatchObject({
        name: 'RateLimitError',
        status: 429,
        code: 'rate_limited',
        retryAfter: 1,
        requestId: only!.requestId,
        classes: ['GrowthError', 'RateLimitError'],
      })
      expect(only!.idempotencyKey).toMatch(SDK_KEY)
      expect(only!.idempotencyKey).not.toBe(first[0]!.idempotencyKey)
      // The refused call never reached the server.
      expect(await contactEmails(ws.id)).toEqual(['ann@example.com'])
    })
  })

  test('a Retry-After above 60 s is not waited out: RateLimitError at once, one attempt', async () => {
    const ws = await makeWorkspace()
    await withProxy(async (proxy) => {
      scriptSteps(proxy, [[status(429, 61)]])
      const [result] = await runSteps(runtime, proxy, ws.live, [{ call: 'usage.get' }])
      expect(result!.error).toMatchObject({ name: 'RateLimitError', status: 429, code: 'rate_limited', retryAfter: 61 })
      expect(proxy.seen).toHaveLength(1)
      // The default maxRetries (2) would have allowed a retry; "at once", with generous slack.
      expect(result!.elapsedMs).toBeLessThan(5000)
    })
  })

  test('409 (the same key still being answered) is retried with the same key, after the backoff', async () => {
    const ws = await makeWorkspace()
    await withProxy(async (proxy) => {
      scriptSteps(proxy, [[status(409)]])
      const [result] = await runSteps(runtime, proxy, ws.live, [{ call: 'contacts.import', arg: { contacts: [{ email: 'cy@example.com' }] } }])
      expect(result).toMatchObject({ ok: true, status: 201, replayed: false })
      const attempts = attemptsOf(proxy, 0)
      expect(attempts.map((a) => a.action)).toEqual(['status', 'pass'])
      expect(attempts[1]!.upstream!.status).toBe(201)
      expectOneGeneratedKey(attempts)
      expect(proxy.gaps(attempts)[0]).toBeGreaterThanOrEqual(375)
      expect(await contactEmails(ws.id)).toEqual(['cy@example.com'])
    })
  })

  test('500, 502, 408 and a connection dropped before the server heard it are retried; GETs carry no Idempotency-Key', async () => {
    const ws = await makeWorkspace()
    await withProxy(async (proxy) => {
      scriptSteps(proxy, [[status(500)], [status(502)], [{ kind: 'drop' }], [status(408)]])
      const results = await runSteps(runtime, proxy, ws.live, [
        { call: 'usage.get' },
        { call: 'contacts.import', arg: { contacts: [{ email: 'dee@example.com' }] } },
        { call: 'outcomes.get' },
        { call: 'contacts.import', arg: { contacts: [{ email: 'eli@example.com' }] } },
      ])
      expect(results.map((r) => [r.ok, r.status])).toEqual([[true, 200], [true, 201], [true, 200], [true, 201]])
      expect(attemptsOf(proxy, 0).map((a) => [a.method, a.action, a.idempotencyKey])).toEqual([['GET', 'status', null], ['GET', 'pass', null]])
      expect(attemptsOf(proxy, 1).map((a) => [a.method, a.action])).toEqual([['POST', 'status'], ['POST', 'pass']])
      expectOneGeneratedKey(attemptsOf(proxy, 1))
      expect(attemptsOf(proxy, 2).map((a) => [a.method, a.action, a.idempotencyKey])).toEqual([['GET', 'drop', null], ['GET', 'pass', null]])
      expect(results[2]!.requestId).toBe(attemptsOf(proxy, 2)[1]!.requestId)
      expect(attemptsOf(proxy, 3).map((a) => [a.method, a.action])).toEqual([['POST', 'status'], ['POST', 'pass']])
      expectOneGeneratedKey(attemptsOf(proxy, 3))
      expect(await contactEmails(ws.id)).toEqual(['dee@example.com', 'eli@example.com'])
    })
  })

  test('503 after maxRetries is an InternalServerError with status, code and request id, after exactly maxRetries + 1 attempts', async () => {
    const ws = await makeWorkspace()
    await withProxy(async (proxy) => {
      scriptSteps(proxy, [[status(503), status(503), status(503)]])
      const [result] = await runSteps(runtime, proxy, ws.live, [{ call: 'contacts.import', arg: { contacts: [{ email: 'eve@example.com' }] }, client: { maxRetries: 1 } }])
      const attempts = attemptsOf(proxy, 0)
      expect(attempts).toHaveLength(2)
      expectOneGeneratedKey(attempts)
      expect(result!.error).toMatchObject({
        name: 'InternalServerError',
        status: 503,
        code: 'internal',
        requestId: attempts[1]!.requestId,
        classes: ['GrowthError', 'InternalServerError'],
      })
      expect(await contactEmails(ws.id)).toEqual([])
    })
  })

  test.if(runtime === 'node')('backoff: three 503s without Retry-After are retried after 0.5 s, 1 s and 2 s, each less up to a quarter', async () => {
    const ws = await makeWorkspace()
    await withProxy(async (proxy) => {
      scriptSteps(proxy, [[status(503), status(503), status(503)]])
      const [result] = await runSteps(runtime, proxy, ws.live, [{ call: 'usage.get', client: { maxRetries: 3 } }])
      expect(result).toMatchObject({ ok: true, status: 200 })
      expect(proxy.seen.map((a) => a.action)).toEqual(['status', 'status', 'status', 'pass'])
      const gaps = proxy.gaps()
      ;[500, 1000, 2000].forEach((full, i) => {
        expect(gaps[i]).toBeGreaterThanOrEqual(full * 0.75)
        expect(gaps[i]).toBeLessThanOrEqual(full + SLACK_MS)
      })
    })
  })

  test('a connection dropped after the server did the write (before or during its answer): the retry with the same key is replayed, and the write is done once', async () => {
    const ws = await makeWorkspace()
    await insertContacts(ws.id, [{ email: 'olivia@example.com' }])
    const workflow = await insertWorkflow(ws.id, 'checkout.abandoned')
    await withProxy(async (proxy) => {
      scriptSteps(proxy, [[{ kind: 'drop', forward: true }], [{ kind: 'drop', midAnswer: true }]])
      const [result, imported] = await runSteps(runtime, proxy, ws.live, [
        { call: 'track', arg: { event: 'checkout.abandoned', email: 'olivia@example.com', properties: { step: 'shipping' } } },
        { call: 'contacts.import', arg: { contacts: [{ email: 'pat@example.com', name: 'Pat' }] } },
      ])
      const attempts = attemptsOf(proxy, 0)
      expect(attempts.map((a) => a.action)).toEqual(['drop', 'pass'])
      // The first attempt was done by the server; its answer never reached the caller.
      expect(attempts[0]!.upstream!.status).toBe(201)
      expectOneGeneratedKey(attempts)
      expect(result).toMatchObject({ ok: true, status: 201, replayed: true })
      expect(result!.data).toEqual(JSON.parse(attempts[0]!.upstream!.body).data)
      expect(result!.data).toMatchObject({ event: 'checkout.abandoned', workflowsStarted: 1 })

      const { sql } = await getHarness()
      const runs = await sql<{ workflow_id: string }[]>`SELECT workflow_id FROM workflow_runs WHERE workspace_id = ${ws.id}`
      expect(runs.map((r) => r.workflow_id)).toEqual([workflow])
      const [usage] = await sql<{ used: number }[]>`
        SELECT COALESCE(sum(used), 0)::int AS used FROM usage_counters WHERE workspace_id = ${ws.id} AND name = 'trackedEvents'`
      expect(usage!.used).toBe(1)

      // Cut off halfway through its answer's body: retried as no answer at all, never a half-read body.
      const cut = attemptsOf(proxy, 1)
      expect(cut.map((a) => a.action)).toEqual(['drop', 'pass'])
      expect(cut[0]!.upstream!.status).toBe(201)
      expectOneGeneratedKey(cut)
      expect(imported).toMatchObject({ ok: true, status: 201, replayed: true })
      expect(imported!.data).toEqual(JSON.parse(cut[0]!.upstream!.body).data)
      expect(imported!.data.totals).toEqual({ created: 1, updated: 0, skipped: 0 })

      const events = await sql<{ type: string }[]>`SELECT type FROM events WHERE workspace_id = ${ws.id} ORDER BY seq`
      expect(events.map((e) => e.type)).toEqual(['workflow.started', 'contact.created'])
      expect(await contactEmails(ws.id)).toEqual(['olivia@example.com', 'pat@example.com'])
    })
  })

  test('out of retries with no answer: the error carries the key the SDK made, and the call sent again with it is replayed, the write done once; a GET\'s error has none', async () => {
    const ws = await makeWorkspace()
    await withProxy(async (proxy) => {
      // Cut off halfway through its answer, the write done (a connection closed before any answer is
      // sent again by Deno's own fetch).
      scriptSteps(proxy, [[{ kind: 'drop', midAnswer: true }], [], [status(500)], [status(401)]])
      const [lost, again, failed, read] = await runSteps(runtime, proxy, ws.live, [
        { call: 'contacts.import', arg: { contacts: [{ email: 'quinn@example.com' }] }, options: { maxRetries: 0 } },
        { call: 'contacts.import', arg: { contacts: [{ email: 'quinn@example.com' }] }, keyFromErrorOf: 0 },
        { call: 'contacts.import', arg: { contacts: [{ email: 'rhea@example.com' }] }, options: { maxRetries: 0 } },
        { call: 'usage.get', options: { maxRetries: 0 } },
      ])
      const [sent] = attemptsOf(proxy, 0)
      expect(sent!.upstream!.status).toBe(201)
      expect(lost!.error).toMatchObject({ name: 'ConnectionError', idempotencyKey: sent!.idempotencyKey })
      expect(lost!.error!.idempotencyKey).toMatch(SDK_KEY)
      expect(attemptsOf(proxy, 1).map((a) => a.idempotencyKey)).toEqual([sent!.idempotencyKey])
      expect(again).toMatchObject({ ok: true, status: 201, replayed: true })
      expect(again!.data.totals).toEqual({ created: 1, updated: 0, skipped: 0 })
      // An answered refusal carries it too; a read sends none.
      expect(failed!.error).toMatchObject({ name: 'InternalServerError', idempotencyKey: attemptsOf(proxy, 2)[0]!.idempotencyKey })
      expect(failed!.error!.idempotencyKey).toMatch(SDK_KEY)
      expect(read!.error!.name).toBe('AuthenticationError')
      expect(read!.error!.idempotencyKey).toBeUndefined()
      expect(await contactEmails(ws.id)).toEqual(['quinn@example.com'])
    })
  })

  test("the caller's own idempotencyKey is the one sent on every attempt, and the server keeps the answer under it", async () => {
    const ws = await makeWorkspace()
    const key = `import-2024-06-batch-1-${runtime}`
    await withProxy(async (proxy) => {
      scriptSteps(proxy, [[status(503)]])
      const body = { contacts: [{ email: 'fay@example.com' }] }
      const [first, again] = await runSteps(runtime, proxy, ws.live, [
        { call: 'contacts.import', arg: body, options: { idempotencyKey: key } },
        { call: 'contacts.import', arg: body, options: { idempotencyKey: key } },
      ])
      expect(attemptsOf(proxy, 0).map((a) => [a.action, a.idempotencyKey])).toEqual([['status', key], ['pass', key]])
      expect(first).toMatchObject({ ok: true, status: 201, replayed: false })
      expect(attemptsOf(proxy, 1).map((a) => [a.action, a.idempotencyKey])).toEqual([['pass', key]])
      expect(again).toMatchObject({ ok: true, status: 201, replayed: true, data: first!.data })
      expect(await contactEmails(ws.id)).toEqual(['fay@example.com'])
    })
  })

  test('400, 401, 403, 404 and 422 from the server are not retried: one attempt each, the error of its status', async () => {
    const ws = await makeWorkspace()
    await withProxy(async (proxy) => {
      const key = `once-${runtime}`
      const results = await runSteps(runtime, proxy, ws.live, [
        { call: 'contacts.import', arg: { contacts: [] } },
        { call: 'usage.get', token: 'svc_live_thisisnotarealtoken000000000000' },
        { call: 'contacts.import', arg: { contacts: [{ email: 'gus@example.com' }] }, token: ws.scoped },
        { call: 'track', arg: { event: 'checkout.abandoned', email: 'nobody@example.com' } },
        { call: 'contacts.import', arg: { contacts: [{ email: 'hal@example.com' }] }, options: { idempotencyKey: key } },
        { call: 'contacts.import', arg: { contacts: [{ email: 'ivy@example.com' }] }, options: { idempotencyKey: key } },
      ])
      const expected: [string, number, string][] = [
        ['BadRequestError', 400, 'invalid_request'],
        ['AuthenticationError', 401, 'unauthorized'],
        ['PermissionDeniedError', 403, 'forbidden'],
        ['NotFoundError', 404, 'not_found'],
      ]
      expected.forEach(([name, code, envelopeCode], i) => {
        expect(results[i]!.error).toMatchObject({ name, status: code, code: envelopeCode, classes: ['GrowthError', name] })
        expect(results[i]!.error!.requestId).toBe(attemptsOf(proxy, i)[0]!.requestId!)
      })
      expect(results[4]).toMatchObject({ ok: true, status: 201 })
      expect(results[5]!.error).toMatchObject({ name: 'IdempotencyKeyReusedError', status: 422, code: 'idempotency_key_reused' })
      for (let i = 0; i < results.length; i++) expect(attemptsOf(proxy, i)).toHaveLength(1)
      expect(proxy.seen).toHaveLength(results.length)
      expect(await contactEmails(ws.id)).toEqual(['hal@example.com'])
    })
  })

  test('time-outs: each attempt gets `timeout` ms, a TimeoutError is a ConnectionError and is retried; the per-call timeout overrides the client', async () => {
    const ws = await makeWorkspace()
    const slow = (ms: number): FaultAction => ({ kind: 'delay', ms })
    await withProxy(async (proxy) => {
      scriptSteps(proxy, [[slow(5000), slow(5000)], [slow(5000)], [slow(600)], [slow(100)], [slow(100)]])
      const [retried, perCallShorter, perCallLonger, unbounded, beyondTimers] = await runSteps(runtime, proxy, ws.live, [
        { call: 'usage.get', client: { timeout: 300, maxRetries: 1 }, countFetch: true },
        { call: 'usage.get', client: { timeout: 60_000, maxRetries: 0 }, options: { timeout: 300 }, countFetch: true },
        { call: 'usage.get', client: { timeout: 200, maxRetries: 0 }, options: { timeout: 10_000 } },
        // Longer than a timer can wait (2^31 - 1 ms): no time-out, not one that fires at once.
        { call: 'usage.get', client: { timeout: 'Infinity', maxRetries: 0 } },
        { call: 'usage.get', client: { maxRetries: 0 }, options: { timeout: 2 ** 31 } },
      ])
      const timedOut = { name: 'TimeoutError', classes: ['GrowthError', 'ConnectionError', 'TimeoutError'] }
      expect(retried!.error).toMatchObject(timedOut)
      expect(retried!.error!.status).toBeUndefined()
      // Attempts counted at the fetch: on a loaded machine a cold runtime may time out before its
      // first request reached the proxy, so the proxy may have seen fewer.
      expect(retried!.fetchCalls).toBe(2)
      expect(attemptsOf(proxy, 0).length).toBeLessThanOrEqual(2)
      // Two attempts of 300 ms and a backoff of at least 375 ms between them; far short of the 5 s delay.
      expect(retried!.elapsedMs).toBeGreaterThanOrEqual(2 * 300 + 375 - 5)
      expect(retried!.elapsedMs).toBeLessThan(4000)

      expect(perCallShorter!.error).toMatchObject(timedOut)
      expect(perCallShorter!.fetchCalls).toBe(1)
      expect(attemptsOf(proxy, 1).length).toBeLessThanOrEqual(1)
      expect(perCallShorter!.elapsedMs).toBeGreaterThanOrEqual(300 - 5)
      expect(perCallShorter!.elapsedMs).toBeLessThan(4000)

      expect(perCallLonger).toMatchObject({ ok: true, status: 200 })
      expect(perCallLonger!.elapsedMs).toBeGreaterThanOrEqual(600)
      expect(attemptsOf(proxy, 2)).toHaveLength(1)

      expect(unbounded).toMatchObject({ ok: true, status: 200 })
      expect(beyondTimers).toMatchObject({ ok: true, status: 200 })
    })
  })

  test('an AbortSignal ends the call at once with its reason: during a slow answer, during the wait before a retry, or before any request', async () => {
    const ws = await makeWorkspace()
    await withProxy(async (proxy) => {
      scriptSteps(proxy, [[{ kind: 'delay', ms: 5000 }], [{ kind: 'delay', ms: 5000 }], [status(429, 5)]])
      const [withReason, withoutReason, duringWait, already] = await runSteps(runtime, proxy, ws.live, [
        // 300 ms into the first attempt (the answer comes after 5 s).
        { call: 'usage.get', abort: { afterMs: 300, from: 'fetch', reason: 'the caller changed its mind' } },
        { call: 'usage.get', abort: { afterMs: 300, from: 'fetch' } },
        // 100 ms after the 429 came: during the 5 s wait before the retry.
        { call: 'contacts.import', arg: { contacts: [{ email: 'jo@example.com' }] }, abort: { afterMs: 100, from: 'answer' } },
        { call: 'contacts.import', arg: { contacts: [{ email: 'kim@example.com' }] }, abort: { afterMs: 0 }, countFetch: true },
      ])
      // The abort's own reason, not a GrowthError, and no retry although maxRetries (2) allowed one.
      expect(withReason!.error).toMatchObject({ name: 'Error', message: 'the caller changed its mind', isAbortReason: true, classes: [] })
      expect(withReason!.sinceAbortMs).toBeLessThan(1000)
      expect(withoutReason!.error).toMatchObject({ name: 'AbortError', isAbortReason: true, classes: [] })
      expect(withoutReason!.sinceAbortMs).toBeLessThan(1000)
      // Aborted while waiting out Retry-After: 5: rejects promptly, and no second attempt ever comes
      // (the process has exited by now, so a retry the SDK still had scheduled would have been seen).
      expect(duringWait!.error).toMatchObject({ name: 'AbortError', isAbortReason: true })
      expect(duringWait!.sinceAbortMs).toBeLessThan(1000)
      // Already aborted: the SDK never calls fetch.
      expect(already).toMatchObject({ ok: false, fetchCalls: 0, error: { name: 'AbortError', isAbortReason: true } })
      expect([withReason, withoutReason, duringWait, already].map((r) => r!.fetchCalls)).toEqual([1, 1, 1, 0])
      // (A cold runtime on a loaded machine may abort before its first request reached the proxy.)
      expect(attemptsOf(proxy, 0).length).toBeLessThanOrEqual(1)
      expect(attemptsOf(proxy, 1).length).toBeLessThanOrEqual(1)
      expect(attemptsOf(proxy, 2)).toHaveLength(1)
      expect(attemptsOf(proxy, 3)).toHaveLength(0)
      expect(await contactEmails(ws.id)).toEqual([])
    })
  })

  test('a refused connection (nothing listening) is a ConnectionError after maxRetries + 1 tries', async () => {
    const ws = await makeWorkspace()
    await withProxy(async (proxy) => {
      const port = await closedPort()
      const [result] = await runSteps(runtime, proxy, ws.live, [
        { call: 'usage.get', baseUrl: `http://127.0.0.1:${port}/api/v1`, client: { maxRetries: 2 }, countFetch: true },
      ])
      expect(result!.error).toMatchObject({ name: 'ConnectionError', classes: ['GrowthError', 'ConnectionError'] })
      expect(result!.error!.status).toBeUndefined()
      expect(result!.error!.message).toContain(`127.0.0.1:${port}`)
      // One sentence, whatever the runtime's own wording ends with (Bun's ends with a question mark).
      expect(result!.error!.message).not.toMatch(/[.?!:]\.$/)
      expect(result!.fetchCalls).toBe(3)
      // Two backoffs between the three tries: at least 375 ms and 750 ms.
      expect(result!.elapsedMs).toBeGreaterThanOrEqual(375 + 750 - 5)
    })
  })

  test('https to a server that speaks plain HTTP: a ConnectionError whose message is one line, whatever the TLS library wrote', async () => {
    const ws = await makeWorkspace()
    const { url } = await getHarness()
    await withProxy(async (proxy) => {
      const plain = new URL(url)
      const [result] = await runSteps(runtime, proxy, ws.live, [{ call: 'usage.get', baseUrl: `https://${plain.host}/api/v1`, client: { maxRetries: 0 } }])
      expect(result!.error).toMatchObject({ name: 'ConnectionError', classes: ['GrowthError', 'ConnectionError'] })
      expect(result!.error!.message).toStartWith(`No answer from GET https://${plain.host}/api/v1/usage: `)
      expect(result!.error!.message).not.toMatch(/[\n\r]/)
      expect(result!.error!.message).not.toMatch(/\s[.)]+$/)
    })
  })
})
