import type { Db } from '../core/db.ts'

export type WorkspaceLimitsRow = {
  max_budget_change_percent: number
  max_discount_percent: number
  max_send_recipients: number
  quiet_hours_start: number | null
  quiet_hours_end: number | null
}

/** The workspace's limits on changes; every workspace gets its row when it is created. */
export async function selectWorkspaceLimits(sql: Db, workspaceId: string): Promise<WorkspaceLimitsRow | undefined> {
  const [row] = await sql<WorkspaceLimitsRow[]>`
    SELECT max_budget_change_percent::float8 AS max_budget_change_percent,
           max_discount_percent::float8 AS max_discount_percent,
           max_send_recipients, quiet_hours_start, quiet_hours_end
    FROM workspace_limits WHERE workspace_id = ${workspaceId}`
  return row
}
