import type { Sql } from './db.ts'

/** API calls counted for the workspace from `since` (a date, UTC) on, every outcome included. */
export async function countCalls(sql: Sql, workspaceId: string, since: string): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    SELECT COALESCE(sum(count), 0)::int8 AS n FROM call_counts WHERE workspace_id = ${workspaceId} AND day >= ${since}`
  return row?.n ?? 0
}
