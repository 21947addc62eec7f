import type { RateLimit, WithResponse } from './api-promise.ts'
import { ConnectionError, errorFromAnswer, type GrowthError, retryAfterSeconds, TimeoutError } from './errors.ts'
import { oneLine } from './one-line.ts'
import { checkedMaxRetries, checkedTimeout, type RequestOptions } from './request-options.ts'
import { callSpan } from './trace-context.ts'

/**
 * One call over HTTP with plain fetch: the attempt, its time-out, and retries. Plain fetch rather
 * than ofetch: ofetch drops its `timeout` when a `signal` is given (both are per-call options here),
 * its wait between retries cannot be cut short by the caller's signal, and it cannot tell a time-out
 * from a dropped connection in what it throws; wrapping it would leave it only the JSON parsing.
 */

/** A fetch function: the runtime's, or any with its signature. */
export type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>

/** The client's settings a call uses. */
export type TransportSettings = {
  baseUrl: string
  token: string
  maxRetries: number
  timeout: number
  fetch: Fetch
  defaultHeaders: Record<string, string>
}

export type CallInput = {
  method: 'GET' | 'POST'
  path: string
  query?: Record<string, unknown>
  body?: unknown
}

/** The answer's parts a caller of `call` needs: the JSON body and what came with it. */
export type Answer = Omit<WithResponse<unknown>, 'data'> & { body: unknown }

/** Statuses worth trying again: a time-out, a conflict that passes (the same key in flight), the rate limit, the server's failures. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500
}

/** The longest Retry-After the SDK waits out by itself; a longer one is the caller's to decide (RateLimitError.retryAfter). */
export const MAX_RETRY_AFTER_SECONDS = 60
const INITIAL_BACKOFF_MS = 500
const MAX_BACKOFF_MS = 8000
/** The longest delay setTimeout keeps: a longer one (Infinity too) fires at once in Node.js, Bun and Deno, so a longer time-out is none. */
const MAX_TIMER_MS = 2 ** 31 - 1

/**
 * How long to wait before retry number `retry` (0 for the first): exponential from 0.5 s, capped at
 * 8 s, less up to a quarter at random so that many clients do not retry in step; never less than
 * Retry-After. null: the server asked for a wait longer than the SDK takes on itself.
 */
export function retryDelayMs(retry: number, headers: Record<string, string> | undefined, random = Math.random()): number | null {
  const backoff = Math.min(INITIAL_BACKOFF_MS * 2 ** retry, MAX_BACKOFF_MS) * (1 - 0.25 * random)
  const after = headers ? retryAfterSeconds(headers) : undefined
  if (after === undefined) return backoff
  if (after > MAX_RETRY_AFTER_SECONDS) return null
  return Math.max(after * 1000, backoff)
}

export function newIdempotencyKey(): string {
  return `sdk-${crypto.randomUUID()}`
}

export async function call(settings: TransportSettings, input: CallInput, options: RequestOptions = {}): Promise<Answer> {
  const maxRetries = options.maxRetries === undefined ? settings.maxRetries : checkedMaxRetries(options.maxRetries)
  const timeout = options.timeout === undefined ? settings.timeout : checkedTimeout(options.timeout)
  const url = urlOf(settings.baseUrl, input.path, input.query)
  // Header names compared without regard to case, as HTTP has them: a call's header replaces a
  // default of the same name, and neither can add a second Authorization (fetch would join the two
  // values with a comma, and the token would no longer authenticate).
  const headers: Record<string, string> = { accept: 'application/json' }
  for (const [name, value] of Object.entries({ ...settings.defaultHeaders, ...options.headers })) headers[name.toLowerCase()] = value
  headers.authorization = `Bearer ${settings.token}`
  let body: string | undefined
  if (input.method === 'POST') {
    body = JSON.stringify(input.body ?? {})
    headers['content-type'] = 'application/json'
    // One key for the call, sent on every attempt: a retry of a write that was done is answered
    // with the first answer (Idempotent-Replayed), never done twice.
    // A key given as this call's header counts as the caller's own, like idempotencyKey (one in
    // defaultHeaders does not: it would make every write of the client one write).
    const ownHeader = Object.entries(options.headers ?? {}).find(([name]) => name.toLowerCase() === 'idempotency-key')?.[1]
    headers['idempotency-key'] = options.idempotencyKey ?? ownHeader ?? newIdempotencyKey()
  }

  // In the caller's trace, when it has one (trace-context.ts): one client span for the call, its retries included.
  const span = callSpan(input.method, input.path, url)
  if (span) headers.traceparent = span.traceparent
  let status: number | undefined
  try {
    return await attempts()
  } finally {
    span?.end(status)
  }

  async function attempts(): Promise<Answer> {
    for (let attempt = 0; ; attempt++) {
      throwIfAborted(options.signal)
      const outcome = await attemptOnce(settings.fetch, url, { method: input.method, headers, body }, timeout, options.signal)
      if ('failure' in outcome) {
        // No answer: the caller's abort ends the call; a time-out or a dropped connection is retried.
        throwIfAborted(options.signal)
        const fields = { cause: outcome.failure, idempotencyKey: headers['idempotency-key'] }
        const error = outcome.timedOut
          ? new TimeoutError(`No answer from ${input.method} ${url} within ${timeout} ms.`, fields)
          : new ConnectionError(`No answer from ${input.method} ${url}: ${sentence(describe(outcome.failure))}`, fields)
        if (attempt >= maxRetries) throw error
        await sleep(retryDelayMs(attempt, undefined) ?? 0, options.signal)
        continue
      }
      const { response, text } = outcome
      status = response.status
      const parsed = parseJson(text)
      if (response.ok) {
        // A success reads only the headers it reports: copying them all was a quarter of the SDK's
        // own time per call (test/bench/sdk.ts).
        const header = (name: string) => response.headers.get(name) ?? undefined
        return {
          body: parsed,
          response,
          requestId: header('x-request-id'),
          rateLimit: rateLimitOf(header),
          replayed: header('idempotent-replayed') === 'true',
        }
      }
      const answerHeaders = headersOf(response.headers)
      const error: GrowthError = errorFromAnswer(response.status, parsed, text, answerHeaders, `${input.method} ${url}`, headers['idempotency-key'])
      if (attempt < maxRetries && isRetryableStatus(response.status)) {
        const wait = retryDelayMs(attempt, answerHeaders)
        if (wait !== null) {
          await sleep(wait, options.signal)
          continue
        }
      }
      throw error
    }
  }
}

type Outcome = { response: Response; text: string } | { failure: unknown; timedOut: boolean }

/** One attempt, its answer read in full, within the time-out and the caller's signal. */
async function attemptOnce(fetcher: Fetch, url: string, init: RequestInit, timeout: number, callerSignal: AbortSignal | undefined): Promise<Outcome> {
  const controller = new AbortController()
  let timedOut = false
  const timer =
    timeout <= MAX_TIMER_MS
      ? setTimeout(() => {
          timedOut = true
          controller.abort(new DOMException(`No answer within ${timeout} ms`, 'TimeoutError'))
        }, timeout)
      : undefined
  const onAbort = () => controller.abort(callerSignal?.reason)
  callerSignal?.addEventListener('abort', onAbort, { once: true })
  try {
    const response = await fetcher(url, { ...init, signal: controller.signal })
    const text = await response.text()
    return { response, text }
  } catch (failure) {
    return { failure, timedOut }
  } finally {
    clearTimeout(timer)
    callerSignal?.removeEventListener('abort', onAbort)
  }
}

function urlOf(baseUrl: string, path: string, query: Record<string, unknown> | undefined): string {
  let url = `${baseUrl}${path}`
  if (query) {
    const params = new URLSearchParams()
    for (const [key, value] of Object.entries(query)) {
      if (value === undefined || value === null) continue
      params.append(key, value instanceof Date ? value.toISOString() : String(value))
    }
    const text = params.toString()
    if (text) url += `?${text}`
  }
  return url
}

function headersOf(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {}
  headers.forEach((value, key) => {
    out[key.toLowerCase()] = value
  })
  return out
}

function parseJson(text: string): unknown {
  if (!text) return undefined
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

function rateLimitOf(header: (name: string) => string | undefined): RateLimit | undefined {
  const limit = Number(header('x-ratelimit-limit'))
  const remaining = Number(header('x-ratelimit-remaining'))
  const reset = Number(header('x-ratelimit-reset'))
  if (![limit, remaining, reset].every((n) => Number.isFinite(n)) || header('x-ratelimit-limit') === undefined) return undefined
  return { limit, remaining, resetAt: new Date(reset * 1000) }
}

/** Ends the text with a full stop, unless it already ends a sentence ("... access the url?" stays as it is). */
function sentence(text: string): string {
  return /[.?!]$/.test(text) ? text : `${text}.`
}

/** The runtime's words for a failed fetch, in one line (OpenSSL's end in a line break, under Node.js). */
function describe(failure: unknown): string {
  if (failure instanceof Error) {
    const cause = (failure as { cause?: unknown }).cause
    const detail = oneLine(cause instanceof Error ? cause.message : typeof (cause as { code?: unknown })?.code === 'string' ? (cause as { code: string }).code : '')
    const message = oneLine(failure.message)
    return detail && !message.includes(detail) ? `${message} (${detail})` : message
  }
  return oneLine(String(failure))
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw signal.reason ?? new DOMException('The call was aborted', 'AbortError')
}

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason)
    const done = () => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }
    const timer = setTimeout(done, ms)
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal?.reason)
    }
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}
