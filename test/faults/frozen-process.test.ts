import { afterAll, describe, expect, test } from 'bun:test'
import { getHarness } from '../harness.ts'
import { needsPostgres, send, type ServerProcess, startServerProcess } from './cluster.ts'
import { prepareWrite } from './writes.ts'

/**
 * A server process frozen inside a write transaction (SIGSTOP here; a process swapped out or a
 * paused machine alike) holds what the transaction took: the write's Idempotency-Key (an advisory
 * lock) and its rows. PostgreSQL ends a transaction left waiting for its next statement longer than
 * STATEMENT_TIMEOUT_MS (the pools' idle_in_transaction_session_timeout), so another process
 * retrying the same write does it, once, instead of answering 409 for as long as the frozen one
 * stays frozen; the frozen one, resumed, finds its connection gone and answers 500, its write not
 * done. (docs/operations.md, Time bounds; docs/fault-suite.md)
 */
const STATEMENT_TIMEOUT_MS = 5_000
const env = { STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS), REQUEST_TIMEOUT_MS: '60000' }

if (needsPostgres) console.warn(`skipped test/faults/frozen-process.test.ts: ${needsPostgres}`)

async function until<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await Bun.sleep(50)) {
    const found = await probe()
    if (found !== undefined) return found
  }
  throw new Error(`not within ${timeoutMs} ms: ${what}`)
}

describe.skipIf(Boolean(needsPostgres))('a server process frozen inside a write transaction', () => {
  const started: ServerProcess[] = []
  afterAll(async () => {
    for (const s of started) {
      s.signal('SIGCONT')
      await s.kill()
    }
  })

  test('PostgreSQL ends its transaction once it has waited as long as a statement may run: another process retrying the same key does the write, once; the frozen one, resumed, answers 500 and did nothing', async () => {
    const { sql } = await getHarness()
    const frozen = await startServerProcess(env)
    started.push(frozen)
    const other = await startServerProcess(env)
    started.push(other)
    const w = await prepareWrite('importContacts', frozen.base)
    const contact = (w.body as { contacts: { email: string }[] }).contacts[0]!
    // The contact is there already, under another name: the write updates it, and waits for its row.
    const made = await send(other.base, 'POST', w.path, { token: w.token, body: { contacts: [{ ...contact, name: 'Before the freeze' }] } })
    expect(made.status).toBe(201)
    const before = await w.effect()
    const key = `frozen-${crypto.randomUUID()}`
    const write = (base: string) => send(base, 'POST', w.path, { token: w.token, body: w.body, headers: { 'Idempotency-Key': key } })

    // The test's own transaction holds the contact's row, so the write stops inside its transaction
    // after taking its key, its statement waiting for the row: the moment to freeze the process.
    let release!: () => void
    const released = new Promise<void>((res) => (release = res))
    let locked!: () => void
    const rowLocked = new Promise<void>((res) => (locked = res))
    const holder = sql.begin(async (tx) => {
      const [row] = await tx`SELECT id FROM contacts WHERE workspace_id = ${w.workspaceId} AND email = ${contact.email} FOR UPDATE`
      expect(row).toBeDefined()
      locked()
      await released
    })
    await rowLocked
    let frozenAnswer: ReturnType<typeof write> | undefined
    try {
      frozenAnswer = write(frozen.base)
      // Awaited below; should the test fail first, the killed process's reset must not be an unhandled rejection.
      frozenAnswer.catch(() => {})
      const pid = await until('the frozen process’s write waits for the row', 10_000, async () => {
        const [row] = await sql<{ pid: number }[]>`
          SELECT pid FROM pg_stat_activity
          WHERE datname = current_database() AND wait_event_type = 'Lock' AND query ILIKE '%INSERT INTO contacts%'`
        return row?.pid
      })
      frozen.signal('SIGSTOP')
      release()
      await holder
      // Its statement done, the stopped process cannot send the next: its connection waits inside the transaction.
      await until('the frozen process’s connection is idle in transaction', 5_000, async () => {
        const [row] = await sql<{ state: string }[]>`SELECT state FROM pg_stat_activity WHERE pid = ${pid}`
        return row?.state === 'idle in transaction' ? true : undefined
      })
      const frozenAt = Date.now()

      // Meanwhile the key is taken: the same write through the other process is told so (asked
      // well inside the time-out; a machine too slow for that leaves this one look out).
      const first = await write(other.base)
      if (Date.now() - frozenAt < STATEMENT_TIMEOUT_MS / 2) expect(first.status).toBe(409)

      // Once PostgreSQL has ended the frozen transaction, the key is free and the write is done there.
      const done = await until('the other process does the write', STATEMENT_TIMEOUT_MS * 4, async () => {
        const r = await write(other.base)
        if (r.status !== 409) return r
        await Bun.sleep(200)
        return undefined
      })
      const waited = Date.now() - frozenAt
      console.log(`a frozen process's transaction: ended after ${waited} ms frozen (STATEMENT_TIMEOUT_MS ${STATEMENT_TIMEOUT_MS}); the retry elsewhere answered ${done.status}`)
      expect(done.status).toBe(201)
      expect(done.headers.get('idempotent-replayed')).toBeNull()
      const [gone] = await sql`SELECT 1 FROM pg_stat_activity WHERE pid = ${pid}`
      expect(gone).toBeUndefined()
    } finally {
      release()
      frozen.signal('SIGCONT')
    }

    // Resumed, the frozen process finds its transaction gone: 500, and nothing of its own committed.
    const late = await frozenAnswer!
    expect(late.status).toBe(500)
    expect(late.body?.error?.code).toBe('internal')
    expect(await w.effect()).toEqual({ ...before, 'event contact.updated': before['event contact.updated']! + 1 })
    // The key's answer is the other process's, replayed by either; and the resumed process serves again.
    for (const base of [other.base, frozen.base]) {
      const replay = await write(base)
      expect(replay.status).toBe(201)
      expect(replay.headers.get('idempotent-replayed')).toBe('true')
    }
  }, 60_000)
})
