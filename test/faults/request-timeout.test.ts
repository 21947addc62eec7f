import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { insertAbTest } from '../fixtures.ts'
import { getHarness, makeWorkspace } from '../harness.ts'
import { needsPostgres, type Reply, send, type ServerProcess, startServerProcess } from './cluster.ts'

/**
 * A write the server answers 500 because it ran out of time (REQUEST_TIMEOUT_MS) is not done: the
 * client was told it failed, and a client that sent no Idempotency-Key can only send it again. A
 * server process with the shortest time allowed (100 ms) and two connections takes writes 40 at
 * once, without keys, so that many run out of time at every step of their transaction; then every
 * write answered 201 is in the database once, and none answered 500 is there.
 */
const WRITES = 300

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
    for (let start = 0; start < WRITES; start += 40) {
      await Promise.all(
        Array.from({ length: Math.min(40, WRITES - start) }, async (_, j) => {
          const i = start + j
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
    console.log(`writes that run out of time: ${JSON.stringify(statuses)}`)
    expect(problems).toEqual([])
    // Else the test proved nothing: enough of them ran out of time, and enough were done.
    expect(statuses[500] ?? 0).toBeGreaterThan(10)
    expect(statuses[201] ?? 0).toBeGreaterThan(10)
  }, 120_000)
})
