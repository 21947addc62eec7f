import { createHash } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Sql } from './db.ts'

const MIGRATIONS_DIR = join(import.meta.dir, '..', 'migrations')
// Any fixed number: the advisory lock every migrating process takes, so they migrate once.
const MIGRATION_LOCK = 7_340_211

export type MigrationResult = {
  applied: string[]
  alreadyApplied: number
  /** Migrations this database applied as other text than their file holds now: edited after they were applied. */
  edited: string[]
}

/**
 * What a migration is recorded with: the SHA-256 of its text, line endings made LF first (a checkout
 * on Windows may turn them to CRLF, which changes no statement).
 */
export function migrationChecksum(text: string): string {
  return createHash('sha256').update(text.replace(/\r\n/g, '\n')).digest('hex')
}

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
 * schema_migrations with its checksum. Every transaction takes the same advisory lock and re-reads
 * what is applied, so several processes starting at once apply each migration exactly once. A
 * database holding a migration this version does not have is refused (NewerSchemaError), before
 * anything is applied. A migration whose file no longer matches the checksum it was applied with is
 * named in `edited` (the database keeps the schema of the text it applied; a change is a new
 * migration): said, not refused. Migrations applied before checksums were kept get their file's.
 */
export async function migrate(sql: Sql): Promise<MigrationResult> {
  const files = readdirSync(MIGRATIONS_DIR).filter((f) => f.endsWith('.sql')).sort()
  const texts = new Map(files.map((f) => [f, readFileSync(join(MIGRATIONS_DIR, f), 'utf8')]))
  const sums = new Map(files.map((f) => [f, migrationChecksum(texts.get(f)!)]))
  // A start on an up-to-date database (nearly every start) costs one statement, not a transaction
  // per file: a migration recorded as applied stays applied, so only the others need the lock.
  const known = await appliedMigrations(sql)
  const unknown = [...known.keys()].filter((name) => !files.includes(name)).sort()
  if (unknown.length) throw new NewerSchemaError(unknown, files.at(-1))
  const edited = [...known].filter(([name, sum]) => sum !== null && sum !== sums.get(name)).map(([name]) => name).sort()
  const unsummed = [...known].filter(([, sum]) => sum === null).map(([name]) => name)
  const pending = files.filter((f) => !known.has(f))
  if (pending.length === 0 && unsummed.length === 0) return { applied: [], alreadyApplied: files.length, edited }
  await sql`CREATE TABLE IF NOT EXISTS schema_migrations (
    name text PRIMARY KEY,
    applied_at timestamptz NOT NULL DEFAULT now(),
    checksum text
  )`.catch(async (err) => {
    // Two processes creating the table at the same instant: one loses the race; the table exists.
    if (!String(err?.message).includes('already exists') && err?.code !== '23505') throw err
  })
  // The table of a version before checksums has no such column; the migrations such a version
  // applied are recorded with their files' text as this version has it (what it applied then is not
  // known). Under the lock, so that processes starting at once do it once.
  await sql.begin(async (tx) => {
    await tx`SET LOCAL statement_timeout = 0`
    await tx`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`
    await tx`ALTER TABLE schema_migrations ADD COLUMN IF NOT EXISTS checksum text`
    for (const name of unsummed) await tx`UPDATE schema_migrations SET checksum = ${sums.get(name)!} WHERE name = ${name} AND checksum IS NULL`
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
      await tx.unsafe(texts.get(name)!)
      await tx`INSERT INTO schema_migrations (name, checksum) VALUES (${name}, ${sums.get(name)!})`
      return true
    })
    if (done) applied.push(name)
    else alreadyApplied++
  }
  return { applied, alreadyApplied, edited }
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

/**
 * What a start or command says of migrations edited after this database applied them (the server's
 * log and every `growth admin` command, as a warning). Undefined when there are none.
 */
export function migrationsEditedNotice(result: MigrationResult): string | undefined {
  const n = result.edited.length
  if (n === 0) return undefined
  return (
    `${n === 1 ? 'Migration' : 'Migrations'} ${result.edited.join(', ')} ${n === 1 ? 'differs' : 'differ'} from the text this database applied ` +
    '(edited after it was applied): the database keeps the schema that text made, and the edit was never applied here. ' +
    'Put the change back as it was and make it a new migration.'
  )
}

/**
 * The migrations recorded in schema_migrations, each with its checksum (null where none was kept:
 * applied by a version before checksums, or a table made before them); none when the table does not
 * exist yet.
 */
async function appliedMigrations(sql: Sql): Promise<Map<string, string | null>> {
  try {
    const rows = await sql<{ name: string; checksum: string | null }[]>`SELECT name, checksum FROM schema_migrations`
    return new Map(rows.map((r) => [r.name, r.checksum]))
  } catch (err) {
    const code = (err as { code?: string }).code
    if (code === '42P01') return new Map()
    if (code !== '42703') throw err
  }
  // The table of a version before checksums: no such column yet.
  const rows = await sql<{ name: string }[]>`SELECT name FROM schema_migrations`
  return new Map(rows.map((r) => [r.name, null]))
}
