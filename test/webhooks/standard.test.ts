import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { spawn, spawnSync } from 'node:child_process'
import { createHmac, randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { Webhook } from 'standardwebhooks'
import { newSecret } from '../../server/src/domain/webhook-signature.ts'
import { rotateSecret } from '../../server/src/domain/webhooks.ts'
import { secretsKeyring } from '../../server/src/core/secrets.ts'
import { Webhooks, WebhookVerificationError } from '../../sdk/src/webhooks.ts'
import { getHarness } from '../harness.ts'
import { attemptsOf, endpoint, importContacts, type Received, receiver, rig, type Rig, until } from './support.ts'

/**
 * Standard Webhooks (CONTRACT: Standard Webhooks) on real deliveries from the delivery workers to
 * real receivers on this machine: the official `standardwebhooks` npm library in its default
 * configuration, the SDK, and a receiver in plain Python (examples/webhook-receivers/standard_webhooks.py)
 * each verify them with the endpoint secret exactly as it was printed. The X-Service-* headers stay.
 */

const PYTHON = spawnSync('python3', ['--version']).status === 0
const PY_RECEIVER = join(import.meta.dir, '../../examples/webhook-receivers/standard_webhooks.py')

let r: Rig
beforeAll(async () => {
  r = await rig({ WEBHOOK_RETRY_SCHEDULE: '100ms,100ms' })
})
afterAll(() => r.done())

/** The endpoint's secret as the old code made it (base64url, no padding), sealed into place as it was stored then. */
async function giveOldSecret(endpointId: string) {
  const { sql } = await getHarness()
  const old = `whsec_${randomBytes(32).toString('base64url')}`
  await sql`UPDATE webhook_secrets SET secret = ${secretsKeyring().seal(old)} WHERE endpoint_id = ${endpointId}`
  return old
}

const standardLib = (secret: string, d: Received) => new Webhook(secret).verify(d.body, d.headers) as { id: string; event: string }

describe('every delivery carries the Standard Webhooks headers beside X-Service-*', () => {
  test('webhook-id is the event id, webhook-timestamp unix seconds, webhook-signature v1,<base64>: the standardwebhooks library and the SDK verify with the printed secret', async () => {
    const rx = receiver()
    try {
      const e = await endpoint(r, rx.url, 'contact.created')
      expect(e.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
      await importContacts(r.ws, 2, 'std')
      await until('two deliveries', () => rx.got.length >= 2)
      for (const d of rx.got) {
        const event = JSON.parse(d.body) as { id: string }
        expect(d.headers['webhook-id']).toBe(event.id)
        expect(d.headers['x-service-event-id']).toBe(event.id)
        expect(d.headers['webhook-timestamp']).toMatch(/^\d{10}$/)
        expect(Math.abs(Number(d.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60)
        expect(d.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/)
        expect(d.headers['x-service-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/)
        // The same timestamp in both schemes.
        expect(d.headers['x-service-signature']).toStartWith(`t=${d.headers['webhook-timestamp']},`)
        expect(standardLib(e.secret, d).id).toBe(event.id)
        // The SDK, given the headers whole, checks webhook-signature; given the one header, X-Service-Signature.
        expect(Webhooks.verify(d.body, new Headers(d.headers), e.secret).id).toBe(event.id)
        expect((await Webhooks.verifyAsync(d.body, d.headers, e.secret)).id).toBe(event.id)
        expect(Webhooks.verify(d.body, d.headers['x-service-signature'], e.secret).id).toBe(event.id)
        // A tampered body or another secret is refused by both.
        const tampered = d.body.replace('"contact.created"', '"contact.updated"')
        expect(() => standardLib(e.secret, { ...d, body: tampered })).toThrow('No matching signature found')
        expect(() => standardLib(newSecret(), d)).toThrow('No matching signature found')
        expect(() => Webhooks.verify(tampered, d.headers, e.secret)).toThrow(WebhookVerificationError)
        try {
          Webhooks.verify(d.body, d.headers, newSecret())
          throw new Error('verified with another secret')
        } catch (err) {
          expect((err as WebhookVerificationError).reason).toBe('no_matching_signature')
          expect((err as Error).message).toContain('webhook-signature')
        }
      }
    } finally {
      rx.stop()
    }
  })

  test('webhook-id and the signature key stay the same on every attempt of a delivery (a retry is the same message)', async () => {
    const rx = receiver((_, n) => new Response(n === 1 ? 'not yet' : 'ok', { status: n === 1 ? 500 : 200 }))
    try {
      const e = await endpoint(r, rx.url, 'contact.created')
      await importContacts(r.ws, 1, 'retry')
      await until('a failed attempt, then a successful one', () => rx.got.length >= 2)
      const [first, second] = rx.got
      expect(second!.headers['webhook-id']).toBe(first!.headers['webhook-id']!)
      expect(second!.body).toBe(first!.body)
      for (const d of [first!, second!]) expect(standardLib(e.secret, d).id).toBe(first!.headers['webhook-id']!)
      await until('both attempts recorded', async () => (await attemptsOf(e.id)).length === 2)
      expect((await attemptsOf(e.id)).map((a) => a.status_code)).toEqual([500, 200])
    } finally {
      rx.stop()
    }
  })
})

describe('secrets made before the switch, and rotation', () => {
  test('an old base64url secret still verifies X-Service-Signature (and the SDK reads it for webhook-signature too); its rotation gives a secret the library takes, and both sign both schemes meanwhile', async () => {
    const rx = receiver()
    try {
      const e = await endpoint(r, rx.url, 'contact.created')
      const old = await giveOldSecret(e.id)
      await importContacts(r.ws, 1, 'old')
      await until('a delivery signed with the old secret', () => rx.got.length >= 1)
      const before = rx.got[0]!
      const id = (JSON.parse(before.body) as { id: string }).id
      expect(Webhooks.verify(before.body, before.headers['x-service-signature'], old).id).toBe(id)
      // Exactly as the contract defines it, by hand: HMAC keyed with the whole secret string.
      const t = before.headers['webhook-timestamp']
      expect(before.headers['x-service-signature']).toBe(`t=${t},v1=${createHmac('sha256', old).update(`${t}.${before.body}`).digest('hex')}`)
      expect(Webhooks.verify(before.body, before.headers, old).id).toBe(id)

      const { sql } = await getHarness()
      const { secret: fresh } = await rotateSecret(sql, e.id, 60_000)
      expect(fresh).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
      await importContacts(r.ws, 1, 'rotated')
      await until('a delivery during the rotation', () => rx.got.length >= 2)
      const during = rx.got[1]!
      expect(during.headers['webhook-signature']!.split(' ')).toHaveLength(2)
      expect(during.headers['x-service-signature']!.split(',')).toHaveLength(3)
      for (const secret of [fresh, old]) {
        expect(Webhooks.verify(during.body, during.headers['x-service-signature'], secret).event).toBe('contact.created')
        expect(Webhooks.verify(during.body, during.headers, secret).event).toBe('contact.created')
      }
      expect(standardLib(fresh, during).event).toBe('contact.created')
    } finally {
      rx.stop()
    }
  })

  test('a new secret is whsec_ and the standard base64 of 32 bytes: both schemes key from it as the contracts say', () => {
    const s = newSecret()
    expect(Buffer.from(s.slice(6), 'base64')).toHaveLength(32)
    const headers = Webhooks.signStandard('{"id":"evt_1","event":"webhook.test"}', s, { timestamp: Math.floor(Date.now() / 1000) })
    expect(headers['webhook-id']).toBe('evt_1')
    expect(new Webhook(s).verify('{"id":"evt_1","event":"webhook.test"}', headers)).toEqual({ id: 'evt_1', event: 'webhook.test' })
  })
})

describe('a receiver in plain Python (standard library only), written from the spec', () => {
  test.skipIf(!PYTHON)('examples/webhook-receivers/standard_webhooks.py verifies real deliveries and refuses a forged one', async () => {
    const rx = receiver()
    const e = await endpoint(r, rx.url, 'contact.created')
    const py = spawn('python3', [PY_RECEIVER, '0'], { env: { ...process.env, WEBHOOK_SECRET: e.secret }, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    py.stdout.on('data', (c: Buffer) => (out += c))
    py.stderr.on('data', (c: Buffer) => (err += c))
    try {
      await until('the Python receiver to listen', () => /listening on (http:\S+)/.test(err))
      const url = /listening on (http:\S+)/.exec(err)![1]!
      const { sql } = await getHarness()
      await sql`UPDATE webhook_endpoints SET url = ${url} WHERE id = ${e.id}`
      await importContacts(r.ws, 2, 'py')
      await until('two lines from the Python receiver', () => out.trim().split('\n').filter(Boolean).length >= 2)
      const lines = out.trim().split('\n').map((l) => JSON.parse(l) as { verified: boolean; webhookId: string; id: string; event: string })
      expect(lines.map((l) => [l.verified, l.event, l.webhookId === l.id])).toEqual([[true, 'contact.created', true], [true, 'contact.created', true]])
      await until('both attempts recorded as accepted', async () => (await attemptsOf(e.id)).filter((a) => a.status_code === 204).length === 2)
      // A delivery signed with another secret gets 400.
      const body = '{"id":"evt_forged","event":"contact.created"}'
      const forged = await fetch(url, { method: 'POST', body, headers: Webhooks.signStandard(body, newSecret()) })
      expect(forged.status).toBe(400)
      await until('the refusal line', () => out.includes('"verified": false'))
      expect(out).toContain('no signature matches')
    } finally {
      py.kill()
      rx.stop()
    }
  })
  if (!PYTHON) test('python3 missing: the plain-Python receiver test is skipped', () => console.warn('python3 is not on PATH: skipping the Python receiver test'))
})

describe('the SDK refuses a Standard Webhooks delivery with the reasons X-Service-Signature has', () => {
  const secret = newSecret()
  const body = '{"id":"evt_1","event":"webhook.test","data":{}}'
  const signed = (t = Math.floor(Date.now() / 1000)) => Webhooks.signStandard(body, secret, { timestamp: t })
  const reason = (headers: Record<string, string>) => {
    try {
      Webhooks.verify(body, headers, secret)
      return 'verified'
    } catch (e) {
      return `${(e as WebhookVerificationError).reason}: ${(e as Error).message}`
    }
  }
  test('missing_header names the header that is missing; malformed_header a timestamp or signature that is not one', () => {
    expect(reason({})).toStartWith('missing_header: Neither X-Service-Signature nor webhook-signature')
    const { 'webhook-id': _, ...noId } = signed()
    expect(reason(noId)).toBe('missing_header: No webhook-id header: a Standard Webhooks delivery carries webhook-id, webhook-timestamp and webhook-signature.')
    expect(reason({ ...signed(), 'webhook-timestamp': 'soon' })).toStartWith('malformed_header: webhook-timestamp is not unix seconds')
    expect(reason({ ...signed(), 'webhook-signature': 'v1,notbase64!' })).toStartWith('malformed_header:')
    expect(reason({ ...signed(), 'webhook-signature': 'v2,abc' })).toBe('malformed_header: webhook-signature has no v1,<base64> signature')
  })
  test('timestamps: too old, in the future; other versions beside a v1 are ignored; header names in any case', () => {
    expect(reason(signed(Math.floor(Date.now() / 1000) - 301))).toStartWith('timestamp_too_old')
    expect(reason(signed(Math.floor(Date.now() / 1000) + 400))).toStartWith('timestamp_in_future')
    const h = signed()
    expect(reason({ 'Webhook-Id': h['webhook-id'], 'WEBHOOK-TIMESTAMP': h['webhook-timestamp'], 'webhook-signature': `v1a,xyz ${h['webhook-signature']}` })).toBe('verified')
  })
})
