import type { Sql, Tx } from './db.ts'

export type MissionRow = {
  id: string; name: string; objective: string; status: string
  metric_name: string; metric_unit: string
  baseline_value: number; current_value: number; target_value: number
  measured_at: Date | null; started_at: Date; due_at: Date | null; created_at: Date
  automations: { id: string; name: string; kind: string; status: string }[]
}

export async function selectMissions(sql: Sql, workspaceId: string): Promise<MissionRow[]> {
  return sql<MissionRow[]>`
    SELECT m.id, m.name, m.objective, m.status, m.metric_name, m.metric_unit,
           m.baseline_value::float8 AS baseline_value, m.current_value::float8 AS current_value,
           m.target_value::float8 AS target_value, m.measured_at, m.started_at, m.due_at, m.created_at,
           COALESCE((SELECT json_agg(json_build_object('id', a.id, 'name', a.name, 'kind', a.kind, 'status', a.status)
                                     ORDER BY a.created_at, a.id)
                     FROM automations a WHERE a.workspace_id = m.workspace_id AND a.mission_id = m.id), '[]') AS automations
    FROM missions m
    WHERE m.workspace_id = ${workspaceId}
    ORDER BY m.created_at DESC, m.id DESC`
}

export async function missionExists(sql: Sql, workspaceId: string, id: string): Promise<boolean> {
  const rows = await sql`SELECT 1 FROM missions WHERE workspace_id = ${workspaceId} AND id = ${id}`
  return rows.length > 0
}

export type DecisionRow = {
  id: string; mission_id: string; author: string; author_kind: 'agent' | 'person'
  title: string; rationale: string; measure: string
  predicted_change: number; confidence: number; status: 'recorded' | 'measured'
  actual_change: number | null; held: boolean | null; measured_at: Date | null; created_at: Date
}

/** Where a newest-first list left off: the last row's created_at (ISO) and id. */
export type Position = { t: string; id: string }

/**
 * The keyset condition of a newest-first list (ORDER BY created_at DESC, id DESC): `AND` rows that
 * come after `pos`, i.e. older; nothing without a position. `alias` names the table when the query
 * joins others.
 */
export function olderThan(sql: Sql | Tx, pos: Position | undefined, alias?: string) {
  if (!pos) return sql``
  const at = alias ? sql`${sql(alias)}.created_at` : sql`created_at`
  const id = alias ? sql`${sql(alias)}.id` : sql`id`
  return sql`AND (${at}, ${id}) < (${pos.t}::timestamptz, ${pos.id})`
}

/** Decisions newest first, keyset-paged on (created_at, id), optionally for one mission. */
export async function selectDecisions(
  sql: Sql,
  workspaceId: string,
  opts: { missionId?: string; before?: Position; limit: number },
): Promise<DecisionRow[]> {
  const mission = opts.missionId ? sql`AND mission_id = ${opts.missionId}` : sql``
  return sql<DecisionRow[]>`
    SELECT id, mission_id, author, author_kind, title, rationale, measure,
           predicted_change::float8 AS predicted_change, confidence::float8 AS confidence, status,
           actual_change::float8 AS actual_change, held, measured_at, created_at
    FROM decisions
    WHERE workspace_id = ${workspaceId} ${mission} ${olderThan(sql, opts.before)}
    ORDER BY created_at DESC, id DESC
    LIMIT ${opts.limit}`
}

export async function decisionExists(sql: Sql | Tx, workspaceId: string, id: string): Promise<boolean> {
  const rows = await sql`SELECT 1 FROM decisions WHERE workspace_id = ${workspaceId} AND id = ${id}`
  return rows.length > 0
}

export type ExperimentRow = {
  id: string; hypothesis: string; kind: string; subject_id: string; expectation: string
  decision_id: string | null; created_at: Date
  subject_status: 'open' | 'decided'; observed: string | null; decided_at: Date | null
}

export const experimentColumns = (sql: Sql | Tx) => sql`
  e.id, e.hypothesis, e.kind, e.subject_id, e.expectation, e.decision_id, e.created_at,
  CASE WHEN COALESCE(t.status = 'decided', s.holdout_status = 'decided') THEN 'decided' ELSE 'open' END AS subject_status,
  CASE
    WHEN t.status = 'decided' THEN CASE t.winner WHEN 'a' THEN 'a_better' WHEN 'b' THEN 'b_better' ELSE 'no_difference' END
    WHEN s.holdout_status = 'decided' THEN CASE WHEN s.holdout_lift > 0 THEN 'send_adds' ELSE 'no_difference' END
  END AS observed,
  COALESCE(t.decided_at, s.decided_at) AS decided_at`

export const experimentJoins = (sql: Sql | Tx) => sql`
  LEFT JOIN ab_tests t ON e.kind = 'email_ab_test' AND t.workspace_id = e.workspace_id AND t.id = e.subject_id
  LEFT JOIN email_sends s ON e.kind <> 'email_ab_test' AND s.workspace_id = e.workspace_id AND s.id = e.subject_id`

export async function selectExperiments(sql: Sql, workspaceId: string): Promise<ExperimentRow[]> {
  return sql<ExperimentRow[]>`
    SELECT ${experimentColumns(sql)}
    FROM experiments e ${experimentJoins(sql)}
    WHERE e.workspace_id = ${workspaceId}
    ORDER BY e.created_at DESC, e.id DESC`
}

export async function selectExperiment(sql: Sql | Tx, workspaceId: string, id: string): Promise<ExperimentRow | undefined> {
  const [row] = await sql<ExperimentRow[]>`
    SELECT ${experimentColumns(sql)}
    FROM experiments e ${experimentJoins(sql)}
    WHERE e.workspace_id = ${workspaceId} AND e.id = ${id}`
  return row
}

/** The test an experiment would be about, locked against being decided while we write. */
export async function lockAbTest(tx: Tx, workspaceId: string, id: string) {
  const [row] = await tx<{ status: string; decided_at: Date | null }[]>`
    SELECT status, decided_at FROM ab_tests WHERE workspace_id = ${workspaceId} AND id = ${id} FOR SHARE`
  return row
}

export async function lockEmailSend(tx: Tx, workspaceId: string, id: string) {
  const [row] = await tx<{ holdout_status: string; decided_at: Date | null }[]>`
    SELECT holdout_status, decided_at FROM email_sends WHERE workspace_id = ${workspaceId} AND id = ${id} FOR SHARE`
  return row
}

export async function insertExperiment(
  tx: Tx,
  workspaceId: string,
  e: { id: string; hypothesis: string; kind: string; subjectId: string; expectation: string; decisionId: string | null },
) {
  await tx`
    INSERT INTO experiments (workspace_id, id, hypothesis, kind, subject_id, expectation, decision_id)
    VALUES (${workspaceId}, ${e.id}, ${e.hypothesis}, ${e.kind}, ${e.subjectId}, ${e.expectation}, ${e.decisionId})`
}
