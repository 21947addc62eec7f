// The client's options as a user's program meets them: GROWTH_TOKEN and GROWTH_BASE_URL when no
// options are given, the defaults, options it refuses, and the headers it sends. Prints one JSON
// object for test/sdk/package.test.ts. Input: the environment (GROWTH_TOKEN, GROWTH_BASE_URL and
// SCENARIO with a token and base URL for the header checks, all optional).
import { DEFAULT_BASE_URL, Growth, GrowthError } from '@growth-service/sdk'

const env = (name) => (globalThis.Deno ? globalThis.Deno.env.get(name) : globalThis.process.env[name])
const S = env('SCENARIO') ? JSON.parse(env('SCENARIO')) : undefined

/** What constructing a client gave: its settings, or the error it threw. */
function construct(make) {
  try {
    const g = make()
    return { ok: true, baseUrl: g.baseUrl, maxRetries: g.maxRetries, timeout: g.timeout }
  } catch (e) {
    return { ok: false, name: e?.name, isGrowthError: e instanceof GrowthError, status: e?.status, message: e?.message }
  }
}

const out = {
  environment: { GROWTH_TOKEN: env('GROWTH_TOKEN') !== undefined, GROWTH_BASE_URL: env('GROWTH_BASE_URL') ?? null },
  DEFAULT_BASE_URL,
  noOptions: construct(() => new Growth()),
  tokenOnly: construct(() => new Growth({ token: 'svc_live_abc' })),
  trailingSlash: construct(() => new Growth({ token: 'svc_live_abc', baseUrl: 'http://127.0.0.1:4000/api/v1/' })),
  invalid: {
    maxRetriesNegative: construct(() => new Growth({ token: 'svc_live_abc', maxRetries: -1 })),
    maxRetriesFraction: construct(() => new Growth({ token: 'svc_live_abc', maxRetries: 1.5 })),
    baseUrlFtp: construct(() => new Growth({ token: 'svc_live_abc', baseUrl: 'ftp://x' })),
    baseUrlRelative: construct(() => new Growth({ token: 'svc_live_abc', baseUrl: '/api/v1' })),
    timeoutZero: construct(() => new Growth({ token: 'svc_live_abc', timeout: 0 })),
    emptyToken: construct(() => new Growth({ token: '' })),
  },
}

// With GROWTH_TOKEN and GROWTH_BASE_URL set, a client made with no options calls the API with them.
if (out.noOptions.ok && out.environment.GROWTH_BASE_URL) {
  const growth = new Growth()
  const answer = await growth.missions.list().withResponse()
  out.fromEnvironment = { status: answer.response.status, ids: answer.data.data.map((m) => m.id) }
  // An option given beats the environment: here a token that names no one.
  try {
    await new Growth({ token: 'svc_live_notavalidtoken' }).missions.list()
    out.optionBeatsEnvironment = 'resolved'
  } catch (e) {
    out.optionBeatsEnvironment = { name: e.name, status: e.status }
  }
}

// Headers: what the client hands to fetch on each call (the SDK's own `fetch` option, passing
// every call on to the runtime's fetch), and what the server made of it.
if (S) {
  const sent = []
  const recording = (input, init) => {
    sent.push({ url: String(input), method: init?.method, headers: Object.fromEntries(new Headers(init?.headers)) })
    return fetch(input, init)
  }
  const growth = new Growth({ token: S.token, baseUrl: S.baseUrl, fetch: recording, defaultHeaders: { 'X-Client-Name': 'sdk-test', 'X-Both': 'default' } })
  const status = async (fn) => {
    try {
      return (await fn().withResponse()).response.status
    } catch (e) {
      return { name: e.name, status: e.status, message: e.message }
    }
  }
  out.headers = {
    statuses: [
      await status(() => growth.missions.list({ limit: 1 }, { headers: { 'X-Call': 'one', 'x-both': 'call' } })),
      await status(() => growth.missions.list({ limit: 1 })),
      // The client's token is what authenticates, whatever a caller's header says.
      await status(() => growth.missions.list({ limit: 1 }, { headers: { Authorization: 'Bearer svc_live_notmine' } })),
      await status(() => growth.missions.list({ limit: 1 }, { headers: { authorization: 'Bearer svc_live_notmine' } })),
      // A write: its Idempotency-Key is the caller's when given as the option, its body JSON whatever a header says.
      await status(() =>
        growth.track({ event: 'sdk.header_check', email: S.contactEmail }, { idempotencyKey: `header-check-${crypto.randomUUID()}`, headers: { 'content-type': 'text/plain' } }),
      ),
    ],
    sent: sent.slice(),
  }
  // Per call: refused options reject before anything is sent; an Idempotency-Key given as the
  // call's header is the caller's own key (one in defaultHeaders is not: every write would share it).
  const before = sent.length
  const headerKey = `header-key-${crypto.randomUUID()}`
  const keyed = new Growth({ token: S.token, baseUrl: S.baseUrl, fetch: recording, defaultHeaders: { 'Idempotency-Key': 'one-for-all' } })
  out.perCall = {
    timeoutZero: await status(() => growth.missions.list({}, { timeout: 0 })),
    maxRetriesNegative: await status(() => growth.missions.list({}, { maxRetries: -1 })),
    sentForRefused: sent.length - before,
    headerKey,
    writes: [
      await status(() => keyed.track({ event: 'sdk.header_key', email: S.contactEmail }, { headers: { 'idempotency-key': headerKey } })),
      await status(() => keyed.track({ event: 'sdk.header_key', email: S.contactEmail })),
    ],
    keysSent: sent.slice(before).map((s) => s.headers['idempotency-key']),
  }
}

console.log(JSON.stringify(out))
