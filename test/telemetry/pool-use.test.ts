import { expect, test } from 'bun:test'
import { openDatabase } from '../../server/src/store/driver/db.ts'
import { poolState, poolUse } from '../../server/src/store/driver/pool-use.ts'
import { getHarness } from '../harness.ts'

/**
 * growth_db_pool_connections reads postgres.js's own connection queues (our patch's `pool` getter):
 * a pool of one connection, on either database, is asked what it is doing at each step. A pool
 * left unpatched, or a getter that read the wrong queues, fails here; metrics.test.ts scrapes the
 * same figures from a running server.
 */
test('a pool says how many connections are in use and how many statements wait for one', async () => {
  const { dataDir } = await getHarness()
  const db = await openDatabase({ databaseUrl: process.env.DATABASE_URL, dataDir, poolMax: 1 })
  try {
    await db.sql`SELECT 1`
    expect(poolState(db.sql)).toEqual({ in_use: 0, waiting: 0 })
    let queued: Promise<unknown> | undefined
    await db.sql.begin(async (tx) => {
      await tx`SELECT 1`
      // The transaction holds the one connection, idle or not.
      expect(poolState(db.sql)).toEqual({ in_use: 1, waiting: 0 })
      queued = db.sql`SELECT 2 AS two`.execute()
      await Bun.sleep(20)
      expect(poolState(db.sql)).toEqual({ in_use: 1, waiting: 1 })
      // Every pool of the process is counted: this one's figures are within the sum.
      const all = poolUse()
      expect(all.in_use).toBeGreaterThanOrEqual(1)
      expect(all.waiting).toBeGreaterThanOrEqual(1)
    })
    expect(await queued).toEqual([{ two: 2 }])
    expect(poolState(db.sql)).toEqual({ in_use: 0, waiting: 0 })
  } finally {
    await db.close()
  }
})
