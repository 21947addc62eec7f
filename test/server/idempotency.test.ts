import { describe, expect, test } from 'bun:test'
import postgres from 'postgres'
import { insertAbTest } from '../fixtures.ts'
import { call, expectError, getHarness, makeWorkspace } from '../harness.ts'

const hypothesis = (subjectId: string, extra: Record<string, unknown> = {}) => ({
  hypothesis: 'A subject line naming the roast will win on opens.',
  kind: 'email_ab_test',
  subjectId,
  expectation: 'a_better',
  ...extra,
})

async function experimentCount(workspaceId: string) {
  const { sql } = await getHarness()
  const [row] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM experiments WHERE workspace_id = ${workspaceId}`
  return row!.n
}

describe('Idempotency-Key', () => {
  test('the same key and request returns the first answer, marked replayed, and writes once', async () => {
    const ws = await makeWorkspace()
    const abt = await insertAbTest(ws.id, 'running')
    const headers = { 'Idempotency-Key': 'create-exp-1' }
    const first = await call('POST', '/api/v1/experiments', { token: ws.live, body: hypothesis(abt), headers })
    expect(first.status).toBe(201)
    expect(first.headers.get('idempotent-replayed')).toBeNull()
    // same request, keys in another order and other whitespace: still the same request
    const body = JSON.stringify({ expectation: 'a_better', subjectId: abt, kind: 'email_ab_test', hypothesis: hypothesis(abt).hypothesis }, null, 2)
    const again = await call('POST', '/api/v1/experiments', { token: ws.live, body, headers })
    expect(again.status).toBe(201)
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    expect(again.body).toEqual(first.body)
    expect(again.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'))
    expect(await experimentCount(ws.id)).toBe(1)
  })

  test('the same key with a different request is 422 idempotency_key_reused, and nothing is written', async () => {
    const ws = await makeWorkspace()
    const abt = await insertAbTest(ws.id, 'running')
    const headers = { 'Idempotency-Key': 'k-reuse' }
    expect((await call('POST', '/api/v1/experiments', { token: ws.live, body: hypothesis(abt), headers })).status).toBe(201)
    const other = await call('POST', '/api/v1/experiments', { token: ws.live, body: hypothesis(abt, { expectation: 'b_better' }), headers })
    expectError(other, 422, 'idempotency_key_reused')
    expect(await experimentCount(ws.id)).toBe(1)
  })

  test('a key longer than 255 characters, or empty, is 400', async () => {
    const ws = await makeWorkspace()
    const abt = await insertAbTest(ws.id, 'running')
    const long = await call('POST', '/api/v1/experiments', { token: ws.live, body: hypothesis(abt), headers: { 'Idempotency-Key': 'k'.repeat(256) } })
    expectError(long, 400, 'invalid_request', 'Idempotency-Key')
    const ok = await call('POST', '/api/v1/experiments', { token: ws.live, body: hypothesis(abt), headers: { 'Idempotency-Key': 'k'.repeat(255) } })
    expect(ok.status).toBe(201)
  })

  test('a key is visible ASCII, spaces only between characters, as the document states: other text is 400', async () => {
    const ws = await makeWorkspace()
    const abt = await insertAbTest(ws.id, 'running')
    // A Latin-1 letter travels as one byte, which the two sides may read as different text.
    const accented = await call('POST', '/api/v1/experiments', { token: ws.live, body: hypothesis(abt), headers: { 'Idempotency-Key': 'clé-1' } })
    expectError(accented, 400, 'invalid_request', 'visible ASCII')
    // Spaces around a key never arrive (HTTP trims them); a key of spaces arrives empty.
    const spaces = await call('POST', '/api/v1/experiments', { token: ws.live, body: hypothesis(abt), headers: { 'Idempotency-Key': '   ' } })
    expectError(spaces, 400, 'invalid_request', 'Idempotency-Key')
    const inner = await call('POST', '/api/v1/experiments', { token: ws.live, body: hypothesis(abt), headers: { 'Idempotency-Key': 'batch 7 of 9' } })
    expect(inner.status).toBe(201)
  })

  test('a refusal by the rules (404) is kept and replayed; a 409 is not kept, so a retry runs again', async () => {
    const ws = await makeWorkspace()
    const { sql } = await getHarness()
    const missing = 'abt_01jd0000000000000000000000'
    const h404 = { 'Idempotency-Key': 'k-404' }
    expectError(await call('POST', '/api/v1/experiments', { token: ws.live, body: hypothesis(missing), headers: h404 }), 404, 'not_found')
    const replay404 = await call('POST', '/api/v1/experiments', { token: ws.live, body: hypothesis(missing), headers: h404 })
    expectError(replay404, 404, 'not_found')
    expect(replay404.headers.get('idempotent-replayed')).toBe('true')

    const decided = await insertAbTest(ws.id, 'decided')
    const h409 = { 'Idempotency-Key': 'k-409' }
    const conflict = await call('POST', '/api/v1/experiments', { token: ws.live, body: hypothesis(decided), headers: h409 })
    expectError(conflict, 409, 'conflict')
    // The test is reopened; the retry with the same key runs again instead of replaying the 409.
    await sql`UPDATE ab_tests SET status = 'running', winner = NULL, decided_at = NULL WHERE workspace_id = ${ws.id} AND id = ${decided}`
    const retry = await call('POST', '/api/v1/experiments', { token: ws.live, body: hypothesis(decided), headers: h409 })
    expect(retry.status).toBe(201)
    expect(retry.headers.get('idempotent-replayed')).toBeNull()
  })

  test('keys are scoped per workspace, and a record past its 24 hours frees the key', async () => {
    const a = await makeWorkspace()
    const b = await makeWorkspace()
    const { sql } = await getHarness()
    const abtA = await insertAbTest(a.id, 'running')
    const abtB = await insertAbTest(b.id, 'running')
    const headers = { 'Idempotency-Key': 'shared-key' }
    expect((await call('POST', '/api/v1/experiments', { token: a.live, body: hypothesis(abtA), headers })).status).toBe(201)
    const inB = await call('POST', '/api/v1/experiments', { token: b.live, body: hypothesis(abtB), headers })
    expect(inB.status).toBe(201)
    expect(inB.headers.get('idempotent-replayed')).toBeNull()

    const [rec] = await sql<{ hours: number }[]>`
      SELECT extract(epoch FROM expires_at - created_at)::int / 3600 AS hours FROM idempotency_keys WHERE workspace_id = ${a.id} AND key = 'shared-key'`
    expect(rec!.hours).toBe(24)
    await sql`UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE workspace_id = ${a.id} AND key = 'shared-key'`
    const fresh = await call('POST', '/api/v1/experiments', { token: a.live, body: hypothesis(abtA, { expectation: 'b_better' }), headers })
    expect(fresh.status).toBe(201)
    expect(await experimentCount(a.id)).toBe(2)
  })

  test('test-token and live-token keys do not collide', async () => {
    const ws = await makeWorkspace()
    const abt = await insertAbTest(ws.id, 'running')
    const headers = { 'Idempotency-Key': 'mode-key' }
    const sim = await call('POST', '/api/v1/experiments', { token: ws.test, body: hypothesis(abt), headers })
    expect(sim.status).toBe(200)
    const live = await call('POST', '/api/v1/experiments', { token: ws.live, body: hypothesis(abt), headers })
    expect(live.status).toBe(201)
    const simAgain = await call('POST', '/api/v1/experiments', { token: ws.test, body: hypothesis(abt), headers })
    expect(simAgain.status).toBe(200)
    expect(simAgain.headers.get('idempotent-replayed')).toBe('true')
    expect(simAgain.body).toEqual({ data: { simulated: true } })
  })

  test('concurrent retries with one key write once: the others replay or get 409', async () => {
    const ws = await makeWorkspace()
    const abt = await insertAbTest(ws.id, 'running')
    const headers = { 'Idempotency-Key': 'burst' }
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => call('POST', '/api/v1/experiments', { token: ws.live, body: hypothesis(abt), headers })),
    )
    const statuses = answers.map((a) => a.status)
    expect(statuses.filter((s) => s === 201).length).toBeGreaterThanOrEqual(1)
    expect(statuses.every((s) => s === 201 || s === 409)).toBe(true)
    const created = answers.filter((a) => a.status === 201)
    expect(created.filter((a) => a.headers.get('idempotent-replayed') === null)).toHaveLength(1)
    for (const a of created) expect(a.body).toEqual(created[0]!.body)
    for (const a of answers.filter((x) => x.status === 409)) expectError(a, 409, 'conflict', 'still being answered')
    expect(await experimentCount(ws.id)).toBe(1)
  })

  test('a second request while the first is still in flight is 409 on either database, not a wait and a replay', async () => {
    const ws = await makeWorkspace()
    const abt = await insertAbTest(ws.id, 'running')
    const headers = { 'Idempotency-Key': 'held-in-flight' }
    const { sql } = await getHarness()
    // Both requests are held in flight by a lock on the table the write inserts into (on the embedded
    // database, whose one session this transaction holds, by everything waiting for that session).
    const answers = await sql.begin(async (tx) => {
      await tx`LOCK TABLE experiments IN ACCESS EXCLUSIVE MODE`
      const first = call('POST', '/api/v1/experiments', { token: ws.live, body: hypothesis(abt), headers })
      await Bun.sleep(150)
      const second = call('POST', '/api/v1/experiments', { token: ws.live, body: hypothesis(abt), headers })
      await Bun.sleep(150)
      return [first, second]
    })
    const [a, b] = await Promise.all(answers)
    const done = [a!, b!].sort((x, y) => x.status - y.status)
    expect(done.map((x) => [x.status, x.headers.get('idempotent-replayed')])).toEqual([[201, null], [409, null]])
    expectError(done[1]!, 409, 'conflict', 'still being answered')
    expect(await experimentCount(ws.id)).toBe(1)
    // Answered, the key replays.
    const again = await call('POST', '/api/v1/experiments', { token: ws.live, body: hypothesis(abt), headers })
    expect([again.status, again.headers.get('idempotent-replayed')]).toEqual([201, 'true'])
  })
})

// Across processes: a PostgreSQL server's session holding the key's lock (another server process).
describe.skipIf(!process.env.DATABASE_URL)('Idempotency-Key across sessions (PostgreSQL server)', () => {
  test('while the first request holds the key, a second is 409; when its process dies, the key frees itself', async () => {
    const ws = await makeWorkspace()
    const abt = await insertAbTest(ws.id, 'running')
    const other = postgres(process.env.DATABASE_URL!, { max: 1, onnotice: () => {} })
    try {
      // Another "server process" is answering a request under this key: it holds the key's lock.
      const reserved = await other.reserve()
      await reserved`BEGIN`
      const [{ pid }] = await reserved<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`
      await reserved`SELECT pg_advisory_xact_lock(hashtextextended(${`${ws.id}\u0001live\u0001held-key`}, 0))`
      const busy = await call('POST', '/api/v1/experiments', { token: ws.live, body: hypothesis(abt), headers: { 'Idempotency-Key': 'held-key' } })
      expectError(busy, 409, 'conflict')
      expect(await experimentCount(ws.id)).toBe(0)
      // That process dies mid-request: its session ends and the key is free again.
      const { sql } = await getHarness()
      // pg_terminate_backend only signals the process: wait until it has gone (and its locks with it),
      // or the retry can race its exit on a busy machine.
      await sql`SELECT pg_terminate_backend(${pid}, 5000)`
      reserved.release()
      for (let i = 0; i < 100; i++) {
        const [alive] = await sql`SELECT 1 FROM pg_locks WHERE pid = ${pid} AND locktype = 'advisory'`
        if (!alive) break
        await Bun.sleep(20)
      }
      const retry = await call('POST', '/api/v1/experiments', { token: ws.live, body: hypothesis(abt), headers: { 'Idempotency-Key': 'held-key' } })
      expect(retry.status).toBe(201)
      expect(await experimentCount(ws.id)).toBe(1)
    } finally {
      await other.end({ timeout: 1 }).catch(() => {})
    }
  })
})
