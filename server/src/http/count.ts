import type { Sql } from '../core/db.ts'
import { addCallCounts, type CallCount } from '../store/call-counts.ts'

const DAY_MS = 86_400_000

/**
 * The last step of every request: it is counted where it was answered (spec: Errors, rule 3), per
 * workspace, day, credential, operation and status, in memory, and the counts are written to the
 * database in one statement every `flushMs` (and on shutdown), so no request waits on a round trip
 * for it. Counts of the last interval are lost if the process dies without shutting down; a flush
 * that fails keeps its counts for the next one.
 */
export class CallCounter {
  private counts = new Map<string, CallCount>()
  private timer: ReturnType<typeof setInterval> | undefined
  private flushing: Promise<void> | undefined
  /** The UTC day (YYYY-MM-DD) of the current day's span, computed once a day rather than per call. */
  private day = { start: 0, end: 0, text: '' }

  constructor(
    private readonly sql: Sql,
    private readonly flushMs: number,
  ) {}

  start() {
    this.timer ??= setInterval(() => void this.flush().catch(() => {}), this.flushMs)
    this.timer.unref?.()
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

  async flush(): Promise<void> {
    if (this.flushing) await this.flushing
    if (this.counts.size === 0) return
    const batch = this.counts
    this.counts = new Map()
    this.flushing = (async () => {
      try {
        await addCallCounts(this.sql, [...batch.values()])
      } catch (err) {
        for (const [key, c] of batch) {
          const now = this.counts.get(key)
          if (now) now.count += c.count
          else this.counts.set(key, c)
        }
        throw err
      } finally {
        this.flushing = undefined
      }
    })()
    await this.flushing
  }

  async stop() {
    if (this.timer) clearInterval(this.timer)
    this.timer = undefined
    await this.flush()
  }
}
