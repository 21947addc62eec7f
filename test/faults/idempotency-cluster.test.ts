import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { getHarness } from '../harness.ts'
import { needsPostgres, type ServerProcess, startCluster, stopAll } from './cluster.ts'
import { idempotencyTrials } from './scenarios.ts'
import { WRITE_KINDS } from './writes.ts'

/**
 * Three server processes on one PostgreSQL database; FAULT_TRIALS trials (200 by default) of 30
 * concurrent requests under one Idempotency-Key, spread over the three, the write kinds of
 * writes.ts in turn: exactly one effect and only correct answers, every time.
 */
const TRIALS = Number(process.env.FAULT_TRIALS ?? 200)

if (needsPostgres) console.warn(`skipped test/faults/idempotency-cluster.test.ts: ${needsPostgres}`)

describe.skipIf(Boolean(needsPostgres))('Idempotency-Key across 3 server processes', () => {
  let servers: ServerProcess[] = []
  beforeAll(async () => {
    await getHarness()
    servers = await startCluster(3)
  }, 60_000)
  afterAll(() => stopAll(servers))

  test(`${TRIALS} trials of 30 concurrent same-key requests (${WRITE_KINDS.join(', ')}): one effect, only correct answers`, async () => {
    const started = Date.now()
    const { problems, tally } = await idempotencyTrials(servers, TRIALS, 30)
    console.log(`idempotency across 3 processes: ${TRIALS} trials in ${((Date.now() - started) / 1000).toFixed(1)} s; answers: ${JSON.stringify(tally)}`)
    expect(problems).toEqual([])
    // Every trial had its one first answer, and the requests really overlapped (some met the key in flight).
    expect(tally.first).toBe(TRIALS)
    expect(tally.conflict).toBeGreaterThan(0)
  }, 300_000)
})
