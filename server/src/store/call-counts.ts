import type { Sql } from '../core/db.ts'

/** One count of calls: workspace ('' when no credential could be attributed), day, credential, operation, status. */
export type CallCount = { workspaceId: string; day: string; credentialId: string; operation: string; status: number; count: number }

/** A credential's latest call, as the counts' flush records it (credentials.last_used_at). */
export type CredentialUse = { workspaceId: string; credentialId: string; at: Date }

/**
 * Adds counts to the per-day totals in one statement, with when each credential in `used` was last
 * used (moved forward only). `used` comes sorted by workspace and credential, so flushes of several
 * processes lock the credentials they share in the same order.
 */
export async function addCallCounts(sql: Sql, counts: CallCount[], used: CredentialUse[] = []): Promise<void> {
  if (!counts.length) return
  const col = <K extends keyof CallCount>(k: K) => counts.map((c) => c[k])
  await sql`
    ${used.length ? sql`WITH used AS (
      UPDATE credentials cr SET last_used_at = u.at
        FROM unnest(${used.map((u) => u.workspaceId)}::text[], ${used.map((u) => u.credentialId)}::text[], ${used.map((u) => u.at.toISOString())}::timestamptz[]) AS u(w, id, at)
       WHERE cr.workspace_id = u.w AND cr.id = u.id AND (cr.last_used_at IS NULL OR cr.last_used_at < u.at)
    )` : sql``}
    INSERT INTO call_counts AS c (workspace_id, day, credential_id, operation, status, count)
    SELECT * FROM unnest(${col('workspaceId') as string[]}::text[], ${col('day') as string[]}::date[], ${col('credentialId') as string[]}::text[],
                         ${col('operation') as string[]}::text[], ${col('status') as number[]}::int[], ${col('count') as number[]}::bigint[])
    ON CONFLICT (workspace_id, day, credential_id, operation, status)
    DO UPDATE SET count = c.count + excluded.count`
}

/** API calls counted for the workspace from `since` (a date, UTC) on, every outcome included. */
export async function countCalls(sql: Sql, workspaceId: string, since: string): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    SELECT COALESCE(sum(count), 0)::int8 AS n FROM call_counts WHERE workspace_id = ${workspaceId} AND day >= ${since}`
  return row?.n ?? 0
}
