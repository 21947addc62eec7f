import type { Sql } from '../core/db.ts'
import { authenticateAndCount, type AuthenticatedRow } from '../store/credentials.ts'
import { WINDOW_MS, windowStart } from './rate-limit.ts'
import { outsideRequestScope } from '../store/request-scope.ts'

export type CheckResult = {
  row: AuthenticatedRow
  /** This request's own place in its credential's count for the window (1 = first). */
  used: number
  windowStart: number
}

/** What authenticates a request: its credential's row and its place in the window's count, or undefined (no such live credential). */
export type CredentialCheck = { check(workspaceId: string, tokenHash: string): Promise<CheckResult | undefined> }

type Pending = { workspaceId: string; tokenHash: string; resolve: (r: CheckResult | undefined) => void; reject: (e: unknown) => void }


/**
 * Checks credentials and counts them against their rate limits in PostgreSQL, batching the
 * requests that arrive while earlier checks are in flight into one statement. Under load that
 * turns one extra statement per request into one per batch, while the count stays exact across
 * server processes: each request in a batch gets its own ordinal in its credential's window.
 */
export class CredentialBatch implements CredentialCheck {
  private queue: Pending[] = []
  /**
   * One batched statement in flight at a time: measured with the pipeline benchmark (npm run bench),
   * one in flight batches best; what arrives meanwhile waits for the next batch.
   */
  private inFlight = false
  private scheduled = false

  constructor(private readonly sql: Sql) {}

  check(workspaceId: string, tokenHash: string): Promise<CheckResult | undefined> {
    return new Promise((resolve, reject) => {
      this.queue.push({ workspaceId, tokenHash, resolve, reject })
      this.schedule()
    })
  }

  private schedule() {
    if (this.scheduled || this.inFlight || this.queue.length === 0) return
    this.scheduled = true
    // The batch serves several requests: a client that goes away must not cancel the others' lookup.
    queueMicrotask(() =>
      outsideRequestScope(() => {
        this.scheduled = false
        void this.flush()
      }),
    )
  }

  private async flush() {
    if (this.inFlight || this.queue.length === 0) return
    const batch = this.queue
    this.queue = []
    this.inFlight = true
    try {
      const groups = new Map<string, { workspaceId: string; tokenHash: string; waiting: Pending[] }>()
      for (const p of batch) {
        const key = `${p.workspaceId}:${p.tokenHash}`
        const g = groups.get(key) ?? { workspaceId: p.workspaceId, tokenHash: p.tokenHash, waiting: [] }
        g.waiting.push(p)
        groups.set(key, g)
      }
      const start = windowStart(Date.now(), WINDOW_MS)
      const items = [...groups.values()].map((g) => ({ workspaceId: g.workspaceId, tokenHash: g.tokenHash, n: g.waiting.length }))
      const rows = await authenticateAndCount(this.sql, items, new Date(start))
      const found = new Map(rows.map((r) => [`${r.workspace_id}:${r.token_hash}`, r]))
      for (const [key, g] of groups) {
        const row = found.get(key)
        // The batch raised the count by n: its requests take the last n places, in arrival order.
        g.waiting.forEach((p, i) => p.resolve(row && { row, used: row.used - g.waiting.length + i + 1, windowStart: start }))
      }
    } catch (err) {
      for (const p of batch) p.reject(err)
    } finally {
      this.inFlight = false
      this.schedule()
    }
  }
}
