import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import postgres from 'postgres'
import { makeWorkspace } from '../harness.ts'
import { freePort } from '../support/ports.ts'
import { promtool, runPromtool, type Samples, scrape, value } from '../support/prometheus.ts'
import { ROOT, runToExit, type ServerProcess, startBanner, startServerProcess } from '../support/server-process.ts'

/**
 * Metrics as an operator scrapes them (issue 29, CONTRACT: Observability): a real server process
 * and a real `growth worker` with METRICS_PORT set, scraped over HTTP, the text checked by
 * promtool, the counters moved by exactly the requests sent. On a PostgreSQL server (DATABASE_URL)
 * the credentials are a fresh workspace's; on the embedded database the process seeds its demo
 * workspace in a directory of its own and the test reads the credentials it wrote there.
 */

const CONTRACT_NAMES = [
  'growth_http_requests_total', 'growth_http_request_duration_seconds', 'growth_agent_decisions_total', 'growth_webhook_deliveries_total',
  'growth_webhook_delivery_seconds', 'growth_webhook_backlog', 'growth_webhook_circuits_open', 'growth_db_pool_connections',
  'growth_http_rate_limited_total', 'growth_idempotency_total', 'growth_agent_check_refusals_total',
  'process_cpu_seconds_total', 'process_resident_memory_bytes', 'nodejs_eventloop_lag_p99_seconds',
]

let server: ServerProcess
let metricsUrl: string
let token: string
let agent: string
const dataDir = mkdtempSync(join(tmpdir(), 'growth-metrics-'))

beforeAll(async () => {
  if (process.env.DATABASE_URL) {
    const ws = await makeWorkspace()
    ;({ live: token } = ws)
    agent = ws.agent.credential
  }
  server = await startServerProcess({ DATA_DIR: dataDir, METRICS_PORT: '0', WEBHOOK_WORKERS: '0' })
  metricsUrl = startBanner(server.out)!.metrics!
  if (!process.env.DATABASE_URL) {
    const demo = JSON.parse(readFileSync(join(dataDir, 'demo.json'), 'utf8'))
    token = demo.tokens.live
    agent = demo.agents[0].credential
  }
}, 120_000)

afterAll(() => server?.proc.kill())

const api = (path: string, init: RequestInit & { token?: string } = {}) =>
  fetch(`${server.base}${path}`, { ...init, headers: { ...(init.token ? { authorization: `Bearer ${init.token}` } : {}), 'content-type': 'application/json', ...init.headers } })

const delta = (before: Samples, after: Samples, name: string, labels: Record<string, string | number> = {}) => value(after, name, labels) - value(before, name, labels)

describe('the server’s metrics listener', () => {
  test('the banner names it; it listens on 127.0.0.1 only, on a port other than the API’s, and serves GET /metrics alone', async () => {
    expect(metricsUrl).toStartWith('http://127.0.0.1:')
    expect(new URL(metricsUrl).port).not.toBe(new URL(server.base).port)
    const { contentType } = await scrape(metricsUrl)
    expect(contentType).toStartWith('text/plain; version=0.0.4')
    expect((await fetch(metricsUrl.replace('/metrics', '/other'))).status).toBe(404)
    expect((await fetch(metricsUrl, { method: 'POST' })).status).toBe(405)
    // Not on the API's port.
    expect((await fetch(`${new URL(server.base).origin}/metrics`)).status).toBe(404)
  })

  test.skipIf(!promtool)('the exposition passes promtool check metrics and has every name of the contract', async () => {
    // Some of each first, so that every labelled family has samples to check.
    await api('/missions', { token })
    const { text } = await scrape(metricsUrl)
    const checked = await runPromtool(['check', 'metrics'], text)
    expect(checked.out).toBe('')
    expect(checked.code).toBe(0)
    for (const name of CONTRACT_NAMES) expect(text).toContain(`\n# TYPE ${name} `)
    // The three default gauges promtool refuses (they end in _total) are left out.
    expect(text).not.toContain('nodejs_active_handles_total')
  })

  test('requests are counted by operationId and status, exactly as sent; unknown paths under one name', async () => {
    const before = (await scrape(metricsUrl)).samples
    for (let i = 0; i < 3; i++) {
      const res = await api('/missions', { token })
      expect(res.status).toBe(200)
      // Tracing is off here (no OTEL_EXPORTER_OTLP_ENDPOINT): answers carry no traceparent.
      expect(res.headers.get('traceparent')).toBeNull()
    }
    for (let i = 0; i < 2; i++) expect((await api('/missions', { token: 'gsk_live_nope' })).status).toBe(401)
    expect((await api('/no/such/thing', { token })).status).toBe(404)
    expect((await api('/no/such/thing/either/42', { token })).status).toBe(404)
    const after = (await scrape(metricsUrl)).samples
    expect(delta(before, after, 'growth_http_requests_total', { operation: 'listMissions', status: 200 })).toBe(3)
    expect(delta(before, after, 'growth_http_requests_total', { operation: 'listMissions', status: 401 })).toBe(2)
    expect(delta(before, after, 'growth_http_requests_total', { operation: 'unknown_route', status: 404 })).toBe(2)
    expect(delta(before, after, 'growth_http_request_duration_seconds_count', { operation: 'listMissions' })).toBe(5)
    // Never a raw path as a label.
    expect([...after.keys()].some((k) => k.includes('/no/such'))).toBe(false)
  })

  test('a decision of the gateway counts by decision and by the checks that did not pass; its replay counts as one, not as a decision', async () => {
    const before = (await scrape(metricsUrl)).samples
    const body = JSON.stringify({ tool: 'ads', action: 'pause_campaign', resource: 'cmp_metrics' })
    const key = crypto.randomUUID()
    const first = await api('/agent/authorize', { method: 'POST', token: agent, body, headers: { 'idempotency-key': key } })
    expect(first.status).toBe(201)
    const { decision, checks } = (await first.json()).data as { decision: string; checks: { name: string; passed: boolean }[] }
    const again = await api('/agent/authorize', { method: 'POST', token: agent, body, headers: { 'idempotency-key': key } })
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    const reused = await api('/agent/authorize', { method: 'POST', token: agent, body: JSON.stringify({ tool: 'ads', action: 'other' }), headers: { 'idempotency-key': key } })
    expect(reused.status).toBe(422)
    const after = (await scrape(metricsUrl)).samples
    expect(delta(before, after, 'growth_agent_decisions_total', { decision })).toBe(1)
    for (const d of ['allowed', 'denied', 'requires_approval'].filter((d) => d !== decision)) expect(delta(before, after, 'growth_agent_decisions_total', { decision: d })).toBe(0)
    for (const c of checks) expect(delta(before, after, 'growth_agent_check_refusals_total', { check: c.name, decision })).toBe(c.passed ? 0 : 1)
    expect(delta(before, after, 'growth_idempotency_total', { outcome: 'replayed' })).toBe(1)
    expect(delta(before, after, 'growth_idempotency_total', { outcome: 'key_reused' })).toBe(1)
    expect(delta(before, after, 'growth_http_requests_total', { operation: 'authorizeAgentAction', status: 201 })).toBe(2)
  })

  test('a call refused by a rate limit is counted as rate limited (failed authentications from one address, 20 a minute)', async () => {
    const before = (await scrape(metricsUrl)).samples
    const statuses: number[] = []
    while (!statuses.includes(429) && statuses.length < 40) statuses.push((await api('/missions', { token: 'gsk_live_nope' })).status)
    const limited = statuses.filter((s) => s === 429).length
    expect(limited).toBe(1)
    const after = (await scrape(metricsUrl)).samples
    expect(delta(before, after, 'growth_http_rate_limited_total', { operation: 'listMissions' })).toBe(limited)
    expect(delta(before, after, 'growth_http_requests_total', { operation: 'listMissions', status: 429 })).toBe(limited)
    expect(delta(before, after, 'growth_http_requests_total', { operation: 'listMissions', status: 401 })).toBe(statuses.length - limited)
  })

  test('the gauges read at scrape: webhook backlog and open circuits (0 here), the database answering, statements in use and waiting', async () => {
    // prom-client empties the event-loop delay histogram at each scrape, and it samples every 10 ms:
    // a scrape right after the last one (the test before) can find it empty and report 0.
    await Bun.sleep(100)
    const { samples } = await scrape(metricsUrl)
    expect(samples.get('growth_webhook_backlog')).toBeGreaterThanOrEqual(0)
    expect(samples.get('growth_webhook_circuits_open')).toBeGreaterThanOrEqual(0)
    // 0 while the database is away: test/faults/outage-log.test.ts.
    expect(samples.get('growth_database_up')).toBe(1)
    expect(samples.has('growth_db_pool_connections{state="in_use"}')).toBe(true)
    expect(samples.has('growth_db_pool_connections{state="waiting"}')).toBe(true)
    expect(samples.get('nodejs_eventloop_lag_p99_seconds')).toBeGreaterThan(0)
  })
})

// A statement held by a lock another session keeps: on a PostgreSQL server only (the embedded
// database serves one session at a time, so a held lock would stop every session).
test.skipIf(!process.env.DATABASE_URL)('growth_db_pool_connections counts a statement on a connection while it runs, and not after', async () => {
  const admin = postgres(process.env.DATABASE_URL!, { max: 1, onnotice: () => {} })
  const reserved = await admin.reserve()
  try {
    await reserved`BEGIN`
    await reserved`LOCK TABLE missions IN ACCESS EXCLUSIVE MODE`
    const held = api('/missions', { token })
    const pool = async (state: string) => value((await scrape(metricsUrl)).samples, 'growth_db_pool_connections', { state })
    const inUse = () => pool('in_use')
    const deadline = Date.now() + 10_000
    while ((await inUse()) < 1) {
      if (Date.now() > deadline) throw new Error('the statement waiting for the lock was never counted in use')
      await Bun.sleep(50)
    }
    await reserved`ROLLBACK`
    expect((await held).status).toBe(200)
    // Settled, it is no longer counted; nor are the scrape's own statements (the pool is read before
    // them). The server's own flushes (call counts, the request log, each second) are statements in
    // use while they run, and a scrape may meet one (seen on a loaded machine): the count must come
    // back to nothing, which a statement counted and never let go would not let it do.
    const settled = Date.now() + 5_000
    const seen: string[] = []
    for (;;) {
      const [used, waiting] = [await inUse(), await pool('waiting')]
      seen.push(`${used}/${waiting}`)
      if (used === 0 && waiting === 0) break
      if (Date.now() > settled) throw new Error(`in use/waiting never came back to 0/0 after the statement settled: ${seen.join(', ')}`)
      await Bun.sleep(50)
    }
  } finally {
    await reserved`ROLLBACK`.catch(() => {})
    reserved.release()
    await admin.end({ timeout: 5 })
  }
}, 30_000)

describe('settings', () => {
  test('a bad METRICS_PORT or METRICS_HOST stops the start with one line naming it', async () => {
    for (const [env, says] of [
      [{ METRICS_PORT: 'nine' }, 'METRICS_PORT must be a port number from 0 to 65535 (got "nine")'],
      [{ METRICS_PORT: '70000' }, 'METRICS_PORT must be a port number from 0 to 65535 (got "70000")'],
      [{ METRICS_PORT: '0', METRICS_HOST: ' ' }, 'METRICS_HOST must be an address'],
      [{ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }, 'OTEL_EXPORTER_OTLP_PROTOCOL must be http/protobuf or http/json (grpc is not supported)'],
      [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'localhost:4318' }, 'OTEL_EXPORTER_OTLP_ENDPOINT must be an http or https URL'],
      [{ OTEL_TRACES_SAMPLER: 'sometimes' }, 'OTEL_TRACES_SAMPLER must be one of always_on'],
    ] as const) {
      const r = await runToExit({ DATA_DIR: dataDir, ...env }, 30_000)
      expect(r.code, r.stderr).toBe(1)
      expect(r.stderr).toContain(says)
      expect(r.stderr).not.toContain('    at ')
    }
  }, 60_000)

  test('a metrics port already taken stops the start, naming it', async () => {
    const port = new URL(metricsUrl).port
    const r = await runToExit({ DATA_DIR: mkdtempSync(join(tmpdir(), 'growth-metrics-')), METRICS_PORT: port }, 60_000)
    expect(r.code).toBe(1)
    expect(r.stderr).toBe(`error: Port ${port} on 127.0.0.1 (METRICS_PORT) is already in use. Stop that process, or set METRICS_PORT to a free port.\n`)
  }, 60_000)

  test("METRICS_PORT set to the API's own PORT is named as such, not as a port some other process holds", async () => {
    const port = String(await freePort())
    const r = await runToExit({ DATA_DIR: mkdtempSync(join(tmpdir(), 'growth-metrics-')), PORT: port, METRICS_PORT: port }, 60_000)
    expect(r.code).toBe(1)
    expect(r.stderr).toBe(`error: METRICS_PORT is the API's PORT (${port}): the metrics are served on a port of their own. Set METRICS_PORT to another free port.\n`)
  }, 60_000)
})

describe('growth worker', () => {
  test.skipIf(!promtool)('serves its own metrics on METRICS_PORT: deliveries, backlog, circuits, the process; promtool passes them', async () => {
    const proc = Bun.spawn([process.execPath, 'cli/bin/growth.ts', 'worker'], {
      cwd: ROOT,
      env: { ...process.env, DATA_DIR: dataDir, METRICS_PORT: '0', LOG_LEVEL: 'silent' },
      stdin: 'ignore', stdout: 'pipe', stderr: 'pipe',
    })
    try {
      let err = ''
      const reader = (proc.stderr as ReadableStream<Uint8Array>).getReader()
      while (!/metrics: \S+\n/.test(err)) {
        const { value: chunk, done } = await reader.read()
        if (done) throw new Error(`growth worker stopped: ${err}`)
        err += new TextDecoder().decode(chunk)
      }
      const url = /metrics: (\S+)\n/.exec(err)![1]!
      const { text, samples } = await scrape(url)
      const checked = await runPromtool(['check', 'metrics'], text)
      expect(checked.out).toBe('')
      for (const name of ['growth_webhook_deliveries_total', 'growth_webhook_delivery_seconds', 'growth_webhook_backlog', 'growth_webhook_circuits_open', 'growth_db_pool_connections', 'growth_database_up', 'process_cpu_seconds_total']) {
        expect(text).toContain(`\n# TYPE ${name} `)
      }
      expect(samples.get('growth_database_up')).toBe(1)
      expect(samples.get('growth_webhook_deliveries_total{outcome="delivered"}')).toBe(0)
      // The database-wide gauges say how to add them up over processes (the alerts take their max).
      for (const name of ['growth_webhook_backlog', 'growth_webhook_circuits_open']) {
        expect(text).toMatch(new RegExp(`\n# HELP ${name} .*every process reports the same: aggregate with max, not sum\.\n`))
      }
      // It answers no API request and decides nothing: no API metric, not even an empty one.
      for (const name of ['growth_http_requests_total', 'growth_http_request_duration_seconds', 'growth_http_rate_limited_total', 'growth_idempotency_total', 'growth_agent_decisions_total', 'growth_agent_check_refusals_total']) {
        expect(text).not.toContain(`${name}`)
      }
    } finally {
      proc.kill('SIGTERM')
      await proc.exited
    }
  }, 60_000)
})
