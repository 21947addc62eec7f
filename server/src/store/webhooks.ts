import type { Db, Sql, Tx } from '../core/db.ts'
import { DELIVERIES_CHANNEL } from './events.ts'

/** Webhook endpoints, their secrets and the attempts made to them, as operators manage and read them. */

export type EndpointRow = {
  workspace_id: string
  id: string
  url: string
  events: string[]
  status: 'enabled' | 'disabled'
  disabled_reason: string | null
  circuit: 'closed' | 'open' | 'half_open'
  circuit_open_until: Date | null
  last_success_at: Date | null
  created_at: Date
}

const endpointColumns = (sql: Db) =>
  sql`workspace_id, id, url, events, status, disabled_reason, circuit, circuit_open_until, last_success_at, created_at`

export async function insertEndpoint(tx: Tx, e: { workspaceId: string; id: string; url: string; events: string[]; secretId: string; secret: string }) {
  await tx`INSERT INTO webhook_endpoints (workspace_id, id, url, events) VALUES (${e.workspaceId}, ${e.id}, ${e.url}, ${e.events})`
  await tx`INSERT INTO webhook_secrets (workspace_id, endpoint_id, id, secret) VALUES (${e.workspaceId}, ${e.id}, ${e.secretId}, ${e.secret})`
}

export async function selectEndpoints(sql: Db, workspaceId: string): Promise<EndpointRow[]> {
  return sql<EndpointRow[]>`
    SELECT ${endpointColumns(sql)} FROM webhook_endpoints WHERE workspace_id = ${workspaceId} ORDER BY created_at, id`
}

/** An endpoint by id, in whichever workspace holds it (operators name endpoints by id alone), locked when asked. */
export async function selectEndpointById(sql: Db, id: string, opts: { lock?: boolean } = {}): Promise<EndpointRow | undefined> {
  const lock = opts.lock ? sql`FOR UPDATE` : sql``
  const [row] = await sql<EndpointRow[]>`SELECT ${endpointColumns(sql)} FROM webhook_endpoints WHERE id = ${id} ${lock}`
  return row
}

/** The endpoint's URL and event types, as given whole. */
export async function updateEndpoint(tx: Tx, workspaceId: string, id: string, e: { url: string; events: string[] }) {
  await tx`UPDATE webhook_endpoints SET url = ${e.url}, events = ${e.events} WHERE workspace_id = ${workspaceId} AND id = ${id}`
}

/** A new secret; the ones signing until now keep signing for `overlapMs` more. */
export async function rotateSecret(tx: Tx, workspaceId: string, endpointId: string, s: { id: string; secret: string; overlapMs: number }) {
  await tx`
    UPDATE webhook_secrets SET expires_at = now() + make_interval(secs => ${s.overlapMs / 1000})
    WHERE workspace_id = ${workspaceId} AND endpoint_id = ${endpointId} AND (expires_at IS NULL OR expires_at > now() + make_interval(secs => ${s.overlapMs / 1000}))`
  await tx`INSERT INTO webhook_secrets (workspace_id, endpoint_id, id, secret) VALUES (${workspaceId}, ${endpointId}, ${s.id}, ${s.secret})`
}

/** Stops deliveries to the endpoint (they wait, pending, and are not lost), saying why. */
export async function disableEndpoint(sql: Db, workspaceId: string, id: string, reason: string) {
  await sql`
    UPDATE webhook_endpoints SET status = 'disabled', disabled_reason = ${reason}, disabled_at = now()
    WHERE workspace_id = ${workspaceId} AND id = ${id}`
}

/** Deliveries resume: the circuit closes and the backlog drains at the drain rate. */
export async function enableEndpoint(sql: Db, workspaceId: string, id: string) {
  await sql`
    UPDATE webhook_endpoints SET status = 'enabled', disabled_reason = NULL, disabled_at = NULL, circuit = 'closed',
      circuit_open_until = NULL, consecutive_failures = 0, cooldown_ms = 0, probe_delivery_id = NULL,
      draining = true, next_send_at = now(), failing_since = NULL
    WHERE workspace_id = ${workspaceId} AND id = ${id}`
}

/**
 * Recovery: the endpoint's deliveries that failed (their retry schedule ran out) within `windowMs`
 * of now are pending again, due since they were created, so the queue (which serves the longest
 * due first) sends them oldest first, at the drain pace `enableEndpoint` sets. A failed delivery's
 * next_attempt_at is when it failed (recordFailure). Their attempts so far stay; the next one counts
 * on from them. Only failed deliveries are taken, and each becomes pending in this statement, so a
 * second enable (or two at once: the second waits for the first's rows, then finds them pending)
 * queues none of them twice, and a delivery that succeeded is never sent again. Returns how many.
 */
export async function requeueFailed(sql: Db, workspaceId: string, endpointId: string, windowMs: number): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    WITH requeued AS (
      UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = created_at, lease_until = NULL, lease_owner = NULL
      WHERE workspace_id = ${workspaceId} AND endpoint_id = ${endpointId} AND status = 'failed'
        AND next_attempt_at >= now() - make_interval(secs => ${windowMs / 1000})
      RETURNING 1
    ), n AS (
      SELECT pg_notify(${DELIVERIES_CHANNEL}, '') FROM (SELECT 1 FROM requeued LIMIT 1) made
    )
    SELECT (SELECT count(*) FROM requeued)::int AS n, (SELECT count(*) FROM n) AS notified`
  return row!.n
}

type AttemptRow = {
  delivery_id: string
  event_id: string
  event_type: string
  attempt: number
  url: string
  address: string | null
  status_code: number | null
  error: string | null
  duration_ms: number
  created_at: Date
  next_attempt_at: Date | null
}

/** The attempts made to an endpoint, newest first. */
export async function selectAttempts(sql: Sql, workspaceId: string, endpointId: string, limit: number): Promise<AttemptRow[]> {
  return sql<AttemptRow[]>`
    SELECT delivery_id, event_id, event_type, attempt, url, address, status_code, error, duration_ms, created_at, next_attempt_at
    FROM webhook_attempts WHERE workspace_id = ${workspaceId} AND endpoint_id = ${endpointId}
    ORDER BY created_at DESC, delivery_id DESC, attempt DESC
    LIMIT ${limit}`
}

/** The delivery of an event to an endpoint. */
export async function selectDeliveryOf(sql: Db, workspaceId: string, endpointId: string, eventId: string): Promise<string | undefined> {
  const [row] = await sql<{ id: string }[]>`
    SELECT id FROM webhook_deliveries WHERE workspace_id = ${workspaceId} AND endpoint_id = ${endpointId} AND event_id = ${eventId}`
  return row?.id
}
