import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadConfig } from '../../server/src/config.ts'
import { createLogger } from '../../server/src/core/log.ts'
import { type RunningServer, startServer } from '../../server/src/server.ts'
import { type Database, openDatabase } from '../../server/src/store/driver/db.ts'
import { scratchDatabase } from '../support/scratch-database.ts'

export type InProcessServer = { db: Database; server: RunningServer; close(): Promise<void> }

/**
 * A server in the benchmark's own process (webhook workers off), on a database of its own: a new
 * one beside DATABASE_URL's on that server, or, without it, an embedded one in a new temporary
 * directory. `close` stops the server, closes the database and drops it.
 */
export async function inProcessServer(prefix: string): Promise<InProcessServer> {
  const scratch = await scratchDatabase(process.env.DATABASE_URL, prefix)
  // A server on a PostgreSQL server still keeps its files (the secrets key) in a DATA_DIR.
  const dataDir = scratch.dataDir ?? mkdtempSync(join(tmpdir(), `${prefix.replace(/_/g, '-')}-`))
  const db = await openDatabase({ databaseUrl: scratch.databaseUrl, dataDir, poolMax: 4 })
  const config = loadConfig({ ...process.env, DATABASE_URL: scratch.databaseUrl ?? '', DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', WEBHOOK_WORKERS: '0' })
  const server = await startServer(config, { db, log: createLogger('warn') })
  let closed = false
  return {
    db,
    server,
    async close() {
      if (closed) return
      closed = true
      await server.stop()
      await db.close()
      await scratch.drop()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}
