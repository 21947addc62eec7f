import { afterAll, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ROOT, startServerProcess } from '../support/server-process.ts'

/**
 * A setting that does nothing as the others stand (test/unit/unused-settings.test.ts names them) is
 * a warn in the first lines of the server's log and of `growth worker`'s, and the process starts:
 * an operator who set MAIL_FROM and sees no mail finds why.
 */
const dirs: string[] = []
/**
 * Where a process of this file keeps its data: the PostgreSQL server when DATABASE_URL is set, else
 * a new embedded database. What is read here is read before any database is opened; a new embedded
 * database costs ten seconds a start, the server's one second.
 */
const database = (): Record<string, string | undefined> => {
  if (process.env.DATABASE_URL) return { DATABASE_URL: process.env.DATABASE_URL, DATA_DIR: undefined }
  const dir = mkdtempSync(join(tmpdir(), 'growth-unused-'))
  dirs.push(dir)
  return { DATABASE_URL: undefined, DATA_DIR: dir }
}
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

const warns = (stdout: string) =>
  stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { level: string; msg: string })
    .filter((l) => l.level === 'warn')
    .map((l) => l.msg)

test('the server logs each setting that does nothing, and serves', async () => {
  const server = await startServerProcess({ ...database(), LOG_FORMAT: 'json', LOG_LEVEL: 'warn', MAIL_FROM: 'growth@example.com', METRICS_HOST: '0.0.0.0' })
  try {
    expect(warns(server.stdout())).toEqual([
      'MAIL_FROM is set but SMTP_URL is not: the console sends no mail (sign-in links come from `growth admin person link`).',
      'METRICS_HOST is set but METRICS_PORT is not: no metrics listener is started.',
    ])
    expect((await fetch(server.base)).status).toBe(200)
  } finally {
    server.proc.kill('SIGTERM')
    await server.proc.exited
  }
}, 90_000)

test('a variable meant for the server that is none of its settings is named, with the one meant when close, and it serves', async () => {
  // As an operator types them: a letter off, a word of another tool, another product's name for the database.
  const server = await startServerProcess({ ...database(), LOG_FORMAT: 'json', LOG_LEVEL: 'warn', METRIC_PORT: '9464', DATABASE_URI: 'postgres://db/growth', WEBHOOK_WORKER: '4', DB_HOST: 'db.internal', OTEL_EXPORTER_OTLP_TIMEOUT: '5000' })
  try {
    expect(warns(server.stdout()).sort()).toEqual([
      'DATABASE_URI is not a setting of this server (did you mean DATABASE_URL?): it does nothing.',
      'DB_HOST is not a setting of this server: it does nothing (every setting: README.md, "Configuration").',
      'METRIC_PORT is not a setting of this server (did you mean METRICS_PORT?): it does nothing.',
      'WEBHOOK_WORKER is not a setting of this server (did you mean WEBHOOK_WORKERS?): it does nothing.',
    ])
    expect((await fetch(server.base)).status).toBe(200)
  } finally {
    server.proc.kill('SIGTERM')
    await server.proc.exited
  }
}, 90_000)

test('growth worker logs the observability settings that do nothing, and runs', async () => {
  const proc = Bun.spawn([process.execPath, 'cli/bin/growth.ts', 'worker'], {
    cwd: ROOT,
    env: { ...process.env, ...database(), LOG_FORMAT: 'json', LOG_LEVEL: 'info', OTEL_SERVICE_NAME: 'growth-worker-eu' },
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
  })
  let stdout = ''
  const reader = (proc.stdout as ReadableStream<Uint8Array>).getReader()
  const deadline = Date.now() + 60_000
  while (!stdout.includes('webhook delivery workers started') && Date.now() < deadline) {
    const { value, done } = await reader.read()
    if (done) break
    stdout += new TextDecoder().decode(value)
  }
  proc.kill('SIGTERM')
  expect(await proc.exited, await new Response(proc.stderr as ReadableStream).text()).toBe(0)
  expect(stdout).toContain('webhook delivery workers started')
  expect(warns(stdout)).toEqual(['OTEL_SERVICE_NAME is set but OTEL_EXPORTER_OTLP_ENDPOINT is not: no traces are made or sent.'])
}, 90_000)

test('REQUEST_LOG=off is said in the start banner (JSON and pretty): calls served there are missing from the workspace log', async () => {
  for (const format of ['json', 'pretty']) {
    const server = await startServerProcess({ ...database(), LOG_FORMAT: format, REQUEST_LOG: 'off' })
    try {
      const said = 'off (REQUEST_LOG): the calls this instance serves are not kept in the request log'
      if (format === 'json') {
        const banner = server.stdout().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l)).find((l) => l.api)
        expect(banner.requestLog).toBe(said)
      } else expect(server.stdout()).toContain(`  request log: ${said}`)
    } finally {
      server.proc.kill('SIGTERM')
      await server.proc.exited
    }
  }
  // On (the default), the banner says nothing of it.
  const server = await startServerProcess({ ...database(), LOG_FORMAT: 'json' })
  try {
    expect(server.stdout()).not.toContain('requestLog')
  } finally {
    server.proc.kill('SIGTERM')
    await server.proc.exited
  }
}, 120_000)
