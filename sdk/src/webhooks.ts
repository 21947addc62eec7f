import type { components, webhooks } from './schema.ts'
import { fromHex, type HmacKey, nativeSigner, subtleSigner, syncSigner, timingSafeEqual, toHex } from './webhooks/hmac.ts'
import { headerOf, parseStandard, standardKey, toBase64, type WebhookHeaders } from './webhooks/standard.ts'

export type { WebhookHeaders } from './webhooks/standard.ts'

/**
 * Webhook verification, for receivers (CONTRACT: Events and webhooks, The SDK).
 *
 * A delivery carries `X-Service-Signature: t=<unix seconds>,v1=<hex>[,v1=<hex>...]`: the lowercase
 * hex HMAC-SHA256 of `<t>.<raw body>`, keyed with the UTF-8 bytes of the whole `whsec_...` secret, one
 * `v1=` per live secret (newest first) while a secret is rotated. `verify` accepts a delivery when its
 * timestamp is within `tolerance` seconds of now, either way, and any one `v1=` matches any one of the
 * secrets given; it then returns the event the body holds.
 *
 * Every delivery also carries the Standard Webhooks headers (`webhook-id`, `webhook-timestamp`,
 * `webhook-signature`, ./webhooks/standard.ts). Given the request's headers whole (fetch's Headers or
 * node:http's object) instead of one header's value, `verify` checks `webhook-signature` when it is
 * there, else `X-Service-Signature`: either scheme, the same secret.
 *
 * ```ts
 * const event = Webhooks.verify(await req.text(), req.headers, secret)   // or req.headers.get('X-Service-Signature')
 * if (event.event === 'contact.created') ...
 * ```
 */

type EventSchema = components['schemas']['Event']
/** An event type (`contact.created`, ...). */
export type WebhookEventType = EventSchema['event']
/** Each event type's body, as the OpenAPI document's top-level `webhooks` gives it. */
type WebhookBodies = { [T in keyof webhooks]: webhooks[T]['post']['requestBody']['content']['application/json'] }
/**
 * The event a delivery carries: a union with one member per event type, so that a check of `event`
 * narrows `data` to that type's payload (after `event.event === 'action.applied'`, `event.data.action`
 * is the Action).
 */
export type WebhookEvent<T extends WebhookEventType = WebhookEventType> = T extends WebhookEventType ? WebhookBodies[T] : never

/** The body exactly as it arrived: the text, or its bytes. Never the parsed JSON. */
export type WebhookRawBody = string | Uint8Array | ArrayBuffer
/** A header as frameworks hand it over: fetch's `headers.get()` (string | null), node:http's (string | string[] | undefined). */
export type WebhookSignatureHeader = string | readonly string[] | null | undefined

export type WebhookVerifyOptions = {
  /** How far the signature's timestamp may be from now, either way, in seconds (default 300). `Infinity` turns the check off. */
  tolerance?: number | undefined
  /** The time to check the timestamp against, as unix seconds or a Date (default: the clock). For tests. */
  now?: number | Date | undefined
}

export type WebhookSignOptions = {
  /** The signature's time in unix seconds (default: now). */
  timestamp?: number | undefined
}

export type WebhookVerificationReason =
  | 'missing_header'
  | 'malformed_header'
  | 'timestamp_too_old'
  | 'timestamp_in_future'
  | 'no_matching_signature'
  | 'body_not_raw'

/** A delivery that cannot be trusted, and why (`reason`). Answer it with a 4xx and do not act on it. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError'
  readonly reason: WebhookVerificationReason

  constructor(reason: WebhookVerificationReason, message: string) {
    super(message)
    this.reason = reason
  }
}

const SIGNATURE_HEADER = 'X-Service-Signature' as const
const STANDARD_VALUE_GIVEN =
  "this is webhook-signature's value (Standard Webhooks, v1,<base64>), which is checked together with webhook-id and webhook-timestamp: " +
  "pass the request's headers whole (node:http's req.headers, fetch's req.headers) and either scheme is checked, or pass X-Service-Signature's value."
const DEFAULT_TOLERANCE = 300

const RAW_BODY_HOWTO =
  'Pass the body exactly as received (a string, Buffer, Uint8Array or ArrayBuffer), not parsed JSON: ' +
  "in Express, route the webhook through express.raw({ type: 'application/json' }) and pass req.body (a Buffer), " +
  'declaring that route before any app.use(express.json()), which would parse the body first; ' +
  'in Bun.serve or any fetch handler (Deno, Cloudflare Workers, Next.js route handlers), pass await req.text(); ' +
  "in node:http, collect the request's chunks and pass Buffer.concat(chunks); " +
  'in Hono, pass await c.req.text().'

type Parsed = { prefix: string; timestamp: number; signatures: Uint8Array[]; scheme: 'X-Service-Signature' | 'webhook-signature' }

/** One header's value (X-Service-Signature), or the request's headers whole (either scheme). */
export type WebhookVerifyHeaders = WebhookSignatureHeader | WebhookHeaders

/** Checks everything that needs no HMAC: the body's kind, the secrets, the header and the timestamp; and the keys to sign with. */
function prepare(rawBody: unknown, header: WebhookVerifyHeaders, secret: string | readonly string[], options: WebhookVerifyOptions) {
  const body = rawInput(rawBody, 'verify')
  const secrets = secretList(secret)
  const parsed = parseAny(header)
  checkTimestamp(parsed.timestamp, options)
  // X-Service-Signature keys with the whole secret string, Standard Webhooks with the bytes it spells.
  const keys: HmacKey[] = parsed.scheme === 'X-Service-Signature' ? [...secrets] : secrets.flatMap((s) => standardKey(s) ?? [])
  return { body, secrets, parsed, keys }
}

/** A header value is X-Service-Signature; headers whole are read for webhook-signature first. */
function parseAny(header: WebhookVerifyHeaders): Parsed {
  if (header === null || header === undefined || typeof header === 'string' || Array.isArray(header)) return parseHeader(header as WebhookSignatureHeader)
  const headers = header as WebhookHeaders
  if (headerOf(headers, 'webhook-signature').trim() === '' && headerOf(headers, SIGNATURE_HEADER).trim() !== '') return parseHeader(headerOf(headers, SIGNATURE_HEADER))
  if (headerOf(headers, 'webhook-signature').trim() === '' && headerOf(headers, 'webhook-id').trim() === '')
    throw new WebhookVerificationError('missing_header', `Neither ${SIGNATURE_HEADER} nor webhook-signature is among the headers: the request was not signed by the service, or its headers were not passed on.`)
  const standard = parseStandard(headers)
  if ('reason' in standard) throw new WebhookVerificationError(standard.reason, standard.message)
  return { ...standard, scheme: 'webhook-signature' }
}

/** Whether any secret's HMAC equals any `v1=` of the header. Every pair is compared in full. */
function anyMatch(macs: Uint8Array[], parsed: Parsed): boolean {
  let matched = false
  for (const mac of macs) for (const signature of parsed.signatures) matched = timingSafeEqual(mac, signature) || matched
  return matched
}

/**
 * Verifies a delivery synchronously and returns its event, or throws WebhookVerificationError.
 * Uses the runtime's native HMAC where it has one (Bun, node:crypto on Node.js >= 20.16 and Deno),
 * a plain JavaScript HMAC-SHA256 elsewhere.
 */
function verify(rawBody: WebhookRawBody, header: WebhookVerifyHeaders, secret: string | readonly string[], options: WebhookVerifyOptions = {}): WebhookEvent {
  const { body, secrets, parsed, keys } = prepare(rawBody, header, secret, options)
  const sign = syncSigner(parsed.prefix, body)
  if (!anyMatch(keys.map(sign), parsed)) throw noMatch(secrets, parsed.scheme)
  return parseEvent(body)
}

/**
 * Verifies a delivery on any runtime (Web Crypto) and resolves to its event, or rejects with
 * WebhookVerificationError. Where the runtime has a native synchronous HMAC (Bun, node:crypto) it
 * uses that instead: the same result, without crypto.subtle's hop to another thread, which costs
 * more than hashing a body of a few kilobytes (test/bench/sdk-verify.ts).
 */
async function verifyAsync(rawBody: WebhookRawBody, header: WebhookVerifyHeaders, secret: string | readonly string[], options: WebhookVerifyOptions = {}): Promise<WebhookEvent> {
  const { body, secrets, parsed, keys } = prepare(rawBody, header, secret, options)
  const native = nativeSigner(parsed.prefix, body)
  const macs = native ? keys.map(native) : await Promise.all(keys.map(subtleSigner(parsed.prefix, body)))
  if (!anyMatch(macs, parsed)) throw noMatch(secrets, parsed.scheme)
  return parseEvent(body)
}

/** An `X-Service-Signature` header for this body, as the service makes it: for tests. Several secrets: newest first. */
function sign(rawBody: string | Uint8Array | ArrayBuffer, secret: string | readonly string[], options: WebhookSignOptions = {}): string {
  const t = signTimestamp(options)
  const signer = syncSigner(`${t}.`, rawInput(rawBody, 'sign'))
  return header(t, secretList(secret).map(signer))
}

/** `sign` by Web Crypto, for runtimes without node:crypto. */
async function signAsync(rawBody: string | Uint8Array | ArrayBuffer, secret: string | readonly string[], options: WebhookSignOptions = {}): Promise<string> {
  const t = signTimestamp(options)
  const signer = subtleSigner(`${t}.`, rawInput(rawBody, 'sign'))
  return header(t, await Promise.all(secretList(secret).map(signer)))
}

export type WebhookStandardSignOptions = WebhookSignOptions & {
  /** The webhook-id (default: the body's event id, as the service sends it). */
  id?: string | undefined
}

/** The Standard Webhooks headers (webhook-id, webhook-timestamp, webhook-signature) for this body, as the service makes them: for tests. */
function signStandard(rawBody: string | Uint8Array | ArrayBuffer, secret: string | readonly string[], options: WebhookStandardSignOptions = {}) {
  const t = signTimestamp(options)
  const body = rawInput(rawBody, 'sign')
  const id = options.id ?? eventIdOf(body)
  const signer = syncSigner(`${id}.${t}.`, body)
  const keys = secretList(secret).map((s) => {
    const key = standardKey(s)
    if (!key) throw new TypeError('A Standard Webhooks secret is whsec_ and then base64: this one is not base64')
    return key
  })
  return { 'webhook-id': id, 'webhook-timestamp': String(t), 'webhook-signature': keys.map((k) => `v1,${toBase64(signer(k))}`).join(' ') }
}

function eventIdOf(body: string | Uint8Array): string {
  try {
    const id = (JSON.parse(typeof body === 'string' ? body : decoder.decode(body)) as { id?: unknown }).id
    if (typeof id === 'string' && id !== '') return id
  } catch {}
  throw new TypeError('signStandard needs options.id when the body is not an event with an id')
}

export const Webhooks = { verify, verifyAsync, sign, signAsync, signStandard } as const

function header(t: number, macs: Uint8Array[]): string {
  return [`t=${t}`, ...macs.map((m) => `v1=${toHex(m)}`)].join(',')
}

function signTimestamp(options: WebhookSignOptions): number {
  const t = options.timestamp ?? Math.floor(Date.now() / 1000)
  if (!Number.isSafeInteger(t) || t < 0) throw new TypeError(`timestamp must be whole unix seconds, got ${String(t)}`)
  return t
}

/** The body as a string or bytes; anything else is parsed JSON or a stream, not the raw body. */
function rawInput(rawBody: unknown, by: 'verify' | 'sign'): string | Uint8Array {
  if (typeof rawBody === 'string' || rawBody instanceof Uint8Array) return rawBody
  if (rawBody instanceof ArrayBuffer) return new Uint8Array(rawBody)
  if (ArrayBuffer.isView(rawBody)) return new Uint8Array(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength)
  const got = rawBody === null ? 'null' : Array.isArray(rawBody) ? 'an array' : typeof rawBody === 'object' ? 'an object' : typeof rawBody
  const message = `Webhooks.${by} was given ${got} where the raw body belongs. The signature covers the exact bytes sent, which parsed and re-serialized JSON does not reproduce. ${RAW_BODY_HOWTO}`
  if (by === 'sign') throw new TypeError(message)
  throw new WebhookVerificationError('body_not_raw', message)
}

function secretList(secret: string | readonly string[]): readonly string[] {
  const secrets = typeof secret === 'string' ? [secret] : secret
  const none = "No webhook secret: pass the endpoint's whsec_... secret (or a list of them), e.g. from an environment variable that is set"
  if (!Array.isArray(secrets) || !secrets.some((s) => typeof s === 'string' && s.length > 0)) throw new TypeError(none)
  // A list with a good secret and a missing one: typically [current, previous] after the rotation's
  // previous variable was unset. Name the entry rather than claim there is no secret at all.
  const bad = secrets.findIndex((s) => typeof s !== 'string' || s.length === 0)
  if (bad >= 0) {
    const what = secrets[bad] === '' ? 'empty' : secrets[bad] === undefined ? 'undefined' : secrets[bad] === null ? 'null' : `a ${typeof secrets[bad]}`
    throw new TypeError(`The webhook secret at [${bad}] of the list is ${what}: every entry must be a whsec_... secret; if it is an old secret whose rotation is over, drop it from the list`)
  }
  return secrets
}

/**
 * `t=<digits>` exactly once and at least one `v1=<64 hex digits>`; other schemes (`v0=`, a future
 * `v2=`) are ignored. The signed prefix keeps `t` as written, so a sender's leading zeros still match.
 */
function parseHeader(value: WebhookSignatureHeader): Parsed {
  const text = typeof value === 'string' ? value : Array.isArray(value) ? value.join(',') : ''
  if (text.trim() === '') throw new WebhookVerificationError('missing_header', `No ${SIGNATURE_HEADER} header: the request was not signed by the service, or the header was not passed on (node:http: req.headers['x-service-signature']; fetch: req.headers.get('${SIGNATURE_HEADER}')).`)
  const malformed = (why: string) => new WebhookVerificationError('malformed_header', `${SIGNATURE_HEADER} is not t=<unix seconds>,v1=<hex>: ${why}`)
  let t: string | undefined
  const signatures: Uint8Array[] = []
  for (const item of text.split(',')) {
    const part = item.trim()
    if (part === '') continue
    const eq = part.indexOf('=')
    if (eq <= 0) throw malformed(/^v1,/.test(text.trim()) ? STANDARD_VALUE_GIVEN : `"${part.slice(0, 20)}" is not key=value`)
    const key = part.slice(0, eq)
    const val = part.slice(eq + 1)
    if (key === 't') {
      if (t !== undefined) throw malformed('t= appears twice')
      if (!/^\d{1,15}$/.test(val)) throw malformed(`t=${val.slice(0, 20)} is not unix seconds`)
      t = val
    } else if (key === 'v1') {
      const bytes = val.length === 64 ? fromHex(val) : undefined
      if (!bytes) throw malformed('a v1= value is not 64 hex digits')
      signatures.push(bytes)
    }
  }
  if (t === undefined) throw malformed('no t=')
  if (signatures.length === 0) throw malformed('no v1=')
  return { prefix: `${t}.`, timestamp: Number(t), signatures, scheme: SIGNATURE_HEADER }
}

function checkTimestamp(timestamp: number, options: WebhookVerifyOptions) {
  const tolerance = options.tolerance ?? DEFAULT_TOLERANCE
  if (typeof tolerance !== 'number' || Number.isNaN(tolerance) || tolerance < 0) throw new TypeError(`tolerance must be a number of seconds >= 0, got ${String(tolerance)}`)
  const now = options.now === undefined ? Date.now() / 1000 : options.now instanceof Date ? options.now.getTime() / 1000 : options.now
  if (typeof now !== 'number' || !Number.isFinite(now)) throw new TypeError(`now must be unix seconds or a valid Date, got ${String(options.now)}`)
  const age = Math.floor(now) - timestamp
  if (age > tolerance)
    throw new WebhookVerificationError(
      'timestamp_too_old',
      `The signature is ${age} seconds old, more than the tolerance of ${tolerance}: a replayed delivery, or a clock that is wrong. ` +
        "Every attempt, retries included, is signed as it is sent, so refuse it (answer 400); if this machine's clock is wrong, set it right (NTP). " +
        'To check a delivery saved earlier, pass { tolerance: Infinity }.',
    )
  if (-age > tolerance)
    throw new WebhookVerificationError(
      'timestamp_in_future',
      `The signature is dated ${-age} seconds in the future, more than the tolerance of ${tolerance}: a clock that is wrong. Refuse it (answer 400); if this machine's clock is wrong, set it right (NTP).`,
    )
}

function noMatch(secrets: readonly string[], scheme: Parsed['scheme']) {
  return new WebhookVerificationError(
    'no_matching_signature',
    `No v1 signature in ${scheme} matches this body with the secret${secrets.length > 1 ? 's' : ''} given: check that it is this endpoint's whsec_... secret and that the body is passed exactly as received.${secretHints(secrets, scheme)}`,
  )
}

/**
 * What is visibly wrong with a secret that matched nothing, in the receiver's words: one copied with
 * whitespace or quotes around it, without its whsec_ prefix (X-Service-Signature keys with the whole
 * string, prefix included), or not base64 after it (webhook-signature keys with the bytes it spells).
 * Never a character of the secret itself: messages end up in logs.
 */
function secretHints(secrets: readonly string[], scheme: Parsed['scheme']): string {
  const hints: string[] = []
  if (secrets.some((s) => s.trim() !== s)) hints.push('One of the secrets given starts or ends with whitespace: trim it.')
  const trimmed = secrets.map((s) => s.trim())
  if (trimmed.some((s) => /^["'`]|["'`]$/.test(s))) hints.push('One of the secrets given has quotes around it (from an env file or a config that kept them): remove them.')
  else if (trimmed.some((s) => !s.startsWith('whsec_')))
    hints.push(
      scheme === 'X-Service-Signature'
        ? 'One of the secrets given does not start with whsec_: X-Service-Signature is keyed with the whole secret, so pass it exactly as printed, whsec_ included.'
        : 'One of the secrets given does not start with whsec_: it is not a secret as the service shows it; pass the endpoint\'s secret exactly as printed, whsec_ included.',
    )
  else if (scheme === 'webhook-signature' && trimmed.some((s) => standardKey(s) === undefined))
    hints.push('One of the secrets given is not whsec_ and base64, which webhook-signature is keyed with: pass the secret exactly as it was shown when the endpoint was made or its secret rotated.')
  return hints.map((h) => ` ${h}`).join('')
}

const decoder = new TextDecoder()

/**
 * The event a verified body holds. Once the signature matched, the body is the service's own; a
 * body that is then not a JSON event object is not a verification failure (no reason in the
 * contract fits it) but a broken delivery, and throws a SyntaxError saying so.
 */
function parseEvent(body: string | Uint8Array): WebhookEvent {
  let event: unknown
  try {
    event = JSON.parse(typeof body === 'string' ? body : decoder.decode(body))
  } catch (cause) {
    throw new SyntaxError(`The signature matched, but the body is not JSON: ${(cause as Error).message}`, { cause })
  }
  const e = event as { id?: unknown; event?: unknown } | null
  if (typeof e !== 'object' || e === null || Array.isArray(e) || typeof e.id !== 'string' || typeof e.event !== 'string')
    throw new SyntaxError('The signature matched, but the body is not an event: a JSON object with string id and event')
  return event as WebhookEvent
}
