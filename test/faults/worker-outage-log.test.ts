// `growth worker` while its database is away: each poll's claim fails (five a second), and the log
// must say so once and again when claims work, not a warn with a stack per poll (an outage of ten
// minutes was some 3,000 lines per worker). A real worker process on a PostgreSQL instance of the
// file's own, stopped for a few seconds and started again.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { ROOT } from '../support/server-process.ts'
import { type PrivatePostgres, privatePostgresUnavailable, startPrivatePostgres } from '../support/private-postgres.ts'

const reason = privatePostgresUnavailable()
if (reason) console.warn(`test/faults/worker-outage-log.test.ts skipped: ${reason}`)

let pg: PrivatePostgres
beforeAll(async () => {
  if (!reason) pg = await startPrivatePostgres()
}, 60_000)
afterAll(async () => {
  await pg?.destroy()
})

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe.skipIf(!!reason)('growth worker while the database is away', () => {
  test('one warn when claims start failing and one info when they work again, not one per poll', async () => {
    const proc = Bun.spawn([process.execPath, 'cli/bin/growth.ts', 'worker'], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: pg.url, WEBHOOK_WORKERS: '1', LOG_FORMAT: 'json', LOG_LEVEL: 'info', GROWTH_SECRETS_KEY: 'a'.repeat(64) },
      stdin: 'ignore', stdout: 'pipe', stderr: 'pipe',
    })
    const stdout = new Response(proc.stdout as ReadableStream).text()
    const stderr = new Response(proc.stderr as ReadableStream).text()
    try {
      await sleep(4000)
      await pg.stop()
      await sleep(4000)
      await pg.start()
      await sleep(3000)
    } finally {
      proc.kill('SIGTERM')
    }
    await proc.exited
    const lines = (await stdout).trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>)
    const failed = lines.filter((l) => typeof l.msg === 'string' && /webhook claim/.test(l.msg as string))
    expect(failed.length, `${await stderr}\n${failed.map((l) => l.msg).join('\n')}`).toBeLessThanOrEqual(3)
    expect(failed[0]).toMatchObject({ level: 'warn', msg: 'webhook claim failed', worker: 0 })
    expect(failed.at(-1)).toMatchObject({ level: 'info', msg: 'webhook claims work again', worker: 0 })
    expect(failed.at(-1)?.failures as number).toBeGreaterThan(5)
  }, 60_000)
})
