import type { Sql } from '../core/db.ts'
import type { EventType } from '../core/event-types.ts'
import type { Positioned } from '../core/paging.ts'
import { iso } from '../core/time.ts'
import type { Event } from '../schemas/events.ts'
import * as store from '../store/events.ts'

/** The contract's event object: { id, event, createdAt, workspaceId, data }, as polled and as delivered. */
export function toEvent(workspaceId: string, e: store.EventRow): Event {
  return { id: e.id, event: e.type as EventType, createdAt: iso(e.created_at), workspaceId, data: e.data }
}

/** Events oldest first, in commit order (seq), after a position: the workspace's stream. */
export async function listEvents(
  sql: Sql,
  workspaceId: string,
  opts: { type?: EventType; after?: number; limit: number },
): Promise<Positioned<Event, number>[]> {
  const rows = await store.selectEvents(sql, workspaceId, { type: opts.type, afterSeq: opts.after ?? 0, limit: opts.limit })
  return rows.map((e) => ({ position: e.seq, item: toEvent(workspaceId, e) }))
}
