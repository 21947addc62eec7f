import { describe, expect, test } from 'bun:test'
import { maintain, startMaintenance } from '../../server/src/store/embedded-maintenance.ts'
import { getHarness, makeWorkspace } from '../harness.ts'
import { readPlans, scans } from '../support/statement-plans.ts'

/**
 * The embedded database has no autovacuum (PGlite runs no background process), so the process that
 * owns it vacuums and analyzes it itself (store/embedded-maintenance.ts). Without that, no table was
 * ever analyzed, and looking a workspace's contacts up by address read every contact of the
 * workspace: an import slowed by a third of its rate for every 30,000 rows. On the PostgreSQL server,
 * autovacuum does this work, and the owner's maintenance does not exist there.
 */
const harness = await getHarness()
const embedded = harness.db.kind === 'embedded-owner'
if (!embedded) console.warn('embedded-maintenance.test.ts: the embedded leg only (on a PostgreSQL server, autovacuum analyzes the tables); skipped')

const CONTACTS = 20_000

/** The store's lookup of contacts by address (store/contacts.ts selectContactIdsByKey). */
const LOOKUP = 'SELECT id, email_key FROM contacts WHERE workspace_id = $1 AND email_key = ANY ($2::text[])'

describe.skipIf(!embedded)('the embedded database vacuums and analyzes itself', () => {
  test('the owner of the embedded database has a maintenance pass; after it, a lookup by address reads only the asked contacts', async () => {
    const { sql, db } = harness
    expect(db.maintain).toBeFunction()
    const ws = await makeWorkspace()
    await sql`
      INSERT INTO contacts (workspace_id, id, email, email_key)
      SELECT ${ws.id}, 'con_maint' || n, 'm' || n || '@maintenance.example.com', 'm' || n || '@maintenance.example.com'
      FROM generate_series(1, ${CONTACTS}) n`
    // Passes until one has analyzed the new rows: the table's counters reach the statistics a moment
    // after the commit (PostgreSQL sends them at most once a second), and a pass may be running
    // already (the owner's own timer), begun before these rows.
    const reltuples = async () => Number((await sql`SELECT reltuples::float8 AS n FROM pg_class WHERE relname = 'contacts'`)[0]!.n)
    for (let i = 0; i < 100 && (await reltuples()) < CONTACTS; i++) {
      await db.maintain!()
      await Bun.sleep(100)
    }
    expect(await reltuples()).toBeGreaterThanOrEqual(CONTACTS)
    // The lookup of an import's batch of 100 addresses (half of them new), as the planner now plans it
    // (custom and generic): the asked rows, not the workspace's.
    const keys = Array.from({ length: 100 }, (_, i) => (i % 2 ? `m${i * 97}@maintenance.example.com` : `new${i}@maintenance.example.com`))
    const readings = await readPlans(sql, LOOKUP, [ws.id, keys])
    expect(readings.length).toBeGreaterThan(0)
    for (const reading of readings) {
      for (const { node, examined } of scans(reading.plan)) expect(`${reading.mode} ${node['Node Type']} ${node['Index Name'] ?? node['Relation Name']}: ${examined} rows`).toMatch(/: ([0-9]|[1-9][0-9]|100) rows$/)
    }
    // A table that changed by less than the threshold since is left alone.
    const again = await maintain(sql)
    expect([...again.vacuumed, ...again.analyzed]).not.toContain('contacts')
  })

  test('maintenance runs by itself on its interval, and stops', async () => {
    const { sql } = harness
    const ws = await makeWorkspace()
    await sql`
      INSERT INTO contacts (workspace_id, id, email, email_key)
      SELECT ${ws.id}, 'con_tick' || n, 't' || n || '@tick.example.com', 't' || n || '@tick.example.com'
      FROM generate_series(1, ${CONTACTS / 2}) n`
    const failures: unknown[] = []
    const maintenance = startMaintenance(sql, (error) => failures.push(error), 50)
    try {
      const modified = async () => Number((await sql`SELECT n_mod_since_analyze AS n FROM pg_stat_user_tables WHERE relname = 'contacts'`)[0]!.n)
      let left = await modified()
      for (let i = 0; i < 100 && left >= CONTACTS / 2; i++) {
        await Bun.sleep(50)
        left = await modified()
      }
      expect(left).toBeLessThan(CONTACTS / 2)
    } finally {
      await maintenance.stop()
    }
    expect(failures).toEqual([])
  })
})
