import type { Db, Sql, Tx } from '../core/db.ts'
import type { Expectation, ExperimentKind } from '../core/enums.ts'
import type { TimePosition } from '../core/paging.ts'
import { insertRows, olderThan } from './keyset.ts'

/** Experiments, and the tests they are about: email A/B tests and email sends with a hold-back group. */

export type ExperimentRow = {
  id: string; hypothesis: string; kind: ExperimentKind; subject_id: string
  expectation: Expectation
  decision_id: string | null; created_at: Date
  subject_status: 'open' | 'decided'; observed: ExperimentRow['expectation'] | null; decided_at: Date | null
}

/**
 * An experiment's columns with the state of its test read through: one reading, shared by every query.
 * The judgement is the SQL functions of migration 0009, which the GET /outcomes rollups' triggers use
 * too (with these joins, written there the other way round: from a subject to its experiments).
 */
export const experimentColumns = (sql: Db) => sql`
  e.id, e.hypothesis, e.kind, e.subject_id, e.expectation, e.decision_id, e.created_at,
  experiment_subject_status(t.status, s.holdout_status) AS subject_status,
  experiment_observed(t.status, t.winner, s.holdout_status, s.holdout_lift) AS observed,
  COALESCE(t.decided_at, s.decided_at) AS decided_at`

export const experimentJoins = (sql: Db) => sql`
  LEFT JOIN ab_tests t ON e.kind = 'email_ab_test' AND t.workspace_id = e.workspace_id AND t.id = e.subject_id
  LEFT JOIN email_sends s ON e.kind <> 'email_ab_test' AND s.workspace_id = e.workspace_id AND s.id = e.subject_id`

/** Experiments newest first, keyset-paged on (created_at, id). */
export async function selectExperiments(sql: Sql, workspaceId: string, opts: { after?: TimePosition; limit: number }): Promise<ExperimentRow[]> {
  return sql<ExperimentRow[]>`
    SELECT ${experimentColumns(sql)}
    FROM experiments e ${experimentJoins(sql)}
    WHERE e.workspace_id = ${workspaceId} ${olderThan(sql, opts.after, 'e')}
    ORDER BY e.created_at DESC, e.id DESC
    LIMIT ${opts.limit}`
}

export async function selectExperiment(sql: Db, workspaceId: string, id: string): Promise<ExperimentRow | undefined> {
  const [row] = await sql<ExperimentRow[]>`
    SELECT ${experimentColumns(sql)}
    FROM experiments e ${experimentJoins(sql)}
    WHERE e.workspace_id = ${workspaceId} AND e.id = ${id}`
  return row
}

/** The test an experiment would be about, locked against being decided while we write. */
export async function lockAbTest(tx: Tx, workspaceId: string, id: string) {
  const [row] = await tx<{ status: 'running' | 'decided'; decided_at: Date | null }[]>`
    SELECT status, decided_at FROM ab_tests WHERE workspace_id = ${workspaceId} AND id = ${id} FOR SHARE`
  return row
}

export async function lockEmailSend(tx: Tx, workspaceId: string, id: string) {
  const [row] = await tx<{ holdout_status: 'open' | 'decided'; decided_at: Date | null }[]>`
    SELECT holdout_status, decided_at FROM email_sends WHERE workspace_id = ${workspaceId} AND id = ${id} FOR SHARE`
  return row
}

export type ExperimentInsert = {
  workspace_id: string; id: string; hypothesis: string; kind: ExperimentRow['kind']; subject_id: string
  expectation: ExperimentRow['expectation']; decision_id: string | null; created_at?: Date
}

export async function insertExperiment(tx: Tx, e: ExperimentInsert) {
  await tx`
    INSERT INTO experiments (workspace_id, id, hypothesis, kind, subject_id, expectation, decision_id, created_at)
    VALUES (${e.workspace_id}, ${e.id}, ${e.hypothesis}, ${e.kind}, ${e.subject_id}, ${e.expectation}, ${e.decision_id},
            ${e.created_at ?? new Date()})`
}

export const insertExperiments = (tx: Tx, rows: ExperimentInsert[]) => insertRows(tx, 'experiments', rows)

export type AbTestInsert = {
  workspace_id: string; id: string; campaign_id: string | null; name: string; variant_a: string; variant_b: string
  status: 'running' | 'decided'; winner: 'a' | 'b' | 'none' | null; decided_at: Date | null; created_at: Date
}
export type EmailSendInsert = {
  workspace_id: string; id: string; campaign_id: string | null; subject: string; recipients: number
  holdout_status: 'open' | 'decided'; holdout_lift: number | null; decided_at: Date | null; sent_at: Date | null; created_at: Date
}

export const insertAbTests = (tx: Tx, rows: AbTestInsert[]) => insertRows(tx, 'ab_tests', rows)
export const insertEmailSends = (tx: Tx, rows: EmailSendInsert[]) => insertRows(tx, 'email_sends', rows)
