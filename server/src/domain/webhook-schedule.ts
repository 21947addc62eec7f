/**
 * When a failed delivery goes again (CONTRACT: Events and webhooks): after attempt n fails it waits
 * schedule[n-1] and up to 20% more (jitter spreads the retries of many deliveries), and never less
 * than a Retry-After the endpoint sent with a 429 or 503. When the schedule has run out, the delivery
 * has failed for good (null).
 */
export function nextAttemptAt(o: { attempt: number; schedule: number[]; now: number; retryAfterMs?: number; random?: () => number }): Date | null {
  const wait = o.schedule[o.attempt - 1]
  if (wait === undefined) return null
  const jittered = wait * (1 + 0.2 * (o.random ?? Math.random)())
  return new Date(o.now + Math.max(jittered, o.retryAfterMs ?? 0))
}

/** A Retry-After header (seconds, or an HTTP date) in ms from now; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null | undefined, now = Date.now()): number | undefined {
  if (!header) return undefined
  const trimmed = header.trim()
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000
  // An HTTP date (RFC 9110 IMF-fixdate), e.g. Sun, 06 Nov 1994 08:49:37 GMT; nothing looser.
  if (!/^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/.test(trimmed)) return undefined
  const at = Date.parse(trimmed)
  return Number.isNaN(at) ? undefined : Math.max(0, at - now)
}
