import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { getHarness } from '../harness.ts'
import { needsPostgres, type ServerProcess, startCluster, stopAll } from './cluster.ts'
import { findPgBouncer, type PgBouncer, startPgBouncer } from './pgbouncer.ts'
import { idempotencyTrials, killAfterCommit, killDuringWrites, rateLimitAcross } from './scenarios.ts'

/**
 * The same server processes behind PgBouncer in transaction pooling mode (how one database serves
 * many processes): the idempotency trials, the exact rate limits and kill -9 during writes hold
 * there too. The test starts its own PgBouncer (pgbouncer.ts); the test's own checks read the
 * database directly.
 */
const TRIALS = Number(process.env.FAULT_TRIALS ?? 200)
const WRITES = Number(process.env.FAULT_KILL_WRITES ?? 50)
const why = needsPostgres ?? (findPgBouncer() ? undefined : 'pgbouncer is not installed (apt-get install pgbouncer; .ci/run installs it)')
if (why) console.warn(`skipped test/faults/pgbouncer.test.ts: ${why}`)

describe.skipIf(Boolean(why))('behind PgBouncer (transaction pooling)', () => {
  let bouncer: PgBouncer
  let servers: ServerProcess[] = []
  beforeAll(async () => {
    await getHarness()
    bouncer = await startPgBouncer(process.env.DATABASE_URL!)
    servers = await startCluster(3, { DATABASE_URL: bouncer.url })
  }, 60_000)
  afterAll(async () => {
    await stopAll(servers)
    await bouncer?.stop()
  })

  test(`${TRIALS} trials of 30 concurrent same-key requests over 3 processes: one effect, only correct answers`, async () => {
    const started = Date.now()
    const { problems, tally } = await idempotencyTrials(servers, TRIALS, 30)
    console.log(`idempotency behind PgBouncer: ${TRIALS} trials in ${((Date.now() - started) / 1000).toFixed(1)} s; answers: ${JSON.stringify(tally)}`)
    expect(problems).toEqual([])
    expect(tally.first).toBe(TRIALS)
    expect(tally.conflict).toBeGreaterThan(0)
  }, 300_000)

  test('rate limits exact across 3 processes', async () => {
    const { problems, figures } = await rateLimitAcross(servers)
    console.log(`rate limits behind PgBouncer: ${figures.join('; ')}`)
    expect(problems).toEqual([])
  }, 120_000)

  test(`kill -9 during ${WRITES} writes, and after a commit before the answer`, async () => {
    const env = { DATABASE_URL: bouncer.url }
    const r = await killDuringWrites(WRITES, { startEnv: env, seed: Number(process.env.FAULT_SEED ?? 20_261_123) })
    console.log(`kill -9 behind PgBouncer: ${WRITES} writes, ${r.kills} kills, ${r.retried} retried, ${r.replayed} answered by a replay`)
    expect(r.problems).toEqual([])
    expect(r.kills).toBeGreaterThan(0)
    const after = await killAfterCommit(env)
    expect(after.problems).toEqual([])
  }, 300_000)
})
