import type { Sql, Tx } from '../core/db.ts'
import type { EventType } from '../core/event-types.ts'
import { newId } from '../core/ids.ts'

/**
 * The outbox: every change writes its events in its own transaction. The sequence number comes
 * from the workspace row, updated under its row lock, so within a workspace events are numbered in
 * commit order and a poller reading by seq never skips one that commits later.
 */
export async function appendEvent(tx: Tx, workspaceId: string, type: EventType, data: Record<string, unknown>): Promise<string> {
  const [id] = await appendEvents(tx, workspaceId, [{ type, data }])
  return id!
}

/** An event to append: its type and data, and (for history loaded after the fact) when it happened. */
export type EventAppend = { type: EventType; data: Record<string, unknown>; at?: Date }

/**
 * Several events of one change in one statement (e.g. a contact import's contact.created events),
 * numbered in the order given, under the same workspace row lock as appendEvent.
 */
export async function appendEvents(tx: Tx, workspaceId: string, events: EventAppend[]): Promise<string[]> {
  if (!events.length) return []
  const rows = events.map((e, i) => ({ ord: i + 1, id: newId('event', e.at), type: e.type, data: e.data, at: e.at ?? null }))
  await tx`
    WITH s AS (UPDATE workspaces SET event_seq = event_seq + ${rows.length} WHERE workspace_id = ${workspaceId} RETURNING event_seq)
    INSERT INTO events (workspace_id, seq, id, type, data, created_at)
    SELECT ${workspaceId}, s.event_seq - ${rows.length} + e.ord, e.id, e.type, e.data, COALESCE(e.at, now())
    FROM s, jsonb_to_recordset(${tx.json(rows as never)}::jsonb) AS e(ord int, id text, type text, data jsonb, at timestamptz)`
  return rows.map((r) => r.id)
}

export type EventRow = { seq: number; id: string; type: string; data: Record<string, unknown>; created_at: Date }

/** Events oldest first after `afterSeq`, optionally of one type. */
export async function selectEvents(sql: Sql, workspaceId: string, opts: { type?: string; afterSeq: number; limit: number }): Promise<EventRow[]> {
  const type = opts.type === undefined ? sql`` : sql`AND type = ${opts.type}`
  return sql<EventRow[]>`
    SELECT seq, id, type, data, created_at FROM events
    WHERE workspace_id = ${workspaceId} ${type} AND seq > ${opts.afterSeq}
    ORDER BY seq
    LIMIT ${opts.limit}`
}
