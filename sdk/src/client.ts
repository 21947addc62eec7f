import { APIPromise, type WithResponse } from './api-promise.ts'
import { GrowthError } from './errors.ts'
import { type OperationId, OPERATIONS, type OperationSpec } from './generated/operations.ts'
import type { Resources } from './generated/resources.ts'
import { type AgentGuard, createGuard } from './guard.ts'
import type { Mode, ModeOf } from './mode.ts'
import { Page, PagePromise } from './pagination.ts'
import { checkedMaxRetries, checkedTimeout, type RequestOptions } from './request-options.ts'
import { type Answer, call, type CallInput, type Fetch, type TransportSettings } from './transport.ts'

export const DEFAULT_BASE_URL = 'http://127.0.0.1:4000/api/v1'

export type ClientOptions<T extends string = string> = {
  /** A workspace token (svc_live_..., svc_test_...) or an agent credential (svc_agt_...). Default: GROWTH_TOKEN. */
  token?: T | undefined
  /** The API's base URL, /api/v1 included. Default: GROWTH_BASE_URL, else http://127.0.0.1:4000/api/v1. */
  baseUrl?: string | undefined
  /** Retries after a failed attempt (408, 409, 429, 5xx, no answer). Default 2. */
  maxRetries?: number | undefined
  /** Milliseconds each attempt may take, answer included. Default 60000. */
  timeout?: number | undefined
  /** The fetch to call (a proxy's, a test's). Default: the runtime's. */
  fetch?: Fetch | undefined
  /** Headers sent with every call. */
  defaultHeaders?: Record<string, string> | undefined
}

/**
 * Reads a setting from the environment where there is one (Node.js, Bun; Deno with --allow-env).
 * `refused`: the runtime would not let it be read (Deno without --allow-env), which a missing
 * token's message then names: the variable may well be set.
 */
function fromEnvironment(name: string): { value: string | undefined; refused: boolean } {
  try {
    const g = globalThis as { process?: { env?: Record<string, string | undefined> }; Deno?: { env?: { get(n: string): string | undefined } } }
    return { value: g.process?.env?.[name] ?? g.Deno?.env?.get(name), refused: false }
  } catch {
    return { value: undefined, refused: true }
  }
}

class GrowthClient<M extends Mode = 'unknown'> {
  readonly baseUrl: string
  readonly maxRetries: number
  readonly timeout: number
  readonly #settings: TransportSettings

  constructor(options: ClientOptions = {}) {
    const env = options.token ? null : fromEnvironment('GROWTH_TOKEN')
    const token = options.token ?? env?.value
    if (!token) {
      if (env?.refused) {
        throw new GrowthError('No token: pass new Growth({ token }), or let the runtime read GROWTH_TOKEN: Deno refused to read the environment (run with --allow-env=GROWTH_TOKEN,GROWTH_BASE_URL).')
      }
      throw new GrowthError('No token: pass new Growth({ token }) or set GROWTH_TOKEN (a svc_live_, svc_test_ or svc_agt_ credential).')
    }
    const baseUrl = (options.baseUrl ?? fromEnvironment('GROWTH_BASE_URL').value ?? DEFAULT_BASE_URL).replace(/\/+$/, '')
    if (!/^https?:\/\/[^/]/.test(baseUrl)) throw new GrowthError(`baseUrl must be an http(s) URL such as ${DEFAULT_BASE_URL}; got ${JSON.stringify(baseUrl)}.`)
    this.baseUrl = baseUrl
    this.maxRetries = checkedMaxRetries(options.maxRetries ?? 2)
    this.timeout = checkedTimeout(options.timeout ?? 60_000)
    const fetcher: Fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init))
    this.#settings = {
      baseUrl,
      token,
      maxRetries: this.maxRetries,
      timeout: this.timeout,
      // Called unbound, the runtime's fetch throws "Illegal invocation" in some runtimes.
      fetch: (input, init) => fetcher(input, init),
      defaultHeaders: options.defaultHeaders ?? {},
    }
    for (const [operationId, spec] of Object.entries(OPERATIONS) as [OperationId, OperationSpec][]) {
      const method = this.#methodFor(spec)
      const [first, second] = spec.sdk
      const self = this as unknown as Record<string, Record<string, unknown>>
      if (second === undefined) self[first!] = method as never
      else (self[first!] ??= {})[second] = method
      void operationId
    }
    const agent = (this as unknown as { agent: Record<string, unknown> }).agent
    agent.guard = createGuard(agent as never)
  }

  #methodFor(spec: OperationSpec) {
    if (spec.kind === 'write') {
      return (body: unknown, options?: RequestOptions) => new APIPromise(this.#data({ method: spec.method, path: spec.path, body }, options))
    }
    if (spec.kind === 'item') {
      return (query?: Record<string, unknown>, options?: RequestOptions) =>
        new APIPromise(this.#data({ method: spec.method, path: spec.path, query }, options))
    }
    const paging = spec.paging!
    const load = (query: Record<string, unknown> | undefined, options: RequestOptions | undefined): PagePromise<unknown> =>
      new PagePromise(
        call(this.#settings, { method: spec.method, path: spec.path, query }, options).then((answer) => {
          const body = answer.body as { data: unknown[]; meta?: Record<string, string> }
          if (!Array.isArray(body?.data)) throw unexpected(answer)
          const limit = typeof query?.limit === 'number' ? query.limit : undefined
          const at = query?.[paging.param]
          const page = new Page(body, paging, limit, (position) => load({ ...query, [paging.param]: position }, options), typeof at === 'string' ? at : undefined)
          return withData(answer, page)
        }),
      )
    return load
  }

  async #data(input: CallInput, options: RequestOptions | undefined): Promise<WithResponse<unknown>> {
    const answer = await call(this.#settings, input, options)
    const body = answer.body as { data?: unknown } | undefined
    if (body === undefined || !('data' in body)) throw unexpected(answer)
    return withData(answer, body.data)
  }
}

function withData<T>(answer: Answer, data: T): WithResponse<T> {
  return { data, response: answer.response, requestId: answer.requestId, rateLimit: answer.rateLimit, replayed: answer.replayed }
}

function unexpected(answer: Answer): GrowthError {
  return new GrowthError(`The answer (${answer.response.status}) is not the API's JSON envelope: is baseUrl the API's /api/v1?`, {
    status: answer.response.status,
    requestId: answer.requestId,
  })
}

/** The agent namespace: authorize, result and me, and the guard built on them. */
type AgentNamespace<M extends Mode> = Resources<M>['agent'] & { guard: AgentGuard }

/** The client: one method per operation (see Resources), grouped by what they act on. */
export type Growth<M extends Mode = 'unknown'> = GrowthClient<M> & Omit<Resources<M>, 'agent'> & { agent: AgentNamespace<M> }

export interface GrowthConstructor {
  /**
   * A client for one credential. The token's prefix, when its literal type shows it, types what
   * writes resolve to: a test token's writes are `{ simulated: true }`.
   */
  new <T extends string = string>(options?: ClientOptions<T>): Growth<ModeOf<T>>
  readonly prototype: Growth
}

export const Growth = GrowthClient as unknown as GrowthConstructor
