import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import postgres from 'postgres'
import { loadConfig } from '../../server/src/config.ts'
import { createLogger } from '../../server/src/core/log.ts'
import { startServer, type RunningServer } from '../../server/src/server.ts'
import { getHarness, makeWorkspace } from '../harness.ts'

/**
 * A request's statements are bounded (STATEMENT_TIMEOUT_MS, REQUEST_TIMEOUT_MS) and cancelled when
 * its client goes away, so abandoned requests cannot hold the pool. A request is made slow the way
 * a real one can be: another session holds a lock its statement must wait for. On the PostgreSQL
 * server only: the embedded PGlite runs a statement to its end in-process and takes no cancel
 * request (docs/operations.md).
 */
const url = process.env.DATABASE_URL
if (!url) console.warn('statement-timeout.test.ts: skipped, it needs DATABASE_URL (a PostgreSQL server): PGlite cannot cut a running statement short')

describe.skipIf(!url)('statement time-out and cancellation (PostgreSQL server)', () => {
  const admin = url ? postgres(url, { max: 2, onnotice: () => {} }) : undefined
  const servers: RunningServer[] = []
  const dirs: string[] = []
  afterAll(async () => {
    for (const s of servers) await s.stop()
    await admin?.end({ timeout: 5 })
    for (const d of dirs) rmSync(d, { recursive: true, force: true })
  })

  /** The statements of the service that wait for a lock on missions right now. */
  const waiting = async () =>
    (
      await admin!<{ n: number }[]>`
        SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE datname = current_database() AND application_name LIKE 'growth-service%'
          AND state = 'active' AND wait_event_type = 'Lock' AND query ILIKE '%missions%'`
    )[0]!.n

  /** Runs `fn` while another session holds missions locked (reads of it wait), then lets go. */
  async function whileLocked<T>(fn: () => Promise<T>): Promise<T> {
    const reserved = await admin!.reserve()
    try {
      await reserved`BEGIN`
      await reserved`LOCK TABLE missions IN ACCESS EXCLUSIVE MODE`
      return await fn()
    } finally {
      await reserved`ROLLBACK`.catch(() => {})
      reserved.release()
    }
  }

  test('a request whose client goes away has its statement cancelled: the connection is free within a second', async () => {
    const { url: base } = await getHarness()
    const ws = await makeWorkspace()
    await whileLocked(async () => {
      const client = new AbortController()
      const pending = fetch(`${base}/api/v1/missions`, { headers: { Authorization: `Bearer ${ws.live}` }, signal: client.signal }).catch((e) => e)
      // The request's statement is waiting for the lock.
      for (let i = 0; i < 100 && (await waiting()) === 0; i++) await Bun.sleep(50)
      expect(await waiting()).toBe(1)
      client.abort()
      await pending
      const cut = Date.now()
      while ((await waiting()) > 0 && Date.now() - cut < 3_000) await Bun.sleep(20)
      expect(await waiting()).toBe(0)
      expect(Date.now() - cut).toBeLessThan(1_000)
    })
    // And the server goes on answering.
    const after = await fetch(`${base}/api/v1/missions`, { headers: { Authorization: `Bearer ${ws.live}` } })
    expect(after.status).toBe(200)
  })

  /** A server of its own, on the shared database, with these time-out settings. */
  async function serverWith(timeouts: { STATEMENT_TIMEOUT_MS: string; REQUEST_TIMEOUT_MS: string }) {
    const dataDir = mkdtempSync(join(tmpdir(), 'growth-timeout-'))
    dirs.push(dataDir)
    const config = loadConfig({ ...process.env, DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', WEBHOOK_WORKERS: '0', ...timeouts })
    const server = await startServer(config, { log: createLogger('silent') })
    servers.push(server)
    return server
  }

  test('a statement past STATEMENT_TIMEOUT_MS answers 500 internal in the envelope, promptly', async () => {
    const server = await serverWith({ STATEMENT_TIMEOUT_MS: '1000', REQUEST_TIMEOUT_MS: '20000' })
    const ws = await makeWorkspace()
    await whileLocked(async () => {
      const started = Date.now()
      const r = await fetch(`${server.url}/api/v1/missions`, { headers: { Authorization: `Bearer ${ws.live}` } })
      const took = Date.now() - started
      const body = (await r.json()) as { error: { code: string; requestId: string } }
      expect(r.status).toBe(500)
      expect(body.error.code).toBe('internal')
      expect(body.error.requestId).toBe(r.headers.get('x-request-id')!)
      expect(took).toBeGreaterThanOrEqual(900)
      expect(took).toBeLessThan(5_000)
      expect(await waiting()).toBe(0)
    })
  })

  test('a request past REQUEST_TIMEOUT_MS answers 500 internal in the envelope, and its statement is cancelled', async () => {
    const server = await serverWith({ STATEMENT_TIMEOUT_MS: '0', REQUEST_TIMEOUT_MS: '1000' })
    const ws = await makeWorkspace()
    await whileLocked(async () => {
      const started = Date.now()
      const r = await fetch(`${server.url}/api/v1/missions`, { headers: { Authorization: `Bearer ${ws.live}` } })
      const took = Date.now() - started
      expect(r.status).toBe(500)
      expect(((await r.json()) as { error: { code: string } }).error.code).toBe('internal')
      expect(took).toBeGreaterThanOrEqual(900)
      expect(took).toBeLessThan(5_000)
      const cut = Date.now()
      while ((await waiting()) > 0 && Date.now() - cut < 3_000) await Bun.sleep(20)
      expect(await waiting()).toBe(0)
    })
  })
})
