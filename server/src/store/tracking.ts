import type { Tx } from '../core/db.ts'
import { insertRows } from './keyset.ts'

type RunRow = { id: string; workflow_id: string; contact_id: string; event: string; properties: Record<string, unknown>; created_at: Date }

/** The active workflows listening for `event` (lower-cased), oldest first. */
export async function selectListeningWorkflows(tx: Tx, workspaceId: string, event: string) {
  return tx<{ id: string; name: string }[]>`
    SELECT id, name FROM workflows
    WHERE workspace_id = ${workspaceId} AND trigger_event = ${event} AND status = 'active'
    ORDER BY created_at, id`
}

/** One run per workflow, in one statement. */
export async function insertRuns(
  tx: Tx,
  workspaceId: string,
  runs: Omit<RunRow, 'created_at'>[],
): Promise<RunRow[]> {
  if (!runs.length) return []
  return tx<RunRow[]>`
    INSERT INTO workflow_runs (workspace_id, id, workflow_id, contact_id, event, properties)
    SELECT ${workspaceId}, r.id, r.workflow_id, r.contact_id, r.event, r.properties
    FROM jsonb_to_recordset(${tx.json(runs as never)}::jsonb) AS r(id text, workflow_id text, contact_id text, event text, properties jsonb)
    RETURNING id, workflow_id, contact_id, event, properties, created_at`
}

export type WorkflowInsert = { workspace_id: string; id: string; name: string; trigger_event: string; status: 'active' | 'paused'; created_at: Date }
export type RunInsert = RunRow & { workspace_id: string; status?: string }

export const insertWorkflows = (tx: Tx, rows: WorkflowInsert[]) => insertRows(tx, 'workflows', rows)
export const insertRunHistory = (tx: Tx, rows: RunInsert[]) =>
  insertRows(tx, 'workflow_runs', rows.map((r) => ({ ...r, properties: tx.json(r.properties as never) })))
