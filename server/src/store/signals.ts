import type { Sql, Tx } from '../core/db.ts'
import type { OpportunityStatus, SignalStatus } from '../core/enums.ts'
import type { TimePosition } from '../core/paging.ts'
import { insertRows, olderThan } from './keyset.ts'

type SignalRow = {
  id: string; kind: string; title: string; detail: string; status: SignalStatus
  resolved_at: Date | null; created_at: Date
  opportunity: { id: string; title: string; status: OpportunityStatus } | null
}

/**
 * Signals of one status, newest first, keyset-paged on (created_at, id), each with the opportunity
 * it speaks for (an open one past its expiry reads as expired), in one statement whose cost is the page's.
 */
export async function selectSignals(
  sql: Sql,
  workspaceId: string,
  opts: { status: SignalStatus; now: Date; after?: TimePosition; limit: number },
): Promise<SignalRow[]> {
  return sql<SignalRow[]>`
    SELECT s.id, s.kind, s.title, s.detail, s.status, s.resolved_at, s.created_at,
           CASE WHEN o.id IS NULL THEN NULL ELSE json_build_object(
             'id', o.id, 'title', o.title,
             'status', CASE WHEN o.status = 'open' AND o.expires_at <= ${opts.now} THEN 'expired' ELSE o.status END)
           END AS opportunity
    FROM signals s
    -- One primary-key probe per signal of the page (LIMIT 1 keeps the planner from joining the
    -- page to every opportunity of the workspace instead).
    LEFT JOIN LATERAL (SELECT o.id, o.title, o.status, o.expires_at FROM opportunities o
                       WHERE o.workspace_id = s.workspace_id AND o.id = s.opportunity_id LIMIT 1) o ON true
    WHERE s.workspace_id = ${workspaceId} AND s.status = ${opts.status} ${olderThan(sql, opts.after, 's')}
    ORDER BY s.created_at DESC, s.id DESC
    LIMIT ${opts.limit}`
}

export type SignalInsert = {
  workspace_id: string; id: string; kind: string; title: string; detail: string; status: SignalStatus
  opportunity_id: string | null; resolved_at: Date | null; created_at: Date
}

export const insertSignals = (tx: Tx, rows: SignalInsert[]) => insertRows(tx, 'signals', rows)
