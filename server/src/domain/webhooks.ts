import { type Actor, SYSTEM_ACTOR } from '../core/actor.ts'
import type { Db, Sql } from '../core/db.ts'
import { EVENT_TYPES, type EventType } from '../core/event-types.ts'
import { NotFoundError, RuleError } from '../core/errors.ts'
import { idPattern, newId } from '../core/ids.ts'
import { secretsKeyring } from '../core/secrets.ts'
import { isoOrNull } from '../core/time.ts'
import { inTransaction } from '../store/driver/db.ts'
import { appendEvents } from '../store/events.ts'
import * as store from '../store/webhooks.ts'
import { workspaceExists } from '../store/workspaces.ts'
import { recordAudit } from './audit.ts'
import { sampleEvent, sampleType } from './event-samples.ts'
import { type AddressPolicy, checkUrl, type Resolver, systemResolver } from './webhook-addresses.ts'
import { newSecret } from './webhook-signature.ts'

/**
 * Webhook endpoints, as operators manage them (`growth admin webhook ...`; CONTRACT: Operator
 * interface): not API operations. An endpoint subscribes to named event types; its URL is checked
 * against the private-address guard when it is saved (and again before every send, by the workers).
 */

type WebhookGuard = { addresses: AddressPolicy; resolve?: Resolver }

/** `a,b,c` -> the event types, each one of the catalogue. */
function parseEventTypes(text: string): EventType[] {
  const types = [...new Set(text.split(',').map((s) => s.trim()).filter(Boolean))]
  if (!types.length) throw new RuleError('events.some', 'An endpoint subscribes to at least one event type (it is never sent everything).', 'events')
  const unknown = types.filter((t) => !(EVENT_TYPES as readonly string[]).includes(t))
  if (unknown.length) throw new RuleError('events.known', `Unknown event type ${unknown.join(', ')}; the types are ${EVENT_TYPES.join(', ')}.`, 'events')
  return types as EventType[]
}

/** An endpoint's URL refused (not public, not resolving, ...): `reason` says why, for a form to word around it. */
export class UrlRefused extends RuleError {
  constructor(
    url: string,
    readonly reason: string,
  ) {
    super('url.public', `url ${url} is refused: ${reason}.`, 'url')
  }
}

/** A new endpoint, enabled, with its first secret (shown once here; stored sealed; the workers sign with it). */
export async function createEndpoint(sql: Db, opts: { workspaceId: string; url: string; events: string; by?: Actor }, guard: WebhookGuard) {
  if (!(await workspaceExists(sql, opts.workspaceId))) throw new NotFoundError('workspace', opts.workspaceId, `No workspace ${opts.workspaceId}.`)
  const events = parseEventTypes(opts.events)
  const checked = await checkUrl(opts.url, guard.addresses, guard.resolve ?? systemResolver)
  if (!checked.ok) throw new UrlRefused(opts.url, checked.reason)
  const id = newId('webhookEndpoint')
  const secret = newSecret()
  await inTransaction(sql, async (tx) => {
    await store.insertEndpoint(tx, { workspaceId: opts.workspaceId, id, url: checked.url.href, events, secretId: newId('webhookSecret'), secret: secretsKeyring().seal(secret) })
    await recordAudit(tx, opts.workspaceId, opts.by ?? SYSTEM_ACTOR, 'webhook.created', id, { url: checked.url.href, events })
  })
  return { id, secret, url: checked.url.href, events }
}

export type EndpointView = {
  id: string
  url: string
  events: string[]
  status: 'enabled' | 'disabled'
  disabledReason: string | null
  circuit: { state: 'closed' | 'open' | 'half_open'; openUntil: string | null }
  lastSuccessAt: string | null
  createdAt: string
}

const toView = (e: store.EndpointRow): EndpointView => ({
  id: e.id,
  url: e.url,
  events: e.events,
  status: e.status,
  disabledReason: e.disabled_reason,
  circuit: { state: e.circuit, openUntil: e.circuit === 'closed' ? null : isoOrNull(e.circuit_open_until) },
  lastSuccessAt: isoOrNull(e.last_success_at),
  createdAt: e.created_at.toISOString(),
})

export async function listEndpoints(sql: Db, workspaceId: string): Promise<{ endpoints: EndpointView[] }> {
  if (!(await workspaceExists(sql, workspaceId))) throw new NotFoundError('workspace', workspaceId, `No workspace ${workspaceId}.`)
  return { endpoints: (await store.selectEndpoints(sql, workspaceId)).map(toView) }
}

/**
 * Which endpoint a change or a read is for: the operator's commands name it by id alone; the console
 * names its person's workspace too (`within`), and an endpoint of another workspace is not found.
 */
type Scope = { within?: string }

async function endpointOf(sql: Db, id: string, opts: { lock?: boolean } & Scope = {}) {
  if (!idPattern('webhookEndpoint').test(id)) throw new RuleError('id_prefix', `A webhook endpoint id starts with whe_ (got ${id}).`, 'id')
  const e = await store.selectEndpointById(sql, id, opts)
  if (!e || (opts.within !== undefined && e.workspace_id !== opts.within)) throw new NotFoundError('webhook endpoint', id, `No webhook endpoint ${id}.`)
  return e
}

/** One endpoint of a workspace, as the list shows it (the console's endpoint page). */
export async function endpointIn(sql: Db, workspaceId: string, id: string): Promise<EndpointView> {
  return toView(await endpointOf(sql, id, { within: workspaceId }))
}

/**
 * A new secret for the endpoint. The secrets signing until now keep signing for `overlapMs` (each
 * delivery carries one v1= per live secret, newest first), so a receiver can switch without a
 * failed verification.
 */
export async function rotateSecret(sql: Db, id: string, overlapMs: number, opts: Scope & { by?: Actor } = {}) {
  if (!Number.isFinite(overlapMs) || overlapMs < 0) throw new RuleError('overlap', 'overlap must be a duration of 0 or more, e.g. 24h.', 'overlap')
  const secret = newSecret()
  await inTransaction(sql, async (tx) => {
    const e = await endpointOf(tx, id, { lock: true, within: opts.within })
    await store.rotateSecret(tx, e.workspace_id, e.id, { id: newId('webhookSecret'), secret: secretsKeyring().seal(secret), overlapMs })
    // The new secret is shown once, to whoever rotated it: the audit list names the change, never the secret.
    await recordAudit(tx, e.workspace_id, opts.by ?? SYSTEM_ACTOR, 'webhook.secret_rotated', e.id, { overlapSeconds: Math.round(overlapMs / 1000) })
  })
  return { secret }
}

/**
 * A new URL or new event types for an endpoint (its id and secrets stay, so its receiver keeps
 * verifying as before). The URL is checked as at creation. A delivery waiting for its next attempt
 * goes to the new URL; new events are matched against the new types, and events made before keep
 * going to it. The circuit and the enabled state stay as they are. `changed` false: both were
 * already so, and nothing is recorded.
 */
export async function updateEndpoint(sql: Db, id: string, change: { url?: string; events?: string }, guard: WebhookGuard, opts: Scope & { by?: Actor } = {}): Promise<EndpointView & { changed: boolean }> {
  if (change.url === undefined && change.events === undefined) throw new RuleError('change', 'Nothing to change: give a new URL, new event types, or both.')
  const events = change.events === undefined ? undefined : parseEventTypes(change.events)
  let url: string | undefined
  if (change.url !== undefined) {
    const checked = await checkUrl(change.url, guard.addresses, guard.resolve ?? systemResolver)
    if (!checked.ok) throw new UrlRefused(change.url, checked.reason)
    url = checked.url.href
  }
  return inTransaction(sql, async (tx) => {
    const e = await endpointOf(tx, id, { lock: true, within: opts.within })
    const next = { url: url ?? e.url, events: events ?? e.events }
    const same = next.url === e.url && next.events.length === e.events.length && next.events.every((t) => e.events.includes(t))
    if (same) return { ...toView(e), changed: false }
    await store.updateEndpoint(tx, e.workspace_id, e.id, next)
    await recordAudit(tx, e.workspace_id, opts.by ?? SYSTEM_ACTOR, 'webhook.updated', e.id, {
      url: next.url,
      ...(next.url !== e.url ? { previousUrl: e.url } : {}),
      events: next.events,
      ...(events ? { previousEvents: e.events } : {}),
    })
    return { ...toView({ ...e, ...next }), changed: true }
  })
}

/** A `webhook.test` event (or a sample of `event`'s type) to this endpoint alone, delivered like any other. */
export async function sendTestEvent(sql: Db, id: string, event?: string, opts: Scope = {}) {
  const type = sampleType(event)
  return inTransaction(sql, async (tx) => {
    const e = await endpointOf(tx, id, { lock: true, within: opts.within })
    // The test event names the endpoint it went to; any other type is its sample (event-samples.ts).
    const data = type === 'webhook.test' ? { endpoint: { id: e.id, url: e.url } } : sampleEvent(type).data
    // A sample did not happen: it goes to this endpoint and is kept out of the event stream.
    const [eventId] = await appendEvents(tx, e.workspace_id, [{ type, data, sample: type !== 'webhook.test' }], { deliverTo: e.id })
    return { deliveryId: (await store.selectDeliveryOf(tx, e.workspace_id, e.id, eventId!))!, eventId: eventId! }
  })
}

/**
 * How far back an enable recovers: deliveries that failed (their schedule ran out) at most this long
 * ago go again. Measured from the failure, not the event: a delivery fails for good a day and a half
 * after its event (the default schedule), and the operator still has three days from then.
 */
export const RECOVERY_WINDOW_MS = 72 * 3_600_000

/** `changed` false: the endpoint was disabled already (its reason stands; nothing recorded). */
type Toggled = { id: string; status: 'disabled'; changed: boolean; disabledReason: string | null } | { id: string; status: 'enabled'; requeued: number }

/**
 * Disable: deliveries stop (they wait, pending); an endpoint disabled already stays as it was, and
 * nothing is recorded. Enable: the circuit closes, the backlog drains at
 * the drain rate, and what failed to the endpoint in the last 72 hours goes again, oldest first,
 * once each (`requeued` says how many). The endpoint is locked for the change, so two enables at
 * once take turns and the second finds nothing left to queue.
 */
export async function setEndpointEnabled(sql: Db, id: string, enabled: boolean, by: Actor = SYSTEM_ACTOR, opts: Scope = {}): Promise<Toggled> {
  return inTransaction(sql, async (tx) => {
    const e = await endpointOf(tx, id, { lock: true, within: opts.within })
    if (!enabled) {
      if (e.status === 'disabled') return { id: e.id, status: 'disabled' as const, changed: false, disabledReason: e.disabled_reason }
      const who = by.kind === 'person' ? `by ${by.name} in the console` : 'by an operator'
      const reason = `Disabled ${who}; enable it to resume.`
      await store.disableEndpoint(tx, e.workspace_id, e.id, reason)
      await recordAudit(tx, e.workspace_id, by, 'webhook.disabled', e.id, { url: e.url })
      return { id: e.id, status: 'disabled' as const, changed: true, disabledReason: reason }
    }
    await store.enableEndpoint(tx, e.workspace_id, e.id)
    const requeued = await store.requeueFailed(tx, e.workspace_id, e.id, RECOVERY_WINDOW_MS)
    await recordAudit(tx, e.workspace_id, by, 'webhook.enabled', e.id, { url: e.url, requeued })
    return { id: e.id, status: 'enabled' as const, requeued }
  })
}

/** The attempts made to an endpoint, newest first, as `growth admin webhook attempts` shows them. */
export async function listAttempts(sql: Sql, id: string, limit: number, opts: Scope = {}) {
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new RuleError('limit', `limit must be a whole number from 1 to 1000 (got ${limit}).`, 'limit')
  const e = await endpointOf(sql, id, { within: opts.within })
  const rows = await store.selectAttempts(sql, e.workspace_id, e.id, limit)
  return {
    attempts: rows.map((a) => ({
      deliveryId: a.delivery_id,
      eventId: a.event_id,
      event: a.event_type,
      attempt: a.attempt,
      url: a.url,
      address: a.address,
      statusCode: a.status_code,
      error: a.error,
      durationMs: a.duration_ms,
      at: a.created_at.toISOString(),
      nextAttemptAt: isoOrNull(a.next_attempt_at),
    })),
  }
}
