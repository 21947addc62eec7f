import type { Sql } from '../core/db.ts'
import { byCreation, type Positioned, type TimePosition } from '../core/paging.ts'
import { iso, isoOrNull } from '../core/time.ts'
import type { Mission } from '../schemas/missions.ts'
import * as store from '../store/missions.ts'

/** Missions newest first, each with its measured progress and the automations working on it. */
export async function listMissions(sql: Sql, workspaceId: string, page: { after?: TimePosition; limit: number }): Promise<Positioned<Mission, TimePosition>[]> {
  const rows = await store.selectMissions(sql, workspaceId, page)
  return rows.map((m) => ({
    position: byCreation(m),
    item: {
      id: m.id,
      name: m.name,
      objective: m.objective,
      status: m.status,
      metric: {
        name: m.metric_name,
        unit: m.metric_unit,
        baseline: m.baseline_value,
        current: m.current_value,
        target: m.target_value,
        measuredAt: isoOrNull(m.measured_at),
      },
      progress: progress(m.baseline_value, m.current_value, m.target_value),
      automations: m.automations,
      automationCount: m.automation_count,
      startedAt: iso(m.started_at),
      dueAt: isoOrNull(m.due_at),
      createdAt: iso(m.created_at),
    },
  }))
}

/** Share of the way from baseline to target, clamped to 0..1 (a target below baseline works too). */
export function progress(baseline: number, current: number, target: number): number {
  if (target === baseline) return current === target ? 1 : 0
  const p = (current - baseline) / (target - baseline)
  return Math.round(Math.min(1, Math.max(0, p)) * 1000) / 1000
}
