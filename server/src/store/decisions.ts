import type { Db, Sql, Tx } from '../core/db.ts'
import type { TimePosition } from '../core/paging.ts'
import { insertRows, olderThan } from './keyset.ts'

export type DecisionRow = {
  id: string; mission_id: string; author: string; author_kind: 'agent' | 'person'
  title: string; rationale: string; measure: string
  predicted_change: number; confidence: number; status: 'recorded' | 'measured'
  actual_change: number | null; held: boolean | null; measured_at: Date | null; created_at: Date
}

/** Decisions newest first, keyset-paged on (created_at, id), optionally of one mission. */
export async function selectDecisions(
  sql: Sql,
  workspaceId: string,
  opts: { missionId?: string; after?: TimePosition; limit: number },
): Promise<DecisionRow[]> {
  const mission = opts.missionId ? sql`AND mission_id = ${opts.missionId}` : sql``
  return sql<DecisionRow[]>`
    SELECT id, mission_id, author, author_kind, title, rationale, measure,
           predicted_change::float8 AS predicted_change, confidence::float8 AS confidence, status,
           actual_change::float8 AS actual_change, held, measured_at, created_at
    FROM decisions
    WHERE workspace_id = ${workspaceId} ${mission} ${olderThan(sql, opts.after)}
    ORDER BY created_at DESC, id DESC
    LIMIT ${opts.limit}`
}

export async function decisionExists(sql: Db, workspaceId: string, id: string): Promise<boolean> {
  const rows = await sql`SELECT 1 FROM decisions WHERE workspace_id = ${workspaceId} AND id = ${id}`
  return rows.length > 0
}

export type DecisionInsert = Omit<DecisionRow, 'predicted_change' | 'actual_change' | 'confidence'> & {
  workspace_id: string; predicted_change: number; actual_change: number | null; confidence: number
}

export const insertDecisions = (tx: Tx, rows: DecisionInsert[]) => insertRows(tx, 'decisions', rows)
