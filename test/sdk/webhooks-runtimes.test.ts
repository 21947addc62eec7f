import { describe, expect, test } from 'bun:test'
import { signatureHeader } from '../../server/src/domain/webhook-signature.ts'
import { PACK_TIMEOUT, RUNTIMES, runScript, scriptInProject } from './support/pack.ts'

/**
 * Webhooks.verify and verifyAsync from the packed package, under Node.js, Bun and Deno: each
 * accepts what the server signs (a rotation's two secrets, a non-ASCII body as text and as bytes)
 * and refuses with the named reasons. The full rules are in webhooks.test.ts; this checks that each
 * runtime takes a working path (node:crypto, Bun's hasher, Web Crypto) out of the built package.
 */
const SCRIPT = `
import { Webhooks, WebhookVerificationError } from '@growth-service/sdk'
const { BODY, HEADER, SECRET, OLD_SECRET } = process.env
const out = {}
const attempt = async (name, fn) => {
  try {
    const event = await fn()
    out[name] = { ok: true, id: event.id, event: event.event }
  } catch (error) {
    out[name] = { ok: false, reason: error instanceof WebhookVerificationError ? error.reason : String(error) }
  }
}
const bytes = new TextEncoder().encode(BODY)
await attempt('verify', () => Webhooks.verify(BODY, HEADER, SECRET))
await attempt('verifyBytes', () => Webhooks.verify(bytes, HEADER, [OLD_SECRET, SECRET]))
await attempt('verifyAsync', () => Webhooks.verifyAsync(BODY, HEADER, SECRET))
await attempt('verifyAsyncOld', () => Webhooks.verifyAsync(bytes.buffer, HEADER, OLD_SECRET))
await attempt('tampered', () => Webhooks.verify(BODY.replace('Olivia', 'Oliver'), HEADER, SECRET))
await attempt('tamperedAsync', () => Webhooks.verifyAsync(BODY.replace('Olivia', 'Oliver'), HEADER, SECRET))
await attempt('parsed', () => Webhooks.verify(JSON.parse(BODY), HEADER, SECRET))
await attempt('missing', () => Webhooks.verifyAsync(BODY, undefined, SECRET))
await attempt('malformed', () => Webhooks.verify(BODY, 't=abc,v1=00', SECRET))
await attempt('old', () => Webhooks.verify(BODY, HEADER, SECRET, { now: Number(HEADER.slice(2, HEADER.indexOf(','))) + 301 }))
await attempt('future', () => Webhooks.verifyAsync(BODY, HEADER, SECRET, { now: Number(HEADER.slice(2, HEADER.indexOf(','))) - 301 }))
const signed = Webhooks.sign(BODY, SECRET)
const signedAsync = await Webhooks.signAsync(BODY, SECRET)
await attempt('ownSign', () => Webhooks.verify(BODY, signed, SECRET))
out.signsAlike = signed === signedAsync || signed.split(',')[0] !== signedAsync.split(',')[0]
console.log(JSON.stringify(out))
`

describe.each(RUNTIMES)('Webhooks from the packed package under %s', (runtime) => {
  test(
    'accepts what the server signs, during a rotation too, and refuses with the named reasons',
    async () => {
      const script = await scriptInProject('webhooks-runtime.mjs', SCRIPT)
      const body = JSON.stringify({ id: 'evt_runtime', event: 'contact.created', createdAt: new Date().toISOString(), workspaceId: 'ws_x', data: { contact: { name: 'Olivia Bennett', city: 'Zürich 東京' } } })
      const secret = 'whsec_new_0123456789abcdef0123456789abcdef'
      const old = 'whsec_old_fedcba9876543210fedcba9876543210'
      const header = signatureHeader(body, [secret, old], Math.floor(Date.now() / 1000))
      const r = await runScript(runtime, script, { BODY: body, HEADER: header, SECRET: secret, OLD_SECRET: old })
      expect(`${r.code} ${r.stderr}`).toBe('0 ')
      const out = JSON.parse(r.stdout)
      const accepted = { ok: true, id: 'evt_runtime', event: 'contact.created' }
      expect(out).toEqual({
        verify: accepted,
        verifyBytes: accepted,
        verifyAsync: accepted,
        verifyAsyncOld: accepted,
        tampered: { ok: false, reason: 'no_matching_signature' },
        tamperedAsync: { ok: false, reason: 'no_matching_signature' },
        parsed: { ok: false, reason: 'body_not_raw' },
        missing: { ok: false, reason: 'missing_header' },
        malformed: { ok: false, reason: 'malformed_header' },
        old: { ok: false, reason: 'timestamp_too_old' },
        future: { ok: false, reason: 'timestamp_in_future' },
        ownSign: accepted,
        signsAlike: true,
      })
    },
    PACK_TIMEOUT,
  )
})
