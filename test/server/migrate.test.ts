import { expect, test } from 'bun:test'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import postgres from 'postgres'
import { openDatabase } from '../../server/src/store/driver/db.ts'
import { migrate, migrationChecksum } from '../../server/src/store/driver/migrate.ts'
import { growthIn } from '../cli/run.ts'
import { MIGRATION_FILES, MIGRATIONS, migratedAsOlderRelease } from '../support/older-schema.ts'
import { scratchDatabase } from '../support/scratch-database.ts'
import { startServerProcess } from '../support/server-process.ts'

const FILES = MIGRATION_FILES
const checksumOf = (name: string) => migrationChecksum(readFileSync(join(MIGRATIONS, name), 'utf8'))

test('several processes migrating one fresh database at once apply each migration exactly once', async () => {
  if (process.env.DATABASE_URL) {
    const admin = postgres(process.env.DATABASE_URL, { max: 1, onnotice: () => {} })
    const name = `growth_migrate_${Date.now()}_${Math.floor(Math.random() * 1e6)}`
    await admin.unsafe(`CREATE DATABASE ${name}`)
    const url = new URL(process.env.DATABASE_URL)
    url.pathname = `/${name}`
    const dbs = await Promise.all([1, 2, 3].map(() => openDatabase({ databaseUrl: url.toString(), dataDir: '', poolMax: 2 })))
    try {
      const results = await Promise.all(dbs.map((db) => migrate(db.sql)))
      const applied = results.flatMap((r) => r.applied)
      expect(applied.sort()).toEqual([...new Set(applied)].sort())
      expect(applied.length).toBeGreaterThan(0)
      const [row] = await dbs[0]!.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM schema_migrations`
      expect(row!.n).toBe(applied.length)
    } finally {
      await Promise.all(dbs.map((db) => db.close()))
      await admin.unsafe(`DROP DATABASE ${name}`)
      await admin.end()
    }
  } else {
    const dataDir = mkdtempSync(join(tmpdir(), 'growth-migrate-'))
    const owner = await openDatabase({ dataDir })
    // a second process's view of the same embedded database: through the owner's socket
    const client = await openDatabase({ dataDir })
    expect(client.kind).toBe('embedded-owner' === owner.kind ? 'embedded-client' : 'embedded-owner')
    try {
      const results = await Promise.all([migrate(owner.sql), migrate(client.sql), migrate(owner.sql)])
      const applied = results.flatMap((r) => r.applied)
      expect(applied.length).toBeGreaterThan(0)
      expect(applied.sort()).toEqual([...new Set(applied)].sort())
      const again = await migrate(client.sql)
      expect(again.applied).toEqual([])
    } finally {
      await client.close()
      await owner.close()
    }
  }
}, 60_000)

test('every created_at is kept to the millisecond: a list position (a JavaScript Date) equals the row it came from', async () => {
  const { getHarness } = await import('../harness.ts')
  const { sql } = await getHarness()
  const columns = await sql<{ table_name: string; datetime_precision: number | null }[]>`
    SELECT table_name, datetime_precision FROM information_schema.columns
    WHERE table_schema = current_schema() AND column_name = 'created_at' ORDER BY table_name`
  expect(columns.length).toBeGreaterThan(10)
  expect(columns.filter((c) => c.datetime_precision !== 3).map((c) => c.table_name)).toEqual([])
})

test('a start on an up-to-date database checks its migrations with one statement', async () => {
  let statements: string[] = []
  const debug = (_connection: number, query: string) => void statements.push(query)
  const quiet = { onnotice: () => {}, max: 1, debug }
  if (process.env.DATABASE_URL) {
    const admin = postgres(process.env.DATABASE_URL, { max: 1, onnotice: () => {} })
    const name = `growth_migrate_${Date.now()}_${Math.floor(Math.random() * 1e6)}`
    await admin.unsafe(`CREATE DATABASE ${name}`)
    const url = new URL(process.env.DATABASE_URL)
    url.pathname = `/${name}`
    const sql = postgres(url.toString(), quiet)
    try {
      const first = await migrate(sql as never)
      expect(first.applied.length).toBeGreaterThan(0)
      statements = []
      const again = await migrate(sql as never)
      expect(again).toEqual({ applied: [], alreadyApplied: first.applied.length, edited: [] })
      expect(statements).toEqual([expect.stringContaining('schema_migrations')])
    } finally {
      await sql.end()
      await admin.unsafe(`DROP DATABASE ${name}`)
      await admin.end()
    }
  } else {
    const dataDir = mkdtempSync(join(tmpdir(), 'growth-migrate-'))
    const owner = await openDatabase({ dataDir })
    const sql = postgres({ ...quiet, path: join(dataDir, '.s.PGSQL.5432'), user: 'postgres', database: 'postgres', prepare: false })
    try {
      const first = await migrate(sql as never)
      expect(first.applied.length).toBeGreaterThan(0)
      statements = []
      const again = await migrate(sql as never)
      expect(again).toEqual({ applied: [], alreadyApplied: first.applied.length, edited: [] })
      expect(statements).toEqual([expect.stringContaining('schema_migrations')])
    } finally {
      await sql.end()
      await owner.close()
    }
  }
}, 60_000)

test('a migration is recorded with the SHA-256 of its text, its line endings made LF first', () => {
  expect(migrationChecksum('SELECT 1;\r\nSELECT 2;\r\n')).toBe(migrationChecksum('SELECT 1;\nSELECT 2;\n'))
  expect(migrationChecksum('SELECT 1;\n')).toBe(new Bun.CryptoHasher('sha256').update('SELECT 1;\n').digest('hex'))
  expect(migrationChecksum('SELECT 1;\n')).not.toBe(migrationChecksum('SELECT 2;\n'))
})

test('a database migrated before checksums were kept gets each applied migration recorded with its file\'s, and the rest applied with theirs', async () => {
  const scratch = await scratchDatabase(process.env.DATABASE_URL, 'growth_migrate_sums')
  const db = await openDatabase(scratch.databaseUrl ? { databaseUrl: scratch.databaseUrl, dataDir: '', poolMax: 2 } : { dataDir: scratch.dataDir! })
  try {
    // As a version before checksums left it: its own table, the first ten migrations applied.
    await migratedAsOlderRelease(db.sql, FILES.slice(0, 10))
    const result = await migrate(db.sql)
    expect(result).toEqual({ applied: FILES.slice(10), alreadyApplied: 10, edited: [] })
    const rows = await db.sql<{ name: string; checksum: string | null }[]>`SELECT name, checksum FROM schema_migrations ORDER BY name`
    expect([...rows]).toEqual(FILES.map((name) => ({ name, checksum: checksumOf(name) })))
    expect(await migrate(db.sql)).toEqual({ applied: [], alreadyApplied: FILES.length, edited: [] })
  } finally {
    await db.close()
    await scratch.drop()
  }
}, 60_000)

test('a migration edited after this database applied it is named by the server\'s start (a warn) and by every growth admin command, and nothing is changed or refused', async () => {
  const scratch = await scratchDatabase(process.env.DATABASE_URL, 'growth_migrate_edited')
  const dataDir = scratch.dataDir ?? mkdtempSync(join(tmpdir(), 'growth-migrate-edited-'))
  const env = { DATABASE_URL: scratch.databaseUrl ?? '', DATA_DIR: dataDir }
  const [first, second] = [FILES[0]!, FILES[7]!]
  try {
    const db = await openDatabase(scratch.databaseUrl ? { databaseUrl: scratch.databaseUrl, dataDir: '', poolMax: 2 } : { dataDir })
    try {
      expect((await migrate(db.sql)).edited).toEqual([])
      // What this database applied was other text than these files hold now.
      await db.sql`UPDATE schema_migrations SET checksum = ${migrationChecksum('-- the text as it was applied\n')} WHERE name IN (${first}, ${second})`
      expect(await migrate(db.sql)).toEqual({ applied: [], alreadyApplied: FILES.length, edited: [first, second] })
    } finally {
      await db.close()
    }
    const said = `Migrations ${first}, ${second} differ from the text this database applied (edited after it was applied): the database keeps the schema that text made, and the edit was never applied here. Put the change back as it was and make it a new migration.`

    const server = await startServerProcess({ ...env, LOG_FORMAT: 'json', LOG_LEVEL: 'info', WEBHOOK_WORKERS: '0' })
    try {
      const warns = server.stdout().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { level: string; msg: string }).filter((l) => l.level === 'warn')
      expect(warns.map((l) => l.msg)).toContain(said)
      expect((await fetch(server.base)).status).toBe(200)
    } finally {
      server.proc.kill('SIGTERM')
      await server.proc.exited
    }

    const growth = growthIn(dataDir)
    const plain = await growth(['admin', 'migrate'], env)
    expect(plain.code, plain.stderr).toBe(0)
    expect(plain.stderr).toBe(`warning: ${said}\n`)
    expect(plain.stdout).toContain('is up to date')
    const json = await growth(['admin', 'migrate', '--json'], env)
    expect(json.code, json.stderr).toBe(0)
    expect(JSON.parse(json.stdout)).toEqual({ applied: [], alreadyApplied: FILES.length, edited: [first, second] })
    const other = await growth(['admin', 'workspace', 'list'], env)
    expect(other.code, other.stderr).toBe(0)
    expect(other.stderr).toContain(`warning: ${said}`)
  } finally {
    await scratch.drop()
  }
}, 120_000)
