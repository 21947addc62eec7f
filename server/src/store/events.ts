import type { Db, Sql, Tx } from '../core/db.ts'
import type { EventType } from '../core/event-types.ts'
import { newId } from '../core/ids.ts'
import { activeTraceparent } from '../core/tracing.ts'

/** A piece of SQL to put inside another statement. */
type Fragment = ReturnType<Db['unsafe']>

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
export type EventAppend = {
  type: EventType
  data: Record<string, unknown>
  at?: Date
  /** The trace of the request that caused it (tracing on); by default the one active when the statement is built. */
  traceparent?: string | null
  /** A sample sent to one endpoint (`webhook test --event`): delivered, but never in the event stream. */
  sample?: boolean
}

/** The channel webhook workers listen on for new deliveries (on a PostgreSQL server). */
export const DELIVERIES_CHANNEL = 'webhook_deliveries'

/**
 * Several events of one change in one statement (e.g. a contact import's contact.created events),
 * numbered in the order given, under the same workspace row lock as appendEvent. The same statement
 * creates the webhook deliveries of each event, one per enabled endpoint subscribed to its type (or,
 * with `deliverTo`, to that endpoint alone: a test delivery), so a delivery exists exactly when its
 * event commits. Listening workers are told at commit (NOTIFY, in the same statement).
 */
export async function appendEvents(tx: Tx, workspaceId: string, events: EventAppend[], opts: { deliverTo?: string } = {}): Promise<string[]> {
  if (!events.length) return []
  const { ids, ctes } = eventCtes(tx, workspaceId, events, opts)
  await tx`WITH ${ctes} SELECT ${eventsNotified(tx)} AS notified`
  return ids
}

/**
 * The common table expressions that append `events` (named s, e, d and n: the sequence, the events,
 * their deliveries, the notification), for a statement that does more in the same round trip (the
 * agent gateway records a decision and its event in one). The statement must select
 * `eventsNotified(tx)` (the notification is sent only when a delivery was made). The workspace row
 * (the sequence) is locked until commit: take it in the transaction's last statement. `when` (a
 * condition on the statement's other expressions, `AND ...`) appends the events only if it holds.
 */
export function eventCtes(tx: Db, workspaceId: string, events: EventAppend[], opts: { deliverTo?: string; when?: Fragment } = {}) {
  const active = activeTraceparent()
  const rows = events.map((e, i) => ({ ord: i + 1, id: newId('event', e.at), type: e.type, data: e.data, at: e.at ?? null, tp: e.traceparent === undefined ? active : e.traceparent, sample: e.sample ?? false }))
  const to = opts.deliverTo
  // A delivery id is the event's time part (ids sort by time) and 64 random bits.
  const ctes = tx`
    s AS (UPDATE workspaces SET event_seq = event_seq + ${rows.length} WHERE workspace_id = ${workspaceId} ${opts.when ?? tx``} RETURNING event_seq),
    e AS (
      INSERT INTO events (workspace_id, seq, id, type, data, created_at, traceparent, sample)
      SELECT ${workspaceId}, s.event_seq - ${rows.length} + e.ord, e.id, e.type, e.data, COALESCE(e.at, now()), e.tp, e.sample
      FROM s, jsonb_to_recordset(${tx.json(rows as never)}::jsonb) AS e(ord int, id text, type text, data jsonb, at timestamptz, tp text, sample boolean)
      RETURNING seq, id, type
    ), d AS (
      INSERT INTO webhook_deliveries (workspace_id, id, endpoint_id, event_id, event_seq)
      SELECT ${workspaceId}, 'dlv_' || substr(e.id, 5, 10) || substr(replace(gen_random_uuid()::text, '-', ''), 1, 16), w.id, e.id, e.seq
      FROM e JOIN webhook_endpoints w ON w.workspace_id = ${workspaceId}
       AND ${to === undefined ? tx`w.status = 'enabled' AND e.type = ANY (w.events)` : tx`w.id = ${to}`}
      RETURNING 1
    ), n AS (
      SELECT pg_notify(${DELIVERIES_CHANNEL}, '') FROM (SELECT 1 FROM d LIMIT 1) made
    )`
  return { ids: rows.map((r) => r.id), ctes }
}

/** The column that makes an eventCtes statement run its events and notification: the number of events appended. */
export const eventsNotified = (tx: Db) => tx`(SELECT count(*) FROM n) + (SELECT count(*) FROM e)`

export type EventRow = { seq: number; id: string; type: string; data: Record<string, unknown>; created_at: Date }

/** Events oldest first after `afterSeq`, optionally of one type; never a sample (it did not happen). */
export async function selectEvents(sql: Sql, workspaceId: string, opts: { type?: string; afterSeq: number; limit: number }): Promise<EventRow[]> {
  const type = opts.type === undefined ? sql`` : sql`AND type = ${opts.type}`
  return sql<EventRow[]>`
    SELECT seq, id, type, data, created_at FROM events
    WHERE workspace_id = ${workspaceId} ${type} AND seq > ${opts.afterSeq} AND NOT sample
    ORDER BY seq
    LIMIT ${opts.limit}`
}

/** The workspace's last event position (0 before any event), where a watcher starts. */
export async function selectEventSeq(sql: Sql, workspaceId: string): Promise<number> {
  const [row] = await sql<{ event_seq: number }[]>`SELECT event_seq FROM workspaces WHERE workspace_id = ${workspaceId}`
  return Number(row?.event_seq ?? 0)
}
