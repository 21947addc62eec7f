import { GrowthError } from './errors.ts'

/**
 * Options of one call, given as its last argument. Each overrides the client's own for this call; one
 * that is undefined is left out (under exactOptionalPropertyTypes too).
 */
export type RequestOptions = {
  /**
   * The Idempotency-Key of a write. Without one, each call makes its own; every retry of the call
   * sends the same key either way, so a write is done once however often it is retried.
   */
  idempotencyKey?: string | undefined
  /** Retries after a failed attempt (408, 409, 429, 5xx, no answer). Default: the client's (2). */
  maxRetries?: number | undefined
  /** Milliseconds each attempt may take, answer included. Default: the client's (60000). */
  timeout?: number | undefined
  /** Aborts the call, retries and waits between them included; the call rejects with the signal's reason. */
  signal?: AbortSignal | undefined
  /** Headers to send with this call (beside the client's defaultHeaders). */
  headers?: Record<string, string> | undefined
}

/** maxRetries as given (client or call): a whole number >= 0, or a GrowthError naming it. */
export function checkedMaxRetries(value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) throw new GrowthError(`maxRetries must be a whole number >= 0; got ${String(value)}.`)
  return value
}

/** timeout as given (client or call): milliseconds > 0 (Infinity: none), or a GrowthError naming it. */
export function checkedTimeout(value: unknown): number {
  if (typeof value !== 'number' || !(value > 0)) throw new GrowthError(`timeout must be a number of milliseconds > 0; got ${String(value)}.`)
  return value
}
