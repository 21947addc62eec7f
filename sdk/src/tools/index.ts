/**
 * @growth-service/sdk/tools: the agent gateway around any function an agent calls as a tool.
 *
 *   import { guarded } from '@growth-service/sdk/tools'
 *   const sendEmail = guarded(mailer.send, {
 *     tool: 'email', action: 'send_campaign',
 *     resource: (message) => message.subject,
 *     facts: (message) => ({ recipients: message.to.length }),
 *   })
 *   await sendEmail({ to: ['a@example.com'], subject: 'Hello' }) // asks, runs only if allowed, reports
 *
 * Framework adapters live in their own subpaths, so nothing of a framework is loaded unless used:
 * `@growth-service/sdk/tools/ai` (Vercel's AI SDK) and `@growth-service/sdk/tools/openai-agents`.
 */
import { Growth } from '../client.ts'
import type { AuthorizeAgentActionRequest } from '../generated/models.ts'
import type { GuardOptions } from '../guard.ts'
import type { Loose } from '../operation-types.ts'
import { clip, oneLine } from '../one-line.ts'

export { AgentDeniedError, ApprovalExpiredError, ApprovalRejectedError, ApprovalRequiredError, type WaitForApproval } from '../guard.ts'

/** What the gateway judges, in the contract's terms: amountMinor + currency, amountPercent, increase, recipients, records. */
export type Facts = Loose<NonNullable<AuthorizeAgentActionRequest['facts']>>

export type GuardedSpec<A extends unknown[]> = {
  /** The gateway's tool key (as GET /agents/tools lists it), e.g. `email`. */
  tool: string
  /** The action within that tool, e.g. `send_campaign`. */
  action: string
  /** What the call acts on, in your own terms (a campaign id, a list name): fixed, or read from the arguments. */
  resource?: string | ((...args: A) => string | undefined) | undefined
  /** The facts the gateway judges, read from the arguments (e.g. `(m) => ({ recipients: m.to.length })`). */
  facts?: ((...args: A) => Facts) | undefined
  /** One line a person reads if the call waits for them (folded into one line of at most 500 characters). Default: the tool, action and resource. */
  summary?: string | ((...args: A) => string) | undefined
  /**
   * The parameters that make two calls "the same request" for an approval (kept by the gateway only
   * as a digest). Default: the first argument when it is a plain object, so an approval covers
   * exactly the call it was asked for.
   */
  params?: ((...args: A) => Record<string, unknown> | undefined) | undefined
  /** An abort signal of the call (a framework's), passed to the guard: an abort is reported as cancelled. */
  signal?: ((...args: A) => AbortSignal | undefined) | undefined
  /** The client to ask with (an agent credential). Default: one made at the first call from GROWTH_TOKEN and GROWTH_BASE_URL. */
  client?: Pick<Growth, 'agent'> | undefined
} & Pick<GuardOptions, 'waitForApproval' | 'requestOptions' | 'onReportError'>

let defaultClient: Growth | undefined

/**
 * `guarded(fn, spec)`: a function of the same arguments as `fn` that first asks the agent gateway;
 * runs `fn` only when the answer is `allowed`; reports what became of it (`completed` with what it
 * returned, `failed` with what it threw, which is then rethrown); and throws AgentDeniedError
 * (denied) or ApprovalRequiredError (a person must decide; with `waitForApproval`, after waiting).
 */
export function guarded<A extends unknown[], R>(fn: (...args: A) => R | Promise<R>, spec: GuardedSpec<A>): (...args: A) => Promise<Awaited<R>> {
  if (typeof fn !== 'function') throw new TypeError('guarded(fn, spec): fn must be a function')
  if (!spec || typeof spec.tool !== 'string' || typeof spec.action !== 'string') throw new TypeError('guarded(fn, spec): spec.tool and spec.action are required strings')
  return async function guardedCall(this: unknown, ...args: A): Promise<Awaited<R>> {
    const client = spec.client ?? (defaultClient ??= new Growth())
    const request: AuthorizeAgentActionRequest = { tool: spec.tool, action: spec.action }
    const resource = typeof spec.resource === 'function' ? spec.resource(...args) : spec.resource
    if (resource !== undefined) request.resource = resource
    const facts = spec.facts?.(...args)
    if (facts && Object.keys(facts).length) request.facts = facts
    const summary = typeof spec.summary === 'function' ? spec.summary(...args) : spec.summary
    // The API takes one line of at most 500 characters: a resource or a summary of several lines is folded into one.
    const line = clip(oneLine(summary ?? `${spec.tool}.${spec.action}${resource ? ` on ${resource}` : ''}`), 500)
    if (line) request.summary = line
    const params = spec.params ? spec.params(...args) : plainObject(args[0])
    if (params) request.params = params
    const signal = spec.signal?.(...args)
    return client.agent.guard(request, () => fn.apply(this, args) as Promise<Awaited<R>>, {
      waitForApproval: spec.waitForApproval,
      requestOptions: spec.requestOptions,
      onReportError: spec.onReportError,
      ...(signal ? { signal } : {}),
    })
  }
}

function plainObject(value: unknown): Record<string, unknown> | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined
  const proto = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null ? (value as Record<string, unknown>) : undefined
}
