import type { Sql } from '../core/db.ts'
import { insertRequestLog, type LoggedCall } from '../store/request-log.ts'
import { PeriodicFlush } from './periodic-flush.ts'

/** PostgreSQL's text holds no NUL character; a message that quotes a caller's input may carry one. */
const textOf = (s: string) => (s.includes('\u0000') ? s.replaceAll('\u0000', '\uFFFD') : s)

/** At most this many entries wait in memory while the database is away; the oldest go first past it. */
const MAX_PENDING = 50_000

/** A flush's calls; `mayRepeat` when some came back from a flush that failed (insertRequestLog). */
type Batch = { entries: LoggedCall[]; mayRepeat: boolean }

/**
 * The request log's writer: every answered call of a workspace is kept in memory and written with
 * the others in one statement every `flushMs` (CALL_COUNT_FLUSH_MS, as the call counts are), so no
 * request waits on a round trip for it. While the database is away, the entries wait, bounded.
 */
export class RequestLog extends PeriodicFlush<Batch> {
  private pending: LoggedCall[] = []
  /** Whether some pending entries came back from a flush that failed, and so may be written already. */
  private givenBack = false

  constructor(
    private readonly sql: Sql,
    flushMs: number,
  ) {
    super(flushMs)
  }

  add(entry: LoggedCall) {
    // Copied only when a text holds a NUL (rare): the entry is kept as given otherwise.
    const nul = entry.path.includes('\u0000') || entry.message?.includes('\u0000') || entry.idempotencyKey?.includes('\u0000')
    this.pending.push(nul ? { ...entry, path: textOf(entry.path), message: entry.message === null ? null : textOf(entry.message), idempotencyKey: entry.idempotencyKey === null ? null : textOf(entry.idempotencyKey) } : entry)
    if (this.pending.length > MAX_PENDING) this.pending.splice(0, this.pending.length - MAX_PENDING)
  }

  protected take(): Batch | undefined {
    if (this.pending.length === 0) return undefined
    const batch = { entries: this.pending, mayRepeat: this.givenBack }
    this.pending = []
    this.givenBack = false
    return batch
  }

  protected write(batch: Batch) {
    return insertRequestLog(this.sql, batch.entries, { mayRepeat: batch.mayRepeat })
  }

  /**
   * A batch PostgreSQL refused as data (SQLSTATE class 22 or 23: a value it cannot store) would be
   * refused again at every flush and hold back every call after it: it is dropped (and the error
   * logged by the flush's caller). The database away keeps it, as before.
   */
  protected override keeps(error: unknown): boolean {
    const code = (error as { code?: unknown } | null)?.code
    return !(typeof code === 'string' && /^2[23]/.test(code))
  }

  /** A failed flush may have been written all the same (its answer lost on the way): the next one skips what was. */
  protected putBack(batch: Batch) {
    this.givenBack = true
    this.pending = batch.entries.concat(this.pending)
    if (this.pending.length > MAX_PENDING) this.pending.splice(0, this.pending.length - MAX_PENDING)
  }
}
