import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'

/**
 * CSRF tokens. Every POST of the console carries one in the hidden field `csrf`: the session's own
 * once signed in, and before that (the sign-in forms) a random one also set in a short-lived
 * cookie (double submit), so no other site can sign a browser in as someone else.
 */

/** The cookie holding the sign-in forms' token before there is a session. */
export const SIGNIN_COOKIE = 'growth_signin'

/** A fresh random token for the sign-in forms. */
export function newFormToken(): string {
  return randomBytes(32).toString('base64url')
}

/** Whether `given` is `expected`, compared in constant time (whatever their lengths); a missing or empty token never matches. */
export function sameToken(given: string | null | undefined, expected: string | null | undefined): boolean {
  if (!given || !expected) return false
  const a = createHash('sha256').update(given).digest()
  const b = createHash('sha256').update(expected).digest()
  return timingSafeEqual(a, b)
}
