import type { Db, Sql, Tx } from '../core/db.ts'
import type { Decider } from '../core/decider.ts'
import type { ActionStatus } from '../core/enums.ts'
import type { TimePosition } from '../core/paging.ts'
import { olderThan } from './keyset.ts'


export type ActionRow = {
  workspace_id: string
  id: string
  kind: string
  args: Record<string, unknown>
  status: ActionStatus
  planned_effect: { summary: string } & Record<string, unknown>
  limits_allowed: boolean
  refusal_reason: string | null
  proposed_by: { kind: 'api' | 'agent' | 'product'; id: string | null; name: string }
  decided_by: Decider | null
  decided_at: Date | null
  decision_reason: string | null
  outcome: { ok: boolean; detail?: string; error?: string } | null
  applied_at: Date | null
  created_at: Date
}

const columns = (sql: Db) => sql`
  workspace_id, id, kind, args, status, planned_effect, limits_allowed, refusal_reason, proposed_by,
  decided_by, decided_at, decision_reason, outcome, applied_at, created_at`

type Later = 'decided_by' | 'decided_at' | 'decision_reason' | 'outcome' | 'applied_at' | 'created_at'
type ActionInsert = Omit<ActionRow, Later> & Partial<Pick<ActionRow, Later>>

export async function insertAction(tx: Tx, a: ActionInsert): Promise<ActionRow> {
  const [row] = await insertActions(tx, [a])
  return row!
}

/** Actions as given (one statement), returned as stored. */
export async function insertActions(tx: Tx, rows: ActionInsert[]): Promise<ActionRow[]> {
  if (!rows.length) return []
  const json = rows.map((a) => ({ decided_by: null, decided_at: null, decision_reason: null, outcome: null, applied_at: null, created_at: new Date(), ...a }))
  return tx<ActionRow[]>`
    INSERT INTO actions (workspace_id, id, kind, args, status, planned_effect, limits_allowed, refusal_reason, proposed_by,
                         decided_by, decided_at, decision_reason, outcome, applied_at, created_at)
    SELECT r.workspace_id, r.id, r.kind, r.args, r.status, r.planned_effect, r.limits_allowed, r.refusal_reason, r.proposed_by,
           r.decided_by, r.decided_at, r.decision_reason, r.outcome, r.applied_at, r.created_at
    FROM jsonb_to_recordset(${tx.json(json as never)}::jsonb) AS r(
      workspace_id text, id text, kind text, args jsonb, status text, planned_effect jsonb, limits_allowed boolean, refusal_reason text,
      proposed_by jsonb, decided_by jsonb, decided_at timestamptz, decision_reason text, outcome jsonb, applied_at timestamptz, created_at timestamptz)
    RETURNING ${columns(tx)}`
}

/** Actions newest first, keyset-paged on (created_at, id), optionally of one status. */
export async function selectActions(sql: Sql, workspaceId: string, opts: { status?: ActionStatus; after?: TimePosition; limit: number }): Promise<ActionRow[]> {
  const status = opts.status ? sql`AND status = ${opts.status}` : sql``
  return sql<ActionRow[]>`
    SELECT ${columns(sql)} FROM actions
    WHERE workspace_id = ${workspaceId} ${status} ${olderThan(sql, opts.after)}
    ORDER BY created_at DESC, id DESC
    LIMIT ${opts.limit}`
}

/** One action by id in whichever workspace holds it (operator commands name only the id), locked. */
export async function lockActionById(tx: Tx, id: string): Promise<ActionRow | undefined> {
  const [row] = await tx<ActionRow[]>`SELECT ${columns(tx)} FROM actions WHERE id = ${id} FOR UPDATE`
  return row
}

export async function updateAction(
  tx: Tx,
  workspaceId: string,
  id: string,
  change: {
    status: ActionStatus
    decision?: { by: Decider; at: Date; reason: string | null }
    outcome?: ActionRow['outcome']
    appliedAt?: Date | null
  },
): Promise<ActionRow> {
  const [row] = await tx<ActionRow[]>`
    UPDATE actions SET
      status = ${change.status},
      decided_by = COALESCE(${change.decision ? tx.json(change.decision.by as never) : null}::jsonb, decided_by),
      decided_at = COALESCE(${change.decision?.at ?? null}::timestamptz, decided_at),
      decision_reason = ${change.decision ? tx`${change.decision.reason}` : tx`decision_reason`},
      outcome = COALESCE(${change.outcome ? tx.json(change.outcome as never) : null}::jsonb, outcome),
      applied_at = COALESCE(${change.appliedAt ?? null}::timestamptz, applied_at)
    WHERE workspace_id = ${workspaceId} AND id = ${id}
    RETURNING ${columns(tx)}`
  return row!
}
