import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server, type Socket } from 'node:net'
import { join } from 'node:path'
import postgres from 'postgres'
import type { Db, Sql, Tx } from '../core/db.ts'
import { BatchingQueryQueue } from './embedded-queue.ts'
import { embeddedOptions, releaseInitdbMemory, startHeapGuard } from './embedded-memory.ts'

export type { Db, Sql, Tx }

/**
 * Runs `fn` in a transaction of its own, or, when already inside one, in a savepoint of it: an
 * operation that must be atomic stays atomic when a caller composes it into a larger transaction.
 */
export function inTransaction<T>(db: Db, fn: (tx: Tx) => Promise<T>): Promise<T> {
  return ('savepoint' in db ? db.savepoint(fn) : (db as Sql).begin(fn)) as Promise<T>
}

/**
 * One database handle for the whole process, whatever serves it:
 * - `server`: a PostgreSQL server at DATABASE_URL, with a pool;
 * - `embedded-owner`: this process runs PGlite on DATA_DIR and serves it on a unix socket in that
 *   directory, so other processes (the CLI while the server runs) can reach the same database;
 * - `embedded-client`: another process already owns DATA_DIR; we connect to its socket.
 * In every case the code talks to it through postgres.js and the same SQL.
 */
export type Database = {
  sql: Sql
  kind: 'server' | 'embedded-owner' | 'embedded-client'
  /** True when this process created the embedded database just now (it was empty). */
  freshEmbedded: boolean
  close(): Promise<void>
}

export type DatabaseOptions = {
  databaseUrl?: string
  dataDir: string
  poolMax?: number
}

const common: postgres.Options<Record<string, postgres.PostgresType>> = {
  // The server's NOTICE messages (e.g. "relation already exists") are not ours to print.
  onnotice: () => {},
  // int8 columns come back as JS numbers: every count and minor-unit amount here fits in 2^53.
  types: {
    bigint: { to: 20, from: [20], serialize: (x: number) => String(x), parse: (x: string) => Number(x) },
  },
  transform: { undefined: null },
}

export async function openDatabase(opts: DatabaseOptions): Promise<Database> {
  if (opts.databaseUrl) {
    const sql = openPool(opts.databaseUrl, { max: opts.poolMax ?? 10 })
    return { sql, kind: 'server', freshEmbedded: false, close: () => sql.end({ timeout: 5 }) }
  }
  return openEmbedded(opts.dataDir)
}

/**
 * A postgres.js pool on a PostgreSQL server, with the shared type and transform options.
 * `synchronousCommit: false` makes the pool's commits not wait for the WAL flush (counters only).
 */
export function openPool(
  url: string,
  opts: { max: number; synchronousCommit?: boolean; name?: string; debug?: (connection: number, query: string, params: unknown[]) => void },
): Sql {
  return postgres(url, {
    ...common,
    max: opts.max,
    ...(opts.debug ? { debug: opts.debug } : {}),
    idle_timeout: 30,
    connection: {
      application_name: opts.name ?? 'growth-service',
      ...(opts.synchronousCommit === false ? { synchronous_commit: 'off' } : {}),
    },
  }) as unknown as Sql
}

function socketPath(dataDir: string) {
  return join(dataDir, '.s.PGSQL.5432')
}

function lockPath(dataDir: string) {
  return join(dataDir, 'owner.lock')
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}

function connectSocket(path: string): Sql {
  const sql = postgres({
    ...common,
    path,
    user: 'postgres',
    database: 'postgres',
    max: 1,
    // Unnamed statements only: the embedded session is shared by every connection.
    prepare: false,
  }) as unknown as Sql
  return sql
}

/** The embedded databases this process owns right now (by DATA_DIR). */
const ownedHere = new Set<string>()

async function openEmbedded(dataDir: string): Promise<Database> {
  mkdirSync(dataDir, { recursive: true })
  const lock = lockPath(dataDir)
  for (let attempt = 0; attempt < 50; attempt++) {
    try {
      writeFileSync(lock, String(process.pid), { flag: 'wx' })
      return await becomeOwner(dataDir, lock)
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
    }
    const pid = Number(readFileSync(lock, 'utf8').trim())
    // Our own pid in the lock is live only if this process really owns the directory now: a process
    // restarted after a crash (in a container, often with the same pid) must take the stale lock over.
    const live = pid === process.pid ? ownedHere.has(dataDir) : Number.isInteger(pid) && pid > 0 && processAlive(pid)
    if (live) {
      // Another process owns the database; wait for its socket, then use it.
      for (let i = 0; i < 100 && !existsSync(socketPath(dataDir)); i++) await Bun.sleep(100)
      if (existsSync(socketPath(dataDir))) {
        const sql = connectSocket(socketPath(dataDir))
        return { sql, kind: 'embedded-client', freshEmbedded: false, close: () => sql.end({ timeout: 5 }) }
      }
      // The owner is alive but still starting (a fresh database's first start, on a busy machine,
      // can take longer than the wait): keep waiting. Taking a live owner's lock would open the
      // same files in a second PGlite, which aborts both.
      continue
    }
    // A stale lock left by a process that died: take it over.
    rmSync(lock, { force: true })
  }
  throw new Error(`Could not open the embedded database in ${dataDir}: its lock file keeps changing hands`)
}

async function becomeOwner(dataDir: string, lock: string): Promise<Database> {
  const { PGlite } = await import('@electric-sql/pglite')
  const { PGLiteSocketHandler } = await import('@electric-sql/pglite-socket')
  const pgdata = join(dataDir, 'pgdata')
  const freshEmbedded = !existsSync(join(pgdata, 'PG_VERSION'))
  let db: InstanceType<typeof PGlite>
  try {
    db = await PGlite.create(pgdata, embeddedOptions(PGlite.defaultStartParams))
  } catch (err) {
    rmSync(lock, { force: true })
    throw err
  }
  if (freshEmbedded) await releaseInitdbMemory()
  const stopHeapGuard = startHeapGuard()
  const queue = new BatchingQueryQueue(db)
  const path = socketPath(dataDir)
  rmSync(path, { force: true })
  const handlers = new Set<InstanceType<typeof PGLiteSocketHandler>>()
  const server: Server = createServer((socket: Socket) => {
    const handler = new PGLiteSocketHandler({ db, closeOnDetach: true, queryQueue: queue as never } as never)
    handlers.add(handler)
    handler.addEventListener('close', () => handlers.delete(handler))
    handler.addEventListener('error', () => handlers.delete(handler))
    handler.attach(socket).catch(() => socket.destroy())
  })
  await new Promise<void>((res, rej) => {
    server.once('error', rej)
    server.listen(path, () => res())
  })
  ownedHere.add(dataDir)
  const sql = connectSocket(path)
  let closed = false
  return {
    sql,
    kind: 'embedded-owner',
    freshEmbedded,
    async close() {
      if (closed) return
      closed = true
      await sql.end({ timeout: 5 })
      // Other processes (the CLI) may be mid-command through our socket: stop accepting new
      // connections and give the open ones time to finish before the database goes away.
      const closing = new Promise<void>((res) => server.close(() => res()))
      for (let waited = 0; handlers.size > 0 && waited < 15_000; waited += 50) await Bun.sleep(50)
      for (const h of handlers) h.detach(true)
      await closing
      await db.close()
      stopHeapGuard()
      rmSync(path, { force: true })
      rmSync(lock, { force: true })
      ownedHere.delete(dataDir)
    },
  }
}
