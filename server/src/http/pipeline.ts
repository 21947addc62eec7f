import { createHash } from 'node:crypto'
import { hashToken, parseToken } from '../domain/tokens.ts'
import { ApiError, errorBody, RecordedRefusal, UNAUTHORIZED_MESSAGE } from '../errors.ts'
import { newId } from '../ids.ts'
import type { Caller, Operation, ReadOperation, WriteOperation } from '../routes/operation.ts'
import type { Sql, Tx } from '../store/db.ts'
import { findAnswer, saveAnswer, tryLockKey } from '../store/idempotency.ts'
import { canonicalJson } from '../canonical-json.ts'
import { readJsonObject } from './body.ts'
import type { CallCounter } from './call-counter.ts'
import { CredentialChecker } from './credential-check.ts'
import { isOver, LIMITS, MemoryLimiter, rateHeaders, type RateState, WINDOW_MS } from './rate-limit.ts'
import { parseBody, parseQuery } from './validate.ts'
import type { Logger } from '../log.ts'

export type PipelineDeps = {
  /** Domain reads and writes. */
  sql: Sql
  /** Credential lookup and rate-limit counting (on a server: a pool with synchronous_commit off). */
  counterSql: Sql
  counter: CallCounter
  log: Logger
  /** Per client address, for calls without a valid credential: public endpoints, unknown routes. */
  anonymous?: MemoryLimiter
  /** Per client address: failed authentications, so tokens cannot be guessed at speed. */
  authFailures?: MemoryLimiter
  idempotencyTtlHours?: number
}

const JSON_TYPE = 'application/json; charset=utf-8'
const SIMULATED = JSON.stringify({ data: { simulated: true } })
const MAX_KEY_LENGTH = 255

/** Thrown inside a test-mode write's savepoint to undo everything it did. */
class Simulated extends Error {}

type Answer = { status: number; body: string; headers?: Record<string, string> }

/** A refusal as the answer to send: the envelope's error, with the refusal's own headers. */
function refusalAnswer(err: ApiError): Answer {
  return { status: err.status, body: errorBody(err.code, err.message), headers: err.headers }
}

/**
 * Which refusals are final answers, kept under the Idempotency-Key and replayed to a retry with it:
 * a RecordedRefusal (its record is committed with it, so it must not be recorded twice), and any
 * other refusal by the rules (4xx). Not kept, so a retry with the key runs again: 409 (the state
 * or the key is busy and may change), 429 (retry later) and every 5xx.
 */
function isKept(err: unknown): err is ApiError {
  if (err instanceof RecordedRefusal) return true
  return err instanceof ApiError && err.status < 500 && err.status !== 409 && err.status !== 429
}

export function createPipeline(deps: PipelineDeps) {
  const anonymous = deps.anonymous ?? new MemoryLimiter(1200, WINDOW_MS)
  const authFailures = deps.authFailures ?? new MemoryLimiter(20, 60_000)
  const ttlHours = deps.idempotencyTtlHours ?? 24
  const credentials = new CredentialChecker(deps.counterSql)

  function finish(answer: Answer, headers: Record<string, string>): Response {
    return new Response(answer.body, {
      status: answer.status,
      headers: { ...headers, ...answer.headers, 'Content-Type': JSON_TYPE },
    })
  }

  function failure(err: unknown, requestId: string, operationId: string): Answer {
    if (err instanceof ApiError) return refusalAnswer(err)
    deps.log.error('request failed', { requestId, operationId, error: err })
    return {
      status: 500,
      body: errorBody('internal', `Something went wrong on our side; it has been recorded as ${requestId}. Retry with the same Idempotency-Key.`),
    }
  }

  /** Authenticate the bearer token, count it against its rate limit, and apply kind, plan and scope. */
  async function authenticate(op: Operation, request: Request, address: string, headers: Record<string, string>) {
    const refuse = (): never => {
      const state = authFailures.hit(address)
      Object.assign(headers, rateHeaders(state))
      throw new ApiError('unauthorized', UNAUTHORIZED_MESSAGE)
    }
    const throttled = authFailures.peek(address)
    if (throttled.used >= throttled.limit) {
      const h = rateHeaders({ ...throttled, used: throttled.limit + 1 })
      Object.assign(headers, h)
      throw new ApiError(
        'rate_limited',
        `Too many failed authentication attempts from this address; retry after ${h['Retry-After']} seconds.`,
      )
    }
    const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.get('authorization') ?? '')
    const parsed = match ? parseToken(match[1]!) : null
    if (!parsed) return refuse()
    const checked = await credentials.check(parsed.workspaceId, hashToken(match![1]!))
    if (!checked) return refuse()
    const { row } = checked

    const state: RateState = {
      limit: row.kind === 'agent' ? LIMITS.agent : LIMITS.workspace,
      used: checked.used,
      resetAt: checked.windowStart + WINDOW_MS,
    }
    const caller: Caller = {
      workspaceId: parsed.workspaceId,
      credentialId: row.id,
      mode: row.kind,
      agentId: row.agent_id,
      scopes: row.scopes,
      secretKey: row.secret_key,
      rateLimit: { limit: state.limit, remaining: Math.max(0, state.limit - state.used), resetAt: new Date(state.resetAt) },
    }
    if (caller.mode === 'test') headers['X-Service-Mode'] = 'test'
    Object.assign(headers, rateHeaders(state))
    const result = { caller, error: undefined as ApiError | undefined }
    if (isOver(state)) {
      result.error = new ApiError(
        'rate_limited',
        `Rate limit of ${state.limit} requests per hour for this ${caller.mode === 'agent' ? 'agent credential' : 'token'} reached; retry after ${headers['Retry-After']} seconds.`,
      )
    } else if (op.auth.kind === 'agent' && caller.mode !== 'agent') {
      result.error = new ApiError('forbidden', `${op.method} /api/v1${op.path} takes an agent credential (svc_agt_...), not a workspace token.`)
    } else if (op.auth.kind === 'workspace' && caller.mode === 'agent') {
      result.error = new ApiError(
        'forbidden',
        `Agent credentials open only the /api/v1/agent/ endpoints; ${op.method} /api/v1${op.path} takes a workspace token.`,
      )
    } else if (!row.api_access) {
      result.error = new ApiError('plan_required', "This workspace's plan does not include API access; upgrade to the growth or scale plan.")
    } else if (op.auth.kind === 'workspace' && !caller.scopes.includes(op.auth.scope)) {
      result.error = new ApiError('forbidden', `This token lacks the scope ${op.auth.scope}, which ${op.method} /api/v1${op.path} requires.`)
    }
    return result
  }

  async function read(op: ReadOperation, url: URL, caller: Caller, requestId: string): Promise<Answer> {
    const query = parseQuery(op.query, url)
    const result = await op.handler({ query, caller, sql: deps.sql, requestId })
    return { status: 200, body: envelope(op.response.shape, result) }
  }

  async function write(op: WriteOperation, request: Request, caller: Caller, requestId: string): Promise<Answer> {
    const key = request.headers.get('idempotency-key')
    if (key !== null && (key.length === 0 || key.length > MAX_KEY_LENGTH)) {
      throw new ApiError('invalid_request', `Idempotency-Key must be 1 to ${MAX_KEY_LENGTH} characters long (got ${key.length}).`)
    }
    parseQuery(undefined, new URL(request.url))
    const raw = await readJsonObject(request)
    const body = parseBody(op.body.model.schema, raw)
    const test = caller.mode === 'test'

    const runDomain = async (tx: Tx): Promise<Answer> => {
      let data: unknown
      try {
        data = await op.handler({ body, caller, tx, requestId })
      } catch (err) {
        // The handler recorded why it refused: commit that record and answer the refusal (kept, see
        // isKept). Only agent operations record refusals, and agent credentials are never test mode.
        if (err instanceof RecordedRefusal) return refusalAnswer(err)
        throw err
      }
      if (test) throw new Simulated()
      return { status: 201, body: JSON.stringify({ data }) }
    }

    if (key === null) {
      try {
        return await deps.sql.begin((tx) => runDomain(tx))
      } catch (err) {
        if (err instanceof Simulated) return { status: 200, body: SIMULATED }
        throw err
      }
    }

    const scope = caller.mode === 'agent' ? `agent:${caller.agentId}` : caller.mode
    const requestHash = createHash('sha256')
      .update(`${op.method} ${op.path}\n${canonicalJson(raw)}`)
      .digest('hex')
    return deps.sql.begin(async (tx) => {
      if (!(await tryLockKey(tx, caller.workspaceId, scope, key))) {
        throw new ApiError('conflict', 'A request with this Idempotency-Key is still being answered; retry shortly with the same key.')
      }
      const stored = await findAnswer(tx, caller.workspaceId, scope, key)
      if (stored) {
        if (stored.requestHash !== requestHash) {
          throw new ApiError(
            'idempotency_key_reused',
            'This Idempotency-Key was used in the last 24 hours with a different request; use a new key for a new request.',
          )
        }
        return { status: stored.status, body: stored.body, headers: { 'Idempotent-Replayed': 'true' } }
      }
      let answer: Answer
      try {
        answer = await tx.savepoint((sp) => runDomain(sp))
      } catch (err) {
        if (err instanceof Simulated) answer = { status: 200, body: SIMULATED }
        else if (isKept(err)) answer = refusalAnswer(err)
        else throw err
      }
      await saveAnswer(tx, caller.workspaceId, scope, key, { requestHash, status: answer.status, body: answer.body }, ttlHours)
      return answer
    })
  }

  return {
    /** Answer one request for `op`, whatever happens, in the envelope. */
    async handle(op: Operation, request: Request, address: string): Promise<Response> {
      const requestId = newId('request')
      const headers: Record<string, string> = { 'X-Request-Id': requestId }
      let workspaceId = ''
      let credentialId = ''
      let answer: Answer
      try {
        if (op.auth.kind === 'public') {
          const state = anonymous.hit(address)
          Object.assign(headers, rateHeaders(state))
          if (isOver(state)) {
            throw new ApiError('rate_limited', `Rate limit of ${state.limit} requests per hour without a credential reached for this address; retry after ${headers['Retry-After']} seconds.`)
          }
          answer = await read(op as ReadOperation, new URL(request.url), null as never, requestId)
        } else {
          const { caller, error } = await authenticate(op, request, address, headers)
          workspaceId = caller.workspaceId
          credentialId = caller.credentialId
          if (error) throw error
          answer =
            op.method === 'GET'
              ? await read(op, new URL(request.url), caller, requestId)
              : await write(op, request, caller, requestId)
        }
      } catch (err) {
        answer = failure(err, requestId, op.operationId)
      }
      deps.counter.count(workspaceId, credentialId, op.operationId, answer.status)
      return finish(answer, headers)
    },

    /** Unknown route or wrong method: 404 not_found in the envelope, with the usual headers. */
    notFound(request: Request, address: string): Response {
      const requestId = newId('request')
      const headers = { 'X-Request-Id': requestId, ...rateHeaders(anonymous.hit(address)) }
      const url = new URL(request.url)
      deps.counter.count('', '', 'unknown_route', 404)
      return finish(
        {
          status: 404,
          body: errorBody('not_found', `No endpoint ${request.method} ${url.pathname}. GET /api/v1 lists every endpoint.`),
        },
        headers,
      )
    },

    /** A failure outside any operation (the framework itself): 500 internal, recorded. */
    crash(err: unknown, address: string): Response {
      const requestId = newId('request')
      const headers = { 'X-Request-Id': requestId, ...rateHeaders(anonymous.peek(address)) }
      deps.counter.count('', '', 'unknown_route', 500)
      return finish(failure(err, requestId, 'unknown'), headers)
    },
  }
}

/** `{ data }`, or `{ data, meta }` only when meta has something to say. */
function envelope(shape: 'item' | 'list' | 'page' | 'raw', result: unknown): string {
  if (shape === 'raw') return JSON.stringify(result)
  if (shape === 'page') {
    const page = result as { data: unknown[]; meta?: Record<string, unknown> }
    const meta = page.meta && Object.values(page.meta).some((v) => v !== undefined && v !== null) ? page.meta : undefined
    return JSON.stringify(meta ? { data: page.data, meta } : { data: page.data })
  }
  return JSON.stringify({ data: result })
}
