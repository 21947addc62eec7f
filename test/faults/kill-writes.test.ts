import { beforeAll, describe, expect, test } from 'bun:test'
import { getHarness } from '../harness.ts'
import { needsPostgres } from './cluster.ts'
import { killAfterCommit, killDuringWrites } from './scenarios.ts'

/**
 * kill -9 of a server process during writes, then a restart and retries with the same key: no
 * acknowledged write lost, none done twice; and the window after the commit and before the answer,
 * where the retry must be a replay.
 */
const WRITES = Number(process.env.FAULT_KILL_WRITES ?? 50)

if (needsPostgres) console.warn(`skipped test/faults/kill-writes.test.ts: ${needsPostgres}`)

describe.skipIf(Boolean(needsPostgres))('kill -9 during writes', () => {
  beforeAll(() => getHarness(), 60_000)

  test(`${WRITES} writes while the server is killed at random moments: each done exactly once, every answer kept`, async () => {
    const started = Date.now()
    const r = await killDuringWrites(WRITES, { seed: Number(process.env.FAULT_SEED ?? 20_261_123) })
    console.log(`kill -9 during writes: ${WRITES} writes, ${r.kills} kills, ${r.retried} writes retried, ${r.replayed} answered by a replay, in ${((Date.now() - started) / 1000).toFixed(1)} s`)
    expect(r.problems).toEqual([])
    expect(r.kills).toBeGreaterThan(0)
    expect(r.retried).toBeGreaterThan(0)
  }, 300_000)

  test('killed after the commit and before the client read the answer: the retry is a replay, the effect one', async () => {
    const { problems } = await killAfterCommit()
    expect(problems).toEqual([])
  }, 120_000)
})
