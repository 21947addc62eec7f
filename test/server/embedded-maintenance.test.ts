import { describe, expect, test } from 'bun:test'
import { maintain, startMaintenance } from '../../server/src/store/driver/embedded-maintenance.ts'
import { getHarness, makeWorkspace } from '../harness.ts'
import { readPlans, scans } from '../support/statement-plans.ts'

/**
 * The embedded database has no autovacuum (PGlite runs no background process), so the process that
 * owns it vacuums and analyzes it itself (store/driver/embedded-maintenance.ts). Without that, no table was
 * ever analyzed, and looking a workspace's contacts up by address read every contact of the
 * workspace: an import slowed by a third of its rate for every 30,000 rows. On the PostgreSQL server,
 * autovacuum does this work, and the owner's maintenance does not exist there.
 */
const harness = await getHarness()
const embedded = harness.db.kind === 'embedded-owner'
if (!embedded) console.warn('embedded-maintenance.test.ts: the embedded leg only (on a PostgreSQL server, autovacuum analyzes the tables); skipped')

const CONTACTS = 20_000

/** When contacts was last analyzed (by ANALYZE or VACUUM (ANALYZE)): after `since`, or null. */
async function analyzedSince(since: Date): Promise<boolean> {
  const [row] = await harness.sql<{ at: Date | null }[]>`
    SELECT GREATEST(last_analyze, last_autoanalyze) AS at FROM pg_stat_user_tables WHERE relname = 'contacts'`
  return row?.at != null && row.at > since
}

/** The store's lookup of contacts by address (store/contacts.ts selectContactIdsByKey). */
const LOOKUP = 'SELECT id, email_key FROM contacts WHERE workspace_id = $1 AND email_key = ANY ($2::text[])'

describe.skipIf(!embedded)('the embedded database vacuums and analyzes itself', () => {
  test('the owner of the embedded database has a maintenance pass; after it, a lookup by address reads only the asked contacts', async () => {
    const { sql, db } = harness
    expect(db.maintain).toBeFunction()
    const ws = await makeWorkspace()
    // Enough rows to pass autovacuum's threshold (10% of the table) whatever the shared database holds.
    const held = Number((await sql`SELECT GREATEST(reltuples, 0) AS n FROM pg_class WHERE relname = 'contacts'`)[0]!.n)
    const rows = Math.max(CONTACTS, Math.ceil(0.15 * held))
    await sql`
      INSERT INTO contacts (workspace_id, id, email, email_key)
      SELECT ${ws.id}, 'con_maint' || n, 'm' || n || '@maintenance.example.com', 'm' || n || '@maintenance.example.com'
      FROM generate_series(1, ${rows}) n`
    const [{ at: inserted }] = await sql<{ at: Date }[]>`SELECT clock_timestamp() AS at`
    // Passes until one has analyzed the table since these rows: their counts reach the statistics a
    // moment after the commit (PostgreSQL sends them at most once a second), and a pass may be
    // running already (the owner's own timer), begun before them.
    for (let i = 0; i < 100 && !(await analyzedSince(inserted)); i++) {
      await db.maintain!()
      await Bun.sleep(100)
    }
    expect(await analyzedSince(inserted)).toBe(true)
    const [stats] = await sql<{ reltuples: number }[]>`SELECT reltuples::float8 AS reltuples FROM pg_class WHERE relname = 'contacts'`
    expect(stats!.reltuples).toBeGreaterThanOrEqual(rows)
    // The lookup of an import's batch of 100 addresses (half of them new), as the planner now plans it
    // (custom and generic): the asked rows, not the workspace's.
    const keys = Array.from({ length: 100 }, (_, i) => (i % 2 ? `m${i * 97}@maintenance.example.com` : `new${i}@maintenance.example.com`))
    const readings = await readPlans(sql, LOOKUP, [ws.id, keys])
    expect(readings.length).toBeGreaterThan(0)
    for (const reading of readings) {
      for (const { node, examined } of scans(reading.plan)) expect(`${reading.mode} ${node['Node Type']} ${node['Index Name'] ?? node['Relation Name']}: ${examined} rows`).toMatch(/: ([0-9]|[1-9][0-9]|100) rows$/)
    }
  })

  test("autovacuum's thresholds: a table changed by fewer than 50 rows is left alone, one changed by more is analyzed", async () => {
    const { sql } = harness
    await sql`CREATE TABLE maintenance_probe (id int PRIMARY KEY)`
    try {
      // Counts reach the statistics at most once a second: wait until they show what was written.
      const modified = async (n: number) => {
        for (let i = 0; i < 50; i++) {
          const [row] = await sql<{ n: number }[]>`SELECT n_mod_since_analyze::int AS n FROM pg_stat_user_tables WHERE relname = 'maintenance_probe'`
          if ((row?.n ?? 0) >= n) return
          await Bun.sleep(100)
        }
        throw new Error(`the statistics never showed ${n} rows changed in maintenance_probe`)
      }
      const reltuples = async () => Number((await sql`SELECT reltuples FROM pg_class WHERE relname = 'maintenance_probe'`)[0]!.reltuples)
      await sql`INSERT INTO maintenance_probe SELECT generate_series(1, 40)`
      await modified(40)
      await maintain(sql)
      // Never analyzed (-1), by this pass or the owner's own.
      expect(await reltuples()).toBe(-1)
      await sql`INSERT INTO maintenance_probe SELECT generate_series(41, 100)`
      // Past the threshold once the statistics show it: analyzed by a pass (this test's, or the owner's).
      for (let i = 0; i < 50 && (await reltuples()) !== 100; i++) {
        await maintain(sql)
        await Bun.sleep(100)
      }
      expect(await reltuples()).toBe(100)
    } finally {
      await sql`DROP TABLE maintenance_probe`
    }
  })

  test('maintenance runs by itself on its interval, and stops', async () => {
    const { sql } = harness
    await sql`CREATE TABLE maintenance_tick (id int PRIMARY KEY)`
    try {
      await sql`INSERT INTO maintenance_tick SELECT generate_series(1, 100)`
      const failures: unknown[] = []
      const maintenance = startMaintenance(sql, (error) => failures.push(error), 50)
      const reltuples = async () => Number((await sql`SELECT reltuples FROM pg_class WHERE relname = 'maintenance_tick'`)[0]!.reltuples)
      try {
        // Within the owner's own interval (10 s), so it is this timer's passes that analyze it.
        for (let i = 0; i < 60 && (await reltuples()) !== 100; i++) await Bun.sleep(50)
        expect(await reltuples()).toBe(100)
      } finally {
        await maintenance.stop()
      }
      expect(failures).toEqual([])
    } finally {
      await sql`DROP TABLE maintenance_tick`
    }
  })
})
