import type { PGlite } from '@electric-sql/pglite'
import { type CopyIn, copyFromStdin, cString, isCopyFromStdin, simpleQuery } from './embedded-copy.ts'

/**
 * Serialises several client connections onto one PGlite session.
 *
 * pglite-socket's own queue hands PGlite one wire message at a time and only keeps a connection's
 * messages together while an explicit transaction is open. postgres.js sends each query as an
 * extended-protocol batch (Parse, Bind, Describe, Execute, Sync); if another connection's message
 * ran between two of them, it would replace the unnamed portal of the first. This queue keeps a
 * connection as the owner from its first message until the batch ends (Sync or a simple Query) and,
 * if a transaction is then open, until the transaction ends. It implements the interface
 * PGLiteSocketHandler expects of its `queryQueue`.
 *
 * It also takes `COPY table (columns) FROM STDIN`, which PGlite cannot: its backend reads the whole
 * message it is given and cannot wait for the data that follows (the connection was closed at the
 * first CopyData). The queue answers CopyInResponse itself, keeps the connection as the owner while
 * the data comes, and at CopyDone runs the same COPY on PGlite from the data as a blob
 * (`FROM '/dev/blob'`, PGlite's own way in): PGlite's answer (CommandComplete, or the error, and
 * ReadyForQuery) goes back as it wrote it. So a client speaks the same COPY to either database.
 */
type Item = {
  handlerId: number
  message: Uint8Array
  onData: (data: Uint8Array) => void
  resolve: (bytes: number) => void
  reject: (err: unknown) => void
}

const SYNC = 0x53 // 'S'
const QUERY = 0x51 // 'Q'
const TERMINATE = 0x58 // 'X'
const COPY_DATA = 0x64 // 'd'
const COPY_DONE = 0x63 // 'c'
const COPY_FAIL = 0x66 // 'f'
const FLUSH = 0x48 // 'H'
const PROTOCOL_3 = 196608

/**
 * The application_name of a connection that comes back by itself when the database goes away
 * (`growth worker`: it waits for the next process to open the database, then goes on). An owner
 * that closes lets such a connection go between its statements instead of waiting for it to end.
 */
export const RETURNING_CLIENT = 'growth-worker'

/** The application_name a StartupMessage (no type byte: length, protocol 3.0, then name/value C strings) carries, if any. */
function startupApplicationName(message: Uint8Array): string | undefined {
  if (message.length < 8 || message[0] !== 0) return undefined
  const view = new DataView(message.buffer, message.byteOffset, message.byteLength)
  if (view.getInt32(4) !== PROTOCOL_3) return undefined
  for (let at = 8; at < message.length && message[at] !== 0; ) {
    const nameEnd = message.indexOf(0, at)
    const valueEnd = nameEnd < 0 ? -1 : message.indexOf(0, nameEnd + 1)
    if (valueEnd < 0) return undefined
    if (cString(message, at) === 'application_name') return cString(message, nameEnd + 1)
    at = valueEnd + 1
  }
  return undefined
}

export class BatchingQueryQueue {
  private queue: Item[] = []
  private processing = false
  private owner: number | null = null
  /** The connection whose message PGlite is running now. */
  private running: number | null = null
  private copyIn: CopyIn | null = null
  /** The connections that said they come back by themselves (RETURNING_CLIENT). */
  private readonly returning = new Set<number>()

  constructor(private readonly db: PGlite) {}

  enqueue(handlerId: number, message: Uint8Array, onData: (data: Uint8Array) => void): Promise<number> {
    if (startupApplicationName(message) === RETURNING_CLIENT) this.returning.add(handlerId)
    return new Promise((resolve, reject) => {
      this.queue.push({ handlerId, message, onData, resolve, reject })
      void this.processQueue()
    })
  }

  private next(): Item | undefined {
    if (this.owner === null) return this.queue.shift()
    const i = this.queue.findIndex((q) => q.handlerId === this.owner)
    return i === -1 ? undefined : this.queue.splice(i, 1)[0]
  }

  private async processQueue(): Promise<void> {
    if (this.processing) return
    this.processing = true
    try {
      for (let item = this.next(); item; item = this.next()) {
        let bytes = 0
        const onRawData = (data: Uint8Array) => {
          bytes += data.length
          item!.onData(data)
        }
        const type = item.message[0]
        this.running = item.handlerId
        try {
          if (this.copyIn?.handlerId === item.handlerId) {
            if (type === COPY_DATA) {
              this.copyIn.chunks.push(item.message.slice(5))
              item.resolve(0)
              continue
            }
            // PostgreSQL ignores these during a COPY's data.
            if (type === SYNC || type === FLUSH) {
              item.resolve(0)
              continue
            }
            await this.endCopy(this.copyIn, type === COPY_DONE ? null : type === COPY_FAIL ? cString(item.message, 5) : `unexpected message type 0x${type!.toString(16)} during COPY from stdin`, onRawData)
            this.copyIn = null
          } else if (type === QUERY && isCopyFromStdin(item.message)) {
            const copy = copyFromStdin(cString(item.message, 5))
            if (copy) {
              this.copyIn = { handlerId: item.handlerId, statement: copy.statement, chunks: [] }
              onRawData(copy.response)
              // The connection keeps the queue until its COPY's data is done.
              this.owner = item.handlerId
              item.resolve(bytes)
              continue
            }
            await this.raise('0A000', 'the embedded database takes COPY ... FROM STDIN with a column list: COPY table (column, ...) FROM STDIN', onRawData)
          } else {
            await this.db.runExclusive(() => this.db.execProtocolRawStream(item!.message, { onRawData }))
          }
        } catch (err) {
          this.owner = null
          this.copyIn = null
          item.reject(err)
          continue
        } finally {
          this.running = null
        }
        const batchEnded = type === SYNC || type === QUERY || type === TERMINATE || type === COPY_DONE || type === COPY_FAIL || item.message.length >= 8 && type === 0
        this.owner = batchEnded && !this.db.isInTransaction() ? null : item.handlerId
        item.resolve(bytes)
      }
    } finally {
      this.processing = false
    }
  }

  /** Runs the COPY from its data (`failed`: the client gave up, or broke the protocol: the COPY fails with that). */
  private async endCopy(copy: CopyIn, failed: string | null, onRawData: (data: Uint8Array) => void): Promise<void> {
    await this.db.runExclusive(async () => {
      if (failed !== null) return this.raiseNow('57014', `COPY from stdin failed: ${failed}`, onRawData)
      await this.db._handleBlob(new Blob(copy.chunks as BlobPart[]))
      try {
        await this.db.execProtocolRawStream(simpleQuery(copy.statement), { onRawData })
      } finally {
        await this.db._cleanupBlob()
      }
    })
  }

  /** An error raised in PGlite, so that its answer, and an open transaction's aborted state, are PostgreSQL's own. */
  private raise(code: string, message: string, onRawData: (data: Uint8Array) => void): Promise<void> {
    return this.db.runExclusive(() => this.raiseNow(code, message, onRawData))
  }

  private async raiseNow(code: string, message: string, onRawData: (data: Uint8Array) => void): Promise<void> {
    const text = message.replaceAll('$', '')
    await this.db.execProtocolRawStream(simpleQuery(`DO $raise$ BEGIN RAISE EXCEPTION USING ERRCODE = '${code}', MESSAGE = $m$${text}$m$; END $raise$`), { onRawData })
  }

  getQueueLength(): number {
    return this.queue.length
  }

  /**
   * Whether the connection can be closed now without cutting anything of its short: it comes back
   * by itself (RETURNING_CLIENT), and has nothing queued, running or open (a batch, a transaction, a COPY).
   */
  mayLetGo(handlerId: number): boolean {
    return (
      this.returning.has(handlerId) &&
      this.owner !== handlerId &&
      this.running !== handlerId &&
      this.copyIn?.handlerId !== handlerId &&
      !this.queue.some((q) => q.handlerId === handlerId)
    )
  }

  clearQueueForHandler(handlerId: number): void {
    this.returning.delete(handlerId)
    this.queue = this.queue.filter((q) => {
      if (q.handlerId !== handlerId) return true
      q.reject(new Error('Handler disconnected'))
      return false
    })
  }

  async clearTransactionIfNeeded(handlerId: number): Promise<void> {
    // A connection gone in the middle of its COPY's data: the COPY never runs.
    if (this.copyIn?.handlerId === handlerId) this.copyIn = null
    if (this.owner !== handlerId) return
    if (this.db.isInTransaction()) await this.db.exec('ROLLBACK')
    this.owner = null
    await this.processQueue()
  }
}

