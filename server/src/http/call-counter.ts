import type { Sql } from '../store/db.ts'

/**
 * Counts every call where it was answered, per workspace, credential, operation and status, in
 * memory, and writes the counts to PostgreSQL in one statement every `flushMs` (and on shutdown),
 * so no request waits on a database round trip for it. Counts of the last interval are lost if
 * the process dies without shutting down; a flush that fails keeps its counts for the next one.
 */
export class CallCounter {
  private counts = new Map<string, number>()
  private timer: ReturnType<typeof setInterval> | undefined
  private flushing: Promise<void> | undefined

  constructor(
    private readonly sql: Sql,
    private readonly flushMs: number,
  ) {}

  start() {
    this.timer ??= setInterval(() => void this.flush().catch(() => {}), this.flushMs)
    this.timer.unref?.()
  }

  count(workspaceId: string, credentialId: string, operation: string, status: number, at = new Date()) {
    const day = at.toISOString().slice(0, 10)
    const key = `${workspaceId}\u0000${day}\u0000${credentialId}\u0000${operation}\u0000${status}`
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1)
  }

  async flush(): Promise<void> {
    if (this.flushing) await this.flushing
    if (this.counts.size === 0) return
    const batch = this.counts
    this.counts = new Map()
    const cols: string[][] = [[], [], [], [], []]
    const counts: number[] = []
    for (const [key, n] of batch) {
      key.split('\u0000').forEach((v, i) => cols[i]!.push(v))
      counts.push(n)
    }
    this.flushing = (async () => {
      try {
        await this.sql`
          INSERT INTO call_counts AS c (workspace_id, day, credential_id, operation, status, count)
          SELECT * FROM unnest(${cols[0]}::text[], ${cols[1]}::date[], ${cols[2]}::text[], ${cols[3]}::text[],
                               ${cols[4]}::int[], ${counts}::bigint[])
          ON CONFLICT (workspace_id, day, credential_id, operation, status)
          DO UPDATE SET count = c.count + excluded.count`
      } catch (err) {
        for (const [key, n] of batch) this.counts.set(key, (this.counts.get(key) ?? 0) + n)
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
