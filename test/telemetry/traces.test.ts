import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { context, trace } from '@opentelemetry/api'
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto'
import { resourceFromAttributes } from '@opentelemetry/resources'
import { SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node'
import { Growth } from '@growth-service/sdk'
import { growthIn } from '../cli/run.ts'
import { makeWorkspace } from '../harness.ts'
import { checkReceived } from '../support/event-models.ts'
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from '../support/otlp-receiver.ts'
import { type ServerProcess, startBanner, startServerProcess } from '../support/server-process.ts'
import { startGuard, tempDir } from '../mcp/support/guard.ts'

/**
 * Traces end to end (issue 29, CONTRACT: Observability), with real processes: a real OTLP/HTTP
 * receiver (test/support/otlp-receiver.ts) takes the spans of this test process (an application
 * using the SDK under OpenTelemetry) and of a real server process started with
 * OTEL_EXPORTER_OTLP_ENDPOINT; one SDK write that causes a webhook makes one trace (the app's span,
 * the SDK's, the server's, the gateway's, the SQL statements') and a delivery span linked to it.
 */

let receiver: OtlpReceiver
let server: ServerProcess
let hooks: ReturnType<typeof Bun.serve>
const delivered: string[] = []
let workspaceId: string
let agent: string
const dataDir = mkdtempSync(join(tmpdir(), 'growth-traces-'))
let provider: NodeTracerProvider
const app = trace.getTracer('test-app')

beforeAll(async () => {
  receiver = await startOtlpReceiver()
  // The application's own spans go to the same receiver, as they would to the same collector.
  provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'test-app' }),
    spanProcessors: [new SimpleSpanProcessor(new OTLPTraceExporter({ url: `${receiver.url}/v1/traces` }))],
  })
  provider.register()
  hooks = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: async (r) => (delivered.push(await r.text()), checkReceived(delivered.at(-1)!), new Response('ok')) })
  if (process.env.DATABASE_URL) {
    const ws = await makeWorkspace()
    workspaceId = ws.id
    agent = ws.agent.credential
  }
  server = await startServerProcess({
    DATA_DIR: dataDir, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, WEBHOOK_WORKERS: '1', WEBHOOK_ALLOW_PRIVATE_NETWORKS: '127.0.0.0/8',
    LOG_LEVEL: 'info', LOG_FORMAT: 'json',
  })
  if (!process.env.DATABASE_URL) {
    const demo = JSON.parse(readFileSync(join(dataDir, 'demo.json'), 'utf8'))
    workspaceId = demo.workspace.id
    agent = demo.agents[0].credential
  }
  const created = await growthIn(dataDir)(['admin', 'webhook', 'create', '--workspace', workspaceId, '--url', `http://127.0.0.1:${hooks.port}/hook?token=receiver-secret`, '--events', 'agent.request.decided'], { WEBHOOK_ALLOW_PRIVATE_NETWORKS: '127.0.0.0/8' })
  expect(created.code, created.stderr).toBe(0)
}, 120_000)

afterAll(async () => {
  server?.proc.kill()
  hooks?.stop(true)
  await provider?.shutdown()
  await receiver?.close()
})

const inTrace = (spans: ReceivedSpan[], traceId: string) => spans.filter((s) => s.traceId === traceId)

describe('one SDK write that causes a webhook', () => {
  test('one trace: the app’s span, the SDK’s, the server’s, the gateway’s and the SQL statements’; the delivery’s span linked to it', async () => {
    const resource = `cmp_trace_${crypto.randomUUID().slice(0, 8)}`
    const growth = new Growth({ token: agent, baseUrl: `${server.base}`, maxRetries: 0 })
    let traceId = ''
    let appSpanId = ''
    const asked = await app.startActiveSpan('pause the campaign', async (span) => {
      traceId = span.spanContext().traceId
      appSpanId = span.spanContext().spanId
      try {
        return await growth.agent.authorize({ tool: 'ads', action: 'pause_campaign', resource })
      } finally {
        span.end()
      }
    })
    if ('simulated' in asked) throw new Error('a live agent credential answers with a decision')
    const answer = asked
    const spans = await receiver.until((all) => {
      const t = inTrace(all, traceId)
      return t.some((s) => s.service === 'growth-api' && s.kind === 2) && all.some((s) => s.name === 'webhook delivery' && s.links.some((l) => l.traceId === traceId))
    }, 20_000)
    const t = inTrace(spans, traceId)
    const sdk = t.find((s) => s.service === 'test-app' && s.kind === 3)!
    expect(sdk).toMatchObject({ name: 'POST /agent/authorize', parentSpanId: appSpanId })
    const srv = t.find((s) => s.service === 'growth-api' && s.kind === 2)!
    expect(srv.name).toBe('POST /api/v1/agent/authorize')
    expect(srv.parentSpanId).toBe(sdk.spanId)
    expect(srv.attributes).toMatchObject({
      'http.request.method': 'POST', 'http.route': '/api/v1/agent/authorize', 'http.response.status_code': 201,
      'growth.operation': 'authorizeAgentAction', 'growth.workspace_id': workspaceId,
    })
    expect(String(srv.attributes['growth.request_id'])).toMatch(/^req_[0-9a-z]+$/)
    const authorize = t.find((s) => s.name === 'authorize')!
    expect(authorize.parentSpanId).toBe(srv.spanId)
    expect(authorize.attributes['growth.decision']).toBe(answer.decision)
    // The statements: client spans of this trace, with their text and never their values.
    const sql = t.filter((s) => s.attributes['db.system.name'] === 'postgresql')
    expect(sql.length).toBeGreaterThan(0)
    for (const s of sql) {
      expect(s.kind).toBe(3)
      expect(s.name).toMatch(/^[A-Z]+$/)
      expect(String(s.attributes['db.query.text']).toUpperCase()).toStartWith(s.name)
      for (const secret of [resource, agent, answer.authorizationId]) expect(JSON.stringify(s.attributes)).not.toContain(secret)
    }
    expect(sql.some((s) => /\$1/.test(String(s.attributes['db.query.text'])))).toBe(true)
    // The delivery: a trace of its own (it happens later, maybe elsewhere), linked to the request's.
    const delivery = spans.find((s) => s.name === 'webhook delivery' && s.links.some((l) => l.traceId === traceId))!
    expect(delivery.traceId).not.toBe(traceId)
    expect(delivery.kind).toBe(4)
    expect(t.map((s) => s.spanId)).toContain(delivery.links[0]!.spanId)
    expect(delivery.attributes).toMatchObject({ 'growth.event_type': 'agent.request.decided', 'growth.workspace_id': workspaceId, 'http.response.status_code': 200 })
    // The endpoint's URL without its query, where a receiver may keep a token.
    expect(delivery.attributes['url.full']).toBe(`http://127.0.0.1:${hooks.port}/hook`)
    expect(delivered.some((body) => body.includes(answer.authorizationId))).toBe(true)
    expect(startBanner(server.out)!.traces).toBe(`${receiver.url}/v1/traces (OTLP http/protobuf), as growth-api`)
    // The exporter spoke protobuf (OTEL_EXPORTER_OTLP_PROTOCOL's default).
    expect(receiver.contentTypes).toContain('application/x-protobuf')
  }, 60_000)
})

describe('traceparent over HTTP', () => {
  const agentMe = (headers: Record<string, string> = {}) => fetch(`${server.base}/agent/me`, { headers: { authorization: `Bearer ${agent}`, ...headers } })

  test('an incoming traceparent is continued: the server span is its child, and the answer names that span', async () => {
    const caller = { traceId: crypto.randomUUID().replaceAll('-', ''), spanId: crypto.randomUUID().replaceAll('-', '').slice(0, 16) }
    const res = await agentMe({ traceparent: `00-${caller.traceId}-${caller.spanId}-01` })
    expect(res.status).toBe(200)
    const back = res.headers.get('traceparent')!
    expect(back).toMatch(new RegExp(`^00-${caller.traceId}-[0-9a-f]{16}-01$`))
    const spanId = back.split('-')[2]!
    expect(spanId).not.toBe(caller.spanId)
    const [srv] = await receiver.until((all) => all.some((s) => s.spanId === spanId))
    const got = receiver.spans.find((s) => s.spanId === spanId)!
    // The request's log line names the same trace.
    const requestId = res.headers.get('x-request-id')!
    const line = server.stdout().split('\n').find((l) => l.includes(`"requestId":"${requestId}"`))
    expect(JSON.parse(line!).traceId).toBe(caller.traceId)
    expect(srv).toBeDefined()
    expect(got).toMatchObject({ traceId: caller.traceId, parentSpanId: caller.spanId, name: 'GET /api/v1/agent/me', kind: 2 })
    expect(got.attributes['http.response.status_code']).toBe(200)
  }, 30_000)

  test('without one, a trace of its own; a malformed one is ignored, never refused', async () => {
    const fresh = await agentMe()
    expect(fresh.headers.get('traceparent')).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/)
    const bad = await agentMe({ traceparent: '00-nothex-01' })
    expect(bad.status).toBe(200)
    expect(bad.headers.get('traceparent')).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/)
    // A refusal is traced too, with its status.
    const refused = await fetch(`${server.base}/missions`, { headers: { authorization: 'Bearer nope' } })
    expect(refused.status).toBe(401)
    const id = refused.headers.get('traceparent')!.split('-')[2]!
    await receiver.until((all) => all.some((s) => s.spanId === id))
    expect(receiver.spans.find((s) => s.spanId === id)!.attributes).toMatchObject({ 'http.response.status_code': 401, 'growth.operation': 'listMissions' })
  }, 30_000)

  test('an answer outside any operation (no endpoint, a method the path has not) is traced too: a span named by its method, its traceparent on the answer', async () => {
    for (const [method, path, status, operation] of [['GET', '/nothing-here', 404, 'unknown_route'], ['DELETE', '/missions', 405, 'method_not_allowed']] as const) {
      const caller = { traceId: crypto.randomUUID().replaceAll('-', ''), spanId: crypto.randomUUID().replaceAll('-', '').slice(0, 16) }
      const res = await fetch(`${server.base}${path}`, { method, headers: { traceparent: `00-${caller.traceId}-${caller.spanId}-01` } })
      expect(res.status).toBe(status)
      const back = res.headers.get('traceparent')
      expect(back, `${method} ${path}`).toMatch(new RegExp(`^00-${caller.traceId}-[0-9a-f]{16}-01$`))
      const spanId = back!.split('-')[2]!
      await receiver.until((all) => all.some((s) => s.spanId === spanId))
      const got = receiver.spans.find((s) => s.spanId === spanId)!
      expect(got).toMatchObject({ traceId: caller.traceId, parentSpanId: caller.spanId, name: method, kind: 2 })
      const requestId = res.headers.get('x-request-id')!
      expect(got.attributes).toMatchObject({ 'http.request.method': method, 'http.response.status_code': status, 'growth.operation': operation, 'growth.request_id': requestId })
      expect(got.attributes['http.route']).toBeUndefined()
      // Its log line names the same trace.
      const line = server.stdout().split('\n').find((l) => l.includes(`"requestId":"${requestId}"`))
      expect(JSON.parse(line!).traceId).toBe(caller.traceId)
    }
  }, 30_000)
})

describe('growth mcp guard', () => {
  test('carries the trace of a tool call (its _meta.traceparent) through the SDK to the gateway', async () => {
    // The guard reads the OpenTelemetry variables of its environment, which it takes from this
    // process's; it exports in JSON (the server in protobuf), so both protocols are taken here.
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.url
    process.env.OTEL_EXPORTER_OTLP_PROTOCOL = 'http/json'
    const guard = await startGuard({
      credential: agent, baseUrl: server.base, logFile: join(tempDir('growth-guard-trace-'), 'calls.jsonl'),
      config: { tools: { send_email: { tool: 'ads', action: 'pause_campaign', resource: '$.subject' } } },
    }).finally(() => {
      delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT
      delete process.env.OTEL_EXPORTER_OTLP_PROTOCOL
    })
    try {
      const caller = { traceId: crypto.randomUUID().replaceAll('-', ''), spanId: crypto.randomUUID().replaceAll('-', '').slice(0, 16) }
      await guard.client.callTool({ name: 'send_email', arguments: { to: ['a@example.com'], subject: 'Traced' }, _meta: { traceparent: `00-${caller.traceId}-${caller.spanId}-01` } })
      // The guard's spans and the server's come in their own exports: all of them.
      const spans = await receiver.until((all) => {
        const t = inTrace(all, caller.traceId)
        return t.some((s) => s.name === 'tools/call send_email') && t.some((s) => s.service === 'growth-mcp-guard' && s.kind === 3) && t.some((s) => s.name === 'authorize')
      }, 20_000)
      const t = inTrace(spans, caller.traceId)
      const tool = t.find((s) => s.name === 'tools/call send_email')!
      expect(tool).toMatchObject({ service: 'growth-mcp-guard', parentSpanId: caller.spanId })
      const sdk = t.find((s) => s.service === 'growth-mcp-guard' && s.name === 'POST /agent/authorize')!
      expect(sdk.parentSpanId).toBe(tool.spanId)
      const srv = t.find((s) => s.service === 'growth-api' && s.name === 'POST /api/v1/agent/authorize')!
      expect(srv.parentSpanId).toBe(sdk.spanId)
      expect(t.find((s) => s.name === 'authorize')!.parentSpanId).toBe(srv.spanId)
      expect(receiver.contentTypes).toContain('application/json')
    } finally {
      await guard.close()
    }
  }, 60_000)
})

describe('the SDK in an application with OpenTelemetry', () => {
  test('sends traceparent (its own client span’s) only when the caller has an active span', async () => {
    const seen: (string | null)[] = []
    const echo = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: (r) => (seen.push(r.headers.get('traceparent')), Response.json({ data: { ok: true } })) })
    try {
      const growth = new Growth({ token: 'svc_live_x', baseUrl: `http://127.0.0.1:${echo.port}/api/v1`, maxRetries: 0 })
      await context.with(trace.deleteSpan(context.active()), () => growth.agent.me())
      expect(seen[0]).toBeNull()
      let parent = ''
      await app.startActiveSpan('outer', async (span) => {
        parent = span.spanContext().traceId
        await growth.agent.me()
        span.end()
      })
      expect(seen[1]).toMatch(new RegExp(`^00-${parent}-[0-9a-f]{16}-01$`))
    } finally {
      echo.stop(true)
    }
  })
})

describe('AsyncLocalStorage under Bun (context-async-hooks, as the server registers it)', () => {
  test('the active span follows awaits, timers and microtasks, and ends with its scope', async () => {
    await app.startActiveSpan('scope', async (span) => {
      await Bun.sleep(1)
      expect(trace.getActiveSpan()).toBe(span)
      await new Promise<void>((resolve) => setTimeout(() => (expect(trace.getActiveSpan()).toBe(span), resolve()), 1))
      await new Promise<void>((resolve) => queueMicrotask(() => (expect(trace.getActiveSpan()).toBe(span), resolve())))
      // Two scopes at once keep their own.
      const other = await app.startActiveSpan('other', async (o) => (await Bun.sleep(2), o.end(), trace.getActiveSpan() === o))
      expect(other).toBe(true)
      expect(trace.getActiveSpan()).toBe(span)
      span.end()
    })
    expect(trace.getActiveSpan()).toBeUndefined()
  })
})
