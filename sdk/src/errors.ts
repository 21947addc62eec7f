/**
 * Errors by status, as openai-node and stripe-node have them: catch the class you can act on
 * (`NotFoundError`, `RateLimitError`), or `GrowthError` for all. Each carries the API's `code`, its
 * message (which names what was wrong) and the `requestId` to trace it. A status's class types its
 * `code` as what that status always carries (`NotFoundError.code` is `'not_found'`); an answer with
 * no error envelope gets its status's code, and one with a code its status never carries is a plain
 * `GrowthError`.
 */

import { clip, oneLine } from './one-line.ts'

/** The refusal envelope's codes (the spec's error table). */
export type ErrorCode =
  | 'invalid_parameter'
  | 'invalid_body'
  | 'invalid_request'
  | 'unauthorized'
  | 'plan_required'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'idempotency_key_reused'
  | 'rate_limited'
  | 'internal'

type Fields = {
  status?: number
  code?: string
  requestId?: string
  headers?: Record<string, string>
  idempotencyKey?: string | undefined
  cause?: unknown
}

/** Anything the SDK throws about a call: a refusal (with status and code), or no answer at all. */
export class GrowthError extends Error {
  /** The HTTP status; undefined when no answer came (ConnectionError, TimeoutError). */
  readonly status: number | undefined
  /** The envelope's `error.code` (`not_found`, `rate_limited`, ...); undefined when no answer came. */
  readonly code: ErrorCode | (string & {}) | undefined
  /** The id of the request (`X-Request-Id`, also `error.requestId`), to find it in the service's logs. */
  readonly requestId: string | undefined
  /** The answer's headers, names in lower case. */
  readonly headers: Record<string, string>
  /**
   * The Idempotency-Key the write was sent with, on every attempt: the caller's, or the one the SDK
   * made for the call. After a ConnectionError, TimeoutError or 5xx the write may have been done;
   * calling again with `{ idempotencyKey: error.idempotencyKey }` gets its first answer if it was,
   * or does it once if it was not. Undefined for a GET.
   */
  readonly idempotencyKey: string | undefined
  /**
   * The codes an error of this class carries (its status's, from the spec's error table); a code
   * outside them is replaced by the first. Empty: any code, or none.
   */
  protected static readonly codes: readonly string[] = []

  /**
   * The class's name, written out in each class rather than read from the class: a minifier (a
   * worker's or a page's production build) renames classes, and a log line would read `M: ...`.
   */
  override name: string = 'GrowthError'

  constructor(message: string, fields: Fields = {}) {
    super(message, fields.cause === undefined ? undefined : { cause: fields.cause })
    this.status = fields.status
    const { codes } = new.target as unknown as { codes: readonly string[] }
    this.code = codes.length === 0 || (fields.code !== undefined && codes.includes(fields.code)) ? fields.code : codes[0]
    this.requestId = fields.requestId
    this.headers = fields.headers ?? {}
    this.idempotencyKey = fields.idempotencyKey
  }
}

/**
 * The codes each refusal status carries (the spec's error table); the first is the one given to an
 * answer of that status that has no error envelope (a proxy's 404 page, a load balancer's 502).
 */
const CODES_BY_STATUS = {
  400: ['invalid_request', 'invalid_parameter', 'invalid_body'],
  401: ['unauthorized'],
  402: ['plan_required'],
  403: ['forbidden'],
  404: ['not_found'],
  409: ['conflict'],
  422: ['idempotency_key_reused'],
  429: ['rate_limited'],
  500: ['internal'],
} as const satisfies Record<number, readonly ErrorCode[]>

/** 400: a parameter or body was malformed, or a rule refused it; the message names which. */
export class BadRequestError extends GrowthError {
  override name = 'BadRequestError'
  protected static override readonly codes: readonly string[] = CODES_BY_STATUS[400]
  declare readonly code: 'invalid_request' | 'invalid_parameter' | 'invalid_body'
}
/** 401: no token, or an unknown, revoked or expired one. */
export class AuthenticationError extends GrowthError {
  override name = 'AuthenticationError'
  protected static override readonly codes: readonly string[] = CODES_BY_STATUS[401]
  declare readonly code: 'unauthorized'
}
/** 402: the plan does not include this, or an allowance ran out (the message says what remains). */
export class PlanRequiredError extends GrowthError {
  override name = 'PlanRequiredError'
  protected static override readonly codes: readonly string[] = CODES_BY_STATUS[402]
  declare readonly code: 'plan_required'
}
/** 403: the token lacks the scope (named in the message). */
export class PermissionDeniedError extends GrowthError {
  override name = 'PermissionDeniedError'
  protected static override readonly codes: readonly string[] = CODES_BY_STATUS[403]
  declare readonly code: 'forbidden'
}
/** 404: nothing with that id in this workspace. */
export class NotFoundError extends GrowthError {
  override name = 'NotFoundError'
  protected static override readonly codes: readonly string[] = CODES_BY_STATUS[404]
  declare readonly code: 'not_found'
}
/** 409: the record refuses this in its state, or the same Idempotency-Key is still being answered. */
export class ConflictError extends GrowthError {
  override name = 'ConflictError'
  protected static override readonly codes: readonly string[] = CODES_BY_STATUS[409]
  declare readonly code: 'conflict'
}
/** 422: the Idempotency-Key was used in the last 24 hours with a different request. */
export class IdempotencyKeyReusedError extends GrowthError {
  override name = 'IdempotencyKeyReusedError'
  protected static override readonly codes: readonly string[] = CODES_BY_STATUS[422]
  declare readonly code: 'idempotency_key_reused'
}
/** 429: over the rate limit. */
export class RateLimitError extends GrowthError {
  override name = 'RateLimitError'
  protected static override readonly codes: readonly string[] = CODES_BY_STATUS[429]
  declare readonly code: 'rate_limited'
  /** Seconds to wait before trying again (the Retry-After header). */
  readonly retryAfter: number | undefined
  constructor(message: string, fields: Fields & { retryAfter?: number } = {}) {
    super(message, fields)
    this.retryAfter = fields.retryAfter
  }
}
/** 5xx: a failure on the service's side, recorded there under the request id. */
export class InternalServerError extends GrowthError {
  override name = 'InternalServerError'
  protected static override readonly codes: readonly string[] = CODES_BY_STATUS[500]
  declare readonly code: 'internal'
}

/** No answer came: the connection failed or was dropped. */
export class ConnectionError extends GrowthError {
  override name = 'ConnectionError'
  declare readonly status: undefined
  declare readonly code: undefined
}
/** No answer came within the time-out (each attempt's). */
export class TimeoutError extends ConnectionError {
  override name = 'TimeoutError'
}

const BY_STATUS: Record<number, typeof GrowthError> = {
  400: BadRequestError,
  401: AuthenticationError,
  402: PlanRequiredError,
  403: PermissionDeniedError,
  404: NotFoundError,
  409: ConflictError,
  422: IdempotencyKeyReusedError,
}

/**
 * The error for a refusal: its class by status, its code, message and request id from the envelope.
 * `call` (e.g. `POST https://.../track`) is named when the answer is not the API's; `idempotencyKey`
 * is the write's (GrowthError.idempotencyKey).
 */
export function errorFromAnswer(status: number, body: unknown, text: string, headers: Record<string, string>, call?: string, idempotencyKey?: string): GrowthError {
  const envelope = (body as { error?: { code?: unknown; message?: unknown; requestId?: unknown } } | undefined)?.error
  const code = typeof envelope?.code === 'string' ? envelope.code : undefined
  const requestId = typeof envelope?.requestId === 'string' ? envelope.requestId : headers['x-request-id']
  const message = typeof envelope?.message === 'string' ? envelope.message : notTheApi(status, text, call)
  const fields = { status, code, requestId, headers, idempotencyKey }
  // A code that the status never carries (not this API's answer, or a newer server's): the base
  // class, with the code as sent, rather than a class whose type promises another code.
  const carried: readonly string[] | undefined = status >= 500 ? CODES_BY_STATUS[500] : CODES_BY_STATUS[status as keyof typeof CODES_BY_STATUS]
  if (carried && code !== undefined && !carried.includes(code)) return new GrowthError(message, fields)
  if (status === 429) return new RateLimitError(message, { ...fields, retryAfter: retryAfterSeconds(headers) })
  if (status >= 500) return new InternalServerError(message, fields)
  const Class = BY_STATUS[status] ?? GrowthError
  return new Class(message, fields)
}

/**
 * A refusal without the API's envelope, in one line: a proxy's or another server's page. A 4xx of
 * that kind most often means baseUrl is not the API's /api/v1 (the host alone, the console's path).
 */
function notTheApi(status: number, text: string, call: string | undefined): string {
  const head = `${status} with no error envelope${call ? ` from ${call}` : ''}`
  const page = clip(oneLine(text), 200)
  if (status >= 500) return page ? `${head}: ${page}` : `${head}.`
  return `${head}: is baseUrl the API's /api/v1?${page ? ` The answer began: ${page}` : ''}`
}

/** Retry-After in seconds (a number of seconds or an HTTP date), or undefined when absent or 0. */
export function retryAfterSeconds(headers: Record<string, string>): number | undefined {
  const value = headers['retry-after']
  if (value === undefined || value.trim() === '') return undefined
  const seconds = /^\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : (Date.parse(value) - Date.now()) / 1000
  if (!Number.isFinite(seconds) || seconds <= 0) return undefined
  return seconds
}
