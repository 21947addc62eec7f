import { describe, expect, expectTypeOf, test } from 'bun:test'
import { createHash, createHmac, randomBytes } from 'node:crypto'
import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import fc from 'fast-check'
import { signatureHeader } from '../../server/src/domain/webhook-signature.ts'
import { rotateSecret } from '../../server/src/domain/webhooks.ts'
import type { Action } from '../../sdk/src/generated/models.ts'
import { Webhooks, WebhookVerificationError, type WebhookEvent, type WebhookEventType, type WebhookVerificationReason } from '../../sdk/src/webhooks.ts'
import { fromHex, nativeSigner, timingSafeEqual } from '../../sdk/src/webhooks/hmac.ts'
import { hmacSha256, Sha256 } from '../../sdk/src/webhooks/sha256.ts'
// Bun resolves 'stripe' to its Web Crypto build, whose synchronous helpers throw; the Node.js build is what a Node receiver runs.
import Stripe from '../../node_modules/stripe/esm/stripe.esm.node.js'
import { getHarness } from '../harness.ts'
import { checkReceived } from '../support/event-models.ts'
import { attemptsOf, endpoint, importContacts, rig, until } from '../webhooks/support.ts'

/**
 * The SDK's webhook verification (CONTRACT: Events and webhooks, The SDK): what it accepts (our own
 * signatures, the server's, stripe-node's; several secrets; several v1 values; every kind of raw
 * body), what it refuses and with which reason, its plain-JavaScript HMAC against node:crypto, and a
 * real delivery from the server to receivers on this machine.
 */

const now = () => Math.floor(Date.now() / 1000)
const newSecret = () => `whsec_${randomBytes(32).toString('base64url')}`
const event = { id: 'evt_01jb0000000000000000000000', event: 'contact.created', createdAt: '2026-11-20T09:30:00.000Z', workspaceId: 'ws_01jb0000000000000000000000', data: { contact: { id: 'ctc_1', name: 'Zoë Ångström 日本 🎉' } } }
const body = JSON.stringify(event)

/** The reason `fn` was refused with (sync or async), or a failure naming what happened instead. */
async function reasonOf(fn: () => unknown): Promise<WebhookVerificationReason> {
  try {
    await fn()
  } catch (e) {
    if (e instanceof WebhookVerificationError) return e.reason
    throw e
  }
  throw new Error('verification passed')
}

/** What one verifier makes of an input: 'accepted' (having returned the event) or the reason it refused. */
async function outcome(fn: () => unknown): Promise<'accepted' | WebhookVerificationReason> {
  try {
    expect(await fn()).toEqual(event as WebhookEvent)
    return 'accepted'
  } catch (e) {
    if (e instanceof WebhookVerificationError) return e.reason
    throw e
  }
}

/** verify and verifyAsync on the same input: they must agree; returns what they made of it. */
async function both(raw: unknown, header: unknown, secret: string | string[], options?: Parameters<typeof Webhooks.verify>[3]) {
  const sync = await outcome(() => Webhooks.verify(raw as string, header as string, secret, options))
  const async_ = await outcome(() => Webhooks.verifyAsync(raw as string, header as string, secret, options))
  expect(async_).toBe(sync)
  return sync
}

/**
 * Runs `fn` as on a runtime with no native HMAC: neither Bun.CryptoHasher nor process.getBuiltinModule
 * (and, with `subtle: false`, no Web Crypto either). The engine is chosen synchronously when a call
 * starts, so the globals come back before any await: the rest of the process never sees them gone.
 */
function withoutNative<T>(fn: () => T, opts: { subtle?: boolean } = {}): T {
  const p = process as { getBuiltinModule?: unknown }
  const b = Bun as { CryptoHasher: unknown }
  const g = globalThis as { crypto?: unknown }
  const saved = { gbm: p.getBuiltinModule, hasher: b.CryptoHasher, crypto: g.crypto }
  p.getBuiltinModule = undefined
  b.CryptoHasher = undefined
  if (opts.subtle === false) g.crypto = undefined
  try {
    return fn()
  } finally {
    p.getBuiltinModule = saved.gbm
    b.CryptoHasher = saved.hasher
    g.crypto = saved.crypto
  }
}

describe('a valid signature is accepted by verify and verifyAsync, which return the event', () => {
  test("made by Webhooks.sign, byte for byte the server's signatureHeader", async () => {
    const secret = newSecret()
    const t = now()
    const header = Webhooks.sign(body, secret, { timestamp: t })
    expect(header).toBe(signatureHeader(body, [secret], t))
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/)
    expect(Webhooks.sign(body, [secret, 'whsec_other'], { timestamp: t })).toBe(signatureHeader(body, [secret, 'whsec_other'], t))
    expect(await Webhooks.signAsync(body, [secret, 'whsec_other'], { timestamp: t })).toBe(signatureHeader(body, [secret, 'whsec_other'], t))
    expect(await both(body, header, secret)).toBe('accepted')
    // the default timestamp is now
    expect(Number(/^t=(\d+)/.exec(Webhooks.sign(body, secret))![1])).toBeGreaterThanOrEqual(t)
  })

  test("made by the server's signer (server/src/domain/webhook-signature.ts)", async () => {
    const secret = newSecret()
    expect(await both(body, signatureHeader(body, [secret], now()), secret)).toBe('accepted')
  })

  test("made by stripe-node's generateTestHeaderString; and stripe-node's constructEvent accepts ours", async () => {
    const secret = newSecret()
    const stripe = new Stripe('sk_test_x')
    const header = stripe.webhooks.generateTestHeaderString({ payload: body, secret, timestamp: now() })
    expect(await both(body, header, secret)).toBe('accepted')
    expect(stripe.webhooks.constructEvent(body, Webhooks.sign(body, secret), secret).id).toBe(event.id)
  })

  test('returns the event typed by its event field', () => {
    const secret = newSecret()
    const e = Webhooks.verify(body, Webhooks.sign(body, secret), secret)
    expectTypeOf(e.id).toEqualTypeOf<string>()
    if (e.event === 'contact.created') expectTypeOf(e).toEqualTypeOf<WebhookEvent<'contact.created'>>()
    // Narrowing by event gives data that type's payload (tsc -p . checks these lines).
    if (e.event === 'action.applied') expectTypeOf(e.data.action).toEqualTypeOf<Action>()
    if (e.event === 'webhook.test') expectTypeOf(e.data).toEqualTypeOf<{ endpoint: { id: string; url: string } }>()
    expectTypeOf(e.event).toEqualTypeOf<WebhookEventType>()
    expect(e).toEqual(event as WebhookEvent)
  })
})

describe('secrets and rotation', () => {
  test('several secrets: any one matching suffices', async () => {
    const [right, wrong, other] = [newSecret(), newSecret(), newSecret()]
    const header = Webhooks.sign(body, right)
    expect(await both(body, header, [wrong, right])).toBe('accepted')
    expect(await both(body, header, [right, wrong])).toBe('accepted')
    expect(await both(body, header, [wrong, other])).toBe('no_matching_signature')
  })

  test('two v1 values, newest first (a rotation): either secret alone verifies; a third does not', async () => {
    const [newest, oldest] = [newSecret(), newSecret()]
    const header = signatureHeader(body, [newest, oldest], now())
    expect(header.split(',')).toHaveLength(3)
    expect(await both(body, header, newest)).toBe('accepted')
    expect(await both(body, header, oldest)).toBe('accepted')
    expect(await both(body, header, [oldest, newest])).toBe('accepted')
    expect(await both(body, header, newSecret())).toBe('no_matching_signature')
  })

  test('no secret at all is a mistake in the receiver, not in the delivery: a TypeError', async () => {
    const header = Webhooks.sign(body, newSecret())
    for (const secret of ['', [], [''], undefined as unknown as string]) expect(() => Webhooks.verify(body, header, secret)).toThrow(TypeError)
    await expect(Webhooks.verifyAsync(body, header, [])).rejects.toThrow(TypeError)
  })

  test('a list with one secret missing (an unset variable after a rotation) names that entry, not "no webhook secret"', async () => {
    const secret = newSecret()
    const header = Webhooks.sign(body, secret)
    const messageOf = (secrets: unknown[]) => {
      try {
        Webhooks.verify(body, header, secrets as string[])
      } catch (e) {
        expect(e).toBeInstanceOf(TypeError)
        return (e as Error).message
      }
      throw new Error('accepted')
    }
    expect(messageOf([secret, undefined])).toMatch(/^The webhook secret at \[1\] of the list is undefined: .*drop it from the list/)
    expect(messageOf(['', secret])).toMatch(/^The webhook secret at \[0\] of the list is empty/)
    expect(messageOf([undefined])).toMatch(/^No webhook secret/)
  })
})

describe('each refusal has its reason', () => {
  const secret = newSecret()
  const t = now()
  const header = Webhooks.sign(body, secret, { timestamp: t })
  const v1 = header.slice(header.indexOf('v1='))

  test('missing_header: undefined, null, empty, blank, an empty list', async () => {
    for (const h of [undefined, null, '', '  ', []]) expect(await both(body, h, secret)).toBe('missing_header')
    expect(Webhooks.verify.bind(null, body, undefined, secret)).toThrow(/X-Service-Signature/)
  })

  test('malformed_header: no t=, no v1=, a t= that is not seconds, t= twice, a v1= that is not 64 hex digits, no key=value', async () => {
    for (const h of [v1, `t=${t}`, `t=${t},v0=${'ab'.repeat(32)}`, `t=abc,${v1}`, `t=-5,${v1}`, `t=1.5,${v1}`, `t=${t},t=${t},${v1}`, `t=${t},v1=xyz`, `t=${t},v1=${'ab'.repeat(31)}`, `t=${t},v1=${'zz'.repeat(32)}`, 'garbage', `t=${t},${v1},junk`])
      expect([h, await both(body, h, secret)]).toEqual([h, 'malformed_header'])
  })

  test('other schemes (v0=, v2=) are ignored; spaces around parts are allowed; uppercase hex is read', async () => {
    expect(await both(body, `t=${t},v0=${'ab'.repeat(32)},${v1},v2=anything`, secret)).toBe('accepted')
    expect(await both(body, ` t=${t} , ${v1} `, secret)).toBe('accepted')
    expect(await both(body, `t=${t},v1=${v1.slice(3).toUpperCase()}`, secret)).toBe('accepted')
  })

  test('a header in a list, as node:http hands a repeated one over', async () => {
    expect(await both(body, [`t=${t}`, v1], secret)).toBe('accepted')
    expect(await both(body, [header], secret)).toBe('accepted')
  })

  test('timestamp_too_old past 300 s, timestamp_in_future beyond 300 s, 300 s either way accepted', async () => {
    expect(await both(body, Webhooks.sign(body, secret, { timestamp: t }), secret, { now: t + 300 })).toBe('accepted')
    expect(await both(body, Webhooks.sign(body, secret, { timestamp: t }), secret, { now: t - 300 })).toBe('accepted')
    expect(await both(body, Webhooks.sign(body, secret, { timestamp: t }), secret, { now: t + 301 })).toBe('timestamp_too_old')
    expect(await both(body, Webhooks.sign(body, secret, { timestamp: t }), secret, { now: t - 301 })).toBe('timestamp_in_future')
    // on the real clock: 301 s ago can only get older; 400 s ahead stays beyond 300 s for a while
    expect(await both(body, Webhooks.sign(body, secret, { timestamp: now() - 301 }), secret)).toBe('timestamp_too_old')
    expect(await both(body, Webhooks.sign(body, secret, { timestamp: now() + 400 }), secret)).toBe('timestamp_in_future')
    // now as a Date; a fraction of a second does not count
    expect(await both(body, header, secret, { now: new Date((t + 300) * 1000 + 999) })).toBe('accepted')
    expect(await both(body, header, secret, { now: new Date((t + 301) * 1000) })).toBe('timestamp_too_old')
    // a stale timestamp is refused as such even when its signature is good
    expect(Webhooks.verify.bind(null, body, header, secret, { now: t + 1000 })).toThrow(/1000 seconds old/)
  })

  test('tolerance widens or narrows the window', async () => {
    const h = Webhooks.sign(body, secret, { timestamp: t })
    expect(await both(body, h, secret, { now: t + 301, tolerance: 600 })).toBe('accepted')
    expect(await both(body, h, secret, { now: t - 599, tolerance: 600 })).toBe('accepted')
    expect(await both(body, h, secret, { now: t + 10, tolerance: 10 })).toBe('accepted')
    expect(await both(body, h, secret, { now: t + 11, tolerance: 10 })).toBe('timestamp_too_old')
    expect(await both(body, h, secret, { now: t - 11, tolerance: 10 })).toBe('timestamp_in_future')
    expect(await both(body, h, secret, { now: t + 1e9, tolerance: Infinity })).toBe('accepted')
    expect(() => Webhooks.verify(body, h, secret, { tolerance: -1 })).toThrow(TypeError)
    expect(() => Webhooks.verify(body, h, secret, { now: new Date('nope') })).toThrow(TypeError)
  })

  test('no_matching_signature: a tampered body, a wrong secret, a moved timestamp, a whitespace-padded secret', async () => {
    expect(await both(body.replace('Zoë', 'Zoe'), header, secret)).toBe('no_matching_signature')
    expect(await both(`${body} `, header, secret)).toBe('no_matching_signature')
    expect(await both(body, header, newSecret())).toBe('no_matching_signature')
    expect(await both(body, header.replace(`t=${t}`, `t=${t + 1}`), secret)).toBe('no_matching_signature')
    expect(await both(body, header.replace(/.$/, (c) => (c === '0' ? '1' : '0')), secret)).toBe('no_matching_signature')
    expect(Webhooks.verify.bind(null, body, header, `${secret}\n`)).toThrow(/whitespace/)
    // the signature covers t as written: leading zeros are signed, not normalised away
    expect(await both(body, header.replace(`t=${t}`, `t=0${t}`), secret)).toBe('no_matching_signature')
  })

  test('each refusal says what the receiver got wrong and what to do: a secret without whsec_, in quotes, not base64; a webhook-signature value as the header; a stale or future timestamp', async () => {
    const messageOf = (fn: () => unknown) => {
      try {
        fn()
      } catch (e) {
        if (e instanceof WebhookVerificationError) return `${e.reason}: ${e.message}`
        throw e
      }
      throw new Error('verification passed')
    }
    const standard = Webhooks.signStandard(body, secret, { timestamp: t })
    // X-Service-Signature keys with the whole string: the bare base64 part matches nothing
    expect(messageOf(() => Webhooks.verify(body, header, secret.slice('whsec_'.length)))).toMatch(/^no_matching_signature: .*does not start with whsec_.*whsec_ included/)
    // quotes kept from an env file, in either scheme; the message never shows the secret
    for (const h of [header, standard]) {
      const m = messageOf(() => Webhooks.verify(body, h, `"${secret}"`))
      expect(m).toMatch(/^no_matching_signature: .*quotes around it.*remove them/)
      expect(m).not.toContain(secret.slice(10, 30))
    }
    expect(messageOf(() => Webhooks.verify(body, standard, 'mysecret'))).toMatch(/^no_matching_signature: .*does not start with whsec_/)
    // webhook-signature is keyed with the bytes the secret spells: one that is not base64 cannot be it
    expect(messageOf(() => Webhooks.verify(body, standard, 'whsec_this is not base64!'))).toMatch(/^no_matching_signature: .*not whsec_ and base64/)
    // a plain wrong secret gets no hint that would mislead
    expect(messageOf(() => Webhooks.verify(body, header, newSecret()))).not.toContain('One of the secrets')
    // webhook-signature's value handed over where X-Service-Signature's belongs
    expect(messageOf(() => Webhooks.verify(body, standard['webhook-signature'], secret))).toMatch(/^malformed_header: .*webhook-signature's value.*pass the request's headers whole/)
    // a stale signature: refuse it, check the clock, and how to check a saved delivery
    expect(messageOf(() => Webhooks.verify(body, header, secret, { now: t + 1000 }))).toMatch(/1000 seconds old.*signed as it is sent.*answer 400.*clock.*tolerance: Infinity/)
    expect(messageOf(() => Webhooks.verify(body, header, secret, { now: t - 1000 }))).toMatch(/1000 seconds in the future.*answer 400.*clock/)
  })

  test('body_not_raw: parsed JSON (or anything but text and bytes), with how to get the raw body in Express, Bun.serve, node:http and Hono', async () => {
    for (const raw of [event, [event], null, undefined, 42]) expect(await both(raw, header, secret)).toBe('body_not_raw')
    try {
      Webhooks.verify(event as unknown as string, header, secret)
      throw new Error('accepted')
    } catch (e) {
      const err = e as WebhookVerificationError
      expect(err).toBeInstanceOf(WebhookVerificationError)
      expect(err).toBeInstanceOf(Error)
      expect(err.name).toBe('WebhookVerificationError')
      expect(err.reason).toBe('body_not_raw')
      for (const hint of ["express.raw({ type: 'application/json' })", 'Bun.serve', 'await req.text()', 'node:http', 'Buffer.concat(chunks)', 'Hono', 'await c.req.text()'])
        expect(err.message).toContain(hint)
    }
    // sign wants the raw body too
    expect(() => Webhooks.sign(event as unknown as string, secret)).toThrow(TypeError)
  })

  test("body_not_raw in a real Express app that parses JSON for every route first: the message names app.use(express.json()), not only express.raw, which that route already has", async () => {
    const express = (await import('express')).default
    const app = express()
    app.use(express.json())
    let message = ''
    app.post('/webhooks', express.raw({ type: 'application/json' }), (req, res) => {
      try {
        Webhooks.verify(req.body, req.headers, secret)
        res.sendStatus(200)
      } catch (e) {
        message = (e as Error).message
        res.status(400).send((e as WebhookVerificationError).reason)
      }
    })
    const server = app.listen(0, '127.0.0.1')
    await new Promise((ok) => server.once('listening', ok))
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`
      const answer = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...Webhooks.signStandard(body, secret) }, body })
      expect([answer.status, await answer.text()]).toEqual([400, 'body_not_raw'])
      expect(message).toContain('app.use(express.json())')
    } finally {
      server.close()
    }
  })

  test('a body that matches but is not a JSON event is a SyntaxError, not a verification failure', async () => {
    for (const raw of ['not json', '[1,2]', 'null', '{"id":1,"event":"x"}', '{"event":"x"}']) {
      const h = Webhooks.sign(raw, secret)
      expect(() => Webhooks.verify(raw, h, secret)).toThrow(SyntaxError)
      await expect(Webhooks.verifyAsync(raw, h, secret)).rejects.toThrow(SyntaxError)
    }
  })
})

describe('raw bodies of every kind', () => {
  const secret = newSecret()
  const bytes = new TextEncoder().encode(body)

  test('string, Uint8Array, ArrayBuffer, Buffer with non-ASCII UTF-8, each against a header signed over any other', async () => {
    expect(bytes.length).toBeGreaterThan(body.length) // non-ASCII in it
    const kinds = { string: body, uint8array: bytes, arraybuffer: bytes.slice().buffer, buffer: Buffer.from(body, 'utf8') }
    for (const [signedAs, signed] of Object.entries(kinds)) {
      const header = Webhooks.sign(signed, secret)
      expect(header).toBe(signatureHeader(body, [secret], Number(header.slice(2, header.indexOf(',')))))
      for (const [kind, raw] of Object.entries(kinds)) expect([signedAs, kind, await both(raw, header, secret)]).toEqual([signedAs, kind, 'accepted'])
    }
  })

  test('a view into a larger buffer is read from its offset (a pooled Buffer, a subarray, a DataView)', async () => {
    const header = Webhooks.sign(body, secret)
    const big = new Uint8Array(bytes.length + 20)
    big.set(bytes, 7)
    expect(await both(big.subarray(7, 7 + bytes.length), header, secret)).toBe('accepted')
    expect(await both(new DataView(big.buffer, 7, bytes.length), header, secret)).toBe('accepted')
    expect(await both(Buffer.from(big.buffer, 7, bytes.length), header, secret)).toBe('accepted')
    expect(await both(big, header, secret)).toBe('no_matching_signature')
  })

  test('bytes that are not valid UTF-8 are verified as bytes (the signature is over bytes, not text)', () => {
    const raw = Buffer.concat([Buffer.from('{"id":"evt_1","event":"webhook.test","x":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')])
    const t = now()
    const header = `t=${t},v1=${createHmac('sha256', secret).update(`${t}.`).update(raw).digest('hex')}`
    expect(Webhooks.verify(raw, header, secret).id).toBe('evt_1')
    expect(Webhooks.sign(raw, secret, { timestamp: t })).toBe(header)
    // decoded as text first, the bytes are lost and the signature no longer matches
    expect(() => Webhooks.verify(raw.toString('utf8'), header, secret)).toThrow(WebhookVerificationError)
  })
})

describe('without native crypto (edge runtimes, Node.js before 20.16)', () => {
  const secret = newSecret()

  test('verify falls back to plain JavaScript, verifyAsync to Web Crypto, and both accept what the server signs', async () => {
    expect(nativeSigner('1.', body)).toBeFunction()
    expect(withoutNative(() => nativeSigner('1.', body))).toBeUndefined()
    const header = signatureHeader(body, [newSecret(), secret], now())
    expect(withoutNative(() => Webhooks.verify(body, header, secret))).toEqual(event as WebhookEvent)
    expect(withoutNative(() => Webhooks.verify(Buffer.from(body), header, secret))).toEqual(event as WebhookEvent)
    expect(await withoutNative(() => Webhooks.verifyAsync(body, header, secret))).toEqual(event as WebhookEvent)
    expect(await withoutNative(() => Webhooks.verifyAsync(new TextEncoder().encode(body).buffer, header, [secret]))).toEqual(event as WebhookEvent)
    expect(await withoutNative(() => reasonOf(() => Webhooks.verify(body, header, newSecret())))).toBe('no_matching_signature')
    expect(await withoutNative(() => reasonOf(() => Webhooks.verifyAsync(body, header, newSecret())))).toBe('no_matching_signature')
    const t = now()
    expect(withoutNative(() => Webhooks.sign(body, secret, { timestamp: t }))).toBe(signatureHeader(body, [secret], t))
    expect(await withoutNative(() => Webhooks.signAsync(body, secret, { timestamp: t }))).toBe(signatureHeader(body, [secret], t))
  })

  test('and with no Web Crypto either, verifyAsync still verifies (plain JavaScript)', async () => {
    const header = signatureHeader(body, [secret], now())
    expect(await withoutNative(() => Webhooks.verifyAsync(body, header, secret), { subtle: false })).toEqual(event as WebhookEvent)
    expect(await withoutNative(() => reasonOf(() => Webhooks.verifyAsync(body, header, newSecret())), { subtle: false })).toBe('no_matching_signature')
  })

  test('a Bun.CryptoHasher that ignores the key (an old Bun) is not trusted: a keyless hash is no forgery', () => {
    const real = Bun.CryptoHasher
    class Keyless {
      private h = createHash('sha256')
      update(d: string | Uint8Array) {
        this.h.update(d)
        return this
      }
      digest() {
        return this.h.digest()
      }
    }
    const t = now()
    const forged = `t=${t},v1=${createHash('sha256').update(`${t}.${body}`).digest('hex')}`
    ;(Bun as { CryptoHasher: unknown }).CryptoHasher = Keyless
    try {
      expect(() => Webhooks.verify(body, forged, secret)).toThrow(WebhookVerificationError)
      expect(Webhooks.verify(body, Webhooks.sign(body, secret), secret).id).toBe(event.id)
      expect(Webhooks.sign(body, secret, { timestamp: t })).toBe(signatureHeader(body, [secret], t))
    } finally {
      ;(Bun as { CryptoHasher: unknown }).CryptoHasher = real
    }
  })

  test('the plain-JavaScript HMAC-SHA256 equals node:crypto on random keys and messages, fed in random parts', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), fc.array(fc.uint8Array({ maxLength: 300 }), { maxLength: 5 }), (key, parts) => {
        const expected = createHmac('sha256', key)
        for (const p of parts) expected.update(p)
        expect(Buffer.from(hmacSha256(key, parts)).toString('hex')).toBe(expected.digest('hex'))
      }),
      { numRuns: 500 },
    )
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), fc.string({ unit: 'binary', maxLength: 3000 }), (key, message) => {
        const enc = new TextEncoder()
        expect(Buffer.from(hmacSha256(enc.encode(key), [enc.encode(message)])).toString('hex')).toBe(createHmac('sha256', key).update(message).digest('hex'))
      }),
      { numRuns: 200 },
    )
  })

  test('its SHA-256 gives the known answers, across block boundaries and for a long message', () => {
    const hex = (...parts: (string | Uint8Array)[]) => {
      const h = new Sha256()
      for (const p of parts) h.update(typeof p === 'string' ? new TextEncoder().encode(p) : p)
      return Buffer.from(h.digest()).toString('hex')
    }
    expect(hex()).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855')
    expect(hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad')
    expect(hex('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')).toBe('248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1')
    for (const n of [55, 56, 63, 64, 65, 119, 120, 128, 1_000_000]) {
      const data = randomBytes(n)
      expect(hex(data.subarray(0, n >> 1), data.subarray(n >> 1))).toBe(createHash('sha256').update(data).digest('hex'))
    }
  })
})

describe('comparison', () => {
  test('timingSafeEqual: equal, last byte differs, first byte differs, lengths differ, empty', () => {
    const a = randomBytes(32)
    expect(timingSafeEqual(a, Uint8Array.from(a))).toBe(true)
    const last = Uint8Array.from(a)
    last[31]! ^= 1
    expect(timingSafeEqual(a, last)).toBe(false)
    const first = Uint8Array.from(a)
    first[0]! ^= 0x80
    expect(timingSafeEqual(a, first)).toBe(false)
    expect(timingSafeEqual(a, a.subarray(0, 31))).toBe(false)
    expect(timingSafeEqual(a.subarray(0, 31), a)).toBe(false)
    expect(timingSafeEqual(new Uint8Array(0), new Uint8Array(0))).toBe(true)
  })

  test('timingSafeEqual has no exit inside its loop: every byte is XORed into one accumulator', () => {
    const src = timingSafeEqual.toString()
    const loop = /for\s*\(([\s\S]*?)return diff/.exec(src)![1]!
    expect(loop).toMatch(/diff \|= a\[i\]!? \^ b\[i\]/)
    expect(loop).not.toMatch(/return|break|continue|if\s*\(|\?|&&|\|\|/)
    expect(src.match(/return/g)).toHaveLength(2) // the length check and the result
  })

  test('fromHex reads either case and refuses anything else', () => {
    expect(Buffer.from(fromHex('00ff7Fa0')!).toString('hex')).toBe('00ff7fa0')
    for (const bad of ['0', 'zz', '0g', '  ', '0x00']) expect(fromHex(bad)).toBeUndefined()
    expect(fromHex('')).toEqual(new Uint8Array(0))
  })
})

describe('a real delivery from the server', () => {
  type Outcome = { via: string; eventId: string | undefined; results: (string | undefined)[] }

  /** A receiver as a user writes it: verify the raw body with every secret it is given, answer 400 if any refuses. */
  async function check(via: string, raw: string | Uint8Array, header: string | string[] | null | undefined, secrets: string[][], outcomes: Outcome[]) {
    checkReceived(typeof raw === 'string' ? raw : new TextDecoder().decode(raw))
    const results: (string | undefined)[] = []
    let eventId: string | undefined
    for (const s of secrets) {
      for (const verify of [async () => Webhooks.verify(raw, header, s), () => Webhooks.verifyAsync(raw, header, s)]) {
        try {
          const e = await verify()
          eventId = e.id
          results.push(e.event)
        } catch (e) {
          results.push((e as WebhookVerificationError).reason ?? String(e))
        }
      }
    }
    outcomes.push({ via, eventId, results })
    return results.every((r) => r === 'contact.created')
  }

  test('Bun.serve (await req.text()) and node:http (Buffer.concat(chunks)) receivers verify it, also during a secret rotation', async () => {
    const outcomes: Outcome[] = []
    const secrets = { bun: [] as string[][], node: [] as string[][] }
    const bunServer = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      async fetch(req) {
        const ok = await check('Bun.serve', await req.text(), req.headers.get('X-Service-Signature'), secrets.bun, outcomes)
        return new Response(ok ? 'ok' : 'refused', { status: ok ? 200 : 400 })
      },
    })
    const nodeServer = createServer((req: IncomingMessage, res) => {
      const chunks: Buffer[] = []
      req.on('data', (c: Buffer) => chunks.push(c))
      req.on('end', async () => {
        const ok = await check('node:http', Buffer.concat(chunks), req.headers['x-service-signature'], secrets.node, outcomes)
        res.writeHead(ok ? 200 : 400).end()
      })
    })
    await new Promise<void>((resolve) => nodeServer.listen(0, '127.0.0.1', resolve))
    const r = await rig()
    try {
      const { sql } = await getHarness()
      const a = await endpoint(r, `http://127.0.0.1:${bunServer.port}/hooks`, 'contact.created')
      const b = await endpoint(r, `http://127.0.0.1:${(nodeServer.address() as AddressInfo).port}/hooks`, 'contact.created')
      const { secret: rotated } = await rotateSecret(sql, a.id, 60_000)
      // the rotated endpoint signs with both secrets: each alone verifies, and both together
      secrets.bun = [[a.secret], [rotated], [rotated, a.secret]]
      secrets.node = [[b.secret], [newSecret(), b.secret]]
      await importContacts(r.ws, 2)
      await until('two answered deliveries to each receiver', async () => (await attemptsOf(a.id)).length >= 2 && (await attemptsOf(b.id)).length >= 2)
      for (const o of outcomes) expect(o.results).toEqual(Array(o.via === 'Bun.serve' ? 6 : 4).fill('contact.created'))
      expect(outcomes.map((o) => o.via).sort()).toEqual(['Bun.serve', 'Bun.serve', 'node:http', 'node:http'])
      expect(new Set(outcomes.map((o) => o.eventId)).size).toBe(2)
      // the server saw each delivery accepted
      for (const e of [a, b]) expect((await attemptsOf(e.id)).map((x) => x.status_code)).toEqual([200, 200])
    } finally {
      await r.done()
      bunServer.stop(true)
      nodeServer.close()
    }
  })
})
