import type { APIPromise } from './api-promise.ts'
import { GrowthError } from './errors.ts'
import type { AgentAuthorization, AgentResult, AuthorizeAgentActionRequest, ReportAgentResultRequest } from './generated/models.ts'
import type { RequestOptions } from './request-options.ts'
import { clip, oneLine } from './one-line.ts'

/** What the guard passes the guarded function. */
export type GuardContext = {
  /** The allowed authorization the function acts under. */
  authorization: AgentAuthorization
  /** Aborted when the guard's signal aborts: pass it on, and an abort is reported as `cancelled`. */
  signal: AbortSignal
}

export type WaitForApproval = {
  /** Milliseconds between asking again at first (default 2000, at least 250); it grows by half each time. */
  intervalMs?: number
  /** The longest wait between two asks (default 30000). */
  maxIntervalMs?: number
  /** Give up after this many milliseconds (default: until the approval is decided or expires). */
  timeoutMs?: number
}

export type GuardOptions = {
  /**
   * When the request needs a person: false (default) throws ApprovalRequiredError at once; true (or
   * settings) asks again at a bounded pace until the person decides or the approval expires. Each
   * ask is a gateway request, recorded and counted like any other.
   */
  waitForApproval?: boolean | WaitForApproval
  /** Aborts waiting and the guarded function (reported as cancelled). */
  signal?: AbortSignal
  /** Options for the authorize and result calls. */
  requestOptions?: Omit<RequestOptions, 'signal' | 'idempotencyKey'>
  /**
   * Called when fn completed but its `completed` report could not be made (after the call's own
   * retries). The guard still resolves to fn's value, since fn's work is done. Default: a console warning.
   */
  onReportError?: (error: unknown, authorizationId: string) => void
}

export type AgentGuard = <T>(request: AuthorizeAgentActionRequest, fn: (context: GuardContext) => T | Promise<T>, options?: GuardOptions) => Promise<T>

/** The gateway said no. `checks` says which check denied and why; `reason` in one sentence. */
export class AgentDeniedError extends GrowthError {
  readonly authorizationId: string
  readonly reason: string
  readonly checks: AgentAuthorization['checks']
  readonly rules: AgentAuthorization['rules']
  constructor(authorization: AgentAuthorization) {
    // The gateway's reason is a whole sentence that already says it is a denial.
    super(authorization.reason, {})
    this.authorizationId = authorization.authorizationId
    this.reason = authorization.reason
    this.checks = authorization.checks
    this.rules = authorization.rules
  }
}

/** The request waits for a person: `approvalId` names the approval they decide. */
export class ApprovalRequiredError extends GrowthError {
  readonly authorizationId: string
  readonly approvalId: string
  readonly reason: string
  readonly checks: AgentAuthorization['checks']
  /** True when the guard waited and the approval expired undecided (`approvalId` is then the new one the request waits on). */
  readonly expired: boolean
  /** True when the guard gave up waiting after `timeoutMs`: the approval is still pending and may yet be decided. */
  readonly timedOut: boolean
  constructor(authorization: AgentAuthorization, detail?: { expired?: boolean; timedOut?: boolean; message?: string }) {
    super(detail?.message ?? `Waiting for a person to decide approval ${authorization.approvalId}: ${authorization.reason}`, {})
    this.authorizationId = authorization.authorizationId
    this.approvalId = authorization.approvalId ?? ''
    this.reason = authorization.reason
    this.checks = authorization.checks
    this.expired = detail?.expired ?? false
    this.timedOut = detail?.timedOut ?? false
  }
}

type AgentCalls = {
  authorize(body: AuthorizeAgentActionRequest, options?: RequestOptions): APIPromise<AgentAuthorization | { simulated: true }>
  result(body: ReportAgentResultRequest, options?: RequestOptions): APIPromise<AgentResult | { simulated: true }>
}

/** The API keeps a summary to one line of at most 500 characters, and an error to 2000. */
const SUMMARY_MAX = 500
const ERROR_MAX = 2000

/**
 * `agent.guard(request, fn, options)`: asks the gateway; runs `fn` only when it may proceed; reports
 * what became of it against the same authorizationId (`completed` with what fn returned, `failed`
 * with what it threw, then rethrows it, `cancelled` when it was aborted). A denial throws
 * AgentDeniedError; a request that needs a person throws ApprovalRequiredError, or with
 * `waitForApproval` waits for the person's decision.
 */
export function createGuard(agent: AgentCalls): AgentGuard {
  return async function guard<T>(request: AuthorizeAgentActionRequest, fn: (context: GuardContext) => T | Promise<T>, options: GuardOptions = {}): Promise<T> {
    const authorization = await decide(agent, request, options)
    if (!authorization.mayProceed) throw new AgentDeniedError(authorization)

    const report = (status: 'completed' | 'failed' | 'cancelled', detail: { summary?: string; error?: string }) =>
      agent.result({ authorizationId: authorization.authorizationId, status, ...detail }, options.requestOptions)
    const signal = options.signal ?? new AbortController().signal
    let value: T
    try {
      signal.throwIfAborted()
      value = await fn({ authorization, signal })
    } catch (error) {
      const cancelled = signal.aborted || (error as { name?: unknown })?.name === 'AbortError'
      try {
        await report(cancelled ? 'cancelled' : 'failed', cancelled ? { summary: 'Cancelled before it finished.' } : { error: clip(describeError(error), ERROR_MAX) })
      } catch {
        // The caller gets what fn threw even when its report cannot be made (the authorization ran
        // out while fn ran, the API cannot be reached): the report's error would only hide it.
      }
      throw error
    }
    const summary = summarize(value)
    try {
      await report('completed', summary ? { summary } : {})
    } catch (error) {
      // fn did its work: throwing now would invite the caller to do it again. The value is returned
      // and the lost report handed to onReportError (by default a warning on the console).
      const onReportError = options.onReportError ?? warnReportLost
      onReportError(error, authorization.authorizationId)
    }
    return value
  }
}

/**
 * The gateway's decision on a request: `allowed` or `denied` (returned), or ApprovalRequiredError
 * when a person must decide (at once, or with `waitForApproval` after waiting at a bounded pace). The
 * first half of the guard, for callers that run and report the action their own way (the MCP guard).
 */
export async function decide(
  agent: Pick<AgentCalls, 'authorize'>,
  request: AuthorizeAgentActionRequest,
  options: Pick<GuardOptions, 'waitForApproval' | 'signal' | 'requestOptions'> = {},
): Promise<AgentAuthorization> {
  const callOptions = { ...options.requestOptions, signal: options.signal }
  const authorization = await authorizeOnce(agent, request, callOptions)
  if (authorization.decision !== 'requires_approval') return authorization
  if (!options.waitForApproval) throw new ApprovalRequiredError(authorization)
  return waitForDecision(agent, request, authorization, options.waitForApproval === true ? {} : options.waitForApproval, callOptions)
}

async function authorizeOnce(agent: Pick<AgentCalls, 'authorize'>, request: AuthorizeAgentActionRequest, options: RequestOptions): Promise<AgentAuthorization> {
  const answer = await agent.authorize(request, options)
  if ('simulated' in answer) throw new GrowthError('agent.guard needs an agent credential (svc_agt_...): a test token only simulates the request.')
  return answer
}

/**
 * Asks again until the person decides: the gateway answers the same pending approval while it
 * waits, `allowed` once approved (once), `denied` once rejected. A new approvalId means the first
 * one expired undecided.
 */
async function waitForDecision(
  agent: Pick<AgentCalls, 'authorize'>,
  request: AuthorizeAgentActionRequest,
  first: AgentAuthorization,
  wait: WaitForApproval,
  options: RequestOptions,
): Promise<AgentAuthorization> {
  let interval = Math.max(250, wait.intervalMs ?? 2000)
  const maxInterval = Math.max(interval, wait.maxIntervalMs ?? 30_000)
  const deadline = wait.timeoutMs === undefined ? Number.POSITIVE_INFINITY : Date.now() + wait.timeoutMs
  for (;;) {
    const left = deadline - Date.now()
    if (left <= 0) throw new ApprovalRequiredError(first, { timedOut: true, message: `No decision on approval ${first.approvalId} within ${wait.timeoutMs} ms; it is still pending.` })
    await sleep(Math.min(interval, left), options.signal)
    interval = Math.min(maxInterval, interval * 1.5)
    const next = await authorizeOnce(agent, request, options)
    if (next.decision !== 'requires_approval') return next
    if (next.approvalId !== first.approvalId) {
      throw new ApprovalRequiredError(next, { expired: true, message: `Approval ${first.approvalId} expired undecided; the request now waits on approval ${next.approvalId}.` })
    }
  }
}

/** One line of what the function returned, for the result's summary (none for undefined). */
function summarize(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined
  let text: string
  if (typeof value === 'string') text = value
  else {
    try {
      text = JSON.stringify(value) ?? String(value)
    } catch {
      text = String(value)
    }
  }
  const line = oneLine(text)
  return line ? clip(line, SUMMARY_MAX) : undefined
}

function warnReportLost(error: unknown, authorizationId: string) {
  console.warn(`agent.guard: the action under ${authorizationId} completed, but its result could not be reported: ${describeError(error)}`)
}

function describeError(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error)
  return oneLine(text) || 'The action failed without a message.'
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason)
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal?.reason)
    }
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}
