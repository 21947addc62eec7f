import type { Sql } from '../core/db.ts'
import { Batcher, type Settled } from '../store/driver/batcher.ts'
import { authenticateAndCount, type AuthenticatedRow } from '../store/credentials.ts'
import { WINDOW_MS, windowStart } from './rate-limit.ts'

export type CheckResult = {
  row: AuthenticatedRow
  /** This request's own place in its credential's count for the window (1 = first). */
  used: number
  windowStart: number
}

/** What authenticates a request: its credential's row and its place in the window's count, or undefined (no such live credential). */
export type CredentialCheck = { check(workspaceId: string, tokenHash: string): Promise<CheckResult | undefined> }

type Ask = { workspaceId: string; tokenHash: string }

/**
 * Checks credentials and counts them against their rate limits in PostgreSQL, batching the
 * requests that arrive while earlier checks are in flight into one statement (store/driver/batcher.ts).
 * Under load that turns one extra statement per request into one per batch, while the count stays
 * exact across server processes: each request in a batch gets its own ordinal in its credential's
 * window. One batched statement in flight at a time, for every workspace: measured with the
 * pipeline benchmark (npm run bench), one in flight batches best.
 */
export class CredentialBatch implements CredentialCheck {
  private readonly batcher: Batcher<Ask, CheckResult | undefined>

  constructor(private readonly sql: Sql) {
    this.batcher = new Batcher((asks) => this.checkAll(asks))
  }

  check(workspaceId: string, tokenHash: string): Promise<CheckResult | undefined> {
    return this.batcher.add('', { workspaceId, tokenHash })
  }

  private async checkAll(asks: Ask[]): Promise<Settled<CheckResult | undefined>[]> {
    const keyOf = (a: { workspaceId: string; tokenHash: string }) => `${a.workspaceId}:${a.tokenHash}`
    // How many of the batch each credential has: the statement raises its count by that many.
    const counts = new Map<string, Ask & { n: number }>()
    for (const a of asks) {
      const c = counts.get(keyOf(a))
      if (c) c.n++
      else counts.set(keyOf(a), { ...a, n: 1 })
    }
    const start = windowStart(Date.now(), WINDOW_MS)
    const rows = await authenticateAndCount(this.sql, [...counts.values()], new Date(start))
    const found = new Map(rows.map((r) => [keyOf({ workspaceId: r.workspace_id, tokenHash: r.token_hash }), r]))
    // The batch raised each count by n: a credential's requests take the last n places, in arrival order.
    const taken = new Map<string, number>()
    return asks.map((a) => {
      const key = keyOf(a)
      const row = found.get(key)
      if (!row) return { ok: true, value: undefined }
      const before = taken.get(key) ?? 0
      taken.set(key, before + 1)
      return { ok: true, value: { row, used: row.used - counts.get(key)!.n + before + 1, windowStart: start } }
    })
  }
}
