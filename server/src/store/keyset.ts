import type { Db } from '../core/db.ts'
import type { TimePosition } from '../core/paging.ts'

/**
 * The keyset conditions of lists ordered by (created_at, id): `AND` the rows that come after `pos`
 * in the list's order; nothing without a position. `alias` names the table when the query joins
 * others. Every such list has an index (workspace_id, created_at, id) that serves it either way.
 */
export function olderThan(sql: Db, pos: TimePosition | undefined, alias?: string) {
  if (!pos) return sql``
  const [at, id] = columns(sql, alias)
  return sql`AND (${at}, ${id}) < (${pos.t}::timestamptz, ${pos.id})`
}

export function newerThan(sql: Db, pos: TimePosition | undefined, alias?: string) {
  if (!pos) return sql``
  const [at, id] = columns(sql, alias)
  return sql`AND (${at}, ${id}) > (${pos.t}::timestamptz, ${pos.id})`
}

function columns(sql: Db, alias: string | undefined) {
  return alias ? [sql`${sql(alias)}.created_at`, sql`${sql(alias)}.id`] : [sql`created_at`, sql`id`]
}

/** Many rows into one table, a few hundred at a time (bulk loads: the demo, imports of history). */
export async function insertRows(tx: Db, table: string, rows: Record<string, unknown>[], chunk = 500) {
  for (let i = 0; i < rows.length; i += chunk) {
    await tx`INSERT INTO ${tx(table)} ${tx(rows.slice(i, i + chunk) as never)}`
  }
}
