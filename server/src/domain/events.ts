import { iso } from '../schemas/common.ts'
import type { EventT } from '../schemas/events.ts'
import type { Sql } from '../store/db.ts'
import * as store from '../store/events.ts'

/** The contract's event object: { id, event, createdAt, workspaceId, data }, as polled and as delivered. */
export function toEvent(workspaceId: string, e: store.EventRow): EventT {
  return { id: e.id, event: e.type as EventT['event'], createdAt: iso(e.created_at), workspaceId, data: e.data }
}

/** Events oldest first, in commit order (seq), after a position. */
export function eventsAfter(sql: Sql, workspaceId: string, opts: { type?: string; afterSeq?: number; limit: number }) {
  return store.selectEvents(sql, workspaceId, { type: opts.type, afterSeq: opts.afterSeq ?? 0, limit: opts.limit })
}

export const eventPosition = (e: store.EventRow) => e.seq
