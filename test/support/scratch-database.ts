import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openPool } from '../../server/src/store/driver/db.ts'

/** A database of a test's own: `databaseUrl` on the PostgreSQL server, else an embedded `dataDir`; `drop` removes it. */
export type ScratchDatabase = { databaseUrl?: string; dataDir?: string; drop(): Promise<void> }

/**
 * A new, empty database for a test that drives a server of its own: on the PostgreSQL server at
 * `serverUrl` (made beside the suite's database, named `<prefix>_<pid>_<time>`), or, without one, an
 * embedded database in a new temporary folder.
 */
export async function scratchDatabase(serverUrl: string | undefined, prefix: string): Promise<ScratchDatabase> {
  if (!serverUrl) {
    const dataDir = mkdtempSync(join(tmpdir(), `${prefix.replace(/_/g, '-')}-`))
    return { dataDir, drop: async () => rmSync(dataDir, { recursive: true, force: true }) }
  }
  const name = `${prefix}_${process.pid}_${Date.now()}`
  const admin = openPool(serverUrl, { max: 1, timeouts: { statementMs: 0 } })
  await admin.unsafe(`CREATE DATABASE ${name}`)
  const url = new URL(serverUrl)
  url.pathname = `/${name}`
  return {
    databaseUrl: url.toString(),
    drop: async () => {
      await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      await admin.end()
    },
  }
}
