// A fresh workspace token's hourly allowance of calls, spent in concurrent batches with retries
// off, then one call past it: RateLimitError with retryAfter. Prints one JSON object for
// test/sdk/package.test.ts. Input: SCENARIO (JSON): baseUrl, token, limit (the calls per hour).
import { Growth, GrowthError, RateLimitError } from '@growth-service/sdk'

const env = (name) => (globalThis.Deno ? globalThis.Deno.env.get(name) : globalThis.process.env[name])
const S = JSON.parse(env('SCENARIO'))
const growth = new Growth({ token: S.token, baseUrl: S.baseUrl, maxRetries: 0 })
const BATCH = 50

const describeError = (e) => ({
  name: e?.name,
  isGrowthError: e instanceof GrowthError,
  isRateLimitError: e instanceof RateLimitError,
  status: e?.status,
  code: e?.code,
  message: e?.message,
  requestId: e?.requestId,
  headerRequestId: e?.headers?.['x-request-id'],
  retryAfter: e?.retryAfter,
  retryAfterHeader: e?.headers?.['retry-after'],
  resetHeader: e?.headers?.['x-ratelimit-reset'],
  remainingHeader: e?.headers?.['x-ratelimit-remaining'],
})

const remaining = []
const refusals = []
for (let sent = 0; sent < S.limit; sent += BATCH) {
  const size = Math.min(BATCH, S.limit - sent)
  const answers = await Promise.allSettled(Array.from({ length: size }, () => growth.agents.rules({ limit: 1 }).withResponse()))
  for (const a of answers) {
    if (a.status === 'fulfilled') remaining.push(a.value.rateLimit.remaining)
    else refusals.push(describeError(a.reason))
  }
}

const past = async (client) => {
  try {
    await client.agents.rules({ limit: 1 })
    return 'resolved'
  } catch (e) {
    return describeError(e)
  }
}

console.log(
  JSON.stringify({
    remaining: remaining.sort((a, b) => a - b),
    refusals,
    past: await past(growth),
    // With retries on, a Retry-After longer than the SDK waits by itself is the caller's to act on.
    pastWithRetries: await past(new Growth({ token: S.token, baseUrl: S.baseUrl })),
  }),
)
