import { describe, expect, test } from 'bun:test'
import { createHmac } from 'node:crypto'
import { join } from 'node:path'
import { listAudit } from '../../server/src/domain/audit.ts'
import { rotateSecret, sendTestEvent } from '../../server/src/domain/webhooks.ts'
import { USER_AGENT } from '../../server/src/workers/webhooks.ts'
import { call, getHarness } from '../harness.ts'
import { attemptsOf, deliveriesOf, endpoint, endpointRow, importContacts, receiver, rig, until } from './support.ts'

/**
 * Delivery, end to end: an event committed through the API, a delivery worker, a real HTTP receiver
 * on this machine. What the receiver gets, how it is signed, and what becomes of a delivery the
 * receiver refuses, all read from outside: the receiver's requests and the attempts recorded.
 */

const ROOT = join(import.meta.dir, '..', '..')

/** What stripe-node's webhooks.constructEvent, run by Node.js, makes of a delivery (the event's id, or the error). */
async function stripeConstructEvent(body: string, header: string, secret: string): Promise<string> {
  const script = `const Stripe = require('stripe'); const [body, header, secret] = JSON.parse(require('fs').readFileSync(0, 'utf8'));
    try { const e = new Stripe('sk_test_none').webhooks.constructEvent(body, header, secret); console.log('ok ' + e.id) } catch (err) { console.log('refused ' + err.message) }`
  const proc = Bun.spawn(['node', '-e', script], { cwd: ROOT, stdin: new Blob([JSON.stringify([body, header, secret])]), stdout: 'pipe', stderr: 'pipe' })
  const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()])
  await proc.exited
  if (!out.trim()) throw new Error(`node could not run stripe: ${err}`)
  return out.trim()
}

describe('a delivery', () => {
  test('is the event as GET /events shows it, signed over the bytes sent, with the headers the contract names; stripe-node accepts it', async () => {
    const r = await rig()
    const rcv = receiver()
    try {
      const e = await endpoint(r, rcv.url, 'contact.created,contact.updated')
      await importContacts(r.ws, 2)
      await until('two deliveries', () => rcv.got.length === 2)
      const polled = (await call('GET', '/api/v1/events?type=contact.created', { token: r.ws.live })).body.data
      for (const got of rcv.got) {
        const event = JSON.parse(got.body)
        expect(polled).toContainEqual(event)
        expect(got.headers['content-type']).toBe('application/json')
        expect(got.headers['user-agent']).toBe(USER_AGENT)
        expect(got.headers['x-service-event-id']).toBe(event.id)
        expect(got.headers['x-service-delivery-id']).toMatch(/^dlv_[0-9a-z]{26}$/)
        const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(got.headers['x-service-signature']!)!
        expect(Math.abs(Number(m[1]) - Date.now() / 1000)).toBeLessThan(30)
        expect(m[2]).toBe(createHmac('sha256', e.secret).update(`${m[1]}.${got.body}`).digest('hex'))
        expect(await stripeConstructEvent(got.body, got.headers['x-service-signature']!, e.secret)).toBe(`ok ${event.id}`)
        // a forged body, or another secret, is refused by the same check
        expect(await stripeConstructEvent(got.body.replace('contact', 'kontact'), got.headers['x-service-signature']!, e.secret)).toStartWith('refused')
      }
      // every attempt recorded: the address connected to, the status, the duration
      const attempts = await attemptsOf(e.id)
      expect(attempts.map((a) => [a.attempt, a.status_code, a.address, a.error])).toEqual([
        [1, 200, '127.0.0.1', null],
        [1, 200, '127.0.0.1', null],
      ])
    } finally {
      rcv.stop()
      await r.done()
    }
  })

  test('goes only to endpoints subscribed to its type, and a test event only to the endpoint it is for', async () => {
    const r = await rig()
    const a = receiver()
    const b = receiver()
    try {
      const ea = await endpoint(r, a.url, 'contact.created')
      await endpoint(r, b.url, 'action.applied')
      await importContacts(r.ws, 1)
      const { sql } = await getHarness()
      const t = await sendTestEvent(sql, ea.id)
      await until('the contact and the test event at a', () => a.got.length === 2)
      await Bun.sleep(300)
      expect(b.got).toEqual([])
      expect(a.got.map((g) => JSON.parse(g.body).event).sort()).toEqual(['contact.created', 'webhook.test'])
      expect(a.got.find((g) => JSON.parse(g.body).event === 'webhook.test')!.headers['x-service-delivery-id']).toBe(t.deliveryId)
    } finally {
      a.stop()
      b.stop()
      await r.done()
    }
  })

  test('during a rotation every live secret signs, newest first; after the overlap, only the new one', async () => {
    const r = await rig()
    const rcv = receiver()
    try {
      const { sql } = await getHarness()
      const e = await endpoint(r, rcv.url, 'contact.created')
      const { secret: second } = await rotateSecret(sql, e.id, 60_000)
      await importContacts(r.ws, 1)
      await until('a delivery', () => rcv.got.length === 1)
      const got = rcv.got[0]!
      const [t, newest, oldest] = got.headers['x-service-signature']!.split(',')
      const sign = (s: string) => `v1=${createHmac('sha256', s).update(`${t!.slice(2)}.${got.body}`).digest('hex')}`
      expect([newest, oldest]).toEqual([sign(second), sign(e.secret)])
      expect(await stripeConstructEvent(got.body, got.headers['x-service-signature']!, e.secret)).toStartWith('ok')
      expect(await stripeConstructEvent(got.body, got.headers['x-service-signature']!, second)).toStartWith('ok')

      const { secret: third } = await rotateSecret(sql, e.id, 0)
      await importContacts(r.ws, 1)
      await until('a second delivery', () => rcv.got.length === 2)
      const header = rcv.got[1]!.headers['x-service-signature']!
      expect(header.split(',')).toHaveLength(2)
      expect(await stripeConstructEvent(rcv.got[1]!.body, header, third)).toStartWith('ok')
      expect(await stripeConstructEvent(rcv.got[1]!.body, header, second)).toStartWith('refused')
    } finally {
      rcv.stop()
      await r.done()
    }
  })
})

describe('a refused delivery', () => {
  test('is retried on the schedule (with up to 20% jitter), the same event each time, until a 2xx', async () => {
    // Steps far enough apart that a retry taken on the wrong step shows: the jitter's own bound
    // (at most 20%) is rules.test.ts's; here a retry may come up to a second late on a busy machine.
    const r = await rig({ WEBHOOK_RETRY_SCHEDULE: '300ms,1500ms,10s' })
    const rcv = receiver((_, n) => new Response('no', { status: n < 3 ? 500 : 200 }))
    try {
      const e = await endpoint(r, rcv.url, 'contact.created')
      await importContacts(r.ws, 1)
      await until('three attempts', () => rcv.got.length === 3)
      const ids = new Set(rcv.got.map((g) => g.headers['x-service-event-id']))
      expect(ids.size).toBe(1)
      const gaps = [rcv.got[1]!.at - rcv.got[0]!.at, rcv.got[2]!.at - rcv.got[1]!.at]
      expect(gaps[0]).toBeGreaterThanOrEqual(300)
      expect(gaps[0]).toBeLessThan(300 * 1.2 + 1000)
      expect(gaps[1]).toBeGreaterThanOrEqual(1500)
      expect(gaps[1]).toBeLessThan(1500 * 1.2 + 1000)
      await until('the success recorded', async () => (await deliveriesOf(e.id))[0]?.status === 'succeeded')
      const attempts = await attemptsOf(e.id)
      expect(attempts.map((a) => [a.attempt, a.status_code])).toEqual([[1, 500], [2, 500], [3, 200]])
      expect(attempts[0]!.error).toContain('500')
      expect(attempts[0]!.next_attempt_at).not.toBeNull()
    } finally {
      rcv.stop()
      await r.done()
    }
  })

  test('fails for good when the schedule runs out', async () => {
    const r = await rig({ WEBHOOK_RETRY_SCHEDULE: '100ms,100ms' })
    const rcv = receiver(() => new Response('no', { status: 502 }))
    try {
      const e = await endpoint(r, rcv.url, 'contact.created')
      await importContacts(r.ws, 1)
      await until('the delivery failed', async () => (await deliveriesOf(e.id))[0]?.status === 'failed')
      expect(rcv.got).toHaveLength(3)
      const attempts = await attemptsOf(e.id)
      expect(attempts.at(-1)!.next_attempt_at).toBeNull()
    } finally {
      rcv.stop()
      await r.done()
    }
  })

  test('a Retry-After on a 429 or 503 pushes the next attempt later, never earlier', async () => {
    const r = await rig({ WEBHOOK_RETRY_SCHEDULE: '100ms,100ms' })
    const rcv = receiver((_, n) => (n === 1 ? new Response('slow down', { status: 429, headers: { 'Retry-After': '2' } }) : n === 2 ? new Response('busy', { status: 503, headers: { 'Retry-After': '0' } }) : new Response('ok')))
    try {
      await endpoint(r, rcv.url, 'contact.created')
      await importContacts(r.ws, 1)
      await until('three attempts', () => rcv.got.length === 3, 15_000)
      expect(rcv.got[1]!.at - rcv.got[0]!.at).toBeGreaterThanOrEqual(2000)
      // Retry-After 0 does not bring the scheduled wait forward
      expect(rcv.got[2]!.at - rcv.got[1]!.at).toBeGreaterThanOrEqual(100)
    } finally {
      rcv.stop()
      await r.done()
    }
  })

  test('410 Gone disables the endpoint, saying why; what waits is kept', async () => {
    const r = await rig({ WEBHOOK_RETRY_SCHEDULE: '100ms' })
    const rcv = receiver(() => new Response('gone', { status: 410 }))
    try {
      const e = await endpoint(r, rcv.url, 'contact.created')
      await importContacts(r.ws, 1)
      await until('the endpoint disabled', async () => (await endpointRow(e.id)).status === 'disabled')
      const reason = (await endpointRow(e.id)).disabled_reason as string
      expect(reason).toContain('410')
      // A change of a webhook endpoint, made by the delivery itself: the audit says who (the system) and why.
      const { sql } = await getHarness()
      const audited = (await listAudit(sql, r.ws.id, 10)).entries.filter((a) => a.subject === e.id && a.action === 'webhook.disabled')
      expect(audited).toHaveLength(1)
      expect(audited[0]).toMatchObject({ actor: { kind: 'system', name: 'growth' }, detail: { url: rcv.url, reason } })
      await importContacts(r.ws, 1)
      await Bun.sleep(400)
      expect(rcv.got).toHaveLength(1)
      expect((await deliveriesOf(e.id)).map((d) => d.status)).toEqual(['pending'])
    } finally {
      rcv.stop()
      await r.done()
    }
  })

  test('a redirect is not followed: it is a failed attempt, and the place it points to gets nothing', async () => {
    const r = await rig({ WEBHOOK_RETRY_SCHEDULE: '10s' })
    const elsewhere = receiver()
    const rcv = receiver(() => new Response(null, { status: 302, headers: { Location: elsewhere.url } }))
    try {
      const e = await endpoint(r, rcv.url, 'contact.created')
      await importContacts(r.ws, 1)
      await until('an attempt', async () => (await attemptsOf(e.id)).length === 1)
      const [a] = await attemptsOf(e.id)
      expect(a!.status_code).toBe(302)
      expect(a!.error).toContain('redirects are not followed')
      expect(elsewhere.got).toEqual([])
    } finally {
      rcv.stop()
      elsewhere.stop()
      await r.done()
    }
  })

  test('no complete answer within the time-out is a failed attempt: a receiver that hangs, one that trickles', async () => {
    const r = await rig({ WEBHOOK_TIMEOUT_MS: '500', WEBHOOK_RETRY_SCHEDULE: '10s' })
    const hang = receiver(() => new Promise<Response>(() => {}))
    const trickle = receiver(
      () =>
        new Response(
          new ReadableStream({
            async pull(c) {
              await Bun.sleep(100)
              c.enqueue(new TextEncoder().encode('.'))
            },
          }),
        ),
    )
    try {
      const a = await endpoint(r, hang.url, 'contact.created')
      const b = await endpoint(r, trickle.url, 'contact.created')
      const started = Date.now()
      await importContacts(r.ws, 1)
      await until('both attempts recorded', async () => (await attemptsOf(a.id)).length === 1 && (await attemptsOf(b.id)).length === 1)
      expect(Date.now() - started).toBeLessThan(3000)
      for (const id of [a.id, b.id]) {
        const [attempt] = await attemptsOf(id)
        expect(attempt!.error).toContain('within 500 ms')
      }
    } finally {
      hang.stop()
      trickle.stop()
      await r.done()
    }
  })

  test('a refused connection is a failed attempt naming the address', async () => {
    const r = await rig({ WEBHOOK_RETRY_SCHEDULE: '10s' })
    const closed = receiver()
    closed.stop()
    try {
      const e = await endpoint(r, closed.url, 'contact.created')
      await importContacts(r.ws, 1)
      await until('an attempt', async () => (await attemptsOf(e.id)).length === 1)
      const [a] = await attemptsOf(e.id)
      expect(a!.status_code).toBeNull()
      expect(a!.error).toContain(`127.0.0.1:${closed.port}`)
    } finally {
      await r.done()
    }
  })

  test('an answer is read only up to a small bound: a receiver that sends megabytes does not hold a worker', async () => {
    const r = await rig()
    const rcv = receiver(() => new Response('x'.repeat(20 * 1024 * 1024)))
    try {
      const e = await endpoint(r, rcv.url, 'contact.created')
      await importContacts(r.ws, 1)
      await until('a success', async () => (await deliveriesOf(e.id))[0]?.status === 'succeeded')
    } finally {
      rcv.stop()
      await r.done()
    }
  })
})
