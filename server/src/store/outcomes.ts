import type { Sql, Tx } from '../core/db.ts'
import { insertRows } from './keyset.ts'

/**
 * The aggregates of GET /outcomes, read from the rollups that migration 0009's triggers keep in the
 * transaction of every write to decisions, findings, ab_tests, email_sends and experiments: a read
 * costs the same however many rows the workspace holds. Sections that hold one entry per group
 * (authors, measures, reasons) hold at most SECTION_MAX groups, the largest first (read in that
 * order from an index on the rollup), and say how many there are; a reason's findings are at most
 * SECTION_MAX, the most recent first (from an index on findings, for each reason shown).
 *
 * How many groups there are is a count of the group rows: it grows with the distinct authors,
 * measures and reasons a workspace has (never with its decisions or findings), which stay few.
 */
export const SECTION_MAX = 100

export type PredictionGroupRow = { key: string; kind: 'agent' | 'person' | null; measured: number; held: number; confidence: number; groups: number }

/** Every counter of the workspace's sections (zeros when nothing was ever written). */
type OutcomeCounts = {
  decisions_recorded: number; decisions_measured: number; decisions_held: number
  findings_open: number; findings_accepted: number; findings_rejected: number
  ab_running: number; ab_decided: number; ab_a: number; ab_b: number; ab_none: number
  holdouts_decided: number; holdouts_adding: number; holdout_lift: number | null
  hypotheses_written: number; hypotheses_decided: number; hypotheses_held: number
}

export async function selectOutcomeCounts(sql: Sql, workspaceId: string): Promise<OutcomeCounts> {
  const [row] = await sql<OutcomeCounts[]>`
    SELECT decisions_recorded::int, decisions_measured::int, decisions_held::int,
           findings_open::int, findings_accepted::int, findings_rejected::int,
           ab_running::int, ab_decided::int, ab_a::int, ab_b::int, ab_none::int,
           holdouts_decided::int, holdouts_adding::int,
           -- avg() of the decided lifts: the exact sum over how many there are, divided as avg() divides.
           CASE WHEN holdout_lifts = 0 THEN NULL ELSE (holdout_lift_sum / holdout_lifts)::float8 END AS holdout_lift,
           hypotheses_written::int, hypotheses_decided::int, hypotheses_held::int
    FROM outcome_counts WHERE workspace_id = ${workspaceId}`
  return row ?? {
    decisions_recorded: 0, decisions_measured: 0, decisions_held: 0, findings_open: 0, findings_accepted: 0, findings_rejected: 0,
    ab_running: 0, ab_decided: 0, ab_a: 0, ab_b: 0, ab_none: 0, holdouts_decided: 0, holdouts_adding: 0, holdout_lift: null,
    hypotheses_written: 0, hypotheses_decided: 0, hypotheses_held: 0,
  }
}

/** The largest groups of measured predictions of one dimension, with how many groups there are. */
const largestGroups = (sql: Sql, workspaceId: string, dimension: 'author' | 'measure') => sql<PredictionGroupRow[]>`
  SELECT key, NULLIF(kind, '') AS kind, measured::int, held::int, (confidence_sum / measured)::float8 AS confidence,
         (SELECT count(*) FROM prediction_rollups WHERE workspace_id = ${workspaceId} AND dimension = ${dimension})::int AS groups
  FROM prediction_rollups WHERE workspace_id = ${workspaceId} AND dimension = ${dimension}
  ORDER BY measured DESC, key, kind LIMIT ${SECTION_MAX}`

/**
 * Measured predictions grouped by author, by measure, and by stated confidence in tenths: [0.0, 0.1)
 * up to [0.9, 1.0], the last one holding a stated certainty of 1.0 too (at most ten groups).
 */
export async function selectPredictionGroups(sql: Sql, workspaceId: string) {
  const [byAuthor, byMeasure, byConfidence] = await Promise.all([
    largestGroups(sql, workspaceId, 'author'),
    largestGroups(sql, workspaceId, 'measure'),
    sql<PredictionGroupRow[]>`
      SELECT key, NULL AS kind, measured::int, held::int, (confidence_sum / measured)::float8 AS confidence, 0 AS groups
      FROM prediction_rollups WHERE workspace_id = ${workspaceId} AND dimension = 'confidence'
      ORDER BY key::numeric`,
  ])
  return { byAuthor, byMeasure, byConfidence }
}

export type TurnedDownRow = { reason: string; count: number; reasons: number; findings: { id: string; title: string; createdAt: string }[] }

/** Findings a person turned down, grouped by the reason given, most common first, each with its latest findings. */
export async function selectTurnedDown(sql: Sql, workspaceId: string): Promise<TurnedDownRow[]> {
  return sql<TurnedDownRow[]>`
    SELECT g.reason, g.findings::int AS count,
           (SELECT count(*) FROM turned_down_rollups WHERE workspace_id = ${workspaceId})::int AS reasons,
           COALESCE(f.findings, '[]') AS findings
    FROM (SELECT reason, findings FROM turned_down_rollups WHERE workspace_id = ${workspaceId}
          ORDER BY findings DESC, reason LIMIT ${SECTION_MAX}) g
    LEFT JOIN LATERAL (
      SELECT json_agg(json_build_object('id', x.id, 'title', x.title, 'createdAt', x.created_at) ORDER BY x.created_at DESC, x.id DESC) AS findings
      FROM (SELECT id, title, created_at FROM findings
            WHERE workspace_id = ${workspaceId} AND status = 'rejected' AND COALESCE(rejection_reason, 'No reason given') = g.reason
            ORDER BY created_at DESC, id DESC LIMIT ${SECTION_MAX}) x
    ) f ON true
    ORDER BY g.findings DESC, g.reason`
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
