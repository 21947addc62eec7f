import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runToExit } from '../support/server-process.ts'

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
