import { expect, test } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import postgres from 'postgres'
import { openDatabase } from '../../server/src/store/driver/db.ts'
import { migrate } from '../../server/src/store/driver/migrate.ts'

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
      expect(again).toEqual({ applied: [], alreadyApplied: first.applied.length })
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
      expect(again).toEqual({ applied: [], alreadyApplied: first.applied.length })
      expect(statements).toEqual([expect.stringContaining('schema_migrations')])
    } finally {
      await sql.end()
      await owner.close()
    }
  }
}, 60_000)
