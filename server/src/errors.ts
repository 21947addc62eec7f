/**
 * The closed set of error codes and their HTTP statuses (spec: Errors). Every refusal the API makes
 * is an ApiError, turned into `{ error: { code, message } }` in one place (pipeline.ts).
 */
export const ERROR_STATUS = {
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
} as const

export type ErrorCode = keyof typeof ERROR_STATUS

export class ApiError extends Error {
  readonly status: number
  /** Extra response headers (e.g. Retry-After on a 429). */
  readonly headers: Record<string, string>

  constructor(
    readonly code: ErrorCode,
    message: string,
    headers: Record<string, string> = {},
  ) {
    super(message)
    this.status = ERROR_STATUS[code]
    this.headers = headers
  }
}

/**
 * A refusal whose writes are kept: the handler recorded why it refused (e.g. a result the gateway
 * would not accept) and the pipeline commits that record, then answers with this error. Kept and
 * replayed under its Idempotency-Key like any final answer, so the refusal is not recorded twice.
 */
export class RecordedRefusal extends ApiError {}

/** The one wording of every failed authentication, whatever the cause (spec: Authentication 5). */
export const UNAUTHORIZED_MESSAGE =
  'Missing or invalid credential. Send Authorization: Bearer <token> with a valid, unrevoked, unexpired token.'

export const notFound = (what: string, id: string) => new ApiError('not_found', `No ${what} ${id} in this workspace.`)
export const invalidRequest = (message: string) => new ApiError('invalid_request', message)
export const invalidParameter = (message: string) => new ApiError('invalid_parameter', message)
export const conflict = (message: string) => new ApiError('conflict', message)

export function errorBody(code: ErrorCode, message: string): string {
  return JSON.stringify({ error: { code, message } })
}
