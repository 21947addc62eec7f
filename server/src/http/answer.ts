import { DomainError, type ErrorCode } from '../core/errors.ts'
import type { Logger } from '../core/log.ts'

/**
 * The last step of every request: what it answers, in the envelope, with its headers. Every error,
 * whatever raised it, becomes `{ error: { code, message, requestId } }` here, and nowhere else.
 */

/** The status of each error code (spec: Errors). */
export const STATUS_OF: Record<ErrorCode, number> = {
  invalid_parameter: 400,
  invalid_body: 400,
  invalid_request: 400,
  unauthorized: 401,
  plan_required: 402,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  idempotency_key_reused: 422,
  rate_limited: 429,
  internal: 500,
}

/** A refusal of the pipeline itself (credentials, limits, parsing, idempotency), in the envelope's own terms. */
export class HttpError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Extra response headers (e.g. Allow on a 405). */
    readonly headers: Record<string, string> = {},
    /** A status other than the code's own (405 not_found for a method the path does not have). */
    readonly status = STATUS_OF[code],
  ) {
    super(message)
  }
}

export type Answer = { status: number; body: string; headers?: Record<string, string> }

const JSON_TYPE = 'application/json; charset=utf-8'

/** `{ data }`, or `{ data, meta }` only when meta has something to say (spec: Envelope, rule 2). */
export function dataBody(data: unknown, meta?: Record<string, string | undefined>): string {
  const said = meta && Object.values(meta).some((v) => v !== undefined) ? meta : undefined
  return JSON.stringify(said ? { data, meta: said } : { data })
}

function errorBody(code: ErrorCode, message: string, requestId: string): string {
  return JSON.stringify({ error: { code, message, requestId } })
}

/**
 * The code of a domain refusal. A rule refuses the request's input: on a read that input is its
 * query (invalid_parameter), on a write its body (invalid_request).
 */
function codeOf(err: DomainError, on: 'read' | 'write'): ErrorCode {
  switch (err.kind) {
    case 'not_found':
      return 'not_found'
    case 'conflict':
      return 'conflict'
    case 'allowance':
      return 'plan_required'
    case 'rule':
      return on === 'read' ? 'invalid_parameter' : 'invalid_request'
  }
}

/** A refusal as the answer to send. */
export function refusal(err: HttpError | DomainError, requestId: string, on: 'read' | 'write'): Answer {
  if (err instanceof HttpError) return { status: err.status, body: errorBody(err.code, err.message, requestId), headers: err.headers }
  const code = codeOf(err, on)
  return { status: STATUS_OF[code], body: errorBody(code, err.message, requestId) }
}

/** Any failure as an answer: a refusal as itself, anything else as 500 internal, logged under the request id. */
export function failure(err: unknown, requestId: string, on: 'read' | 'write', log: Logger, operationId: string): Answer {
  if (err instanceof HttpError || err instanceof DomainError) return refusal(err, requestId, on)
  log.error('request failed', { requestId, operationId, error: err })
  return {
    status: 500,
    body: errorBody('internal', `Something went wrong on our side; it has been recorded as ${requestId}. Retry with the same Idempotency-Key.`, requestId),
  }
}

/**
 * The answer as a Response; `headers` (this request's own object) gets the answer's headers, the
 * Content-Type, and `nosniff`: an error's message quotes what was sent, so no browser may read a
 * JSON answer as anything but JSON.
 */
export function respond(answer: Answer, headers: Record<string, string>): Response {
  if (answer.headers) Object.assign(headers, answer.headers)
  headers['Content-Type'] = JSON_TYPE
  headers['X-Content-Type-Options'] = 'nosniff'
  return new Response(answer.body, { status: answer.status, headers })
}
