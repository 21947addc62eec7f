import type { PGlite } from '@electric-sql/pglite'

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

export class BatchingQueryQueue {
  private queue: Item[] = []
  private processing = false
  private owner: number | null = null

  constructor(private readonly db: PGlite) {}

  enqueue(handlerId: number, message: Uint8Array, onData: (data: Uint8Array) => void): Promise<number> {
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
        try {
          await this.db.runExclusive(() =>
            this.db.execProtocolRawStream(item!.message, {
              onRawData: (data: Uint8Array) => {
                bytes += data.length
                item!.onData(data)
              },
            }),
          )
        } catch (err) {
          this.owner = null
          item.reject(err)
          continue
        }
        const type = item.message[0]
        const batchEnded = type === SYNC || type === QUERY || type === TERMINATE || item.message.length >= 8 && type === 0
        this.owner = batchEnded && !this.db.isInTransaction() ? null : item.handlerId
        item.resolve(bytes)
      }
    } finally {
      this.processing = false
    }
  }

  getQueueLength(): number {
    return this.queue.length
  }

  clearQueueForHandler(handlerId: number): void {
    this.queue = this.queue.filter((q) => {
      if (q.handlerId !== handlerId) return true
      q.reject(new Error('Handler disconnected'))
      return false
    })
  }

  async clearTransactionIfNeeded(handlerId: number): Promise<void> {
    if (this.owner !== handlerId) return
    if (this.db.isInTransaction()) await this.db.exec('ROLLBACK')
    this.owner = null
    await this.processQueue()
  }
}
