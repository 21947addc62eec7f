import type { Db } from '../core/db.ts'

/**
 * Counters of attempts in an hour's window, kept in the rate-limit table the API's credentials use
 * (rate_limit_counters, purged after two hours), under keys of their own (`signin:...`), so that
 * every server process counts together. workspace_id '' holds counters of no workspace (an address).
 */
export async function addAttempts(sql: Db, workspaceId: string, key: string, windowStart: Date, n: number): Promise<number> {
  const [row] = await sql<{ count: number }[]>`
    INSERT INTO rate_limit_counters AS rc (workspace_id, credential_id, window_start, count)
    VALUES (${workspaceId}, ${key}, ${windowStart}, ${n})
    ON CONFLICT (workspace_id, credential_id, window_start) DO UPDATE SET count = rc.count + excluded.count
    RETURNING rc.count`
  return row!.count
}

export async function attemptsIn(sql: Db, workspaceId: string, key: string, windowStart: Date): Promise<number> {
  const [row] = await sql<{ count: number }[]>`
    SELECT count FROM rate_limit_counters WHERE workspace_id = ${workspaceId} AND credential_id = ${key} AND window_start = ${windowStart}`
  return row?.count ?? 0
}
