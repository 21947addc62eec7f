import type { Sql, Tx } from '../core/db.ts'
import type { OpportunityStatus } from '../core/enums.ts'
import { insertRows } from './keyset.ts'

/** Where a list of opportunities left off: the last one's worth (exact, as text) and id. */
export type WorthPosition = { w: string; id: string }

type MoneyJson = { amountMinor: number; currency: string }

type OpportunityRow = {
  id: string; title: string; detail: string; status: OpportunityStatus
  worth: number; worth_key: string; estimated_impact: MoneyJson[]; measured_impact: MoneyJson[] | null
  expires_at: Date | null; created_at: Date
  signals: number
}

/**
 * Opportunities of one status in the order they are worth doing: worth, highest first, ties broken
 * by id so the order is stable; keyset-paged on (worth, id). An open opportunity whose expiry has
 * passed counts as expired. How many signals speak for each is the counter the signals' triggers
 * keep (migration 0007), so a page costs the same however many signals there are.
 */
export async function selectOpportunities(
  sql: Sql,
  workspaceId: string,
  opts: { status: OpportunityStatus; now: Date; after?: WorthPosition; limit: number },
): Promise<OpportunityRow[]> {
  const { status, now, after } = opts
  // Open ones due by `now` were marked expired by expireDue (the caller's first step), so each status
  // is one range of opportunities_by_worth, read in its order; the open filter is a guard for the
  // instant between the two statements.
  const which = status === 'open' ? sql`o.status = 'open' AND (o.expires_at IS NULL OR o.expires_at > ${now})` : sql`o.status = ${status}`
  // The bound on worth alone is the index range (read in order, so LIMIT stops it); the OR only filters
  // the ties. Written as one OR, the planner reads every cheaper opportunity through a bitmap.
  const later = after ? sql`AND o.worth <= ${after.w}::numeric AND (o.worth < ${after.w}::numeric OR o.id > ${after.id})` : sql``
  return sql<OpportunityRow[]>`
    SELECT o.id, o.title, o.detail, ${status}::text AS status, o.worth::float8 AS worth, o.worth::text AS worth_key,
           o.estimated_impact, o.measured_impact, o.expires_at, o.created_at,
           o.signal_count AS signals
    FROM opportunities o
    WHERE o.workspace_id = ${workspaceId} AND ${which} ${later}
    ORDER BY o.worth DESC, o.id ASC
    LIMIT ${opts.limit}`
}

/**
 * Marks the workspace's open opportunities whose expiry has passed as expired. Each one is marked
 * once, found through opportunities_expiring (migration 0007), so a list pays for the opportunities
 * that fell due since the last one, never for all it holds.
 */
export async function expireDue(sql: Sql, workspaceId: string, now: Date): Promise<void> {
  await sql`UPDATE opportunities SET status = 'expired'
            WHERE workspace_id = ${workspaceId} AND status = 'open' AND expires_at <= ${now}`
}

export type OpportunityInsert = {
  workspace_id: string; id: string; title: string; detail: string; status: OpportunityStatus; worth: number
  estimated_impact: MoneyJson[]; measured_impact: MoneyJson[] | null; expires_at: Date | null; created_at: Date
}

export async function insertOpportunities(tx: Tx, rows: OpportunityInsert[]) {
  const json = rows.map((r) => ({
    ...r,
    estimated_impact: tx.json(r.estimated_impact as never),
    measured_impact: r.measured_impact === null ? null : tx.json(r.measured_impact as never),
  }))
  await insertRows(tx, 'opportunities', json)
}
