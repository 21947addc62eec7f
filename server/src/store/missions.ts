import type { Db, Sql, Tx } from '../core/db.ts'
import type { AutomationStatus, MissionStatus } from '../core/enums.ts'
import type { TimePosition } from '../core/paging.ts'
import { insertRows, olderThan } from './keyset.ts'

/** The most automations one mission lists; automationCount says how many it has. */
const AUTOMATIONS_SHOWN = 100

type MissionRow = {
  id: string; name: string; objective: string; status: MissionStatus
  metric_name: string; metric_unit: string
  baseline_value: number; current_value: number; target_value: number
  measured_at: Date | null; started_at: Date; due_at: Date | null; created_at: Date
  automations: { id: string; name: string; kind: string; status: AutomationStatus }[]
  automation_count: number
}

/** Missions newest first, keyset-paged on (created_at, id), each with its first automations. */
export async function selectMissions(sql: Sql, workspaceId: string, opts: { after?: TimePosition; limit: number }): Promise<MissionRow[]> {
  return sql<MissionRow[]>`
    SELECT m.id, m.name, m.objective, m.status, m.metric_name, m.metric_unit,
           m.baseline_value::float8 AS baseline_value, m.current_value::float8 AS current_value,
           m.target_value::float8 AS target_value, m.measured_at, m.started_at, m.due_at, m.created_at,
           COALESCE((SELECT json_agg(json_build_object('id', a.id, 'name', a.name, 'kind', a.kind, 'status', a.status)
                                     ORDER BY a.created_at, a.id)
                     FROM (SELECT * FROM automations a WHERE a.workspace_id = m.workspace_id AND a.mission_id = m.id
                           ORDER BY a.created_at, a.id LIMIT ${AUTOMATIONS_SHOWN}) a), '[]') AS automations,
           (SELECT count(*)::int FROM automations a WHERE a.workspace_id = m.workspace_id AND a.mission_id = m.id) AS automation_count
    FROM missions m
    WHERE m.workspace_id = ${workspaceId} ${olderThan(sql, opts.after, 'm')}
    ORDER BY m.created_at DESC, m.id DESC
    LIMIT ${opts.limit}`
}

export async function missionExists(sql: Db, workspaceId: string, id: string): Promise<boolean> {
  const rows = await sql`SELECT 1 FROM missions WHERE workspace_id = ${workspaceId} AND id = ${id}`
  return rows.length > 0
}

export type MissionInsert = {
  workspace_id: string; id: string; name: string; objective: string; status: MissionRow['status']
  metric_name: string; metric_unit: string; baseline_value: number; current_value: number; target_value: number
  measured_at: Date | null; started_at: Date; due_at: Date | null; created_at: Date
}
export type AutomationInsert = {
  workspace_id: string; id: string; mission_id: string; name: string; kind: string
  status: AutomationStatus; created_at: Date
}

export const insertMissions = (tx: Tx, rows: MissionInsert[]) => insertRows(tx, 'missions', rows)
export const insertAutomations = (tx: Tx, rows: AutomationInsert[]) => insertRows(tx, 'automations', rows)
