/** Options of one call, given as its last argument. Each overrides the client's own for this call. */
export type RequestOptions = {
  /**
   * The Idempotency-Key of a write. Without one, each call makes its own; every retry of the call
   * sends the same key either way, so a write is done once however often it is retried.
   */
  idempotencyKey?: string
  /** Retries after a failed attempt (408, 409, 429, 5xx, no answer). Default: the client's (2). */
  maxRetries?: number
  /** Milliseconds each attempt may take, answer included. Default: the client's (60000). */
  timeout?: number
  /** Aborts the call, retries and waits between them included; the call rejects with the signal's reason. */
  signal?: AbortSignal
  /** Headers to send with this call (beside the client's defaultHeaders). */
  headers?: Record<string, string>
}
