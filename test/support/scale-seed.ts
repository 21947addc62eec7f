import type { Sql } from '../../server/src/store/driver/db.ts'

/**
 * Grows one workspace (the demo's: realistic rows in every table) to about `target` rows in every
 * table that holds workspace data, in SQL (INSERT ... SELECT over generate_series, one statement a
 * table), so a test or a benchmark can see what each query costs when the workspace is large.
 *
 * A table of n rows gets ceil(target / n) - 1 copies of them. In copy g, every text column that a
 * unique index holds gets the suffix `_g` (so keys stay unique) and every integer one an offset; a
 * column that refers to another table's row gets the suffix of one of that table's copies, so each
 * copy hangs together like the original (a copy of a signal speaks for a copy of an opportunity).
 * Rows that would still collide are left out (ON CONFLICT DO NOTHING); a table whose keys cannot be
 * varied (a CHECK on a key, a key of the workspace alone) keeps its rows. Returns rows per table.
 *
 * The catalog decides the columns, so a new table or column is grown without touching this file.
 */
export async function growWorkspace(sql: Sql, workspaceId: string, target: number): Promise<Record<string, number>> {
  const tables = (
    await sql<{ name: string }[]>`
      SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE c.relkind = 'r' AND n.nspname = current_schema()
        AND EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'workspace_id' AND NOT a.attisdropped)
      ORDER BY 1`
  ).map((t) => t.name)

  const copies = new Map<string, number>()
  for (const t of tables) {
    const [row] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM ${sql(t)} WHERE workspace_id = ${workspaceId}`
    copies.set(t, row!.n ? Math.max(0, Math.ceil(target / row!.n) - 1) : 0)
  }

  const counts: Record<string, number> = {}
  await sql.begin(async (tx) => {
    // Foreign keys and triggers off while loading (every reference is made to point at a row that
    // exists); the contacts counter is set from the rows afterwards.
    await tx`SET LOCAL session_replication_role = replica`
    for (const t of tables) {
      const k = copies.get(t)!
      if (!k) continue
      const columns = await tx<{ name: string; type: string; is_unique: boolean; refers_to: string | null }[]>`
        SELECT a.attname AS name, format_type(a.atttypid, NULL) AS type,
               EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = a.attrelid AND i.indisunique AND a.attnum = ANY (i.indkey)) AS is_unique,
               (SELECT con.confrelid::regclass::text FROM pg_constraint con
                WHERE con.conrelid = a.attrelid AND con.contype = 'f' AND a.attnum = ANY (con.conkey)
                ORDER BY array_length(con.conkey, 1) DESC LIMIT 1) AS refers_to
        FROM pg_attribute a
        WHERE a.attrelid = ${t}::regclass AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = ''
        ORDER BY a.attnum`
      const exprs: string[] = []
      for (const c of columns) {
        const col = `t.${quote(c.name)}`
        const parent = c.refers_to === null ? undefined : copies.get(c.refers_to.replace(/"/g, ''))
        if (c.name === 'workspace_id') exprs.push(col)
        else if (c.type === 'text' && parent !== undefined) exprs.push(parent ? `${col} || '_' || ((g - 1) % ${parent} + 1)` : col)
        else if (c.type === 'text' && c.is_unique) exprs.push(`${col} || '_' || g`)
        else if ((c.type === 'bigint' || c.type === 'integer') && c.is_unique && c.refers_to === null) {
          const [m] = await tx.unsafe(`SELECT COALESCE(max(${quote(c.name)}), 0) + 1 AS m FROM ${quote(t)} WHERE workspace_id = $1`, [workspaceId])
          exprs.push(`${col} + g * ${Number(m!.m)}`)
        } else exprs.push(col)
      }
      const names = columns.map((c) => quote(c.name)).join(', ')
      await tx.savepoint((sp) =>
        sp.unsafe(
          `INSERT INTO ${quote(t)} (${names}) SELECT ${exprs.join(', ')} FROM ${quote(t)} t CROSS JOIN generate_series(1, ${k}) g
           WHERE t.workspace_id = $1 ON CONFLICT DO NOTHING`,
          [workspaceId],
        ),
      ).catch((err) => {
        // A key the catalog cannot vary (a CHECK on it, e.g. allowance names): the table keeps its
        // rows. Anything else is a seed that did not grow what it says it grew.
        if ((err as { code?: string }).code !== '23514') throw new Error(`growing ${t}: ${(err as Error).message}`)
      })
    }
    // What the loaded rows imply (the triggers that keep it were off): the next event follows the
    // last one; the counters hold the workspace's contacts and each opportunity's signals.
    await tx`UPDATE workspaces SET event_seq = GREATEST(event_seq, (SELECT COALESCE(max(seq), 0) FROM events WHERE workspace_id = ${workspaceId}))
             WHERE workspace_id = ${workspaceId}`
    await tx`INSERT INTO contact_counts (workspace_id, held) SELECT ${workspaceId}, count(*) FROM contacts WHERE workspace_id = ${workspaceId}
             ON CONFLICT (workspace_id) DO UPDATE SET held = EXCLUDED.held`
    // Every rollup a migration keeps by trigger has a rebuild_<name>_rollups(workspace_id) function
    // (the migration backfills with it too): each is run, so a new rollup is grown without touching this file.
    const rebuilds = await tx<{ name: string }[]>`
      SELECT p.proname AS name FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
      WHERE n.nspname = current_schema() AND p.proname LIKE 'rebuild\\_%\\_rollups' ORDER BY 1`
    for (const r of rebuilds) await tx.unsafe(`SELECT ${quote(r.name)}($1)`, [workspaceId])
    await tx`UPDATE opportunities o SET signal_count = (SELECT count(*) FROM signals s WHERE s.workspace_id = o.workspace_id AND s.opportunity_id = o.id)
             WHERE o.workspace_id = ${workspaceId}`
  })
  for (const t of tables) {
    const [row] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM ${sql(t)} WHERE workspace_id = ${workspaceId}`
    counts[t] = row!.n
  }
  await sql`ANALYZE`
  return counts
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`
