import type { Sql } from '../../server/src/store/driver/db.ts'
import { experimentColumns, experimentJoins } from '../../server/src/store/experiments.ts'
import { type PredictionGroupRow, SECTION_MAX, type TurnedDownRow } from '../../server/src/store/outcomes.ts'

/**
 * GET /outcomes as it was computed before the rollups (migration 0009): aggregates over every row
 * of the workspace's decisions, findings, A/B tests, sends and experiments, on each read. Kept as
 * the oracle the rollups are checked against; the rows it returns have the shapes of
 * server/src/store/outcomes.ts, so the two are compared value for value.
 */
export async function outcomesFromRows(sql: Sql, workspaceId: string) {
  const [byAuthor, byMeasure, byConfidence, [totals], turnedDown, [findings], [ab], [holdout], [hyp]] = await Promise.all([
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
             count(*) FILTER (WHERE held)::int AS held, avg(confidence)::float8 AS confidence, 0 AS groups
      FROM decisions WHERE workspace_id = ${workspaceId} AND status = 'measured'
      GROUP BY LEAST(floor(confidence * 10), 9) ORDER BY LEAST(floor(confidence * 10), 9)`,
    sql<{ recorded: number; measured: number; held: number }[]>`
      SELECT count(*)::int AS recorded, count(*) FILTER (WHERE status = 'measured')::int AS measured,
             count(*) FILTER (WHERE status = 'measured' AND held)::int AS held
      FROM decisions WHERE workspace_id = ${workspaceId}`,
    sql<TurnedDownRow[]>`
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
      ORDER BY g.count DESC, g.reason`,
    sql<{ open: number; accepted: number; rejected: number }[]>`
      SELECT count(*) FILTER (WHERE status = 'open')::int AS open, count(*) FILTER (WHERE status = 'accepted')::int AS accepted,
             count(*) FILTER (WHERE status = 'rejected')::int AS rejected
      FROM findings WHERE workspace_id = ${workspaceId}`,
    sql<{ running: number; decided: number; a: number; b: number; none: number }[]>`
      SELECT count(*) FILTER (WHERE status = 'running')::int AS running, count(*) FILTER (WHERE status = 'decided')::int AS decided,
             count(*) FILTER (WHERE winner = 'a')::int AS a, count(*) FILTER (WHERE winner = 'b')::int AS b,
             count(*) FILTER (WHERE winner = 'none')::int AS none
      FROM ab_tests WHERE workspace_id = ${workspaceId}`,
    sql<{ decided: number; adds: number; lift: number | null }[]>`
      SELECT count(*)::int AS decided, count(*) FILTER (WHERE holdout_lift > 0)::int AS adds, avg(holdout_lift)::float8 AS lift
      FROM email_sends WHERE workspace_id = ${workspaceId} AND holdout_status = 'decided'`,
    // Hypotheses judged exactly as GET /experiments shows them.
    sql<{ written: number; decided: number; held: number }[]>`
      SELECT count(*)::int AS written,
             count(*) FILTER (WHERE x.subject_status = 'decided')::int AS decided,
             count(*) FILTER (WHERE x.subject_status = 'decided' AND x.observed = x.expectation)::int AS held
      FROM (SELECT ${experimentColumns(sql)} FROM experiments e ${experimentJoins(sql)} WHERE e.workspace_id = ${workspaceId}) x`,
  ])
  return {
    groups: { byAuthor: [...byAuthor], byMeasure: [...byMeasure], byConfidence: [...byConfidence] },
    turnedDown: [...turnedDown],
    counts: {
      decisions_recorded: totals!.recorded, decisions_measured: totals!.measured, decisions_held: totals!.held,
      findings_open: findings!.open, findings_accepted: findings!.accepted, findings_rejected: findings!.rejected,
      ab_running: ab!.running, ab_decided: ab!.decided, ab_a: ab!.a, ab_b: ab!.b, ab_none: ab!.none,
      holdouts_decided: holdout!.decided, holdouts_adding: holdout!.adds, holdout_lift: holdout!.lift,
      hypotheses_written: hyp!.written, hypotheses_decided: hyp!.decided, hypotheses_held: hyp!.held,
    },
  }
}
