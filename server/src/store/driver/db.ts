import { chmodSync, existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { createServer, type Server, type Socket } from 'node:net'
import { join } from 'node:path'
import postgres from 'postgres'
import type { Db, Sql, Tx } from '../../core/db.ts'
import { BatchingQueryQueue, RETURNING_CLIENT } from './embedded-queue.ts'
import { countPool } from './pool-use.ts'
import { trackQueries, transactionInTime } from './request-scope.ts'
import { createEmbeddedFiles, embeddedOptions, startHeapGuard } from './embedded-memory.ts'
import { type MaintenancePass, startMaintenance } from './embedded-maintenance.ts'
import { holdOwnerOnly, OWNER_FILE_MODE, ownerOnlyDataDir, ownerOnlyTree } from './embedded-permissions.ts'

export type { Db, Sql, Tx }
export { RETURNING_CLIENT }

/**
 * Runs `fn` in a transaction of its own, or, when already inside one, in a savepoint of it: an
 * operation that must be atomic stays atomic when a caller composes it into a larger transaction.
 * A transaction of its own, in a request, commits only within the request's time
 * (transactionInTime): a request answered 500 for its time has not done it.
 */
export function inTransaction<T>(db: Db, fn: (tx: Tx) => Promise<T>): Promise<T> {
  return ('savepoint' in db ? db.savepoint(fn) : transactionInTime(db as Sql, fn)) as Promise<T>
}

/**
 * Returns once everything this process committed before the call is on disk: a transaction with
 * an id commits through `sql` (synchronous_commit on), and its commit's WAL flush covers every
 * earlier commit, those made through a pool with synchronous_commit off included. Such barriers
 * from requests running at once share their flushes (group commit) and lock no row.
 */
export async function waitForFlush(sql: Sql): Promise<void> {
  await sql`SELECT pg_current_xact_id()`
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
  /** For `embedded-client`: the process that owns the embedded database and serves it to us. */
  ownerPid?: number
  /** True when this process created the embedded database just now (it was empty). */
  freshEmbedded: boolean
  /**
   * The owner of an embedded database vacuums and analyzes it itself (PGlite has no autovacuum,
   * store/driver/embedded-maintenance.ts): a pass now, and what it did. Absent elsewhere.
   */
  maintain?: () => Promise<MaintenancePass>
  /**
   * An embedded database opened here with `handsOver` (`growth worker`, started before `npm start`):
   * `asked` is called when a server's start asks for it (askOwnerToHandOver), at once if it already
   * has; the process answers with `handOver` once ready. Absent elsewhere.
   */
  whenAskedToHandOver?: (asked: () => void) => void
  /**
   * Closes the embedded database as `close` does, letting the lock go, but keeps `sql`: its
   * connection comes back through the socket of whichever process opens the database next (the
   * server that asked), as an attached worker's does. `close` afterwards only ends `sql`.
   */
  handOver?: () => Promise<void>
  close(): Promise<void>
}

/** Called with each statement a connection sends and its parameters (postgres.js `debug`). */
export type StatementTrace = (connection: number, query: string, params: unknown[], types: number[]) => void

type DatabaseOptions = {
  databaseUrl?: string
  dataDir: string
  poolMax?: number
  timeouts?: Partial<DatabaseTimeouts>
  /** Records every statement sent (test/server/query-cost.test.ts EXPLAINs them). */
  debug?: StatementTrace
  /** Told of a failed maintenance pass of an embedded database (the next pass tries again). */
  onMaintenanceError?: (error: unknown) => void
  /**
   * The application_name of this process's connections (default `growth-service`): what
   * pg_stat_activity shows. `growth worker`'s (RETURNING_CLIENT) also tells an embedded database's
   * owner that it comes back by itself, so an owner that closes does not wait for it.
   */
  name?: string
  /**
   * Opened here, the embedded database is given up when a server's start asks for it
   * (`growth worker`: the server takes it over and the worker goes on through its socket).
   */
  handsOver?: boolean
}

/**
 * Time bounds on a PostgreSQL server (docs/operations.md): every statement of the pool is cut off
 * by the server after `statementMs` (0: never), a transaction left waiting for its next statement
 * as long is ended by the server with its locks, and a connection that is not established within
 * `connectMs` fails, so a request never waits on a database that does not answer. (The embedded
 * PGlite runs each statement to its end in this process: none applies there.)
 */
export type DatabaseTimeouts = { statementMs: number; connectMs: number }
const DEFAULT_TIMEOUTS: DatabaseTimeouts = { statementMs: 10_000, connectMs: 2_000 }
const DEFAULT_NAME = 'growth-service'

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
    const sql = openPool(opts.databaseUrl, { max: opts.poolMax ?? 10, timeouts: opts.timeouts, debug: opts.debug, name: opts.name })
    return { sql, kind: 'server', freshEmbedded: false, close: () => sql.end({ timeout: 5 }) }
  }
  return openEmbedded(opts.dataDir, { name: opts.name ?? DEFAULT_NAME, debug: opts.debug, onMaintenanceError: opts.onMaintenanceError, handsOver: opts.handsOver })
}

/**
 * A postgres.js pool on a PostgreSQL server, with the shared type and transform options.
 * `synchronousCommit: false` makes the pool's commits not wait for the WAL flush (counters only).
 */
export function openPool(
  url: string,
  opts: {
    max: number
    synchronousCommit?: boolean
    name?: string
    timeouts?: Partial<DatabaseTimeouts>
    debug?: StatementTrace
  },
): Sql {
  const timeouts = { ...DEFAULT_TIMEOUTS, ...opts.timeouts }
  const sql = postgres(url, {
    ...common,
    max: opts.max,
    ...(opts.debug ? { debug: opts.debug } : {}),
    idle_timeout: 30,
    connect_timeout: timeouts.connectMs / 1000,
    // After a failed connection attempt postgres.js waits up to 20 s (growing with each failure)
    // before the next, and the queries given to that connection wait with it: while the database
    // is away every request would hang instead of failing. Retry soon; each attempt is cheap.
    backoff: () => 0.1,
    connection: {
      application_name: opts.name ?? DEFAULT_NAME,
      statement_timeout: timeouts.statementMs,
      // A process frozen inside a transaction (stopped, swapped out, its machine paused) would hold
      // its locks (an idempotency key's, a row's) against every other process until its connection
      // closed; the server ends such a transaction once it has waited as long as a statement may
      // run. A live process sends a transaction's statements one after another, milliseconds apart.
      // (test/faults/frozen-process.test.ts)
      idle_in_transaction_session_timeout: timeouts.statementMs,
      ...(opts.synchronousCommit === false ? { synchronous_commit: 'off' } : {}),
    },
  }) as unknown as Sql
  trackQueries(sql, { cancelRunning: true })
  countPool(sql)
  return sql
}

function socketPath(dataDir: string) {
  return join(dataDir, '.s.PGSQL.5432')
}

function lockPath(dataDir: string) {
  return join(dataDir, 'owner.lock')
}

/** Beside the lock, the pid of an owner that gives the database up when asked (DatabaseOptions.handsOver): asking any other process would end it (SIGUSR2). */
function handsOverPath(dataDir: string) {
  return join(dataDir, 'owner.hands-over')
}

/** The signal that asks an owner that offered to hand the database over. */
const HAND_OVER_SIGNAL = 'SIGUSR2'

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}

function connectSocket(path: string, name: string, debug?: StatementTrace): Sql {
  const sql = postgres({
    ...common,
    ...(debug ? { debug } : {}),
    path,
    user: 'postgres',
    database: 'postgres',
    connection: { application_name: name },
    max: 1,
    // Unnamed statements only: the embedded session is shared by every connection.
    prepare: false,
  }) as unknown as Sql
  // PGlite runs one statement at a time in this process and takes no cancel request: only the
  // queries still waiting for the connection are cancelled.
  trackQueries(sql, { cancelRunning: false })
  countPool(sql)
  return sql
}

/** How long a lock file may stay empty while its maker writes its pid (two system calls apart). */
const LOCK_WRITE_MS = 2_000

function lockAgeMs(lock: string): number {
  try {
    return Math.abs(Date.now() - statSync(lock).mtimeMs)
  } catch {
    return 0
  }
}

/** The pid written in the lock file (0 while empty, NaN when not a number), or undefined once the lock is gone. */
function lockHolder(lock: string): number | undefined {
  try {
    return Number(readFileSync(lock, 'utf8').trim())
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw err
  }
}

/** How a connection to an owner that is going away fails: its socket is gone, refuses, or hangs up. */
const OWNER_GONE = new Set(['ENOENT', 'ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED'])

/**
 * Connects to the owner's socket now, not at the command's first statement: an owner that closes
 * between our look at its lock and that statement (another growth command ending at the same
 * moment) would otherwise fail the command with nothing done. Once connected, the owner waits for
 * us as it closes. Undefined when the owner went away before we got in.
 */
async function connectToOwner(dataDir: string, name: string, debug?: StatementTrace): Promise<Sql | undefined> {
  const sql = connectSocket(socketPath(dataDir), name, debug)
  try {
    await sql`SELECT 1`
    return sql
  } catch (err) {
    await sql.end({ timeout: 0 }).catch(() => {})
    if (OWNER_GONE.has((err as { code?: string }).code ?? '')) return undefined
    throw err
  }
}

/** The embedded databases this process owns right now (by DATA_DIR). */
const ownedHere = new Set<string>()

type EmbeddedOptions = { name: string; debug?: StatementTrace | undefined; onMaintenanceError?: ((error: unknown) => void) | undefined; handsOver?: boolean | undefined }

async function openEmbedded(dataDir: string, opts: EmbeddedOptions): Promise<Database> {
  const { name, debug } = opts
  // Refused, before anything is written, when open to group or others; made 0700 when missing.
  ownerOnlyDataDir(dataDir)
  const lock = lockPath(dataDir)
  for (let attempt = 0; attempt < 50; attempt++) {
    try {
      writeFileSync(lock, String(process.pid), { flag: 'wx', mode: OWNER_FILE_MODE })
      return await becomeOwner(dataDir, lock, opts)
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
    }
    const pid = lockHolder(lock)
    // The owner let it go between our attempt and this read: try again.
    if (pid === undefined) continue
    // Made and not yet written (its maker between the create and the write, both of writeFileSync):
    // a new owner's, to wait for, unless it has stayed empty too long for that (its maker died there).
    if (pid === 0 && lockAgeMs(lock) < LOCK_WRITE_MS) {
      attempt--
      await Bun.sleep(10)
      continue
    }
    // Our own pid in the lock is live only if this process really owns the directory now: a process
    // restarted after a crash (in a container, often with the same pid) must take the stale lock over.
    const live = pid === process.pid ? ownedHere.has(dataDir) : Number.isInteger(pid) && pid > 0 && processAlive(pid)
    if (live) {
      // Another process owns the database; wait for its socket, then use it.
      for (let i = 0; i < 100 && !existsSync(socketPath(dataDir)); i++) await Bun.sleep(100)
      if (existsSync(socketPath(dataDir))) {
        const client = await connectToOwner(dataDir, name, debug)
        if (client) return { sql: client, kind: 'embedded-client', freshEmbedded: false, ownerPid: pid, close: () => client.end({ timeout: 5 }) }
        // The owner was closing (its socket went away or refused us): wait until it has let the
        // lock go, then take the database over or join whoever did.
        for (let i = 0; i < 100 && lockHolder(lock) === pid && processAlive(pid); i++) await Bun.sleep(50)
        continue
      }
      // The owner is alive but still starting (a fresh database's first start, on a busy machine,
      // can take longer than the wait): keep waiting. Taking a live owner's lock would open the
      // same files in a second PGlite, which aborts both.
      continue
    }
    // A stale lock left by a process that died: take it over (unless another process just did).
    if (lockHolder(lock) === pid) rmSync(lock, { force: true })
  }
  throw new Error(`Could not open the embedded database in ${dataDir}: its lock file keeps changing hands`)
}

/** The process that has the embedded database in `dataDir` open now (its lock file's pid, alive), if any. */
export function embeddedOwner(dataDir: string): number | undefined {
  const pid = lockHolder(lockPath(dataDir))
  return pid !== undefined && Number.isInteger(pid) && pid > 0 && processAlive(pid) ? pid : undefined
}

/**
 * Asks the process `pid` that owns the embedded database in `dataDir` to hand it over, and waits until
 * it has let the lock go. Only an owner that offered to (a `growth worker`: its pid beside the lock)
 * is asked; false for any other (a server, a command), or one that has not let go within `waitMs`.
 */
export async function askOwnerToHandOver(dataDir: string, pid: number, waitMs = 20_000): Promise<boolean> {
  if (lockHolder(handsOverPath(dataDir)) !== pid || embeddedOwner(dataDir) !== pid) return false
  process.kill(pid, HAND_OVER_SIGNAL)
  for (const deadline = Date.now() + waitMs; embeddedOwner(dataDir) === pid; await Bun.sleep(50)) {
    if (Date.now() > deadline) return false
  }
  return true
}

/** Whether `dataDir` holds an embedded database (made whole: createEmbeddedFiles renames it into place). */
export function embeddedDatabaseExists(dataDir: string): boolean {
  return existsSync(join(dataDir, 'pgdata', 'PG_VERSION'))
}

async function becomeOwner(dataDir: string, lock: string, opts: EmbeddedOptions): Promise<Database> {
  const { name, debug, onMaintenanceError = () => {} } = opts
  const { PGlite } = await import('@electric-sql/pglite')
  const { PGLiteSocketHandler } = await import('@electric-sql/pglite-socket')
  const pgdata = join(dataDir, 'pgdata')
  const freshEmbedded = !embeddedDatabaseExists(dataDir)
  // From here to close, what PGlite and we make in DATA_DIR is for the owner alone (embedded-permissions.ts).
  const releaseOwnerOnly = holdOwnerOnly(dataDir)
  let db: InstanceType<typeof PGlite>
  try {
    // A new database's files are made in a process of their own: initdb's memory goes with it.
    if (freshEmbedded) await createEmbeddedFiles(pgdata)
    // And what an earlier version made open to others is closed now (pgdata only: DATA_DIR may hold the user's own files).
    ownerOnlyTree(pgdata)
    db = await PGlite.create(pgdata, embeddedOptions(PGlite.defaultStartParams))
  } catch (err) {
    rmSync(lock, { force: true })
    releaseOwnerOnly()
    throw err
  }
  const stopHeapGuard = startHeapGuard()
  const queue = new BatchingQueryQueue(db)
  const path = socketPath(dataDir)
  rmSync(path, { force: true })
  // An offer left by an owner that died belongs to no one now: a process given its pid must never be asked.
  const handsOver = handsOverPath(dataDir)
  rmSync(handsOver, { force: true })
  const handlers = new Set<InstanceType<typeof PGLiteSocketHandler>>()
  const server: Server = createServer((socket: Socket) => {
    const handler = new PGLiteSocketHandler({ db, closeOnDetach: true, queryQueue: queue as never } as never)
    handlers.add(handler)
    handler.addEventListener('close', () => handlers.delete(handler))
    handler.addEventListener('error', () => handlers.delete(handler))
    handler.attach(socket).catch(() => socket.destroy())
  })
  // Made under the umask of 077 (no moment open to others), then 0600: only the owner may connect.
  await new Promise<void>((res, rej) => {
    server.once('error', rej)
    server.listen(path, () => res())
  })
  chmodSync(path, OWNER_FILE_MODE)
  ownedHere.add(dataDir)
  const sql = connectSocket(path, name, debug)
  const maintenance = startMaintenance(sql, onMaintenanceError)
  // Asked before the process is ready (a worker still migrating), the hand-over waits for it.
  let asked = false
  let onAsk: (() => void) | undefined
  let state: 'owner' | 'handed over' | 'closed' = 'owner'
  const onAsked = () => {
    if (state !== 'owner') return
    asked = true
    onAsk?.()
  }
  if (opts.handsOver) {
    // The handler before the offer, and kept for the process's life: a server that read the offer
    // just before it was withdrawn may still send the signal, which with no handler would end us.
    process.on(HAND_OVER_SIGNAL, onAsked)
    writeFileSync(handsOver, String(process.pid), { mode: OWNER_FILE_MODE })
  }
  /** Lets the database go: its maintenance, our own connection unless `keepSql` (a hand-over), the open ones, PGlite, the socket and the lock. */
  const letGo = async (keepSql: boolean) => {
    rmSync(handsOver, { force: true })
    await maintenance.stop()
    // Kept, our own connection is one of the socket's below: named RETURNING_CLIENT, it is let go between statements.
    if (!keepSql) await sql.end({ timeout: 5 })
    // Other processes (the CLI) may be mid-command through our socket: stop accepting new
    // connections and give the open ones time to finish before the database goes away. One that
    // comes back by itself (`growth worker`, RETURNING_CLIENT: it waits for the next process to
    // open the database) is let go as soon as it is between statements, not waited for.
    const closing = new Promise<void>((res) => server.close(() => res()))
    for (let waited = 0; handlers.size > 0 && waited < 15_000; waited += 50) {
      for (const h of handlers) {
        if (!queue.mayLetGo(h.handlerId)) continue
        handlers.delete(h)
        // Its socket is closed either way: a failed ROLLBACK of nothing open is no error to raise.
        h.detach(true).catch(() => {})
      }
      if (handlers.size > 0) await Bun.sleep(50)
    }
    for (const h of handlers) h.detach(true)
    await closing
    await db.close()
    stopHeapGuard()
    rmSync(path, { force: true })
    rmSync(lock, { force: true })
    ownedHere.delete(dataDir)
    releaseOwnerOnly()
  }
  return {
    sql,
    kind: 'embedded-owner',
    freshEmbedded,
    maintain: maintenance.now,
    ...(opts.handsOver
      ? {
          whenAskedToHandOver(fn: () => void) {
            onAsk = fn
            if (asked) fn()
          },
        }
      : {}),
    async handOver() {
      if (state !== 'owner') return
      state = 'handed over'
      await letGo(true)
    },
    async close() {
      if (state === 'closed') return
      const owned = state === 'owner'
      state = 'closed'
      if (owned) await letGo(false)
      else await sql.end({ timeout: 5 })
    },
  }
}
