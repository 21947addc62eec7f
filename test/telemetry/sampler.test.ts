import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type OtlpReceiver, startOtlpReceiver } from '../support/otlp-receiver.ts'
import { type ServerProcess, startServerProcess } from '../support/server-process.ts'

/**
 * The tracing settings a real server process reads from its environment (CONTRACT: Observability):
 * OTEL_TRACES_SAMPLER with OTEL_TRACES_SAMPLER_ARG, and OTEL_EXPORTER_OTLP_HEADERS, seen by a real
 * OTLP/HTTP receiver. What a server did not sample is judged once it stopped: SIGTERM flushes its
 * spans before it exits, so nothing of it can still be on the way.
 */

let receiver: OtlpReceiver
// parentbased_traceidratio at 0: a trace of its own is never kept, a caller's sampled one always.
let ratioZero: ServerProcess
// always_on, with a header for the collector.
let alwaysOn: ServerProcess

const TRACE = (flag: '00' | '01') => `00-${crypto.randomUUID().replaceAll('-', '')}-${crypto.randomUUID().replaceAll('-', '').slice(0, 16)}-${flag}`
const traceIdOf = (traceparent: string) => traceparent.split('-')[1]!
const spansOf = (service: string) => receiver.spans.filter((s) => s.service === service)

async function stop(server: ServerProcess) {
  server.proc.kill('SIGTERM')
  expect(await server.proc.exited).toBe(0)
}

beforeAll(async () => {
  receiver = await startOtlpReceiver()
  const common = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, WEBHOOK_WORKERS: '0' }
  ;[ratioZero, alwaysOn] = await Promise.all([
    startServerProcess({ ...common, DATA_DIR: mkdtempSync(join(tmpdir(), 'growth-sampler-')), OTEL_SERVICE_NAME: 'ratio-zero', OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0' }),
    startServerProcess({ ...common, DATA_DIR: mkdtempSync(join(tmpdir(), 'growth-sampler-')), OTEL_SERVICE_NAME: 'always-on', OTEL_TRACES_SAMPLER: 'always_on', OTEL_EXPORTER_OTLP_HEADERS: 'x-collector-key=sampler-test-key,x-tenant=growth' }),
  ])
}, 180_000)

afterAll(async () => {
  for (const s of [ratioZero, alwaysOn]) if (s && s.proc.exitCode === null) s.proc.kill('SIGKILL')
  await receiver?.close()
})

describe('OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG', () => {
  test('parentbased_traceidratio 0: no span of its own traces; a caller’s sampled trace is kept, an unsampled one is not', async () => {
    const own = await fetch(ratioZero.base)
    expect(own.status).toBe(200)
    // Not sampled: the answer still names its span, with the sampled flag off.
    expect(own.headers.get('traceparent')).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/)
    const sampled = TRACE('01')
    const kept = await fetch(ratioZero.base, { headers: { traceparent: sampled } })
    expect(kept.headers.get('traceparent')).toMatch(new RegExp(`^00-${traceIdOf(sampled)}-[0-9a-f]{16}-01$`))
    const unsampled = TRACE('00')
    const dropped = await fetch(ratioZero.base, { headers: { traceparent: unsampled } })
    expect(dropped.headers.get('traceparent')).toMatch(new RegExp(`^00-${traceIdOf(unsampled)}-[0-9a-f]{16}-00$`))
    await stop(ratioZero)

    const traces = new Set(spansOf('ratio-zero').map((s) => s.traceId))
    expect([...traces]).toEqual([traceIdOf(sampled)])
    const server = spansOf('ratio-zero').find((s) => s.kind === 2)!
    expect(server.name).toBe('GET /api/v1')
    expect(server.parentSpanId).toBe(sampled.split('-')[2]!)
  }, 60_000)

  test('always_on: every request is traced, even one whose caller did not sample it', async () => {
    const unsampled = TRACE('00')
    const answer = await fetch(alwaysOn.base, { headers: { traceparent: unsampled } })
    expect(answer.headers.get('traceparent')).toMatch(new RegExp(`^00-${traceIdOf(unsampled)}-[0-9a-f]{16}-01$`))
    const own = await fetch(alwaysOn.base)
    const ownTrace = traceIdOf(own.headers.get('traceparent')!)
    await receiver.until((spans) => [traceIdOf(unsampled), ownTrace].every((t) => spans.some((s) => s.service === 'always-on' && s.traceId === t && s.kind === 2)))
  }, 60_000)
})

describe('OTEL_EXPORTER_OTLP_HEADERS', () => {
  test('the receiver sees each header given, on the export of the spans', async () => {
    await fetch(alwaysOn.base)
    await stop(alwaysOn)
    const exports = receiver.headers.filter((h) => h['x-collector-key'] !== undefined)
    expect(exports.length).toBeGreaterThan(0)
    for (const h of exports) expect([h['x-collector-key'], h['x-tenant']]).toEqual(['sampler-test-key', 'growth'])
  }, 60_000)
})
