import { afterAll, describe, expect, test } from 'bun:test'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openDatabase } from '../../server/src/store/driver/db.ts'
import { migrate } from '../../server/src/store/driver/migrate.ts'
import { growthIn } from '../cli/run.ts'
import { startMuteListener } from '../support/mute-listener.ts'
import { scratchDatabase } from '../support/scratch-database.ts'
import { runToExit, startServerProcess } from '../support/server-process.ts'

/**
 * A server that cannot start says why in one line on stderr, with how to fix it, and exits
 * non-zero: no stack trace. A second server on a port already served refuses to start, naming the
 * port, and the first keeps answering.
 */
const dirs: string[] = []
const dataDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'growth-startup-'))
  dirs.push(dir)
  return dir
}
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

/** Exactly one line on stderr, naming `what`, and no stack trace. */
function expectOneLine(run: { code: number | null; stderr: string }, ...what: string[]) {
  expect(run.code).not.toBe(0)
  expect(run.code).not.toBeNull()
  const lines = run.stderr.trim().split('\n')
  expect(lines).toHaveLength(1)
  expect(lines[0]).toStartWith('error: ')
  for (const w of what) expect(lines[0]).toContain(w)
  expect(run.stderr).not.toMatch(/^\s+at /m)
}

describe('a server that cannot start says why in one line', () => {
  for (const port of ['abc', '99999', '-1', '0x10']) {
    test(`PORT=${port}`, async () => {
      expectOneLine(await runToExit({ PORT: port, DATA_DIR: dataDir() }), 'PORT', JSON.stringify(port), 'whole number from 0 to 65535')
    }, 70_000)
  }

  // A value out of a list is quoted back, as PORT's is: 'verbose' read beside the list shows the slip.
  for (const [name, value, says] of [
    ['LOG_LEVEL', 'verbose', 'must be one of debug, info, warn, error, silent'],
    ['LOG_FORMAT', 'text', 'must be one of json, pretty'],
    ['REQUEST_LOG', 'yes', 'must be on or off'],
    ['OTEL_TRACES_SAMPLER', 'ratio', 'must be one of always_on'],
    ['OTEL_TRACES_SAMPLER_ARG', '10%', 'must be a ratio from 0 to 1, such as 0.1'],
  ] as const) {
    test(`${name}=${value} is quoted back`, async () => {
      const run = await runToExit({ [name]: value, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', DATA_DIR: dataDir() })
      expectOneLine(run, `Invalid configuration: ${name} ${says}`, `(got ${JSON.stringify(value)}).`)
    }, 70_000)
  }

  test('a HOST that does not resolve is named as HOST, not as the database', async () => {
    // The name is looked up before anything listens, so the port is never taken.
    const run = await runToExit({ HOST: 'no-such-host.invalid', PORT: '4250', DATA_DIR: dataDir() })
    expectOneLine(run, 'HOST no-such-host.invalid does not resolve', 'Set HOST')
    expect(run.stderr).not.toContain('database')
  }, 70_000)

  test('a METRICS_HOST that does not resolve is named as METRICS_HOST, by the server and by growth worker', async () => {
    const settings = { METRICS_HOST: 'no-such-metrics-host.invalid', METRICS_PORT: '0' }
    expectOneLine(await runToExit({ ...settings, DATA_DIR: dataDir() }), 'METRICS_HOST no-such-metrics-host.invalid does not resolve', 'Set METRICS_HOST')
    const worker = await growthIn(dataDir())(['worker'], settings)
    expect(worker.stdout).toBe('')
    expectOneLine({ code: worker.code, stderr: worker.stderr.split('\n').filter((l) => !/^(Created|Applied) /.test(l)).join('\n') }, 'METRICS_HOST no-such-metrics-host.invalid does not resolve', 'Set METRICS_HOST')
  }, 70_000)

  test('an unreachable DATABASE_URL, with its password hidden', async () => {
    const started = Date.now()
    const run = await runToExit({ DATABASE_URL: 'postgres://postgres:s3cret@127.0.0.1:1/x', DATA_DIR: dataDir() })
    expectOneLine(run, 'DATABASE_URL', '127.0.0.1:1', 'connection refused', 'Check DATABASE_URL')
    expect(run.stderr).not.toContain('s3cret')
    expect(Date.now() - started).toBeLessThan(20_000)
  }, 70_000)

  test('a DATABASE_URL of another scheme (mysql://) is refused as a setting, not used as PostgreSQL', async () => {
    // postgres.js reads any scheme as PostgreSQL: without the check this one would be dialled.
    const run = await runToExit({ DATABASE_URL: 'mysql://root:s3cret@127.0.0.1:1/x', DATA_DIR: dataDir() })
    expectOneLine(run, 'Invalid configuration: DATABASE_URL', 'postgres:// or postgresql://')
    expect(run.stderr).not.toContain('s3cret')
  }, 70_000)

  test('a DATABASE_URL whose port closes every connection without a word (a proxy with nothing behind it)', async () => {
    // Before the driver's patch, postgres.js opened the connection again at once, for ever, and the
    // server never started nor said why (docs/decisions.md, "A dependency's bug is patched in place").
    const mute = await startMuteListener()
    try {
      const { port } = mute
      const started = Date.now()
      const run = await runToExit({ DATABASE_URL: `postgres://postgres:s3cret@127.0.0.1:${port}/x`, DATA_DIR: dataDir() })
      expectOneLine(run, 'DATABASE_URL', `127.0.0.1:${port}`, 'closed the connection without answering', 'Check DATABASE_URL')
      expect(run.stderr).not.toContain('s3cret')
      expect(Date.now() - started).toBeLessThan(20_000)
      expect(mute.accepted()).toBeLessThan(10)
    } finally {
      mute.close()
    }
  }, 70_000)

  test('a second server on the same port refuses to start, naming the port; the first still answers', async () => {
    const first = await startServerProcess({ DATA_DIR: dataDir() })
    try {
      const port = new URL(first.base).port
      const secondDir = dataDir()
      const second = await runToExit({ PORT: port, DATA_DIR: secondDir })
      expectOneLine(second, `Port ${port}`, 'already in use', 'set PORT')
      // Refused before its database was opened: nothing was made in its DATA_DIR.
      expect(existsSync(join(secondDir, 'pgdata'))).toBe(false)
      for (let i = 0; i < 20; i++) {
        const r = await fetch(`${first.base}/missions`)
        expect(r.status).toBe(401)
      }
      expect(first.proc.exitCode).toBeNull()
    } finally {
      first.proc.kill('SIGTERM')
      await first.proc.exited
    }
  }, 180_000)

  test('a database migrated by a newer version: the server, the worker and admin migrate refuse it, naming the migration', async () => {
    const scratch = await scratchDatabase(process.env.DATABASE_URL, 'growth_newer_schema')
    try {
      const dir = scratch.dataDir ?? dataDir()
      const db = await openDatabase({ databaseUrl: scratch.databaseUrl, dataDir: dir, poolMax: 1 })
      await migrate(db.sql)
      await db.sql`INSERT INTO schema_migrations (name) VALUES ('9999_from_the_future.sql')`
      await db.close()
      // No key given: the key file each would make is not made by a refused start or command.
      const keyFile = join(dataDir(), 'secrets.key')
      const noKey = { GROWTH_SECRETS_KEY: '', GROWTH_SECRETS_KEY_FILE: keyFile }
      const env = { DATABASE_URL: scratch.databaseUrl, DATA_DIR: dir, ...noKey }
      expectOneLine(await runToExit(env), 'migrated by a newer version', '9999_from_the_future.sql', 'Run that newer version')
      const growth = growthIn(dir)
      for (const args of [['admin', 'migrate'], ['worker']]) {
        const run = await growth(args, scratch.databaseUrl ? { DATABASE_URL: scratch.databaseUrl, ...noKey } : noKey)
        expect(run.code).toBe(1)
        expectOneLine(run, 'migrated by a newer version', '9999_from_the_future.sql')
      }
      expect(existsSync(keyFile)).toBe(false)
    } finally {
      await scratch.drop()
    }
  }, 120_000)
})
