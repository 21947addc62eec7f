import { hmacSha256 } from './sha256.ts'

/**
 * The HMAC-SHA256 engines behind webhook signatures, each computing HMAC(key, prefix + body), the prefix `<t>.` (X-Service-Signature) or
 * `<id>.<t>.` (Standard Webhooks):
 *
 * - Bun's own `Bun.CryptoHasher`, on Bun (a third faster than its node:crypto for a small body);
 *   used only once it has reproduced a known HMAC, since a Bun too old to take a key would
 *   silently hash without one.
 * - node:crypto, where the runtime has it (Node.js >= 20.16 / 22.3, Bun, Deno 2, workerd with
 *   nodejs_compat). It is looked up when called, through `process.getBuiltinModule`, never imported,
 *   so the package loads unchanged where there is no `node:` at all.
 * - Web Crypto (`crypto.subtle`), asynchronous, on every runtime.
 * - plain JavaScript (./sha256.ts), synchronous, where none of the others can serve.
 *
 * Each is looked up at call time (a property read), so a test can take one away. A signer is made
 * once per body: the body is encoded (if need be) once, whatever number of secrets it is then signed
 * with.
 */

type Hmac = { update(data: string | Uint8Array): Hmac; digest(): Uint8Array }
type NodeCrypto = { createHmac(algorithm: 'sha256', key: HmacKey): Hmac }
type BunHasher = new (algorithm: 'sha256', key: HmacKey) => Hmac
type Runtime = { process?: { getBuiltinModule?: (id: string) => unknown }; Bun?: { CryptoHasher?: unknown } }

const encoder = new TextEncoder()

/** node:crypto if this runtime hands it out synchronously, else undefined. */
export function nodeCrypto(): NodeCrypto | undefined {
  try {
    const m = (globalThis as Runtime).process?.getBuiltinModule?.('node:crypto') as NodeCrypto | undefined
    return typeof m?.createHmac === 'function' ? m : undefined
  } catch {
    return undefined
  }
}

let vetted: unknown
let vettedOk = false

/** Bun.CryptoHasher, if present and it computes HMAC-SHA256 (checked once against a known answer). */
function bunHasher(): BunHasher | undefined {
  const H = (globalThis as Runtime).Bun?.CryptoHasher
  if (typeof H !== 'function') return undefined
  if (H !== vetted) {
    vetted = H
    try {
      const mac = new (H as BunHasher)('sha256', 'key').update('The quick brown fox ').update(encoder.encode('jumps over the lazy dog')).digest()
      vettedOk = toHex(mac) === 'f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8'
    } catch {
      vettedOk = false
    }
  }
  return vettedOk ? (H as BunHasher) : undefined
}

/** An HMAC key: a secret string (its UTF-8 bytes, the X-Service scheme) or key bytes (the Standard Webhooks scheme). */
export type HmacKey = string | Uint8Array
export type SyncSigner = (secret: HmacKey) => Uint8Array
export type AsyncSigner = (secret: HmacKey) => Promise<Uint8Array>

/** HMACs of `prefix + body` by the runtime's native code on this thread (Bun, node:crypto), if it has any. */
export function nativeSigner(prefix: string, body: string | Uint8Array): SyncSigner | undefined {
  const H = bunHasher()
  if (H) return (secret) => new H('sha256', secret).update(prefix).update(body).digest()
  const node = nodeCrypto()
  if (node) return (secret) => node.createHmac('sha256', secret).update(prefix).update(body).digest()
  return undefined
}

/** HMACs of `prefix + body` in plain JavaScript. */
export function jsSigner(prefix: string, body: string | Uint8Array): SyncSigner {
  const parts = [encoder.encode(prefix), typeof body === 'string' ? encoder.encode(body) : body]
  return (secret) => hmacSha256(typeof secret === 'string' ? encoder.encode(secret) : secret, parts)
}

/** HMACs of `prefix + body` computed on this thread: native where present, else plain JavaScript. */
export function syncSigner(prefix: string, body: string | Uint8Array): SyncSigner {
  return nativeSigner(prefix, body) ?? jsSigner(prefix, body)
}

/** HMACs of `prefix + body` by Web Crypto, which needs the message as one buffer. */
export function subtleSigner(prefix: string, body: string | Uint8Array): AsyncSigner {
  const subtle = globalThis.crypto?.subtle
  if (!subtle) {
    const sign = jsSigner(prefix, body)
    return async (secret) => sign(secret)
  }
  let message: Uint8Array<ArrayBuffer>
  if (typeof body === 'string') message = encoder.encode(prefix + body)
  else {
    const head = encoder.encode(prefix)
    message = new Uint8Array(head.length + body.length)
    message.set(head)
    message.set(body, head.length)
  }
  return async (secret) => new Uint8Array(await subtle.sign('HMAC', await subtleKey(subtle, secret), message))
}

// Importing a key costs about as much as signing a small body: keep the few a receiver uses.
const keys = new Map<string, Promise<CryptoKey>>()
const MAX_KEYS = 16

function subtleKey(subtle: SubtleCrypto, secret: HmacKey): Promise<CryptoKey> {
  const id = typeof secret === 'string' ? `s:${secret}` : `b:${toHex(secret)}`
  let key = keys.get(id)
  if (!key) {
    if (keys.size >= MAX_KEYS) keys.clear()
    const bytes = typeof secret === 'string' ? encoder.encode(secret) : new Uint8Array(secret)
    key = subtle.importKey('raw', bytes, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign'])
    keys.set(id, key)
    key.catch(() => keys.delete(id))
  }
  return key
}

/**
 * Whether two byte strings are equal, in time that depends only on their lengths (which are public:
 * a SHA-256 is always 32 bytes): every byte is compared, with no exit on the first difference.
 */
export function timingSafeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false
  let diff = 0
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!
  return diff === 0
}

/** The bytes a hex string spells (either case), or undefined if it is not an even run of hex digits. */
export function fromHex(hex: string): Uint8Array | undefined {
  if (hex.length % 2 !== 0) return undefined
  const out = new Uint8Array(hex.length / 2)
  let bad = 0
  for (let i = 0; i < out.length; i++) {
    const hi = hexDigit(hex.charCodeAt(2 * i))
    const lo = hexDigit(hex.charCodeAt(2 * i + 1))
    bad |= hi | lo
    out[i] = (hi << 4) | lo
  }
  return bad < 0 ? undefined : out
}

function hexDigit(c: number): number {
  if (c >= 48 && c <= 57) return c - 48
  if (c >= 97 && c <= 102) return c - 87
  if (c >= 65 && c <= 70) return c - 55
  return -1
}

/** Lowercase hex of bytes. */
export function toHex(bytes: Uint8Array): string {
  let s = ''
  for (let i = 0; i < bytes.length; i++) s += HEX[bytes[i]!]
  return s
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'))
