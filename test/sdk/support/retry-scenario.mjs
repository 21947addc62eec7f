// Runs SDK calls from the installed package, the way a user's program would, and prints one JSON line:
// the outcome of each step. Plain ESM for Node.js, Bun and Deno. Settings from the environment:
//   BASE_URL  the API's base URL (the fault proxy's, /api/v1 included)
//   TOKEN     the token of every step that does not name its own
//   STEPS     JSON: [{ call: 'usage.get' | 'contacts.import' | 'track' | ..., arg?, options?, client?,
//             token?, baseUrl?, abort?: { afterMs, reason?, from? }, countFetch?, keyFromErrorOf? }]
// Each step's calls carry an X-Test-Step header (its index), so the proxy can tell the steps apart.
// abort.from says when its afterMs starts: 'start' (the default: when the call is made; 0 aborts
// before it), 'fetch' (when the SDK first calls fetch) or 'answer' (when its first answer came).
// countFetch (or an abort from 'fetch' or 'answer') passes the client a fetch that counts its calls.
// keyFromErrorOf: n sends the step with the idempotencyKey that step n's error carried.
import * as sdk from '@growth-service/sdk'

const env = (name) => (globalThis.Deno ? globalThis.Deno.env.get(name) : globalThis.process.env[name])
const ERRORS = [
  'GrowthError', 'ConnectionError', 'TimeoutError', 'RateLimitError', 'InternalServerError', 'ConflictError', 'BadRequestError',
  'AuthenticationError', 'PermissionDeniedError', 'NotFoundError', 'IdempotencyKeyReusedError', 'PlanRequiredError',
]

async function run(step, index, results) {
  const client = { token: step.token ?? env('TOKEN'), baseUrl: step.baseUrl ?? env('BASE_URL'), ...step.client }
  const options = { ...step.options, headers: { ...step.options?.headers, 'X-Test-Step': String(index) } }
  if (step.keyFromErrorOf !== undefined) options.idempotencyKey = results[step.keyFromErrorOf].error?.idempotencyKey
  // JSON has no Infinity: the string stands for it.
  for (const settings of [client, options]) if (settings.timeout === 'Infinity') settings.timeout = Infinity

  const controller = new AbortController()
  let abortedAt
  const abort = () => {
    abortedAt = performance.now()
    if (step.abort.reason === undefined) controller.abort()
    else controller.abort(new Error(step.abort.reason))
  }
  const abortFrom = (from) => {
    if (step.abort?.from === from || (from === 'start' && step.abort && step.abort.from === undefined)) {
      if (from === 'start' && step.abort.afterMs === 0) abort()
      else setTimeout(abort, step.abort.afterMs)
    }
  }
  if (step.abort) options.signal = controller.signal

  let fetchCalls = 0
  if (step.countFetch || step.abort?.from === 'fetch' || step.abort?.from === 'answer') {
    client.fetch = async (input, init) => {
      if (++fetchCalls === 1) abortFrom('fetch')
      const response = await globalThis.fetch(input, init)
      if (fetchCalls === 1) abortFrom('answer')
      return response
    }
  }
  const growth = new sdk.Growth(client)
  abortFrom('start')
  const [group, name] = step.call.split('.')
  const method = name === undefined ? growth[group] : growth[group][name]
  const started = performance.now()
  try {
    const answer = await method(step.arg, options).withResponse()
    return {
      ok: true,
      data: answer.data,
      replayed: answer.replayed,
      requestId: answer.requestId,
      status: answer.response.status,
      elapsedMs: performance.now() - started,
      fetchCalls,
    }
  } catch (error) {
    const settled = performance.now()
    return {
      ok: false,
      elapsedMs: settled - started,
      sinceAbortMs: abortedAt === undefined ? undefined : settled - abortedAt,
      fetchCalls,
      error: {
        name: error?.name,
        message: error?.message,
        status: error?.status,
        code: error?.code,
        requestId: error?.requestId,
        idempotencyKey: error?.idempotencyKey,
        retryAfter: error?.retryAfter,
        classes: ERRORS.filter((n) => error instanceof sdk[n]),
        isAbortReason: options.signal !== undefined && error === controller.signal.reason,
      },
    }
  }
}

const steps = JSON.parse(env('STEPS'))
const results = []
for (const [index, step] of steps.entries()) results.push(await run(step, index, results))
console.log(JSON.stringify(results))
