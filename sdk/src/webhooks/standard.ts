/**
 * The Standard Webhooks scheme (https://www.standardwebhooks.com), which every delivery carries
 * beside X-Service-Signature: `webhook-id`, `webhook-timestamp` (unix seconds) and
 * `webhook-signature: v1,<base64> [v1,<base64> ...]`, each the HMAC-SHA256 of
 * `<webhook-id>.<webhook-timestamp>.<raw body>` keyed with the bytes the secret's part after
 * `whsec_` spells in base64. Pure functions over strings and bytes: no `node:` import.
 */

/** Request headers as frameworks hand them over: fetch's Headers, or node:http's plain object. */
export type WebhookHeaders = { get(name: string): string | null } | Readonly<Record<string, string | readonly string[] | undefined>>

/** A header's value, whatever the container and the case of its name ('' when absent). */
export function headerOf(headers: WebhookHeaders, name: string): string {
  if (typeof (headers as { get?: unknown }).get === 'function') return (headers as { get(n: string): string | null }).get(name) ?? ''
  const record = headers as Readonly<Record<string, string | readonly string[] | undefined>>
  const lower = name.toLowerCase()
  for (const key of Object.keys(record)) {
    if (key.toLowerCase() !== lower) continue
    const v = record[key]
    return typeof v === 'string' ? v : Array.isArray(v) ? v.join(' ') : ''
  }
  return ''
}

/** The bytes of base64 in either alphabet (standard or url-safe), padded or not; undefined if it is not base64. */
export function fromBase64(text: string): Uint8Array | undefined {
  const standard = text.replace(/-/g, '+').replace(/_/g, '/').replace(/=+$/, '')
  if (!/^[A-Za-z0-9+/]*$/.test(standard) || standard.length % 4 === 1) return undefined
  const binary = atob(standard + '='.repeat((4 - (standard.length % 4)) % 4))
  const out = new Uint8Array(binary.length)
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i)
  return out
}

/** Standard base64 (with padding) of bytes. */
export function toBase64(bytes: Uint8Array): string {
  let binary = ''
  for (let i = 0; i < bytes.length; i++) binary += String.fromCharCode(bytes[i]!)
  return btoa(binary)
}

/**
 * The key a secret stands for in this scheme: the bytes after `whsec_`, read as base64. A secret
 * made before the service switched to standard base64 is base64url and decodes to its bytes too.
 * Undefined for a secret that is not base64 at all (it then matches nothing).
 */
export function standardKey(secret: string): Uint8Array | undefined {
  const key = fromBase64(secret.startsWith('whsec_') ? secret.slice(6) : secret)
  return key && key.length > 0 ? key : undefined
}

export type StandardParsed = { prefix: string; timestamp: number; signatures: Uint8Array[] }

export type StandardProblem = { reason: 'missing_header' | 'malformed_header'; message: string }

/** webhook-id, webhook-timestamp and at least one `v1,<base64 of 32 bytes>`; other versions are ignored. */
export function parseStandard(headers: WebhookHeaders): StandardParsed | StandardProblem {
  const id = headerOf(headers, 'webhook-id').trim()
  const t = headerOf(headers, 'webhook-timestamp').trim()
  const signature = headerOf(headers, 'webhook-signature').trim()
  const missing = [!id && 'webhook-id', !t && 'webhook-timestamp', !signature && 'webhook-signature'].filter(Boolean)
  if (missing.length > 0) return { reason: 'missing_header', message: `No ${missing.join(' or ')} header: a Standard Webhooks delivery carries webhook-id, webhook-timestamp and webhook-signature.` }
  if (!/^\d{1,15}$/.test(t)) return { reason: 'malformed_header', message: `webhook-timestamp is not unix seconds: ${t.slice(0, 20)}` }
  const signatures: Uint8Array[] = []
  for (const item of signature.split(' ')) {
    const comma = item.indexOf(',')
    if (comma <= 0 || item.slice(0, comma) !== 'v1') continue
    const bytes = fromBase64(item.slice(comma + 1))
    if (!bytes || bytes.length !== 32) return { reason: 'malformed_header', message: 'webhook-signature is not v1,<base64 of an HMAC-SHA256>: a v1 value is not 32 bytes of base64' }
    signatures.push(bytes)
  }
  if (signatures.length === 0) return { reason: 'malformed_header', message: 'webhook-signature has no v1,<base64> signature' }
  return { prefix: `${id}.${t}.`, timestamp: Number(t), signatures }
}
