import type { Db, Tx } from '../core/db.ts'
import { MONTHLY_ALLOWANCES } from '../core/enums.ts'
import { insertRows } from './keyset.ts'

/** Each allowance of the workspace: the plan's figure unless the workspace has its own. */
export async function selectAllowanceLimits(sql: Db, workspaceId: string): Promise<Record<string, number>> {
  const [row] = await sql<{ limits: Record<string, number> }[]>`
    SELECT p.allowances || COALESCE((SELECT jsonb_object_agg(a.name, a.amount) FROM allowances a
                                     WHERE a.workspace_id = w.workspace_id), '{}'::jsonb) AS limits
    FROM workspaces w JOIN plans p ON p.plan = w.plan
    WHERE w.workspace_id = ${workspaceId}`
  return row?.limits ?? {}
}

/** Monthly counters of one period (the first day of the UTC month): one primary-key row each. */
export async function selectUsage(sql: Db, workspaceId: string, periodStart: string): Promise<Record<string, number>> {
  const rows = await sql<{ name: string; used: number }[]>`
    SELECT name, used FROM usage_counters
    WHERE workspace_id = ${workspaceId} AND name = ANY (${[...MONTHLY_ALLOWANCES]}::text[]) AND period_start = ${periodStart}`
  return Object.fromEntries(rows.map((r) => [r.name, r.used]))
}

/**
 * Adds `n` to a monthly counter only if it stays within `limit`, in one statement, so concurrent
 * writers can never pass the allowance together. Returns the new figure, or undefined if it would not fit.
 */
export async function incrementUsageWithin(
  tx: Tx,
  workspaceId: string,
  name: string,
  periodStart: string,
  n: number,
  limit: number,
): Promise<number | undefined> {
  if (n > limit) return undefined
  const [row] = await tx<{ used: number }[]>`
    INSERT INTO usage_counters AS u (workspace_id, name, period_start, used)
    VALUES (${workspaceId}, ${name}, ${periodStart}, ${n})
    ON CONFLICT (workspace_id, name, period_start) DO UPDATE SET used = u.used + ${n}
    WHERE u.used + ${n} <= ${limit}
    RETURNING used`
  return row?.used
}

/**
 * How many contacts the workspace holds now (the standing `contacts` allowance counts these): one
 * row of the counter that triggers on contacts keep in the writing transaction (migration 0007),
 * so the cost is the same whether the workspace holds ten contacts or a million.
 */
export async function countContacts(sql: Db, workspaceId: string): Promise<number> {
  const [row] = await sql<{ n: number }[]>`SELECT held AS n FROM contact_counts WHERE workspace_id = ${workspaceId}`
  return row?.n ?? 0
}

/** Serialises writers that add contacts to one workspace, until their transaction ends. */
export async function lockContactsAllowance(tx: Tx, workspaceId: string) {
  await tx`SELECT pg_advisory_xact_lock(hashtextextended(${'contacts-allowance\u0001' + workspaceId}, 0))`
}

export type UsageInsert = { workspace_id: string; name: string; period_start: string; used: number }

/** Counters as given (history loaded after the fact, e.g. the demo's allowances part used). */
export const insertUsage = (tx: Tx, rows: UsageInsert[]) => insertRows(tx, 'usage_counters', rows)
