import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Sql } from './db.ts'

const MIGRATIONS_DIR = join(import.meta.dir, '..', 'migrations')
// Any fixed number: the advisory lock every migrating process takes, so they migrate once.
const MIGRATION_LOCK = 7_340_211

export type MigrationResult = { applied: string[]; alreadyApplied: number }

/**
 * The database holds migrations this version does not have: a newer version migrated it (a rollback,
 * or an old binary started beside upgraded ones). This version would misread that schema, so it stops.
 */
export class NewerSchemaError extends Error {
  readonly code = 'SCHEMA_NEWER'
  constructor(unknown: string[], newest: string | undefined) {
    super(
      `This database was migrated by a newer version of the service: it holds ${unknown.length === 1 ? 'migration' : 'migrations'} ${unknown.join(', ')}, ` +
        `which this version does not have (its newest is ${newest ?? 'none'}). Run that newer version (or a later one) against it, ` +
        'or restore the backup taken before it migrated to go back to this version.',
    )
  }
}

/**
 * Apply the SQL files of migrations/ in name order, each in its own transaction, recorded in
 * schema_migrations. Every transaction takes the same advisory lock and re-reads what is applied,
 * so several processes starting at once apply each migration exactly once. A database holding a
 * migration this version does not have is refused (NewerSchemaError), before anything is applied.
 */
export async function migrate(sql: Sql): Promise<MigrationResult> {
  const files = readdirSync(MIGRATIONS_DIR).filter((f) => f.endsWith('.sql')).sort()
  // A start on an up-to-date database (nearly every start) costs one statement, not a transaction
  // per file: a migration recorded as applied stays applied, so only the others need the lock.
  const known = await appliedMigrations(sql)
  const unknown = [...known].filter((name) => !files.includes(name)).sort()
  if (unknown.length) throw new NewerSchemaError(unknown, files.at(-1))
  const pending = files.filter((f) => !known.has(f))
  if (pending.length === 0) return { applied: [], alreadyApplied: files.length }
  await sql`CREATE TABLE IF NOT EXISTS schema_migrations (
    name text PRIMARY KEY,
    applied_at timestamptz NOT NULL DEFAULT now()
  )`.catch(async (err) => {
    // Two processes creating the table at the same instant: one loses the race; the table exists.
    if (!String(err?.message).includes('already exists') && err?.code !== '23505') throw err
  })
  const applied: string[] = []
  let alreadyApplied = files.length - pending.length
  for (const name of pending) {
    const done = await sql.begin(async (tx) => {
      // A migration may rewrite a large table: no statement time-out (docs/operations.md).
      await tx`SET LOCAL statement_timeout = 0`
      await tx`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`
      const [row] = await tx`SELECT 1 FROM schema_migrations WHERE name = ${name}`
      if (row) return false
      await tx.unsafe(readFileSync(join(MIGRATIONS_DIR, name), 'utf8'))
      await tx`INSERT INTO schema_migrations (name) VALUES (${name})`
      return true
    })
    if (done) applied.push(name)
    else alreadyApplied++
  }
  return { applied, alreadyApplied }
}

/**
 * What a start that migrated says (the server's log, `growth worker`): which migrations it applied,
 * so an operator upgrading sees the database changed and can tell which version did it. Undefined
 * when nothing was applied.
 */
export function migrationsAppliedNotice(result: MigrationResult): string | undefined {
  const n = result.applied.length
  if (n === 0) return undefined
  const before = result.alreadyApplied ? `; ${result.alreadyApplied} applied before` : ' to a new database'
  return `Migrated the database: applied ${n} ${n === 1 ? 'migration' : 'migrations'} (${result.applied.join(', ')})${before}.`
}

/** The names recorded in schema_migrations; none when the table does not exist yet. */
async function appliedMigrations(sql: Sql): Promise<Set<string>> {
  try {
    const rows = await sql<{ name: string }[]>`SELECT name FROM schema_migrations`
    return new Set(rows.map((r) => r.name))
  } catch (err) {
    if ((err as { code?: string }).code === '42P01') return new Set()
    throw err
  }
}
