import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Sql } from '../../server/src/store/driver/db.ts'

/** The service's migrations: their folder, and their files in the order they apply. */
export const MIGRATIONS = join(import.meta.dir, '../../server/src/store/migrations')
export const MIGRATION_FILES = readdirSync(MIGRATIONS).filter((f) => f.endsWith('.sql')).sort()

/**
 * An empty database made as an older release left it: `names` applied, each in a transaction, and
 * recorded in schema_migrations by name alone (the table as it was before checksums were kept).
 * The migrations of this release then find it as an upgrade finds it.
 */
export async function migratedAsOlderRelease(sql: Sql, names: string[]): Promise<void> {
  await sql`CREATE TABLE schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`
  for (const name of names) {
    await sql.begin(async (tx) => {
      await tx.unsafe(readFileSync(join(MIGRATIONS, name), 'utf8'))
      await tx`INSERT INTO schema_migrations (name) VALUES (${name})`
    })
  }
}
