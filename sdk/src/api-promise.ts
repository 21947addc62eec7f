/** What the rate limiter said of a call (the X-RateLimit-* headers every answer carries). */
export type RateLimit = { limit: number; remaining: number; resetAt: Date }

/** A call's result with what came with it: `.withResponse()` on any call. */
export type WithResponse<T> = {
  data: T
  /** The last attempt's Response (its body already read). */
  response: Response
  /** X-Request-Id: quote it when asking about a call. */
  requestId: string | undefined
  rateLimit: RateLimit | undefined
  /** True when a write's answer was replayed for a repeated Idempotency-Key (Idempotent-Replayed). */
  replayed: boolean
}

/**
 * A call under way. Await it for the answer's `data`, or call `.withResponse()` for the data with the
 * Response, request id, rate limit and whether it was replayed. The request is sent when the method
 * is called, whether or not anything awaits it.
 */
export class APIPromise<T> implements PromiseLike<T> {
  readonly #answer: Promise<WithResponse<T>>
  #data: Promise<T> | undefined

  constructor(answer: Promise<WithResponse<T>>) {
    this.#answer = answer
  }

  /** The data with what came with it. */
  withResponse(): Promise<WithResponse<T>> {
    return this.#answer
  }

  #parsed(): Promise<T> {
    this.#data ??= this.#answer.then((a) => a.data)
    return this.#data
  }

  // biome-ignore lint/suspicious/noThenProperty: an APIPromise is awaited like a Promise.
  then<A = T, B = never>(onfulfilled?: ((value: T) => A | PromiseLike<A>) | null, onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<A | B> {
    return this.#parsed().then(onfulfilled, onrejected)
  }

  catch<B = never>(onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<T | B> {
    return this.#parsed().catch(onrejected)
  }

  finally(onfinally?: (() => void) | null): Promise<T> {
    return this.#parsed().finally(onfinally)
  }

  get [Symbol.toStringTag](): string {
    return 'APIPromise'
  }
}
