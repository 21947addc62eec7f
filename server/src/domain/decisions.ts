import type { Sql } from '../core/db.ts'
import { NotFoundError } from '../core/errors.ts'
import { byCreation, type Positioned, type TimePosition } from '../core/paging.ts'
import { iso } from '../core/time.ts'
import type { Decision } from '../schemas/decisions.ts'
import * as store from '../store/decisions.ts'
import { missionExists } from '../store/missions.ts'

function toDecision(d: store.DecisionRow): Decision {
  return {
    id: d.id,
    missionId: d.mission_id,
    author: { name: d.author, kind: d.author_kind },
    title: d.title,
    rationale: d.rationale,
    prediction: { measure: d.measure, change: d.predicted_change, confidence: d.confidence },
    status: d.status,
    outcome:
      d.status === 'measured' && d.actual_change !== null
        ? { change: d.actual_change, held: Boolean(d.held), measuredAt: iso(d.measured_at!) }
        : null,
    createdAt: iso(d.created_at),
  }
}

/** Decisions newest first; an unknown missionId is 404 rather than a silently empty list. */
export async function listDecisions(
  sql: Sql,
  workspaceId: string,
  opts: { missionId?: string; after?: TimePosition; limit: number },
): Promise<Positioned<Decision, TimePosition>[]> {
  if (opts.missionId && !(await missionExists(sql, workspaceId, opts.missionId))) throw new NotFoundError('mission', opts.missionId)
  const rows = await store.selectDecisions(sql, workspaceId, opts)
  return rows.map((d) => ({ position: byCreation(d), item: toDecision(d) }))
}
