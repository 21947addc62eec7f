import type { Sql } from '../core/db.ts'
import { insertRequestLog, type LoggedCall } from '../store/request-log.ts'
import { PeriodicFlush } from './periodic-flush.ts'

/** At most this many entries wait in memory while the database is away; the oldest go first past it. */
const MAX_PENDING = 50_000

/**
 * The request log's writer: every answered call of a workspace is kept in memory and written with
 * the others in one statement every `flushMs` (CALL_COUNT_FLUSH_MS, as the call counts are), so no
 * request waits on a round trip for it. While the database is away, the entries wait, bounded.
 */
export class RequestLog extends PeriodicFlush<LoggedCall[]> {
  private pending: LoggedCall[] = []

  constructor(
    private readonly sql: Sql,
    flushMs: number,
  ) {
    super(flushMs)
  }

  add(entry: LoggedCall) {
    this.pending.push(entry)
    if (this.pending.length > MAX_PENDING) this.pending.splice(0, this.pending.length - MAX_PENDING)
  }

  protected take() {
    if (this.pending.length === 0) return undefined
    const batch = this.pending
    this.pending = []
    return batch
  }

  protected write(batch: LoggedCall[]) {
    return insertRequestLog(this.sql, batch)
  }

  protected putBack(batch: LoggedCall[]) {
    this.pending = batch.concat(this.pending)
    if (this.pending.length > MAX_PENDING) this.pending.splice(0, this.pending.length - MAX_PENDING)
  }
}
