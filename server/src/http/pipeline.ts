import type { Sql } from '../core/db.ts'
import type { TrustedProxies } from '../core/client-address.ts'
import { newId } from '../core/ids.ts'
import type { Logger } from '../core/log.ts'
import type { Operation, Services } from '../routes/operation.ts'
import { type Answer, failure, HttpError, respond } from './answer.ts'
import { endedCredentialId } from '../domain/credentials.ts'
import { admit, authenticate, EndedCredential, withinRateLimit } from './authenticate.ts'
import type { CallCounter } from './count.ts'
import { CredentialBatch, type CredentialCheck } from './credential-batch.ts'
import { noteOnSpan } from '../core/tracing.ts'
import { isOver, MemoryLimiter, rateHeaders, WINDOW_MS } from './rate-limit.ts'
import { read } from './read.ts'
import type { RequestLog } from './request-log.ts'
import { requestObserver } from './request-observer.ts'
import { withRequestScope } from '../store/driver/request-scope.ts'
import { searchOf } from './validation.ts'
import { write } from './write.ts'

export type PipelineDeps = {
  /** Domain reads and writes. */
  sql: Sql
  /** Credential lookup and rate-limit counting (on a server: a pool with synchronous_commit off). */
  counterSql: Sql
  /** Built once at start and handed to every write's handler (the agent gateway's decision recorder). */
  services: Services
  counter: CallCounter
  log: Logger
  /** The reverse proxies whose X-Forwarded-For names the client's address (TRUSTED_PROXIES); none: the peer's. */
  trustedProxies?: TrustedProxies
  /** Per client address, for calls without a valid credential: public endpoints, unknown routes. */
  anonymous?: MemoryLimiter
  /** Per client address: failed authentications, so tokens cannot be guessed at speed. */
  authFailures?: MemoryLimiter
  /** Told after a live write committed (the webhook workers look for new deliveries). */
  afterWrite?: () => void
  /** In place of the exact batched credential statement: given it, returns what to use (benchmarks only). */
  credentials?: (exact: CredentialCheck) => CredentialCheck
  /** The longest a request may take: past it, its queries are cancelled and it answers 500 internal. */
  requestTimeoutMs?: number
  /** The request log's writer (REQUEST_LOG, on by default); none: calls are not kept. */
  requestLog?: RequestLog
  /** The id of the current request's trace, for its log line, when tracing is on (the tracing's seam). */
  traceId?: () => string | undefined
}

const DEFAULT_REQUEST_TIMEOUT_MS = 15_000

/**
 * The request pipeline. A request reads top to bottom like a sentence: authenticate (and count it
 * against its rate limit) -> admit (limit, kind, plan, scope) -> read or write (validate, then the
 * domain rule; a write in one transaction with its idempotency record and events) -> answer in the
 * envelope -> count where it was answered. Every step is a file of its own.
 */
export function createPipeline(deps: PipelineDeps) {
  const anonymous = deps.anonymous ?? new MemoryLimiter(1200, WINDOW_MS)
  const authFailures = deps.authFailures ?? new MemoryLimiter(20, 60_000)
  const exact = new CredentialBatch(deps.counterSql)
  const credentials = deps.credentials ? deps.credentials(exact) : exact
  const endedCredential = (workspaceId: string, hash: string) => endedCredentialId(deps.sql, workspaceId, hash)
  // Each answered request's log line and request-log entry (request-observer.ts).
  const observe = requestObserver(deps)
  const abandonedLog: Logger = { ...deps.log, error: (_msg, fields) => deps.log.info('request abandoned by its client', { ...fields, error: undefined }) }

  /** A call without a credential: limited per client address. */
  function anonymousCall(address: string, headers: Record<string, string>) {
    const state = anonymous.hit(address)
    Object.assign(headers, rateHeaders(state))
    if (isOver(state)) {
      throw new HttpError('rate_limited', `Rate limit of ${state.limit} requests per hour without a credential reached for this address; retry after ${headers['Retry-After']} seconds.`)
    }
  }

  /** An answer outside any operation, logged as such (no workspace: nothing for a request log). */
  function answered(request: Request, requestId: string, operation: string, answer: Answer, headers: Record<string, string>): Response {
    observe({ requestId, request, operation, route: `${request.method} ${operation}`, unrouted: true, answer, startedAt: performance.now(), workspaceId: '', credentialId: '' })
    return respond(answer, headers)
  }

  return {
    /** Answer one request for `op`, whatever happens, in the envelope. */
    /** `address` gives the client's address: asked for only when a limit per address applies. */
    async handle(op: Operation, request: Request, address: () => string): Promise<Response> {
      const startedAt = performance.now()
      const requestId = newId('request')
      const headers: Record<string, string> = { 'X-Request-Id': requestId }
      let workspaceId = ''
      let credentialId = ''
      /** A revoked or expired credential's workspace and id: the call is logged as theirs, and counted as no one's. */
      let ended: { workspaceId: string; credentialId: string } | undefined
      let answer: Answer
      try {
        // Its queries are cancelled if the client goes away, and it answers by the deadline.
        answer = await withRequestScope(request.signal, deps.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS, async () => {
          if (op.auth.kind === 'public') {
            anonymousCall(address(), headers)
            return read(deps.sql, op as Extract<Operation, { kind: 'item' }>, searchOf(request.url), undefined)
          }
          const who = await authenticate(request, address, headers, { credentials, authFailures, ended: endedCredential })
          ;({ workspaceId, credentialId } = who.caller)
        noteOnSpan({ 'growth.workspace_id': workspaceId })
          admit(op, who, headers)
          return op.kind === 'write'
            ? write(deps.sql, op, request, who.caller, requestId, deps.services)
            : read(deps.sql, op, searchOf(request.url), who.caller)
        })
      } catch (err) {
        // A client that went away had its statements cancelled: that is no failure of ours to log as one.
        const log = request.signal.aborted ? abandonedLog : deps.log
        answer = failure(err, requestId, op.kind === 'write' ? 'write' : 'read', log, op.operationId)
        ended = endedBy(err)
      }
      if (op.kind === 'write' && answer.status === 201) deps.afterWrite?.()
      deps.counter.count(workspaceId, credentialId, op.operationId, answer.status)
      observe({ requestId, request, operation: op.operationId, route: `${op.method} /api/v1${op.path}`, answer, startedAt, workspaceId, credentialId, ...ended })
      return respond(answer, headers)
    },

    /**
     * No endpoint at this path (404), or not with this method (405 with Allow): in the envelope, with
     * the usual headers. A call that sends a credential is that credential's call, as every call with
     * it is: authenticated, counted against its hourly limit (its headers, its 429), counted and in
     * the request log under its workspace, where its developer finds the typo; a credential that
     * does not open anything is 401, as anywhere. Without one, limited per address.
     */
    async noRoute(request: Request, address: string, allowed: string[]): Promise<Response> {
      const startedAt = performance.now()
      const requestId = newId('request')
      const headers: Record<string, string> = { 'X-Request-Id': requestId }
      const path = new URL(request.url).pathname
      const err = allowed.length
        ? new HttpError('invalid_request', `${path} does not take ${request.method}; it takes ${allowed.join(', ')}.`, { Allow: allowed.join(', ') }, 405)
        : new HttpError('not_found', `No endpoint ${request.method} ${path}. GET /api/v1 lists every endpoint.`)
      const operation = allowed.length ? 'method_not_allowed' : 'unknown_route'
      if (!request.headers.has('authorization')) {
        Object.assign(headers, rateHeaders(anonymous.hit(address)))
        deps.counter.count('', '', operation, err.status)
        return answered(request, requestId, operation, failure(err, requestId, 'read', deps.log, 'unknown'), headers)
      }
      let workspaceId = ''
      let credentialId = ''
      let ended: { workspaceId: string; credentialId: string } | undefined
      let answer: Answer
      try {
        const who = await withRequestScope(request.signal, deps.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS, () => authenticate(request, () => address, headers, { credentials, authFailures, ended: endedCredential }))
        ;({ workspaceId, credentialId } = who.caller)
        withinRateLimit(who, headers)
        answer = failure(err, requestId, 'read', deps.log, 'unknown')
      } catch (refused) {
        answer = failure(refused, requestId, 'read', deps.log, 'unknown')
        ended = endedBy(refused)
      }
      deps.counter.count(workspaceId, credentialId, operation, answer.status)
      observe({ requestId, request, operation, route: `${request.method} ${operation}`, unrouted: true, answer, startedAt, workspaceId, credentialId, ...ended })
      return respond(answer, headers)
    },

    /** A URL longer than the API reads (`max` characters): 414, in the envelope, before it is parsed. */
    uriTooLong(request: Request, address: string, max: number): Response {
      const requestId = newId('request')
      const headers = { 'X-Request-Id': requestId, ...rateHeaders(anonymous.hit(address)) }
      const err = new HttpError('invalid_request', `The URL is ${request.url.length} characters long; this API reads URLs of at most ${max} characters.`, {}, 414)
      deps.counter.count('', '', 'unknown_route', err.status)
      return answered(request, requestId, 'unknown_route', failure(err, requestId, 'read', deps.log, 'unknown'), headers)
    },

    /** A failure outside any operation (the framework itself): 500 internal, recorded. */
    crash(err: unknown, address: string, request: Request): Response {
      const requestId = newId('request')
      const headers = { 'X-Request-Id': requestId, ...rateHeaders(anonymous.peek(address)) }
      deps.counter.count('', '', 'unknown_route', 500)
      const answer = failure(err, requestId, 'read', deps.log, 'unknown')
      return answered(request, requestId, 'unknown_route', answer, headers)
    },
  }
}

/** The workspace and credential a refusal of a revoked or expired credential names, for its request-log entry. */
function endedBy(err: unknown): { workspaceId: string; credentialId: string } | undefined {
  return err instanceof EndedCredential ? { workspaceId: err.workspaceId, credentialId: err.credentialId } : undefined
}
