import { afterAll, expect, test } from 'bun:test'
import { createToken } from '../../server/src/domain/credentials.ts'
import { createWorkspace } from '../../server/src/domain/workspaces.ts'
import { openDatabase, type Database } from '../../server/src/store/driver/db.ts'
import { migrate } from '../../server/src/store/driver/migrate.ts'
import { type PrivatePostgres, privatePostgresUnavailable, startPrivatePostgres } from '../support/private-postgres.ts'
import { type ServerProcess, startServerProcess } from '../support/server-process.ts'

/**
 * The database goes away under load and comes back, 5 times in a row, 10 s each (on a PostgreSQL
 * instance of the test's own, so stopping it touches nothing else). The server process never exits;
 * while it cannot reach the database it answers 500 internal in the envelope, never later than
 * REQUEST_TIMEOUT_MS; it recovers by itself within a second of the database's return; and every
 * write it acknowledged (201) is in the database at the end. Runs on the PostgreSQL leg of CI.
 */
const reason = !process.env.DATABASE_URL ? 'DATABASE_URL is not set (the fault suite runs on the PostgreSQL leg)' : privatePostgresUnavailable()
if (reason) console.warn(`test/faults/outage.test.ts skipped: ${reason}`)

const CYCLES = Number(process.env.OUTAGE_CYCLES ?? 5)
const DOWN_MS = 10_000
const UP_MS = 1_500
const REQUEST_TIMEOUT_MS = 3_000
/** What the bound allows on top of the configured time: the answer's own way back, on a busy machine. */
const SLACK_MS = 1_000

type Outcome = { at: number; ms: number; kind: 'read' | 'write'; status: number; code?: string; email?: string; failure?: string }

let pg: PrivatePostgres | undefined
let db: Database | undefined
let server: ServerProcess | undefined
afterAll(async () => {
  server?.proc.kill('SIGKILL')
  await db?.close().catch(() => {})
  await pg?.destroy()
})

test.skipIf(Boolean(reason))(
  `the database stopped for ${DOWN_MS / 1000} s under load, ${CYCLES} times: the server never exits, answers 500 internal within the bound, recovers within a second, loses no acknowledged write`,
  async () => {
    pg = await startPrivatePostgres()
    db = await openDatabase({ databaseUrl: pg.url, dataDir: '', poolMax: 2 })
    await migrate(db.sql)
    const ws = await createWorkspace(db.sql, { name: 'Outage', plan: 'scale' })
    // Several tokens, so the load stays within each one's hourly rate limit.
    const tokens = await Promise.all(Array.from({ length: 20 }, () => createToken(db!.sql, { workspaceId: ws.id, scopes: 'all' }).then((t) => t.token)))
    server = await startServerProcess({
      DATABASE_URL: pg.url,
      REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
      DB_CONNECT_TIMEOUT_MS: '1000',
      STATEMENT_TIMEOUT_MS: '2000',
      LOG_LEVEL: process.env.OUTAGE_LOG ?? 'silent',
    })
    const base = server.base

    const outcomes: Outcome[] = []
    let running = true
    let n = 0
    async function once(kind: 'read' | 'write', token: string) {
      const at = Date.now()
      const email = kind === 'write' ? `outage-${++n}-${at}@example.com` : undefined
      const init: RequestInit =
        kind === 'write'
          ? {
              method: 'POST',
              headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', 'Idempotency-Key': `outage-${email}` },
              body: JSON.stringify({ contacts: [{ email }] }),
            }
          : { headers: { Authorization: `Bearer ${token}` } }
      try {
        const r = await fetch(`${base}${kind === 'write' ? '/contacts' : '/missions'}`, { ...init, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS * 4) })
        const text = await r.text()
        let code: string | undefined
        try {
          code = JSON.parse(text).error?.code
        } catch {
          code = `not JSON: ${text.slice(0, 80)}`
        }
        outcomes.push({ at, ms: Date.now() - at, kind, status: r.status, code, email })
      } catch (err) {
        outcomes.push({ at, ms: Date.now() - at, kind, status: 0, failure: String(err), email })
      }
    }
    const load = Array.from({ length: 3 }, async (_, w) => {
      for (let i = 0; running; i++) {
        await once(i % 2 === 0 ? 'read' : 'write', tokens[(w * 7 + i) % tokens.length]!)
        await Bun.sleep(40)
      }
    })

    const recoveries: number[] = []
    const slowRecoveries: string[] = []
    const exits: string[] = []
    for (let cycle = 0; cycle < CYCLES; cycle++) {
      await Bun.sleep(UP_MS)
      await pg.stop()
      await Bun.sleep(DOWN_MS)
      await pg.start()
      // Back: the database answers a query of the test's own (pg_ctl can return while the server
      // still says it is starting up).
      for (let i = 0; i < 200; i++) {
        if (await db.sql`SELECT 1`.then(() => true, () => false)) break
        await Bun.sleep(10)
      }
      const back = Date.now()
      // Recovered: a read through the whole pipeline (credential, rate limit, query) answers 200.
      const probes: string[] = []
      for (;;) {
        const sent = Date.now()
        const r = await fetch(`${base}/missions`, { headers: { Authorization: `Bearer ${tokens[cycle]}` } }).catch(() => undefined)
        probes.push(`+${sent - back}ms ${r?.status ?? 'no answer'} in ${Date.now() - sent}ms`)
        if (r?.status === 200) break
        if (Date.now() - back > 10_000) break
        await Bun.sleep(20)
      }
      // Recovered when the server first answers a request sent after the database's return with a
      // success: this probe's, or one of the load's (whichever comes first).
      const firstLoad = outcomes.filter((o) => o.at >= back && o.status >= 200 && o.status < 300).map((o) => o.at + o.ms)
      const recovered = Math.min(Date.now(), ...firstLoad) - back
      recoveries.push(recovered)
      if (recovered > 1_000) {
        // What the server logged meanwhile (with OUTAGE_LOG=info; its log is on stdout), to tell why.
        const logged = `${server.stdout()}\n${server.stderr()}`.split('\n').filter((l) => {
          const t = Date.parse(/"time":"([^"]+)"/.exec(l)?.[1] ?? '')
          return t >= back - 200 && t <= back + 2_000
        })
        slowRecoveries.push(`cycle ${cycle}: ${recovered} ms; probes ${probes.join(', ')}\n${logged.slice(0, 12).map((l) => l.slice(0, 400)).join('\n')}`)
      }
      if (server.proc.exitCode !== null) exits.push(`cycle ${cycle}: exited ${server.proc.exitCode}: ${server.stderr()}`)
    }
    running = false
    await Promise.all(load)

    const tally = new Map<string, number>()
    for (const o of outcomes) {
      const k = `${o.kind} ${o.status} ${o.code ?? o.failure ?? ''}`
      tally.set(k, (tally.get(k) ?? 0) + 1)
    }
    console.log(`outage answers: ${[...tally].map(([k, v]) => `${k}: ${v}`).join('; ')}`)
    if (slowRecoveries.length) console.log(`slow recoveries:\n${slowRecoveries.join('\n')}`)
    expect(exits).toEqual([])
    expect(server.proc.exitCode).toBeNull()
    // Every answer was a success, or 500 internal in the envelope; none came late, none failed to come.
    const wrong = outcomes.filter((o) => !(o.status === 200 || o.status === 201 || (o.status === 500 && o.code === 'internal')))
    expect(wrong.slice(0, 5)).toEqual([])
    const late = outcomes.filter((o) => o.ms > REQUEST_TIMEOUT_MS + SLACK_MS)
    expect(late.slice(0, 5)).toEqual([])
    // The test did test something: the database was missed, and writes were acknowledged.
    const failed = outcomes.filter((o) => o.status === 500).length
    const written = outcomes.filter((o) => o.status === 201)
    expect(failed).toBeGreaterThan(CYCLES * 10)
    expect(written.length).toBeGreaterThan(CYCLES * 5)
    // Back within a second of the database's return, every time.
    expect(slowRecoveries).toEqual([])
    // Every acknowledged write is there.
    const stored = new Set(
      (await db.sql<{ email: string }[]>`SELECT email FROM contacts WHERE workspace_id = ${ws.id}`).map((r) => r.email),
    )
    expect(written.filter((o) => !stored.has(o.email!)).map((o) => o.email)).toEqual([])
    const slowest = Math.max(...outcomes.map((o) => o.ms))
    console.log(
      `outage: ${outcomes.length} requests, ${written.length} writes acknowledged and found, ${failed} answered 500 internal, slowest answer ${slowest} ms, recoveries ${recoveries.join(', ')} ms`,
    )
  },
  150_000,
)
