import { createHmac, randomBytes } from 'node:crypto'

/**
 * Webhook signatures (CONTRACT: Events and webhooks): `X-Service-Signature: t=<unix seconds>,v1=<hex>`,
 * `<hex>` the lowercase hex HMAC-SHA256 keyed with the endpoint secret string (the UTF-8 bytes of the
 * whole `whsec_...`) over `<t>.<raw body>`; one `v1=` per live secret, newest first. The same scheme
 * as Stripe's, so stripe-node's webhooks.constructEvent accepts our deliveries as they are.
 */

/** A new endpoint secret: `whsec_` and the base64url of 32 random bytes. */
export const newSecret = () => `whsec_${randomBytes(32).toString('base64url')}`

export function signatureHeader(body: string, secrets: string[], timestamp: number): string {
  const signed = `${timestamp}.${body}`
  return [`t=${timestamp}`, ...secrets.map((s) => `v1=${createHmac('sha256', s).update(signed).digest('hex')}`)].join(',')
}
