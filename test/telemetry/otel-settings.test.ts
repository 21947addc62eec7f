import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type OtlpReceiver, startOtlpReceiver } from '../support/otlp-receiver.ts'
import { runToExit, startServerProcess } from '../support/server-process.ts'

/**
 * The standard OpenTelemetry variables a server process reads, as an operator sets them: one the
 * SDK would drop without a word stops the start with one line naming it (a header's value never
 * quoted: it is often the collector's key).
 */
const dirs: string[] = []
const dataDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'growth-otel-settings-'))
  dirs.push(dir)
  return dir
}
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

describe('OTEL_EXPORTER_OTLP_HEADERS', () => {
  for (const [name, value, says] of [
    ['written as HTTP writes a header', 'Authorization: Bearer s3cret-collector-key', 'entry 1 of 1 is not key=value'],
    ['a pair without its value', 'x-tenant=ops,api-key=', 'the one for "api-key" has no value'],
    ['a stray %', 'api-key=s3cret%zz', 'the one for "api-key" has a % that is not percent-encoding'],
  ] as const) {
    test(`${name}: the start stops with one line naming the variable, never the value`, async () => {
      for (const variable of ['OTEL_EXPORTER_OTLP_HEADERS', 'OTEL_EXPORTER_OTLP_TRACES_HEADERS']) {
        const r = await runToExit({ DATA_DIR: dataDir(), OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', [variable]: value }, 30_000)
        expect(r.code, r.stdout + r.stderr).toBe(1)
        const lines = r.stderr.trim().split('\n')
        expect(lines).toHaveLength(1)
        expect(lines[0]).toStartWith(`error: Invalid configuration: ${variable} must be comma-separated key=value pairs`)
        expect(lines[0]).toContain(says)
        expect(r.stdout + r.stderr).not.toContain('s3cret')
      }
    }, 60_000)
  }
})

describe('OTEL_RESOURCE_ATTRIBUTES', () => {
  let receiver: OtlpReceiver
  beforeAll(async () => {
    receiver = await startOtlpReceiver()
  })
  afterAll(() => receiver?.close())

  /** The resource of the spans a server process sent for one request, once it stopped (SIGTERM flushes them). */
  async function resourceOf(env: Record<string, string>) {
    const server = await startServerProcess({ DATA_DIR: dataDir(), WEBHOOK_WORKERS: '0', OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, ...env })
    const traceId = (await fetch(server.base)).headers.get('traceparent')!.split('-')[1]
    server.proc.kill('SIGTERM')
    expect(await server.proc.exited).toBe(0)
    const span = receiver.spans.find((s) => s.traceId === traceId && s.kind === 2)
    expect(span).toBeDefined()
    return { resource: span!.resource, banner: server.out }
  }

  test('its attributes are on every span, so two instances of one service are told apart', async () => {
    const { resource } = await resourceOf({ OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=production,service.instance.id=api-1,team=growth%20ops' })
    expect(resource).toMatchObject({ 'service.name': 'growth-api', 'deployment.environment': 'production', 'service.instance.id': 'api-1', team: 'growth ops' })
  }, 90_000)

  test('a service.name there names the service (the banner too); OTEL_SERVICE_NAME, when set, wins over it', async () => {
    const named = await resourceOf({ OTEL_RESOURCE_ATTRIBUTES: 'service.name=growth-eu' })
    expect(named.resource['service.name']).toBe('growth-eu')
    expect(named.banner).toContain('as growth-eu')
    const both = await resourceOf({ OTEL_RESOURCE_ATTRIBUTES: 'service.name=growth-eu', OTEL_SERVICE_NAME: 'growth-us' })
    expect(both.resource['service.name']).toBe('growth-us')
  }, 90_000)

  test('an entry that is not key=value stops the start with one line quoting it', async () => {
    const r = await runToExit({ DATA_DIR: dataDir(), OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=production,api-1' }, 30_000)
    expect(r.code, r.stdout + r.stderr).toBe(1)
    expect(r.stderr.trim()).toBe(
      'error: Invalid configuration: OTEL_RESOURCE_ATTRIBUTES must be comma-separated key=value pairs such as deployment.environment=production,service.instance.id=api-1 (values percent-encoded: a space is %20); "api-1" is not key=value.',
    )
  }, 60_000)
})
