import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ROOT } from '../support/server-process.ts'

/**
 * `growth worker` logs as the server does (CONTRACT: Observability): pino lines on stdout, JSON
 * unless LOG_FORMAT=pretty, filtered by LOG_LEVEL, a bad setting refused naming it. Real processes:
 * the worker is started, told SIGTERM once it says it runs, and its whole output read.
 */

const dataDir = mkdtempSync(join(tmpdir(), 'growth-worker-log-'))
afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

/** Runs `growth worker` until it says it runs, then SIGTERM: its exit and both streams. */
async function runWorker(env: Record<string, string>) {
  const proc = Bun.spawn([process.execPath, 'cli/bin/growth.ts', 'worker'], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dataDir, WEBHOOK_WORKERS: '1', ...env },
    stdin: 'ignore', stdout: 'pipe', stderr: 'pipe',
  })
  const stdout = new Response(proc.stdout as ReadableStream).text()
  let stderr = ''
  const reader = (proc.stderr as ReadableStream<Uint8Array>).getReader()
  const decoder = new TextDecoder()
  try {
    while (!/running on the/.test(stderr)) {
      const { value, done } = await reader.read()
      if (done) break
      stderr += decoder.decode(value, { stream: true })
    }
    if (proc.exitCode === null) proc.kill('SIGTERM')
    for (let r = await reader.read(); !r.done; r = await reader.read()) stderr += decoder.decode(r.value, { stream: true })
  } finally {
    if (proc.exitCode === null) proc.kill('SIGTERM')
  }
  return { code: await proc.exited, stdout: await stdout, stderr }
}

describe('growth worker logs like the server', () => {
  test('LOG_FORMAT=json: one JSON line per entry on stdout (time, level, msg, fields)', async () => {
    const r = await runWorker({ LOG_FORMAT: 'json', LOG_LEVEL: 'info' })
    expect(r.code, r.stderr).toBe(0)
    const lines = r.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>)
    expect(lines.map((l) => l.msg)).toEqual(['webhook delivery workers started', 'shutting down: finishing the deliveries out'])
    expect(lines[0]).toMatchObject({ level: 'info', workers: 1 })
    expect(lines[1]).toMatchObject({ level: 'info', signal: 'SIGTERM' })
    for (const l of lines) expect(new Date(l.time as string).toISOString()).toBe(l.time as string)
  }, 90_000)

  test('LOG_FORMAT=pretty: readable lines, no JSON', async () => {
    const r = await runWorker({ LOG_FORMAT: 'pretty', LOG_LEVEL: 'info' })
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: webhook delivery workers started \{"workers":1\}$/m)
    expect(r.stdout).not.toMatch(/^\{/m)
  }, 90_000)

  test('LOG_LEVEL=warn: the info lines are not written', async () => {
    const r = await runWorker({ LOG_FORMAT: 'json', LOG_LEVEL: 'warn' })
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toBe('')
  }, 90_000)

  test('a bad LOG_FORMAT or LOG_LEVEL stops it with exit 1 naming the variable', async () => {
    for (const [name, value] of [['LOG_FORMAT', 'xml'], ['LOG_LEVEL', 'loud']] as const) {
      const r = await runWorker({ [name]: value })
      expect(r.code).toBe(1)
      expect(r.stdout).toBe('')
      expect(r.stderr).toContain(`${name} must be one of`)
    }
  }, 90_000)
})

describe('what growth worker says of its settings', () => {
  test('the traces line shows an OTLP endpoint’s password as ***, as the server’s banner does', async () => {
    // Port 1: nothing answers, so the one warning of a failed export names the endpoint too.
    const r = await runWorker({ LOG_FORMAT: 'json', LOG_LEVEL: 'info', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:s3cret-otlp@127.0.0.1:1' })
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toContain('traces: http://collector:***@127.0.0.1:1/v1/traces (OTLP http/protobuf), as growth-api')
    expect(r.stdout + r.stderr).not.toContain('s3cret-otlp')
  }, 90_000)
})

test('growth worker --help names the settings it reads besides WEBHOOK_*: the database, the secrets key, metrics, traces, logs', async () => {
  const proc = Bun.spawn([process.execPath, 'cli/bin/growth.ts', 'worker', '--help'], { cwd: ROOT, env: process.env, stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' })
  const [stdout, code] = await Promise.all([new Response(proc.stdout as ReadableStream).text(), proc.exited])
  expect(code).toBe(0)
  for (const name of ['WEBHOOK_', 'DATABASE_URL', 'DATA_DIR', 'GROWTH_SECRETS_KEY', 'METRICS_PORT', 'OTEL_EXPORTER_OTLP_ENDPOINT', 'LOG_LEVEL', 'LOG_FORMAT', 'docs/webhooks.md']) expect(stdout).toContain(name)
}, 30_000)
