import type { Sql } from './db.ts'
import { experimentColumns, experimentJoins } from './growth.ts'

export type SignalRow = {
  id: string; kind: string; title: string; detail: string; status: 'open' | 'resolved' | 'dismissed'
  resolved_at: Date | null; created_at: Date
  opportunity: { id: string; title: string; status: string } | null
}

/** Signals of one status, newest first, each with the opportunity it speaks for (one statement). */
export async function selectSignals(sql: Sql, workspaceId: string, status: string, now: Date): Promise<SignalRow[]> {
  return sql<SignalRow[]>`
    SELECT s.id, s.kind, s.title, s.detail, s.status, s.resolved_at, s.created_at,
           CASE WHEN o.id IS NULL THEN NULL ELSE json_build_object(
             'id', o.id, 'title', o.title,
             'status', CASE WHEN o.status = 'open' AND o.expires_at <= ${now} THEN 'expired' ELSE o.status END)
           END AS opportunity
    FROM signals s
    LEFT JOIN opportunities o ON o.workspace_id = s.workspace_id AND o.id = s.opportunity_id
    WHERE s.workspace_id = ${workspaceId} AND s.status = ${status}
    ORDER BY s.created_at DESC, s.id DESC`
}

export type OpportunityRow = {
  id: string; title: string; detail: string; status: 'open' | 'actioned' | 'dismissed' | 'expired'
  worth: number; estimated_impact: { amountMinor: number; currency: string }[]
  measured_impact: { amountMinor: number; currency: string }[] | null
  expires_at: Date | null; created_at: Date
  signals: number
}

/**
 * Opportunities of one status in the order they are worth doing: worth, highest first, ties broken
 * by id so the order is stable. An open opportunity whose expiry has passed counts as expired.
 */
export async function selectOpportunities(sql: Sql, workspaceId: string, status: string, now: Date): Promise<OpportunityRow[]> {
  const which =
    status === 'open' ? sql`o.status = 'open' AND (o.expires_at IS NULL OR o.expires_at > ${now})`
    : status === 'expired' ? sql`(o.status = 'expired' OR (o.status = 'open' AND o.expires_at <= ${now}))`
    : sql`o.status = ${status}`
  return sql<OpportunityRow[]>`
    SELECT o.id, o.title, o.detail, ${status} AS status, o.worth::float8 AS worth, o.estimated_impact, o.measured_impact,
           o.expires_at, o.created_at,
           (SELECT count(*)::int FROM signals s WHERE s.workspace_id = o.workspace_id AND s.opportunity_id = o.id) AS signals
    FROM opportunities o
    WHERE o.workspace_id = ${workspaceId} AND ${which}
    ORDER BY o.worth DESC, o.id ASC`
}

export type PredictionGroupRow = { key: string; kind: string | null; measured: number; held: number; confidence: number }

/**
 * Measured predictions grouped by author, by measure, and by stated confidence in tenths: [0.0, 0.1)
 * up to [0.9, 1.0], the last one holding a stated certainty of 1.0 too.
 */
export async function selectPredictionGroups(sql: Sql, workspaceId: string) {
  const [byAuthor, byMeasure, byConfidence, totals] = await Promise.all([
    sql<PredictionGroupRow[]>`
      SELECT author AS key, author_kind AS kind, count(*)::int AS measured, count(*) FILTER (WHERE held)::int AS held,
             avg(confidence)::float8 AS confidence
      FROM decisions WHERE workspace_id = ${workspaceId} AND status = 'measured'
      GROUP BY author, author_kind ORDER BY count(*) DESC, author`,
    sql<PredictionGroupRow[]>`
      SELECT measure AS key, NULL AS kind, count(*)::int AS measured, count(*) FILTER (WHERE held)::int AS held,
             avg(confidence)::float8 AS confidence
      FROM decisions WHERE workspace_id = ${workspaceId} AND status = 'measured'
      GROUP BY measure ORDER BY count(*) DESC, measure`,
    sql<PredictionGroupRow[]>`
      SELECT (LEAST(floor(confidence * 10), 9) / 10)::text AS key, NULL AS kind, count(*)::int AS measured,
             count(*) FILTER (WHERE held)::int AS held, avg(confidence)::float8 AS confidence
      FROM decisions WHERE workspace_id = ${workspaceId} AND status = 'measured'
      GROUP BY LEAST(floor(confidence * 10), 9) ORDER BY LEAST(floor(confidence * 10), 9)`,
    sql<{ recorded: number; measured: number; held: number }[]>`
      SELECT count(*)::int AS recorded, count(*) FILTER (WHERE status = 'measured')::int AS measured,
             count(*) FILTER (WHERE status = 'measured' AND held)::int AS held
      FROM decisions WHERE workspace_id = ${workspaceId}`,
  ])
  return { byAuthor, byMeasure, byConfidence, totals: totals[0]! }
}

/** Findings a person turned down, grouped by the reason given. */
export async function selectRejectedFindings(sql: Sql, workspaceId: string) {
  return sql<{ reason: string; findings: { id: string; title: string; createdAt: string }[] }[]>`
    SELECT COALESCE(rejection_reason, 'No reason given') AS reason,
           json_agg(json_build_object('id', id, 'title', title, 'createdAt', created_at) ORDER BY created_at DESC, id DESC) AS findings
    FROM findings WHERE workspace_id = ${workspaceId} AND status = 'rejected'
    GROUP BY COALESCE(rejection_reason, 'No reason given')
    ORDER BY count(*) DESC, 1`
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
