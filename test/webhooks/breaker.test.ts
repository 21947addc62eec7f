import { describe, expect, test } from 'bun:test'
import { listAudit } from '../../server/src/domain/audit.ts'
import { setEndpointEnabled } from '../../server/src/domain/webhooks.ts'
import { getHarness } from '../harness.ts'
import { attemptsOf, deliveriesOf, endpoint, endpointRow, importContacts, receiver, rig, until } from './support.ts'

/**
 * The circuit breaker of an endpoint (CONTRACT: Events and webhooks): after a run of failed attempts
 * nothing is sent for a cool-down, then one probe; a failed probe doubles the cool-down (to the
 * maximum), a successful one closes the circuit and the backlog drains at the drain rate. An
 * endpoint failing without a success for long enough is disabled. One slow endpoint never delays
 * the others.
 */

describe('the circuit breaker', () => {
  test('opens after the threshold, sends nothing for the cool-down, probes once, doubles the cool-down on a failed probe', async () => {
    const r = await rig({ WEBHOOK_BREAKER_THRESHOLD: '3', WEBHOOK_BREAKER_COOLDOWN: '700ms', WEBHOOK_BREAKER_COOLDOWN_MAX: '5s', WEBHOOK_RETRY_SCHEDULE: '50ms,50ms,50ms,50ms,50ms,50ms,50ms,50ms,50ms,50ms' })
    const rcv = receiver(() => new Response('down', { status: 500 }))
    try {
      const e = await endpoint(r, rcv.url, 'contact.created')
      await importContacts(r.ws, 5)
      await until('the circuit open', async () => (await endpointRow(e.id)).circuit === 'open')
      const opened = await endpointRow(e.id)
      expect(opened.cooldown_ms).toBe(700)
      const sentWhenOpened = rcv.got.length
      expect(sentWhenOpened).toBeGreaterThanOrEqual(3)
      // nothing for the cool-down (what was already in flight may still land)
      await Bun.sleep(400)
      expect(rcv.got.length).toBeLessThanOrEqual(sentWhenOpened + 2)
      const quiet = rcv.got.length
      // then exactly one probe, which fails: open again, for twice as long
      await until('the probe', () => rcv.got.length === quiet + 1, 3000)
      await until('the circuit open again', async () => (await endpointRow(e.id)).cooldown_ms === 1400)
      expect((await endpointRow(e.id)).circuit).toBe('open')
      await Bun.sleep(500)
      expect(rcv.got.length).toBe(quiet + 1)
    } finally {
      rcv.stop()
      await r.done()
    }
  })

  test('a probe that succeeds closes the circuit, and the backlog drains at the drain rate', async () => {
    let healthy = false
    const r = await rig({ WEBHOOK_BREAKER_THRESHOLD: '2', WEBHOOK_BREAKER_COOLDOWN: '500ms', WEBHOOK_DRAIN_RATE: '5', WEBHOOK_RETRY_SCHEDULE: '50ms,50ms,50ms,50ms,50ms' })
    const rcv = receiver(() => new Response(healthy ? 'ok' : 'down', { status: healthy ? 200 : 500 }))
    try {
      const e = await endpoint(r, rcv.url, 'contact.created')
      await importContacts(r.ws, 2)
      await until('the circuit open', async () => (await endpointRow(e.id)).circuit === 'open')
      // a backlog gathers while the circuit is open
      await importContacts(r.ws, 8)
      healthy = true
      const before = rcv.got.length
      await until('every delivery made', async () => (await deliveriesOf(e.id)).every((d) => d.status === 'succeeded'), 10_000)
      const after = rcv.got.slice(before).filter((g) => true)
      // the probe, then the rest of the backlog no faster than 5 a second
      expect(after.length).toBeGreaterThanOrEqual(10)
      const drained = after.slice(1)
      const span = drained.at(-1)!.at - drained[0]!.at
      expect(span).toBeGreaterThanOrEqual(((drained.length - 1) * 1000) / 5 - 150)
      expect((await endpointRow(e.id)).circuit).toBe('closed')
    } finally {
      rcv.stop()
      await r.done()
    }
  })

  test('an operator enabling a disabled endpoint closes its circuit and drains its backlog at the drain rate', async () => {
    const r = await rig({ WEBHOOK_DRAIN_RATE: '4' })
    const rcv = receiver()
    try {
      const { sql } = await getHarness()
      const e = await endpoint(r, rcv.url, 'contact.created')
      await importContacts(r.ws, 1)
      await until('the first delivery', () => rcv.got.length === 1)
      // disabled: deliveries created while it was enabled wait, pending
      await sql`UPDATE webhook_endpoints SET circuit = 'open', circuit_open_until = now() + interval '1 hour', consecutive_failures = 10 WHERE id = ${e.id}`
      await importContacts(r.ws, 6)
      await setEndpointEnabled(sql, e.id, false)
      await Bun.sleep(300)
      expect(rcv.got).toHaveLength(1)
      await setEndpointEnabled(sql, e.id, true)
      expect((await endpointRow(e.id)).circuit).toBe('closed')
      await until('the backlog delivered', () => rcv.got.length === 7, 10_000)
      const drained = rcv.got.slice(1)
      expect(drained.at(-1)!.at - drained[0]!.at).toBeGreaterThanOrEqual((5 * 1000) / 4 - 150)
    } finally {
      rcv.stop()
      await r.done()
    }
  })

  test('an endpoint failing without a success for WEBHOOK_DISABLE_AFTER is disabled, saying since when', async () => {
    const r = await rig({ WEBHOOK_DISABLE_AFTER: '600ms', WEBHOOK_RETRY_SCHEDULE: '100ms,100ms,100ms,100ms,100ms,100ms,100ms,100ms,100ms,100ms', WEBHOOK_BREAKER_THRESHOLD: '100' })
    const rcv = receiver(() => new Response('down', { status: 500 }))
    try {
      const e = await endpoint(r, rcv.url, 'contact.created')
      await importContacts(r.ws, 1)
      await until('the endpoint disabled', async () => (await endpointRow(e.id)).status === 'disabled', 5000)
      const reason = (await endpointRow(e.id)).disabled_reason as string
      expect(reason).toMatch(/Failing without a success since \d{4}-\d\d-\d\dT/)
      // The audit tells the change, by the system, with the reason (once, whichever path disabled it).
      const { sql } = await getHarness()
      const audited = (await listAudit(sql, r.ws.id, 10)).entries.filter((a) => a.subject === e.id && a.action === 'webhook.disabled')
      expect(audited.map((a) => [a.actor.kind, a.detail.reason])).toEqual([['system', reason]])
      const n = rcv.got.length
      await Bun.sleep(400)
      expect(rcv.got.length).toBe(n)
    } finally {
      rcv.stop()
      await r.done()
    }
  })

  test('an endpoint that hangs or fails never delays the deliveries to the others', async () => {
    const r = await rig({ WEBHOOK_TIMEOUT_MS: '3000', WEBHOOK_RETRY_SCHEDULE: '10s' })
    const hang = receiver(() => new Promise<Response>(() => {}))
    const failing = receiver(() => new Response('no', { status: 500 }))
    const good = receiver()
    try {
      await endpoint(r, hang.url, 'contact.created')
      await endpoint(r, failing.url, 'contact.created')
      const g = await endpoint(r, good.url, 'contact.created')
      const started = Date.now()
      await importContacts(r.ws, 30)
      await until('every delivery to the good endpoint', () => good.got.length === 30, 5000)
      // well before the hanging endpoint's time-out, and one at a time per endpoint is never the bottleneck
      expect(Date.now() - started).toBeLessThan(2500)
      expect((await attemptsOf(g.id)).every((a) => a.status_code === 200)).toBe(true)
    } finally {
      hang.stop()
      failing.stop()
      good.stop()
      await r.done()
    }
  })
})
