import { randomBytes } from 'node:crypto'
import type { Sql } from '../core/db.ts'
import type { Logger } from '../core/log.ts'
import { RepeatedFailure } from '../core/repeated-failure.ts'
import { type SecretsKeyring, secretsKeyring } from '../core/secrets.ts'
import type { WebhookSettings } from '../config.ts'
import { toEvent } from '../domain/events.ts'
import type { Resolver } from '../domain/webhook-addresses.ts'
import { nextAttemptAt, retryAfterMs } from '../domain/webhook-schedule.ts'
import { signatureHeader, standardHeaders } from '../domain/webhook-signature.ts'
import { DELIVERIES_CHANNEL } from '../store/events.ts'
import { type AttemptRecord, type ClaimedDelivery, claimDeliveries, disableLongFailing, reapLeases, recordFailure, recordSuccesses, releaseLeases } from '../store/webhook-deliveries.ts'
import { send } from './send.ts'
import type { Span } from '@opentelemetry/api'
import { observeDelivery } from '../core/metrics.ts'
import { inSpan, linkTo, SpanKind } from '../core/tracing.ts'

/**
 * The webhook delivery workers. Each claims due deliveries from the shared queue (any number of
 * workers in any number of processes share it), sends them, and records what happened. They wake
 * when deliveries are created (LISTEN on a PostgreSQL server; this process's own writes wake them
 * directly) and otherwise look every POLL_MS, so a retry or a cool-down that ends is taken promptly.
 */

/** Deliveries one worker has out at once. */
const SLOTS = 64
/**
 * Deliveries of one endpoint out at once from this process's workers: a slow endpoint never holds up
 * the others. Each process has its own bound (its lease owner's), so that more processes deliver
 * more to busy endpoints rather than share a fixed number (docs/decisions.md, "Each worker process
 * bounds an endpoint"); a receiver sees at most this many times the processes at once.
 */
const PER_ENDPOINT = 8
const POLL_MS = 200
const CLAIM_FAILURES = { failed: 'webhook claim failed', stillFailing: 'webhook claims still failing', worksAgain: 'webhook claims work again' }
const HOUSEKEEPING_FAILURES = { failed: 'webhook housekeeping failed', stillFailing: 'webhook housekeeping still failing', worksAgain: 'webhook housekeeping works again' }
/** A worker claims when this many slots are free (or none are out): fewer, fuller claims cost the database less (a claim costs about the same for 16 as for 32; 48 lets the slots run dry: docs/performance.md). */
const CLAIM_AT_LEAST = 32
const REAP_MS = 1000
/**
 * A send out longer than this stops counting against its worker's slots (its endpoint's bound still
 * holds it): endpoints that hang or answer slowly hold a bounded share of the worker, and the rest
 * always have its slots.
 */
const LINGER_MS = 500
/** Sends a worker lets linger at most (each is a socket held to a slow receiver until its time-out). */
const MAX_LINGERING = 4 * SLOTS
/** Event bodies kept for the other endpoints of the same event (serialized once, not per delivery). */
const BODIES_KEPT = 1024
/** The name the service gives itself on every delivery. */
export const USER_AGENT = 'GrowthAutomationService-Webhooks/1'

type WorkerOptions = {
  sql: Sql
  log: Logger
  settings: WebhookSettings
  /** A PostgreSQL server's pool to LISTEN on; none on the embedded database (which is polled). */
  listen?: Sql
  /** Tests play DNS and trust their own certificate authority. */
  resolve?: Resolver
  ca?: string
  /** Opens the endpoints' sealed secrets; the keyring this process loaded at start when not given. */
  secrets?: SecretsKeyring
}

export type DeliveryWorkers = {
  /** Look for work now (this process created deliveries). */
  wake(): void
  /** Stop claiming; finish what is out (each send ends within the time-out), then release any lease still held. */
  stop(): Promise<void>
}

export async function startDeliveryWorkers(opts: WorkerOptions, count = opts.settings.workers): Promise<DeliveryWorkers> {
  const s = opts.settings
  const keyring = opts.secrets ?? secretsKeyring()
  const owner = `worker-${process.pid}-${randomBytes(4).toString('hex')}`
  // A lease outlasts any send (each ends within the time-out) with room to record it.
  const leaseMs = 2 * s.timeoutMs + 1000
  const breaker = { threshold: s.breakerThreshold, cooldownMs: s.breakerCooldownMs, cooldownMaxMs: s.breakerCooldownMaxMs, disableAfterMs: s.disableAfterMs }
  let stopping = false
  const wakers = new Set<() => void>()
  // A wake-up that comes while a loop is claiming is counted, so the loop claims again at once
  // rather than sleeping through it. New work (deliveries created: LISTEN, or this process's own
  // writes) is counted apart from a slot coming free (`freed`): see the loop's `refilled`.
  let wakeups = 0
  let newWork = 0
  const freed = () => {
    wakeups++
    for (const w of wakers) w()
  }
  const wake = () => {
    newWork++
    freed()
  }
  const successes = new SuccessBatch(opts.sql)
  // The bytes of an event are the same for each of its endpoints: made once.
  const bodies = new Map<string, string>()
  function bodyOf(d: ClaimedDelivery): string {
    let body = bodies.get(d.event_id)
    if (body === undefined) {
      const event = toEvent(d.workspace_id, { seq: 0, id: d.event_id, type: d.event_type, data: d.event_data, created_at: d.event_created_at })
      body = JSON.stringify(event)
      if (bodies.size >= BODIES_KEPT) bodies.clear()
      bodies.set(d.event_id, body)
    }
    return body
  }
  const out = new Set<Promise<void>>()

  /** One attempt, in a span linked to the trace of the request that caused the event; counted by outcome. */
  function deliver(d: ClaimedDelivery) {
    const attributes = { 'growth.workspace_id': d.workspace_id, 'growth.event_id': d.event_id, 'growth.event_type': d.event_type, 'growth.delivery_id': d.id, 'growth.attempt': d.attempt }
    return inSpan('webhook delivery', (span) => attempt(d, span), { attributes, links: linkTo(d.event_traceparent), kind: SpanKind.PRODUCER, root: true })
  }

  async function attempt(d: ClaimedDelivery, span: Span | undefined) {
    // The bytes signed are the bytes sent.
    const body = bodyOf(d)
    // Stored sealed; each is opened once per process (then a Map lookup).
    const secrets = d.secrets.map((sealed) => keyring.open(sealed))
    const now = Math.floor(Date.now() / 1000)
    const headers = {
      'Content-Type': 'application/json',
      'User-Agent': USER_AGENT,
      'X-Service-Signature': signatureHeader(body, secrets, now),
      'X-Service-Event-Id': d.event_id,
      'X-Service-Delivery-Id': d.id,
      // Standard Webhooks: webhook-id is the event id, so every attempt (and endpoint) carries the same.
      ...standardHeaders(d.event_id, body, secrets, now),
    }
    const r = await send(d.url, body, headers, { timeoutMs: s.timeoutMs, addresses: s.addresses, resolve: opts.resolve, ca: opts.ca })
    const record = {
      workspaceId: d.workspace_id, deliveryId: d.id, endpointId: d.endpoint_id, eventId: d.event_id, eventType: d.event_type,
      attempt: d.attempt, url: d.url, address: r.address, statusCode: r.statusCode, error: r.error, durationMs: r.durationMs,
    }
    if (span) span.setAttributes({ 'url.full': withoutCredentials(d.url), ...(r.statusCode ? { 'http.response.status_code': r.statusCode } : {}) })
    if (r.ok) {
      observeDelivery('delivered', (Date.now() - d.event_created_at.getTime()) / 1000)
      // The slot is free once the answer is in; the success is recorded with others (its lease
      // keeps the delivery from going again meanwhile, and a stop waits for it).
      track(successes.add(record), d.id)
      return
    }
    const next = r.gone ? null : nextAttemptAt({ attempt: d.attempt, schedule: s.retrySchedule, now: Date.now(), retryAfterMs: retryAfterMs(r.retryAfter) })
    observeDelivery(r.gone ? 'gone' : next === null ? 'failed' : 'retrying')
    return recordFailure(opts.sql, record, { nextAttemptAt: next, gone: r.gone }, breaker)
  }

  function track(recorded: Promise<void>, deliveryId: string) {
    const p = recorded.catch((error) => opts.log.error('webhook delivery not recorded; its lease will run out and it goes again', { deliveryId, error }))
      .finally(() => {
        out.delete(p)
        // Recorded: look for more (claims wait while too many successes are unrecorded).
        freed()
      })
    out.add(p)
  }

  async function loop(n: number) {
    // Sends counted against the slots; sends out longer than LINGER_MS are counted apart.
    let inFlight = 0
    let lingering = 0
    // The last claim, when it found fewer deliveries than it asked for: how many were out after it,
    // the new work counted before it, and when.
    let short: { outAfter: number; newWork: number; at: number } | null = null
    // While the database is away every poll's claim fails: said once, then once a minute, and when
    // claims work again, not a line per poll.
    const claims = new RepeatedFailure(opts.log, CLAIM_FAILURES, { worker: n })
    while (!stopping) {
      const seen = wakeups
      let claimed: ClaimedDelivery[] = []
      // Successes not yet recorded are bounded too: if the database falls behind, claiming waits.
      const room = SLOTS - inFlight >= CLAIM_AT_LEAST || inFlight === 0
      // After a claim that came back short (the endpoints at their bound across the workers, or
      // little due), another finds more only once work comes back or new work arrives: so the next
      // claim waits for half of what was out to return, new deliveries, or the poll, rather than
      // asking again at every answer (three processes on ten endpoints did: twice the statements
      // and the database's CPU per delivery of one process).
      const refilled =
        short === null || inFlight === 0 || inFlight <= short.outAfter / 2 || newWork !== short.newWork || performance.now() - short.at >= POLL_MS
      if (room && refilled && successes.waiting < 4 * SLOTS) {
        const workBefore = newWork
        try {
          const limit = SLOTS - inFlight
          // Endpoints enough for the free slots at half their bound each: the rest stay free for
          // other workers claiming at the same time.
          const endpoints = Math.max(2, Math.ceil((2 * limit) / PER_ENDPOINT))
          claimed = await claimDeliveries(opts.sql, { owner, leaseMs, perEndpoint: PER_ENDPOINT, endpoints, paceMs: 1000 / s.drainRate, limit, answered: successes.ids() })
          short = claimed.length < limit ? { outAfter: inFlight + claimed.length, newWork: workBefore, at: performance.now() } : null
          claims.worked()
        } catch (error) {
          if (!stopping) claims.failed(error)
        }
      }
      for (const d of claimed) {
        inFlight++
        let counted = true
        const linger = setTimeout(() => {
          if (lingering >= MAX_LINGERING) return
          counted = false
          inFlight--
          lingering++
          // A slot is free: look for more.
          freed()
        }, LINGER_MS)
        const p = deliver(d)
          .catch((error) => opts.log.error('webhook delivery not recorded; its lease will run out and it goes again', { deliveryId: d.id, error }))
          .finally(() => {
            clearTimeout(linger)
            if (counted) inFlight--
            else lingering--
            out.delete(p)
            freed()
          })
        out.add(p)
      }
      if ((claimed.length === 0 && wakeups === seen) || !room || !refilled) await sleep(POLL_MS)
    }
  }

  /** Waits until woken or `ms` passed. */
  function sleep(ms: number) {
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer)
        wakers.delete(done)
        resolve()
      }
      const timer = setTimeout(done, ms)
      wakers.add(done)
    })
  }

  // Every second: while the database is away, said once a minute, not every pass.
  const housekeeping = new RepeatedFailure(opts.log, HOUSEKEEPING_FAILURES)
  const reaper = setInterval(() => {
    Promise.all([reapLeases(opts.sql), disableLongFailing(opts.sql, s.disableAfterMs)]).then(
      () => housekeeping.worked(),
      (error) => {
        if (!stopping) housekeeping.failed(error)
      },
    )
  }, REAP_MS)
  reaper.unref?.()

  let unlisten: (() => Promise<void>) | undefined
  if (opts.listen) {
    const sub = await opts.listen.listen(DELIVERIES_CHANNEL, () => wake())
    unlisten = () => sub.unlisten()
  }
  const loops = Array.from({ length: count }, (_, n) => loop(n))

  return {
    wake,
    async stop() {
      stopping = true
      clearInterval(reaper)
      wake()
      await Promise.all(loops)
      await Promise.all([...out])
      await unlisten?.().catch(() => {})
      // Nothing is left leased to a worker that is gone; whatever could not be finished goes again at once.
      await releaseLeases(opts.sql, owner).catch(() => {})
    },
  }
}

/** An endpoint's URL as a span may show it: no user, password or query (a receiver may keep a token there). */
function withoutCredentials(url: string): string {
  const u = new URL(url)
  u.username = ''
  u.password = ''
  u.search = ''
  return u.href
}

/**
 * Successes are recorded together: each waits for the statement that records every success had
 * since the last one, so under load one statement serves many deliveries. Until it is recorded a
 * delivery keeps its lease (no worker sends it again; this worker's claims no longer count it
 * against its endpoint's bound, its answer being in); a stop waits for it. A deadlock with another worker's statement is retried.
 */
class SuccessBatch {
  private queue: { record: AttemptRecord; done: () => void; failed: (err: unknown) => void }[] = []
  private flushing = false

  constructor(private readonly sql: Sql) {}

  /** Successes waiting to be recorded (queued or in the statement under way). */
  waiting = 0
  private inStatement: AttemptRecord[] = []

  /** The deliveries whose successes wait to be recorded. */
  ids(): string[] {
    const ids: string[] = []
    for (const r of this.inStatement) ids.push(r.deliveryId)
    for (const q of this.queue) ids.push(q.record.deliveryId)
    return ids
  }

  add(record: AttemptRecord): Promise<void> {
    return new Promise((done, failed) => {
      this.waiting++
      this.queue.push({ record, done, failed })
      if (!this.flushing) void this.flush()
    })
  }

  private async flush() {
    this.flushing = true
    while (this.queue.length) {
      const batch = this.queue
      this.queue = []
      this.inStatement = batch.map((b) => b.record)
      let error: unknown
      for (let tries = 0; tries < 3; tries++) {
        try {
          await recordSuccesses(this.sql, batch.map((b) => b.record))
          error = undefined
          break
        } catch (err) {
          error = err
          if ((err as { code?: string }).code !== '40P01') break
        }
      }
      this.waiting -= batch.length
      this.inStatement = []
      for (const b of batch) error === undefined ? b.done() : b.failed(error)
    }
    this.flushing = false
  }
}
