import type { Sql, Tx } from '../core/db.ts'
import { experimentColumns, experimentJoins } from './experiments.ts'
import { insertRows } from './keyset.ts'

/**
 * The aggregates of GET /outcomes. Sections that hold one entry per group (authors, measures,
 * reasons) hold at most SECTION_MAX groups, the largest first, and say how many there are; a
 * reason's findings are at most SECTION_MAX, the most recent first.
 */
export const SECTION_MAX = 100

export type PredictionGroupRow = { key: string; kind: 'agent' | 'person' | null; measured: number; held: number; confidence: number; groups: number }

/**
 * Measured predictions grouped by author, by measure, and by stated confidence in tenths: [0.0, 0.1)
 * up to [0.9, 1.0], the last one holding a stated certainty of 1.0 too.
 */
export async function selectPredictionGroups(sql: Sql, workspaceId: string) {
  const [byAuthor, byMeasure, byConfidence, totals] = await Promise.all([
    sql<PredictionGroupRow[]>`
      SELECT author AS key, author_kind AS kind, count(*)::int AS measured, count(*) FILTER (WHERE held)::int AS held,
             avg(confidence)::float8 AS confidence, (count(*) OVER ())::int AS groups
      FROM decisions WHERE workspace_id = ${workspaceId} AND status = 'measured'
      GROUP BY author, author_kind ORDER BY count(*) DESC, author, author_kind LIMIT ${SECTION_MAX}`,
    sql<PredictionGroupRow[]>`
      SELECT measure AS key, NULL AS kind, count(*)::int AS measured, count(*) FILTER (WHERE held)::int AS held,
             avg(confidence)::float8 AS confidence, (count(*) OVER ())::int AS groups
      FROM decisions WHERE workspace_id = ${workspaceId} AND status = 'measured'
      GROUP BY measure ORDER BY count(*) DESC, measure LIMIT ${SECTION_MAX}`,
    sql<PredictionGroupRow[]>`
      SELECT (LEAST(floor(confidence * 10), 9) / 10)::text AS key, NULL AS kind, count(*)::int AS measured,
             count(*) FILTER (WHERE held)::int AS held, avg(confidence)::float8 AS confidence, (count(*) OVER ())::int AS groups
      FROM decisions WHERE workspace_id = ${workspaceId} AND status = 'measured'
      GROUP BY LEAST(floor(confidence * 10), 9) ORDER BY LEAST(floor(confidence * 10), 9)`,
    sql<{ recorded: number; measured: number; held: number }[]>`
      SELECT count(*)::int AS recorded, count(*) FILTER (WHERE status = 'measured')::int AS measured,
             count(*) FILTER (WHERE status = 'measured' AND held)::int AS held
      FROM decisions WHERE workspace_id = ${workspaceId}`,
  ])
  return { byAuthor, byMeasure, byConfidence, totals: totals[0]! }
}

export type TurnedDownRow = { reason: string; count: number; reasons: number; findings: { id: string; title: string; createdAt: string }[] }

/** Findings a person turned down, grouped by the reason given, most common first, each with its latest findings. */
export async function selectTurnedDown(sql: Sql, workspaceId: string): Promise<TurnedDownRow[]> {
  return sql<TurnedDownRow[]>`
    SELECT g.reason, g.count, g.reasons, COALESCE(f.findings, '[]') AS findings
    FROM (
      SELECT COALESCE(rejection_reason, 'No reason given') AS reason, count(*)::int AS count, (count(*) OVER ())::int AS reasons
      FROM findings WHERE workspace_id = ${workspaceId} AND status = 'rejected'
      GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT ${SECTION_MAX}
    ) g
    LEFT JOIN LATERAL (
      SELECT json_agg(json_build_object('id', x.id, 'title', x.title, 'createdAt', x.created_at) ORDER BY x.created_at DESC, x.id DESC) AS findings
      FROM (SELECT id, title, created_at FROM findings
            WHERE workspace_id = ${workspaceId} AND status = 'rejected' AND COALESCE(rejection_reason, 'No reason given') = g.reason
            ORDER BY created_at DESC, id DESC LIMIT ${SECTION_MAX}) x
    ) f ON true
    ORDER BY g.count DESC, g.reason`
}

export async function selectFindingCounts(sql: Sql, workspaceId: string) {
  const [row] = await sql<{ open: number; accepted: number; rejected: number }[]>`
    SELECT count(*) FILTER (WHERE status = 'open')::int AS open, count(*) FILTER (WHERE status = 'accepted')::int AS accepted,
           count(*) FILTER (WHERE status = 'rejected')::int AS rejected
    FROM findings WHERE workspace_id = ${workspaceId}`
  return row!
}

/** What the decided tests showed: A/B tests by winner, hold-backs by lift, hypotheses by whether they held. */
export async function selectTestResults(sql: Sql, workspaceId: string) {
  const [[ab], [holdout], [hyp]] = await Promise.all([
    sql<{ running: number; decided: number; a: number; b: number; none: number }[]>`
      SELECT count(*) FILTER (WHERE status = 'running')::int AS running, count(*) FILTER (WHERE status = 'decided')::int AS decided,
             count(*) FILTER (WHERE winner = 'a')::int AS a, count(*) FILTER (WHERE winner = 'b')::int AS b,
             count(*) FILTER (WHERE winner = 'none')::int AS none
      FROM ab_tests WHERE workspace_id = ${workspaceId}`,
    sql<{ decided: number; adds: number; lift: number | null }[]>`
      SELECT count(*)::int AS decided, count(*) FILTER (WHERE holdout_lift > 0)::int AS adds,
             avg(holdout_lift)::float8 AS lift
      FROM email_sends WHERE workspace_id = ${workspaceId} AND holdout_status = 'decided'`,
    // Hypotheses judged exactly as GET /experiments shows them (one reading of the subject's result).
    sql<{ written: number; decided: number; held: number }[]>`
      SELECT count(*)::int AS written,
             count(*) FILTER (WHERE x.subject_status = 'decided')::int AS decided,
             count(*) FILTER (WHERE x.subject_status = 'decided' AND x.observed = x.expectation)::int AS held
      FROM (SELECT ${experimentColumns(sql)} FROM experiments e ${experimentJoins(sql)} WHERE e.workspace_id = ${workspaceId}) x`,
  ])
  return { ab: ab!, holdout: holdout!, hypotheses: hyp! }
}

export type FindingInsert = {
  workspace_id: string; id: string; title: string; status: 'open' | 'accepted' | 'rejected'; rejection_reason: string | null; created_at: Date
}
export type MeasurementInsert = {
  workspace_id: string; id: string; decision_id: string; measure: string; predicted: number; actual: number; held: boolean
  measured_at: Date; created_at: Date
}

export const insertFindings = (tx: Tx, rows: FindingInsert[]) => insertRows(tx, 'findings', rows)
/** Measurements of decisions' predictions (the `outcomes` table). */
export const insertMeasurements = (tx: Tx, rows: MeasurementInsert[]) => insertRows(tx, 'outcomes', rows)
