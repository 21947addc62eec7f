import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import postgres from 'postgres'
import { transactionInTime, withRequestScope } from '../../server/src/store/driver/request-scope.ts'
import { insertAbTest } from '../fixtures.ts'
import { getHarness, makeWorkspace } from '../harness.ts'
import { needsPostgres, type Reply, send, type ServerProcess, startServerProcess } from './cluster.ts'

/**
 * A write the server answers 500 because it ran out of time (REQUEST_TIMEOUT_MS) is not done: the
 * client was told it failed, and a client that sent no Idempotency-Key can only send it again. A
 * server process with the shortest time allowed (100 ms) and two connections takes writes 40 at
 * once (more at once on a machine fast enough to answer nearly all of them in time), without keys,
 * so that many run out of time at every step of their transaction; then every
 * write answered 201 is in the database once, and none answered 500 is there. The same for the
 * agent gateway's decisions, which a keyless request records in a batch shared with others.
 */
const WRITES = 300
/** More, sent more at once, while too few of the first WRITES ran out of time. */
const MAX_WRITES = 2_000

if (needsPostgres) console.warn(`skipped test/faults/request-timeout.test.ts: ${needsPostgres}`)

describe.skipIf(Boolean(needsPostgres))('writes that run out of time', () => {
  let server: ServerProcess
  beforeAll(async () => {
    await getHarness()
    server = await startServerProcess({ REQUEST_TIMEOUT_MS: '100', DB_POOL_MAX: '2' })
  }, 60_000)
  afterAll(() => server?.kill())

  test(`${WRITES} writes without keys, many answered 500 for their time: each answered 201 done once, none answered 500 done`, async () => {
    const { sql } = await getHarness()
    const ws = await makeWorkspace()
    const abTest = await insertAbTest(ws.id, 'running')
    const hypothesis = (i: number) => `Write ${i}: a subject line naming the roast will win on opens.`
    const answers = new Map<number, Reply>()
    const answered = (status: number) => [...answers.values()].filter((r) => r.status === status).length
    // 40 at once, then, while too few have run out of time (a fast machine answers most within
    // 100 ms), twice as many at once each round, up to MAX_WRITES in all.
    for (let sent = 0, atOnce = 40; sent < WRITES || (answered(500) <= 10 && sent < MAX_WRITES); sent += atOnce) {
      if (sent >= WRITES) atOnce = Math.min(atOnce * 2, 320)
      await Promise.all(
        Array.from({ length: atOnce }, async (_, j) => {
          const i = sent + j
          const body = { hypothesis: hypothesis(i), kind: 'email_ab_test', subjectId: abTest, expectation: 'a_better' }
          answers.set(i, await send(server.base, 'POST', '/experiments', { token: ws.live, body }))
        }),
      )
    }
    // Whatever a timed-out request's transaction still does, it has done it by now.
    await Bun.sleep(1_000)
    const rows = await sql<{ hypothesis: string; n: number }[]>`SELECT hypothesis, count(*)::int AS n FROM experiments WHERE workspace_id = ${ws.id} GROUP BY hypothesis`
    const made = new Map(rows.map((r) => [r.hypothesis, r.n]))
    const problems: string[] = []
    const statuses: Record<number, number> = {}
    for (const [i, r] of answers) {
      statuses[r.status] = (statuses[r.status] ?? 0) + 1
      const n = made.get(hypothesis(i)) ?? 0
      if (r.status === 201 && n !== 1) problems.push(`write ${i}: answered 201, done ${n} times`)
      if (r.status === 500 && n !== 0) problems.push(`write ${i}: answered 500 (${r.body?.error?.message}), done ${n} times`)
      if (r.status !== 201 && r.status !== 500) problems.push(`write ${i}: answered ${r.status} ${r.text.slice(0, 200)}`)
    }
    console.log(`writes that run out of time: ${answers.size} writes, ${JSON.stringify(statuses)}`)
    expect(problems).toEqual([])
    // Else the test proved nothing: enough of them ran out of time, and enough were done.
    expect(statuses[500] ?? 0).toBeGreaterThan(10)
    expect(statuses[201] ?? 0).toBeGreaterThan(10)
  }, 120_000)

  test("two transactions of one request committing at once: the first's commit ending does not let the deadline answer 500 while the second's COMMIT is still out", async () => {
    const { sql } = await getHarness()
    const table = `commit_wait_${crypto.randomUUID().replaceAll('-', '').slice(0, 12)}`
    // The second transaction's COMMIT takes half a second (a deferred trigger runs at commit).
    await sql.unsafe(`CREATE TABLE ${table} (n int)`)
    await sql.unsafe(`CREATE FUNCTION ${table}_slow() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(0.5); RETURN NULL; END $$`)
    await sql.unsafe(`CREATE CONSTRAINT TRIGGER ${table}_slow AFTER INSERT ON ${table} DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (NEW.n = 2) EXECUTE FUNCTION ${table}_slow()`)
    // Two connections, so that the two transactions run at once.
    const two = postgres(process.env.DATABASE_URL!, { max: 2, onnotice: () => {} })
    try {
      const started = performance.now()
      const answer = await withRequestScope(new AbortController().signal, 400, () =>
        Promise.all([
          transactionInTime(two, (tx) => tx.unsafe(`INSERT INTO ${table} VALUES (1)`)),
          transactionInTime(two, (tx) => tx.unsafe(`INSERT INTO ${table} VALUES (2)`)),
        ]),
      ).then(
        () => 'both committed',
        (error: Error) => error.message,
      )
      // Answered by the second commit's outcome, after the deadline (400 ms) and before it passed again.
      expect(answer).toBe('both committed')
      expect(performance.now() - started).toBeGreaterThan(400)
      expect((await sql.unsafe(`SELECT n FROM ${table} ORDER BY n`)).map((r) => r.n)).toEqual([1, 2])
    } finally {
      await two.end()
      await sql.unsafe(`DROP TABLE ${table}`)
      await sql.unsafe(`DROP FUNCTION ${table}_slow()`)
    }
  }, 30_000)

  test('agent requests without keys held behind a lock past their time: the decisions under way are answered as recorded, those still waiting are answered 500 and never recorded', async () => {
    const { sql } = await getHarness()
    const ws = await makeWorkspace()
    // A second server, whose time (1 s) is shorter than the lock is held (1.5 s), and than that again.
    const slow = await startServerProcess({ REQUEST_TIMEOUT_MS: '1000' })
    try {
      const authorize = (resource: string) => send(slow.base, 'POST', '/agent/authorize', { token: ws.agent.credential, body: { tool: 'ads', action: 'pause_campaign', resource } })
      // The workspace's allowance counter exists, and the pools' connections are made.
      expect((await authorize('warm-up')).status).toBe(201)
      const answers = new Map<string, Reply>()
      for (let round = 0; round < 3; round++) {
        // Every decision of the workspace locks its allowance counter: held here, the first batch
        // waits on it (its requests' deadlines pass meanwhile) and the next ones wait for that batch.
        const held = sql.begin(async (tx) => {
          await tx`SELECT 1 FROM usage_counters WHERE workspace_id = ${ws.id} AND name = 'agentRequests' FOR UPDATE`
          await Bun.sleep(1_500)
        })
        await Bun.sleep(50)
        await Promise.all(Array.from({ length: 30 }, async (_, i) => answers.set(`round ${round} ${i}`, await authorize(`round ${round} ${i}`))))
        await held
      }
      await Bun.sleep(1_000)
      const rows = await sql<{ resource: string; n: number }[]>`SELECT resource, count(*)::int AS n FROM agent_requests WHERE workspace_id = ${ws.id} GROUP BY resource`
      const made = new Map(rows.map((r) => [r.resource, r.n]))
      const problems: string[] = []
      const statuses: Record<number, number> = {}
      for (const [resource, r] of answers) {
        statuses[r.status] = (statuses[r.status] ?? 0) + 1
        const n = made.get(resource) ?? 0
        if (r.status === 201 && n !== 1) problems.push(`${resource}: answered 201, recorded ${n} times`)
        if (r.status === 500 && n !== 0) problems.push(`${resource}: answered 500 (${r.body?.error?.message}), recorded ${n} times`)
        if (r.status !== 201 && r.status !== 500) problems.push(`${resource}: answered ${r.status} ${r.text.slice(0, 200)}`)
      }
      console.log(`agent requests held past their time: ${JSON.stringify(statuses)}`)
      expect(problems).toEqual([])
      expect(statuses[500] ?? 0).toBeGreaterThan(10)
      expect(statuses[201] ?? 0).toBeGreaterThan(0)
    } finally {
      await slow.kill()
    }
  }, 120_000)
})
