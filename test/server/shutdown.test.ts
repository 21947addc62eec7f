import { afterAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import postgres from 'postgres'
import { makeWorkspace, getHarness } from '../harness.ts'
import { startBanner } from '../support/server-process.ts'

/**
 * How `npm start` (server/src/main.ts) stops, as an operator sees it: the first SIGTERM or Ctrl-C
 * lets the requests in flight finish and answer, then exits 0; a second one while it drains stops
 * at once (128 + the signal's number). A request is kept in flight the way a real one can be:
 * another session holds a lock its statement waits for. On the PostgreSQL server only (the
 * embedded database serves one session at a time, so a held lock would stop every session).
 */
const url = process.env.DATABASE_URL
if (!url) console.warn('shutdown.test.ts: skipped, it needs DATABASE_URL (a PostgreSQL server) to hold a request in flight with a lock')
const ROOT = join(import.meta.dir, '../..')

describe.skipIf(!url)('stopping the server (PostgreSQL server)', () => {
  const admin = url ? postgres(url, { max: 2, onnotice: () => {} }) : undefined
  afterAll(() => admin?.end({ timeout: 5 }))

  async function start() {
    // The shared harness has migrated the database; this server only serves it.
    await getHarness()
    const proc = Bun.spawn([process.execPath, 'server/src/main.ts'], {
      cwd: ROOT,
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', WEBHOOK_WORKERS: '0' },
      stdout: 'pipe',
      stderr: 'pipe',
    })
    const reader = proc.stdout.getReader()
    let out = ''
    const deadline = Date.now() + 25_000
    while (!startBanner(out)) {
      if (Date.now() > deadline) throw new Error(`no banner: ${out}`)
      const { value, done } = await reader.read()
      if (done) throw new Error(`exited early: ${out} ${await new Response(proc.stderr).text()}`)
      out += new TextDecoder().decode(value)
    }
    // The rest of stdout (the server's log, CONTRACT: Observability), whole once the process ends.
    const logged = (async () => {
      for (let r = await reader.read(); !r.done; r = await reader.read()) out += new TextDecoder().decode(r.value)
      return out
    })()
    return { proc, base: startBanner(out)!.api, logged }
  }

  /** Holds missions locked until `release` is called, so that a read of them waits. */
  async function lockMissions() {
    const reserved = await admin!.reserve()
    await reserved`BEGIN`
    await reserved`LOCK TABLE missions IN ACCESS EXCLUSIVE MODE`
    return async () => {
      await reserved`ROLLBACK`.catch(() => {})
      reserved.release()
    }
  }

  /** Until a statement of the service waits for the lock on missions. */
  async function untilWaiting() {
    for (let i = 0; i < 200; i++) {
      const [row] = await admin!<{ n: number }[]>`
        SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE datname = current_database() AND state = 'active' AND wait_event_type = 'Lock' AND query ILIKE '%missions%'`
      if (row!.n > 0) return
      await Bun.sleep(25)
    }
    throw new Error('the request never waited for the lock')
  }

  test('SIGTERM lets the request in flight finish and answer, then exits 0', async () => {
    const ws = await makeWorkspace()
    const { proc, base, logged } = await start()
    const release = await lockMissions()
    let released = false
    try {
      const pending = fetch(`${base}/missions`, { headers: { Authorization: `Bearer ${ws.live}` } })
      await untilWaiting()
      proc.kill('SIGTERM')
      // Still draining: it waits for the request, which waits for the lock.
      const early = await Promise.race([proc.exited.then(() => 'exited'), Bun.sleep(500).then(() => 'running')])
      expect(early).toBe('running')
      await release()
      released = true
      const answer = await pending
      expect(answer.status).toBe(200)
      expect(await proc.exited).toBe(0)
      expect(await logged).toContain('send the signal again to stop at once')
    } finally {
      if (!released) await release()
      proc.kill('SIGKILL')
    }
  })

  test('a second signal while it drains stops it at once (130 after two Ctrl-C)', async () => {
    const ws = await makeWorkspace()
    const { proc, base, logged } = await start()
    const release = await lockMissions()
    try {
      const pending = fetch(`${base}/missions`, { headers: { Authorization: `Bearer ${ws.live}` } }).catch((e: unknown) => e)
      await untilWaiting()
      proc.kill('SIGINT')
      await Bun.sleep(200)
      const sent = performance.now()
      proc.kill('SIGINT')
      const code = await Promise.race([proc.exited, Bun.sleep(5_000).then(() => 'still running')])
      expect(code).toBe(130)
      expect(performance.now() - sent).toBeLessThan(2_000)
      // The lock was never let go: the request did not finish, it was cut off with the process.
      expect(await pending).toBeInstanceOf(Error)
      expect(await logged).toContain('second signal: stopping now')
    } finally {
      await release()
      proc.kill('SIGKILL')
    }
  })
})
