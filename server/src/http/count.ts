import type { Sql } from '../core/db.ts'
import { addCallCounts, type CallCount, type CredentialUse } from '../store/call-counts.ts'
import { PeriodicFlush } from './periodic-flush.ts'

const DAY_MS = 86_400_000
/**
 * How far behind a credential's last use (credentials.last_used_at) may be: a process writes a
 * credential's use at most once in this long, so a token called a thousand times a second costs its
 * row one new version a minute, not one a second.
 */
const USE_WRITTEN_EVERY_MS = 60_000

/** A count, and when its last call was (ms). */
type Counted = CallCount & { lastAt: number }

/**
 * The last step of every request: it is counted where it was answered (spec: Errors, rule 3), per
 * workspace, day, credential, operation and status, in memory, and the counts are written to the
 * database in one statement every `flushMs` (and on shutdown), so no request waits on a round trip
 * for it (periodic-flush.ts). Counts of the last interval are lost if the process dies without
 * shutting down; a flush that fails keeps its counts for the next one. The same statement moves
 * each credential's last use forward (USE_WRITTEN_EVERY_MS).
 */
export class CallCounter extends PeriodicFlush<Map<string, Counted>> {
  private counts = new Map<string, Counted>()
  /** When this process last wrote each credential's use (by workspace and credential), for the last USE_WRITTEN_EVERY_MS. */
  private useWritten = new Map<string, number>()
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
    if (c) {
      c.count++
      c.lastAt = now
    } else this.counts.set(key, { workspaceId, day, credentialId, operation, status, count: 1, lastAt: now })
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

  protected async write(batch: Map<string, Counted>) {
    const used = this.usesToWrite(batch)
    await addCallCounts(this.sql, [...batch.values()], used)
    for (const u of used) this.useWritten.set(useKey(u.workspaceId, u.credentialId), u.at.getTime())
  }

  /**
   * Each credential's latest call in the batch, unless this process wrote a use of it less than
   * USE_WRITTEN_EVERY_MS before that call; sorted by workspace and credential (addCallCounts).
   */
  private usesToWrite(batch: Map<string, Counted>): CredentialUse[] {
    const latest = new Map<string, CredentialUse>()
    for (const c of batch.values()) {
      if (!c.credentialId) continue
      const key = useKey(c.workspaceId, c.credentialId)
      if (c.lastAt - (this.useWritten.get(key) ?? -Infinity) < USE_WRITTEN_EVERY_MS) continue
      const seen = latest.get(key)
      if (!seen || seen.at.getTime() < c.lastAt) latest.set(key, { workspaceId: c.workspaceId, credentialId: c.credentialId, at: new Date(c.lastAt) })
    }
    // What was written longer ago than the interval no longer holds anything back: forgotten.
    const old = Date.now() - USE_WRITTEN_EVERY_MS
    for (const [key, at] of this.useWritten) if (at < old) this.useWritten.delete(key)
    return [...latest.keys()].sort().map((key) => latest.get(key)!)
  }

  protected putBack(batch: Map<string, Counted>) {
    for (const [key, c] of batch) {
      const now = this.counts.get(key)
      if (now) {
        now.count += c.count
        now.lastAt = Math.max(now.lastAt, c.lastAt)
      } else this.counts.set(key, c)
    }
  }
}

const useKey = (workspaceId: string, credentialId: string) => `${workspaceId}\u0000${credentialId}`
