import type { Sql } from '../core/db.ts'
import { addCallCounts, type CallCount } from '../store/call-counts.ts'
import { PeriodicFlush } from './periodic-flush.ts'

const DAY_MS = 86_400_000

/**
 * The last step of every request: it is counted where it was answered (spec: Errors, rule 3), per
 * workspace, day, credential, operation and status, in memory, and the counts are written to the
 * database in one statement every `flushMs` (and on shutdown), so no request waits on a round trip
 * for it (periodic-flush.ts). Counts of the last interval are lost if the process dies without
 * shutting down; a flush that fails keeps its counts for the next one.
 */
export class CallCounter extends PeriodicFlush<Map<string, CallCount>> {
  private counts = new Map<string, CallCount>()
  /** The UTC day (YYYY-MM-DD) of the current day's span, computed once a day rather than per call. */
  private day = { start: 0, end: 0, text: '' }

  constructor(
    private readonly sql: Sql,
    flushMs: number,
  ) {
    super(flushMs)
  }

  count(workspaceId: string, credentialId: string, operation: string, status: number, now = Date.now()) {
    const day = this.dayOf(now)
    const key = `${workspaceId}\u0000${day}\u0000${credentialId}\u0000${operation}\u0000${status}`
    const c = this.counts.get(key)
    if (c) c.count++
    else this.counts.set(key, { workspaceId, day, credentialId, operation, status, count: 1 })
  }

  private dayOf(now: number): string {
    if (now < this.day.start || now >= this.day.end) {
      const start = now - (now % DAY_MS)
      this.day = { start, end: start + DAY_MS, text: new Date(start).toISOString().slice(0, 10) }
    }
    return this.day.text
  }

  protected take() {
    if (this.counts.size === 0) return undefined
    const batch = this.counts
    this.counts = new Map()
    return batch
  }

  protected write(batch: Map<string, CallCount>) {
    return addCallCounts(this.sql, [...batch.values()])
  }

  protected putBack(batch: Map<string, CallCount>) {
    for (const [key, c] of batch) {
      const now = this.counts.get(key)
      if (now) now.count += c.count
      else this.counts.set(key, c)
    }
  }
}
