import type { Sql } from '../../core/db.ts'

/**
 * The embedded database's autovacuum. PGlite runs PostgreSQL as one backend with no background
 * processes, so autovacuum never runs: no table is ever analyzed (reltuples stays -1) and no dead row
 * is ever vacuumed away. Without statistics the planner looked up a workspace's contacts by email
 * through the primary key and read every contact of the workspace: `POST /contacts` slowed from
 * 4,548 to 1,567 rows a second over 100,000 imported rows, and recovered fully with ANALYZE
 * (docs/performance.md, "The embedded database's maintenance").
 *
 * So the process that owns the embedded database does what autovacuum does on a server, with its
 * default thresholds: every EVERY_MS it reads the tables' counters and runs `VACUUM (ANALYZE)` on a
 * table with more dead rows than 50 + 20% of its rows, or more rows inserted since its last vacuum
 * than 1,000 + 20%, and `ANALYZE` on one changed by more than 50 + 10%. Tables one at a time, each
 * statement a short pause of the single backend (an ANALYZE samples at most 30,000 rows: 0.1-0.4 s
 * at 100,000), which the thresholds make rare: a table is analyzed again only after it grew or
 * changed by a tenth.
 */
const EVERY_MS = 10_000

const VACUUM_BASE = 50
const VACUUM_SCALE = 0.2
const INSERT_BASE = 1_000
const INSERT_SCALE = 0.2
const ANALYZE_BASE = 50
const ANALYZE_SCALE = 0.1

type TableCounters = { name: string; rows: number; dead: number; inserted: number; modified: number }

/** What one pass did: the tables vacuumed (and analyzed with it), and those only analyzed. */
export type MaintenancePass = { vacuumed: string[]; analyzed: string[] }

/** One pass: the tables due, by autovacuum's default thresholds, vacuumed or analyzed now. */
export async function maintain(sql: Sql): Promise<MaintenancePass> {
  const tables = await sql<TableCounters[]>`
    SELECT s.relname AS name, GREATEST(c.reltuples, 0)::float8 AS rows, s.n_dead_tup::float8 AS dead,
           s.n_ins_since_vacuum::float8 AS inserted, s.n_mod_since_analyze::float8 AS modified
    FROM pg_catalog.pg_stat_user_tables s JOIN pg_catalog.pg_class c ON c.oid = s.relid
    WHERE s.schemaname = current_schema()
    ORDER BY s.relname`
  const pass: MaintenancePass = { vacuumed: [], analyzed: [] }
  for (const t of tables) {
    const vacuum = t.dead > VACUUM_BASE + VACUUM_SCALE * t.rows || t.inserted > INSERT_BASE + INSERT_SCALE * t.rows
    const analyze = t.modified > ANALYZE_BASE + ANALYZE_SCALE * t.rows
    if (!vacuum && !analyze) continue
    const table = `"${t.name.replace(/"/g, '""')}"`
    if (vacuum) {
      await sql.unsafe(`VACUUM (ANALYZE) ${table}`)
      pass.vacuumed.push(t.name)
    } else {
      await sql.unsafe(`ANALYZE ${table}`)
      pass.analyzed.push(t.name)
    }
  }
  return pass
}

/**
 * Runs `maintain` every `everyMs` (never two passes at once) until the returned stop; a pass that
 * fails is reported and the next one tries again.
 */
export function startMaintenance(sql: Sql, onError: (error: unknown) => void, everyMs = EVERY_MS): { stop(): Promise<void>; now(): Promise<MaintenancePass> } {
  let running: Promise<MaintenancePass> | undefined
  const now = () => (running ??= maintain(sql).finally(() => (running = undefined)))
  const timer = setInterval(() => void now().catch(onError), everyMs)
  timer.unref?.()
  return {
    now,
    async stop() {
      clearInterval(timer)
      await running?.catch(() => {})
    },
  }
}
