import { createHmac, randomBytes } from 'node:crypto'

/**
 * Webhook signatures, two schemes on every delivery, each with one signature per live secret
 * (newest first) while a secret is rotated:
 *
 * - `X-Service-Signature: t=<unix seconds>,v1=<hex>` (CONTRACT: Events and webhooks): the lowercase
 *   hex HMAC-SHA256 keyed with the endpoint secret string (the UTF-8 bytes of the whole `whsec_...`)
 *   over `<t>.<raw body>`. The same scheme as Stripe's, so stripe-node's webhooks.constructEvent
 *   accepts our deliveries as they are.
 * - Standard Webhooks (CONTRACT: Standard Webhooks): `webhook-id`, `webhook-timestamp` and
 *   `webhook-signature: v1,<base64>[ v1,<base64>...]`, the base64 HMAC-SHA256 over
 *   `<id>.<timestamp>.<raw body>` keyed, as the spec keys it, with the bytes the secret's part after
 *   `whsec_` spells in base64. So the `standardwebhooks` libraries verify with the secret as printed.
 */

/**
 * A new endpoint secret: `whsec_` and the standard base64 of 32 random bytes (44 characters, one
 * `=` of padding), which is what the Standard Webhooks libraries decode. Secrets made before this
 * were base64url (no padding): they still sign both schemes, see standardKey.
 */
export const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`

export function signatureHeader(body: string, secrets: string[], timestamp: number): string {
  const signed = `${timestamp}.${body}`
  return [`t=${timestamp}`, ...secrets.map((s) => `v1=${createHmac('sha256', s).update(signed).digest('hex')}`)].join(',')
}

/**
 * The key the Standard Webhooks scheme signs with: the bytes of the secret after `whsec_`, read as
 * base64 in either alphabet (a secret made before the switch to standard base64 is base64url, and
 * still decodes to its 32 random bytes).
 */
export function standardKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64')
}

/** The Standard Webhooks headers of a delivery: the event id, the time, one `v1,` signature per secret. */
export function standardHeaders(id: string, body: string, secrets: string[], timestamp: number) {
  const signed = `${id}.${timestamp}.${body}`
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets.map((s) => `v1,${createHmac('sha256', standardKey(s)).update(signed).digest('base64')}`).join(' '),
  }
}
