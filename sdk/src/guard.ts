import type { APIPromise } from './api-promise.ts'
import { GrowthError } from './errors.ts'
import type { AgentAuthorization, AgentResult, AuthorizeAgentActionRequest, DecidedBy, ReportAgentResultRequest } from './generated/models.ts'
import type { Loose } from './operation-types.ts'
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
  intervalMs?: number | undefined
  /** The longest wait between two asks (default 30000). */
  maxIntervalMs?: number | undefined
  /** Give up after this many milliseconds (default: until the approval is decided or expires). */
  timeoutMs?: number | undefined
}

export type GuardOptions = {
  /**
   * When the request needs a person: false (default) throws ApprovalRequiredError at once; true (or
   * settings) asks again at a bounded pace until the person decides or the approval expires. Each
   * ask is a gateway request, recorded and counted like any other.
   */
  waitForApproval?: boolean | WaitForApproval | undefined
  /** Aborts waiting and the guarded function (reported as cancelled). */
  signal?: AbortSignal | undefined
  /** Options for the authorize and result calls. */
  requestOptions?: Omit<RequestOptions, 'signal' | 'idempotencyKey'> | undefined
  /**
   * Called when fn completed but its `completed` report could not be made (after the call's own
   * retries). The guard still resolves to fn's value, since fn's work is done. Default: a console warning.
   */
  onReportError?: ((error: unknown, authorizationId: string) => void) | undefined
}

/** What the guard asks the gateway: authorize's body (an optional field may be passed as undefined). */
type GuardRequest = Loose<AuthorizeAgentActionRequest>

export type AgentGuard = <T>(request: GuardRequest, fn: (context: GuardContext) => T | Promise<T>, options?: GuardOptions) => Promise<T>

/** The gateway said no. `checks` says which check denied and why; `reason` in one sentence. */
export class AgentDeniedError extends GrowthError {
  override name = 'AgentDeniedError'
  readonly authorizationId: string
  readonly reason: string
  readonly checks: AgentAuthorization['checks']
  readonly rules: AgentAuthorization['rules']
  constructor(authorization: AgentAuthorization, detail?: { message?: string; reason?: string; requestId?: string }) {
    // The gateway's reason is a whole sentence that already says it is a denial.
    super(detail?.message ?? authorization.reason, { requestId: detail?.requestId })
    this.authorizationId = authorization.authorizationId
    this.reason = detail?.reason ?? authorization.reason
    this.checks = authorization.checks
    this.rules = authorization.rules
  }
}

/**
 * A person (or an operator) rejected this very request. A denial like any other, so it extends
 * AgentDeniedError: code that catches AgentDeniedError keeps catching it, and may look closer.
 * `reason` is the reason the person gave (`decisionReason`), or the gateway's sentence when they gave
 * none; `decisionReason` is exactly what they gave (null for none); `decidedBy` says who.
 */
export class ApprovalRejectedError extends AgentDeniedError {
  override name = 'ApprovalRejectedError'
  readonly approvalId: string
  readonly decidedBy: DecidedBy
  readonly decidedAt: string
  readonly decisionReason: string | null
  /** The gateway's own sentence on the denial (which names the rejection). */
  readonly gatewayReason: string
  constructor(authorization: AgentAuthorization, decision: NonNullable<AgentAuthorization['approvalDecision']>, requestId?: string) {
    const who = decidedByName(decision.decidedBy)
    super(authorization, {
      requestId,
      reason: decision.reason ?? authorization.reason,
      message: decision.reason
        ? `${who} rejected approval ${decision.approvalId}: ${decision.reason}`
        : `${who} rejected approval ${decision.approvalId} without giving a reason.`,
    })
    this.approvalId = decision.approvalId
    this.decidedBy = decision.decidedBy
    this.decidedAt = decision.decidedAt
    this.decisionReason = decision.reason
    this.gatewayReason = authorization.reason
  }
}

/** The request waits for a person: `approvalId` names the approval they decide. */
export class ApprovalRequiredError extends GrowthError {
  override name = 'ApprovalRequiredError'
  readonly authorizationId: string
  readonly approvalId: string
  readonly reason: string
  readonly checks: AgentAuthorization['checks']
  /** True when the guard waited and the approval expired undecided (then an ApprovalExpiredError, and `approvalId` is the new one the request waits on). */
  readonly expired: boolean
  /** True when the guard gave up waiting after `timeoutMs`: the approval is still pending and may yet be decided. */
  readonly timedOut: boolean
  constructor(authorization: AgentAuthorization, detail?: { expired?: boolean; timedOut?: boolean; message?: string; requestId?: string }) {
    super(detail?.message ?? `A person must decide approval ${authorization.approvalId} before this runs: ${authorization.reason} (with waitForApproval the guard waits for the decision).`, { requestId: detail?.requestId })
    this.authorizationId = authorization.authorizationId
    this.approvalId = authorization.approvalId ?? ''
    this.reason = authorization.reason
    this.checks = authorization.checks
    this.expired = detail?.expired ?? false
    this.timedOut = detail?.timedOut ?? false
  }
}

/**
 * The approval the guard waited on expired with nobody deciding it. Still an ApprovalRequiredError
 * (with `expired` true), since the request needs a person as before: `approvalId` is the new approval
 * it now waits on, `expiredApprovalId` the one that ran out.
 */
export class ApprovalExpiredError extends ApprovalRequiredError {
  override name = 'ApprovalExpiredError'
  readonly expiredApprovalId: string
  constructor(authorization: AgentAuthorization, expiredApprovalId: string, requestId?: string) {
    super(authorization, {
      expired: true,
      requestId,
      message: `Approval ${expiredApprovalId} expired with nobody deciding it; the request now waits on approval ${authorization.approvalId}.`,
    })
    this.expiredApprovalId = expiredApprovalId
  }
}

/** The error for a denial: ApprovalRejectedError when a person's rejection of this same request denies it, else AgentDeniedError. */
export function deniedError(authorization: AgentAuthorization, requestId?: string): AgentDeniedError {
  const decision = authorization.approvalDecision
  return decision?.status === 'rejected' ? new ApprovalRejectedError(authorization, decision, requestId) : new AgentDeniedError(authorization, { requestId })
}

/** A decider as people read it: `Maya Chen`, `dokafor (operator)`. */
export function decidedByName(by: DecidedBy): string {
  return by.kind === 'person' ? by.name : `${by.name} (operator)`
}

type AgentCalls = {
  authorize(body: GuardRequest, options?: RequestOptions): APIPromise<AgentAuthorization | { simulated: true }>
  result(body: ReportAgentResultRequest, options?: RequestOptions): APIPromise<AgentResult | { simulated: true }>
}

/** The API keeps a summary to one line of at most 500 characters, and an error to 2000. */
const SUMMARY_MAX = 500
const ERROR_MAX = 2000

/**
 * `agent.guard(request, fn, options)`: asks the gateway; runs `fn` only when it may proceed; reports
 * what became of it against the same authorizationId (`completed` with what fn returned, `failed`
 * with what it threw, then rethrows it, `cancelled` when it was aborted). A denial throws
 * AgentDeniedError (ApprovalRejectedError, a kind of it, when a person rejected this very request);
 * a request that needs a person throws ApprovalRequiredError, or with `waitForApproval` waits for
 * the person's decision (ApprovalExpiredError, a kind of ApprovalRequiredError, when it expired).
 */
export function createGuard(agent: AgentCalls): AgentGuard {
  return async function guard<T>(request: GuardRequest, fn: (context: GuardContext) => T | Promise<T>, options: GuardOptions = {}): Promise<T> {
    const { authorization, requestId } = await decided(agent, request, options)
    if (!authorization.mayProceed) throw deniedError(authorization, requestId)

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
 * The gateway's decision on a request: `allowed` or `denied` (returned; `deniedError` makes the error
 * for a denial), or ApprovalRequiredError when a person must decide (at once, or with
 * `waitForApproval` after waiting at a bounded pace; ApprovalExpiredError when the approval waited on
 * expired). The first half of the guard, for callers that run and report the action their own way
 * (the MCP guard).
 */
export async function decide(
  agent: Pick<AgentCalls, 'authorize'>,
  request: GuardRequest,
  options: Pick<GuardOptions, 'waitForApproval' | 'signal' | 'requestOptions'> = {},
): Promise<AgentAuthorization> {
  return (await decided(agent, request, options)).authorization
}

/** An answer of the gateway with the id of the HTTP request that carried it (X-Request-Id). */
type Answer = { authorization: AgentAuthorization; requestId: string | undefined }

async function decided(
  agent: Pick<AgentCalls, 'authorize'>,
  request: GuardRequest,
  options: Pick<GuardOptions, 'waitForApproval' | 'signal' | 'requestOptions'>,
): Promise<Answer> {
  const callOptions = { ...options.requestOptions, signal: options.signal }
  const first = await authorizeOnce(agent, request, callOptions)
  if (first.authorization.decision !== 'requires_approval') return first
  if (!options.waitForApproval) throw new ApprovalRequiredError(first.authorization, { requestId: first.requestId })
  return waitForDecision(agent, request, first, options.waitForApproval === true ? {} : options.waitForApproval, callOptions)
}

async function authorizeOnce(agent: Pick<AgentCalls, 'authorize'>, request: GuardRequest, options: RequestOptions): Promise<Answer> {
  const { data, requestId } = await agent.authorize(request, options).withResponse()
  if ('simulated' in data) throw new GrowthError('agent.guard needs an agent credential (svc_agt_...): a test token only simulates the request.')
  return { authorization: data, requestId }
}

/**
 * Asks again until the person decides: the gateway answers the same pending approval while it
 * waits, `allowed` once approved (once), `denied` once rejected (with who rejected it and why, in
 * `approvalDecision`). A new approvalId means the first one expired undecided.
 */
async function waitForDecision(
  agent: Pick<AgentCalls, 'authorize'>,
  request: GuardRequest,
  first: Answer,
  wait: WaitForApproval,
  options: RequestOptions,
): Promise<Answer> {
  const waitingOn = first.authorization.approvalId
  let interval = Math.max(250, wait.intervalMs ?? 2000)
  const maxInterval = Math.max(interval, wait.maxIntervalMs ?? 30_000)
  const deadline = wait.timeoutMs === undefined ? Number.POSITIVE_INFINITY : Date.now() + wait.timeoutMs
  let last = first
  for (;;) {
    const left = deadline - Date.now()
    if (left <= 0) {
      throw new ApprovalRequiredError(last.authorization, { timedOut: true, requestId: last.requestId, message: `No decision on approval ${waitingOn} within ${wait.timeoutMs} ms; it is still pending.` })
    }
    await sleep(Math.min(interval, left), options.signal)
    interval = Math.min(maxInterval, interval * 1.5)
    last = await authorizeOnce(agent, request, options)
    if (last.authorization.decision !== 'requires_approval') return last
    if (last.authorization.approvalId !== waitingOn) throw new ApprovalExpiredError(last.authorization, waitingOn ?? '', last.requestId)
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
