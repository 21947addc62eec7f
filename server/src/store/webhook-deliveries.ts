import { SYSTEM_ACTOR } from '../core/actor.ts'
import type { Db, Sql } from '../core/db.ts'
import { newId } from '../core/ids.ts'
import { insertAuditEntry } from './audit.ts'

/**
 * The delivery queue the webhook workers share. Any number of workers, in any number of processes,
 * claim due deliveries with FOR UPDATE SKIP LOCKED under a lease; a lease that runs out (its worker
 * died) makes the delivery pending again. Each claim also holds the breaker, the drain pace and each
 * endpoint's bound on deliveries in flight.
 */

export type ClaimedDelivery = {
  workspace_id: string
  id: string
  endpoint_id: string
  event_id: string
  /** The attempt this claim makes (1 for the first). */
  attempt: number
  url: string
  secrets: string[]
  event_type: string
  event_data: Record<string, unknown>
  event_created_at: Date
  /** The trace of the request that caused the event (tracing on then), for the delivery's link. */
  event_traceparent: string | null
}

type ClaimLimits = {
  owner: string
  leaseMs: number
  /** Deliveries of one endpoint out at once under this claim's lease owner (one per process). */
  perEndpoint: number
  /** Endpoints served by one claim. */
  endpoints: number
  /** While an endpoint's backlog drains: the time between two of its deliveries starting (1 / drain rate). */
  paceMs: number
  /** Deliveries this claim takes at most (the worker's free slots). */
  limit: number
  /**
   * Deliveries of this worker whose answer (a 2xx) is in and whose success is waiting to be recorded
   * with others: still leased (no one sends them again) but no longer out, so not counted against
   * their endpoint's bound.
   */
  answered?: string[]
}

/**
 * Claims due deliveries: of each endpoint that may take work now (enabled; circuit closed, or open
 * with its cool-down over, which lets one probe out and makes it half open; not held by its drain
 * pace), taking turns between endpoints, up to the claiming process's bound in flight (its lease
 * owner's deliveries out: each process has its own bound; one, for a probe or while draining).
 * Endpoints are locked for the statement, so a probe and a drain's pace hold across workers: only
 * as many as the claim needs (`endpoints`), so that workers claiming at once take different ones
 * rather than finding every endpoint locked.
 */
export async function claimDeliveries(sql: Sql, l: ClaimLimits): Promise<ClaimedDelivery[]> {
  const lease = l.leaseMs / 1000
  const pace = l.paceMs / 1000
  return sql<ClaimedDelivery[]>`
    WITH RECURSIVE waiting AS (
      -- The endpoints that have a pending delivery, one index probe each (a loose scan of the
      -- pending deliveries' index): only these can be ready, and an endpoint with nothing to send,
      -- whatever the number of them, costs the claim nothing.
      (SELECT d.workspace_id, d.endpoint_id FROM webhook_deliveries d WHERE d.status = 'pending'
       ORDER BY d.workspace_id, d.endpoint_id LIMIT 1)
      UNION ALL
      SELECT x.workspace_id, x.endpoint_id FROM waiting w
      CROSS JOIN LATERAL (
        SELECT d.workspace_id, d.endpoint_id FROM webhook_deliveries d
        WHERE d.status = 'pending' AND (d.workspace_id, d.endpoint_id) > (w.workspace_id, w.endpoint_id)
        ORDER BY d.workspace_id, d.endpoint_id LIMIT 1
      ) x
    ), ready AS (
      SELECT e.workspace_id, e.id, room.n AS room
      FROM waiting w
      JOIN webhook_endpoints e ON e.workspace_id = w.workspace_id AND e.id = w.endpoint_id
      -- How many more of its deliveries may go out now: one while its circuit is open (the probe) or
      -- a backlog drains, else up to the bound on this owner's (this process's) deliveries out at once.
      CROSS JOIN LATERAL (
        SELECT CASE WHEN e.circuit = 'open' OR e.draining THEN 1
                    ELSE ${l.perEndpoint} - (SELECT count(*) FROM webhook_deliveries o
                         WHERE o.workspace_id = e.workspace_id AND o.endpoint_id = e.id AND o.status = 'delivering' AND o.lease_until > now()
                           AND o.lease_owner = ${l.owner}
                           AND o.id <> ALL (${l.answered ?? []}::text[]))::int
               END AS n
      ) room
      WHERE e.status = 'enabled'
        AND (e.circuit = 'closed' OR (e.circuit = 'open' AND e.circuit_open_until <= now()))
        AND (NOT e.draining OR e.next_send_at IS NULL OR e.next_send_at <= now())
        -- Only an endpoint with room is asked whether its oldest pending delivery is due (the CASE
        -- keeps that order: reading the head of a busy queue's index costs far more than the count).
        -- The head of its index, not EXISTS: an EXISTS let PostgreSQL keep a plan made when the
        -- queue was empty, which read every due delivery.
        AND CASE WHEN room.n > 0 THEN
              (SELECT d.next_attempt_at FROM webhook_deliveries d
               WHERE d.workspace_id = e.workspace_id AND d.endpoint_id = e.id AND d.status = 'pending'
               ORDER BY d.next_attempt_at LIMIT 1) <= now()
            ELSE false END
      ORDER BY e.last_claimed_at NULLS FIRST, e.workspace_id, e.id
      LIMIT ${l.endpoints}
      FOR UPDATE OF e SKIP LOCKED
    ), picked AS (
      SELECT r.workspace_id, r.id AS endpoint_id, x.id
      FROM ready r
      CROSS JOIN LATERAL (
        SELECT d.id FROM webhook_deliveries d
        WHERE d.workspace_id = r.workspace_id AND d.endpoint_id = r.id AND d.status = 'pending' AND d.next_attempt_at <= now()
        ORDER BY d.next_attempt_at, d.id
        LIMIT r.room
        FOR UPDATE OF d SKIP LOCKED
      ) x
      LIMIT ${l.limit}
    ), claimed AS (
      UPDATE webhook_deliveries d
      SET status = 'delivering', attempts = d.attempts + 1, lease_owner = ${l.owner}, lease_until = now() + make_interval(secs => ${lease})
      FROM picked p WHERE d.workspace_id = p.workspace_id AND d.id = p.id
      RETURNING d.workspace_id, d.id, d.endpoint_id, d.event_id, d.attempts
    ), turns AS (
      UPDATE webhook_endpoints e SET
        last_claimed_at = now(),
        circuit = CASE WHEN e.circuit = 'open' THEN 'half_open' ELSE e.circuit END,
        probe_delivery_id = CASE WHEN e.circuit = 'open' THEN p.id ELSE e.probe_delivery_id END,
        next_send_at = CASE WHEN e.draining THEN GREATEST(COALESCE(e.next_send_at, now()), now()) + make_interval(secs => ${pace}) ELSE e.next_send_at END
      FROM (SELECT DISTINCT ON (workspace_id, endpoint_id) workspace_id, endpoint_id, id FROM picked ORDER BY workspace_id, endpoint_id, id) p
      WHERE e.workspace_id = p.workspace_id AND e.id = p.endpoint_id
      RETURNING e.id
    )
    SELECT c.workspace_id, c.id, c.endpoint_id, c.event_id, c.attempts AS attempt, w.url,
           ARRAY(SELECT s.secret FROM webhook_secrets s
                 WHERE s.workspace_id = c.workspace_id AND s.endpoint_id = c.endpoint_id AND (s.expires_at IS NULL OR s.expires_at > now())
                 ORDER BY s.created_at DESC, s.id DESC) AS secrets,
           ev.type AS event_type, ev.data AS event_data, ev.created_at AS event_created_at, ev.traceparent AS event_traceparent
    FROM claimed c
    JOIN webhook_endpoints w ON w.workspace_id = c.workspace_id AND w.id = c.endpoint_id
    -- Each event by its key (LIMIT 1 keeps it one lookup per delivery, whatever the planner's
    -- figures say: a plan kept from when the table was near empty joined on the workspace alone
    -- and read every one of its events for each delivery).
    CROSS JOIN LATERAL (
      SELECT ev.type, ev.data, ev.created_at, ev.traceparent FROM events ev
      WHERE ev.workspace_id = c.workspace_id AND ev.id = c.event_id LIMIT 1
    ) ev
    WHERE (SELECT count(*) FROM turns) >= 0`
}

export type AttemptRecord = {
  workspaceId: string
  deliveryId: string
  endpointId: string
  eventId: string
  eventType: string
  attempt: number
  url: string
  address: string | null
  statusCode: number | null
  error: string | null
  durationMs: number
}

async function insertAttempt(sql: Db, a: AttemptRecord, nextAttemptAt: Date | null) {
  await sql`
    INSERT INTO webhook_attempts (workspace_id, delivery_id, attempt, endpoint_id, event_id, event_type, url, address, status_code, error, duration_ms, next_attempt_at)
    VALUES (${a.workspaceId}, ${a.deliveryId}, ${a.attempt}, ${a.endpointId}, ${a.eventId}, ${a.eventType}, ${a.url}, ${a.address},
            ${a.statusCode}, ${a.error}, ${a.durationMs}, ${nextAttemptAt})
    ON CONFLICT (workspace_id, delivery_id, attempt) DO NOTHING`
}

/**
 * 2xx answers, recorded together (one statement for every success a worker has had since the last):
 * the deliveries are done, their attempts kept, and each endpoint works. Its row is written only
 * when that changes something (a circuit that was not closed closes and its backlog drains; a run
 * of failures ends) or its last success is more than a second old: otherwise every success to one
 * endpoint would wait on the one before for that row. Endpoints are locked in one order, so two
 * workers recording at once never deadlock on them.
 */
export async function recordSuccesses(sql: Sql, records: AttemptRecord[]) {
  if (!records.length) return
  const col = <K extends keyof AttemptRecord>(k: K) => records.map((r) => r[k])
  await sql`
    WITH r AS (
      SELECT * FROM unnest(${col('workspaceId') as string[]}::text[], ${col('deliveryId') as string[]}::text[], ${col('endpointId') as string[]}::text[],
                           ${col('eventId') as string[]}::text[], ${col('eventType') as string[]}::text[], ${col('attempt') as number[]}::int[],
                           ${col('url') as string[]}::text[], ${col('address') as (string | null)[]}::text[], ${col('statusCode') as (number | null)[]}::int[],
                           ${col('durationMs') as number[]}::int[])
        AS r(workspace_id, delivery_id, endpoint_id, event_id, event_type, attempt, url, address, status_code, duration_ms)
    ), done AS (
      UPDATE webhook_deliveries d SET status = 'succeeded', delivered_at = now(), lease_until = NULL, lease_owner = NULL
      FROM r WHERE d.workspace_id = r.workspace_id AND d.id = r.delivery_id
    ), kept AS (
      INSERT INTO webhook_attempts (workspace_id, delivery_id, attempt, endpoint_id, event_id, event_type, url, address, status_code, error, duration_ms, next_attempt_at)
      SELECT workspace_id, delivery_id, attempt, endpoint_id, event_id, event_type, url, address, status_code, NULL, duration_ms, NULL FROM r
      ON CONFLICT (workspace_id, delivery_id, attempt) DO NOTHING
    ), stale AS (
      SELECT e.workspace_id, e.id FROM webhook_endpoints e
      WHERE (e.workspace_id, e.id) IN (SELECT workspace_id, endpoint_id FROM r)
        AND (e.circuit <> 'closed' OR e.consecutive_failures <> 0 OR e.failing_since IS NOT NULL OR e.probe_delivery_id IS NOT NULL
             OR e.last_success_at IS NULL OR e.last_success_at < now() - interval '1 second')
      ORDER BY e.workspace_id, e.id
      FOR UPDATE
    )
    UPDATE webhook_endpoints e SET
      draining = e.draining OR e.circuit <> 'closed', next_send_at = CASE WHEN e.circuit <> 'closed' THEN now() ELSE e.next_send_at END,
      consecutive_failures = 0, last_success_at = now(), failing_since = NULL,
      circuit = 'closed', circuit_open_until = NULL, cooldown_ms = 0, probe_delivery_id = NULL
    FROM stale WHERE e.workspace_id = stale.workspace_id AND e.id = stale.id`
}

type Breaker = { threshold: number; cooldownMs: number; cooldownMaxMs: number; disableAfterMs: number }

/**
 * A failed attempt: the delivery waits for its next attempt (`nextAttemptAt`), or has failed for
 * good (null: the schedule ran out). The endpoint counts it: at `threshold` consecutive failures
 * its circuit opens for a cool-down; a failed probe opens it again for twice as long (at most the
 * maximum); failing without a success for `disableAfterMs` disables it. `gone` (410) disables it at
 * once, and its delivery waits, pending, to go when the endpoint is enabled again.
 */
export async function recordFailure(sql: Sql, a: AttemptRecord, next: { nextAttemptAt: Date | null; gone: boolean }, b: Breaker) {
  await sql.begin(async (tx) => {
    // Only while this attempt's claim still holds the delivery (each claim counts its attempt): a
    // worker that stalled past its lease (stopped, paused) finds another's claim, or its success,
    // there, and must not make the delivery pending or failed again (it would go a third time, and a
    // success would read as a failure). Its late attempt is kept all the same, as what happened;
    // the endpoint's breaker counts only the attempts that still decide.
    const held = await tx`
      UPDATE webhook_deliveries SET lease_until = NULL, lease_owner = NULL,
        status = ${next.nextAttemptAt || next.gone ? 'pending' : 'failed'}, next_attempt_at = COALESCE(${next.nextAttemptAt}, now())
      WHERE workspace_id = ${a.workspaceId} AND id = ${a.deliveryId} AND status = 'delivering' AND attempts = ${a.attempt}`
    await insertAttempt(tx, a, next.gone || held.count === 0 ? null : next.nextAttemptAt)
    if (held.count === 0) return
    const [e] = await tx<{ failing_since: Date }[]>`
      UPDATE webhook_endpoints SET
        consecutive_failures = consecutive_failures + 1,
        failing_since = COALESCE(failing_since, now()),
        cooldown_ms = CASE
          WHEN circuit = 'half_open' THEN LEAST(GREATEST(cooldown_ms * 2, ${b.cooldownMs}), ${b.cooldownMaxMs})
          WHEN circuit = 'closed' AND consecutive_failures + 1 >= ${b.threshold} THEN ${b.cooldownMs}
          ELSE cooldown_ms END,
        circuit_open_until = CASE
          WHEN circuit = 'half_open' THEN now() + make_interval(secs => LEAST(GREATEST(cooldown_ms * 2, ${b.cooldownMs}), ${b.cooldownMaxMs}) / 1000.0)
          WHEN circuit = 'closed' AND consecutive_failures + 1 >= ${b.threshold} THEN now() + make_interval(secs => ${b.cooldownMs / 1000})
          ELSE circuit_open_until END,
        circuit = CASE
          WHEN circuit = 'half_open' THEN 'open'
          WHEN circuit = 'closed' AND consecutive_failures + 1 >= ${b.threshold} THEN 'open'
          ELSE circuit END,
        -- A backlog that drains keeps its pace through a failure (what is left still goes at the
        -- drain rate); the reaper ends the drain once nothing due is left.
        probe_delivery_id = NULL
      WHERE workspace_id = ${a.workspaceId} AND id = ${a.endpointId}
      RETURNING failing_since`
    if (next.gone) {
      await auditDisabled(tx, await tx<Disabled[]>`
        UPDATE webhook_endpoints SET status = 'disabled', disabled_at = now(),
          disabled_reason = ${`The endpoint answered 410 Gone (delivery ${a.deliveryId}, attempt ${a.attempt}); enable it to resume.`}
        WHERE workspace_id = ${a.workspaceId} AND id = ${a.endpointId} AND status = 'enabled'
        RETURNING workspace_id, id, url, disabled_reason`)
    } else if (e && e.failing_since.getTime() <= Date.now() - b.disableAfterMs) {
      await auditDisabled(tx, await tx<Disabled[]>`
        UPDATE webhook_endpoints SET status = 'disabled', disabled_at = now(),
          disabled_reason = ${`Failing without a success since ${e.failing_since.toISOString()}; enable it to resume.`}
        WHERE workspace_id = ${a.workspaceId} AND id = ${a.endpointId} AND status = 'enabled'
        RETURNING workspace_id, id, url, disabled_reason`)
    }
  })
}

type Disabled = { workspace_id: string; id: string; url: string; disabled_reason: string }

/**
 * An endpoint the delivery disabled (410 Gone, failing too long) is a change of a webhook endpoint
 * like an operator's disable: the audit says so, by the system, with the reason, in the transaction
 * that disabled it.
 */
async function auditDisabled(tx: Db, disabled: Disabled[]) {
  for (const d of disabled) {
    const at = new Date()
    await insertAuditEntry(tx, { workspaceId: d.workspace_id, id: newId('auditEntry', at), at, actor: SYSTEM_ACTOR, action: 'webhook.disabled', subject: d.id, detail: { url: d.url, reason: d.disabled_reason } })
  }
}

/**
 * What the workers keep in order between claims: leases that ran out are pending again (their
 * worker died or stalled; the delivery goes again, with its event id); a half-open endpoint whose
 * probe is no longer out may probe again; an endpoint whose backlog has drained goes at full pace.
 */
export async function reapLeases(sql: Sql): Promise<number> {
  const expired = await sql`
    UPDATE webhook_deliveries SET status = 'pending', lease_until = NULL, lease_owner = NULL, next_attempt_at = now()
    WHERE status = 'delivering' AND lease_until < now()`
  await sql`
    UPDATE webhook_endpoints e SET circuit = 'open', circuit_open_until = now(), probe_delivery_id = NULL
    WHERE e.circuit = 'half_open' AND NOT EXISTS (
      SELECT 1 FROM webhook_deliveries d WHERE d.workspace_id = e.workspace_id AND d.id = e.probe_delivery_id AND d.status = 'delivering')`
  await sql`
    UPDATE webhook_endpoints e SET draining = false
    WHERE e.draining AND NOT EXISTS (
      SELECT 1 FROM webhook_deliveries d WHERE d.workspace_id = e.workspace_id AND d.endpoint_id = e.id AND d.status = 'pending' AND d.next_attempt_at <= now())`
  return expired.count
}

/**
 * Endpoints failing without a success for longer than allowed are disabled, even with nothing to
 * send, each with its audit entry in the same transaction (disabled and audited, or neither). A tick
 * with nothing to disable costs one statement, the look along the partial index; the transaction
 * is opened only when there is something to disable, and takes only what still qualifies.
 */
export async function disableLongFailing(sql: Sql, disableAfterMs: number): Promise<number> {
  const due = await sql<{ workspace_id: string; id: string }[]>`
    SELECT workspace_id, id FROM webhook_endpoints
    WHERE status = 'enabled' AND failing_since < now() - make_interval(secs => ${disableAfterMs / 1000})`
  if (due.length === 0) return 0
  return sql.begin(async (tx) => {
    const disabled = await tx<Disabled[]>`
      UPDATE webhook_endpoints SET status = 'disabled', disabled_at = now(),
        disabled_reason = 'Failing without a success since ' || to_char(failing_since AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '; enable it to resume.'
      WHERE (workspace_id, id) IN (SELECT * FROM unnest(${due.map((d) => d.workspace_id)}::text[], ${due.map((d) => d.id)}::text[]))
        AND status = 'enabled' AND failing_since < now() - make_interval(secs => ${disableAfterMs / 1000})
      RETURNING workspace_id, id, url, disabled_reason`
    await auditDisabled(tx, disabled)
    return disabled.length
  })
}

/** A worker that stops gives back what it still holds: those deliveries go again at once. */
export async function releaseLeases(sql: Sql, owner: string) {
  await sql`
    UPDATE webhook_deliveries SET status = 'pending', lease_until = NULL, lease_owner = NULL, next_attempt_at = now()
    WHERE status = 'delivering' AND lease_owner = ${owner}`
}
