import type { Caller } from '../core/caller.ts'
import { secretsKeyring } from '../core/secrets.ts'
import { hashToken, parseToken } from '../domain/credentials.ts'
import type { Operation } from '../routes/operation.ts'
import { HttpError } from './answer.ts'
import type { CredentialCheck } from './credential-batch.ts'
import { isOver, LIMITS, type MemoryLimiter, rateHeaders, WINDOW_MS } from './rate-limit.ts'

/** The one wording of every failed authentication, whatever the cause (spec: Authentication 5). */
const UNAUTHORIZED_MESSAGE =
  'Missing or invalid credential. Send Authorization: Bearer <token> with a valid, unrevoked, unexpired token.'

/**
 * A refused token that is one of a workspace's credentials, revoked or expired: the call is that
 * workspace's all the same, so the pipeline writes it in the workspace's request log under the
 * credential (an owner sees what a leaked token kept trying). Answered as every 401 is.
 */
export class EndedCredential extends HttpError {
  constructor(
    readonly workspaceId: string,
    readonly credentialId: string,
  ) {
    super('unauthorized', UNAUTHORIZED_MESSAGE)
  }
}

/** Who is calling, whether they are over their rate limit, and whether their plan includes the API. */
type Authenticated = { caller: Caller; overLimit: boolean; apiAccess: boolean }

/**
 * Step 1 of a request: who is calling, counted against their rate limit. The bearer token is
 * checked and counted in one batched statement (exact across processes), every time: a valid
 * credential is answered whatever else came from its address. A failed authentication counts
 * against the client address, and past the limit the failures from there are answered 429
 * instead of 401, so tokens cannot be guessed at speed; one bad client behind a shared address (an
 * office, a NAT, a proxy) never locks out the valid credentials beside it. Sets the rate-limit
 * headers every answer carries.
 */
export async function authenticate(
  request: Request,
  /** The client's address, asked for only when the credential fails (it costs a look-up). */
  address: () => string,
  headers: Record<string, string>,
  deps: {
    credentials: CredentialCheck
    authFailures: MemoryLimiter
    /** The id of the workspace's credential, revoked or expired, whose token has this hash: asked only for a token refused, within the failures' limit. */
    ended?: (workspaceId: string, hash: string) => Promise<string | undefined>
  },
): Promise<Authenticated> {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.get('authorization') ?? '')
  const parsed = match ? parseToken(match[1]!) : null
  const hash = parsed ? hashToken(match![1]!) : ''
  const checked = parsed ? await deps.credentials.check(parsed.workspaceId, hash) : undefined
  if (!parsed || !checked) {
    const failures = deps.authFailures.hit(address())
    const h = rateHeaders(failures)
    Object.assign(headers, h)
    if (isOver(failures)) {
      throw new HttpError('rate_limited', `Too many failed authentication attempts from this address; retry after ${h['Retry-After']} seconds.`)
    }
    const ended = parsed && deps.ended ? await deps.ended(parsed.workspaceId, hash) : undefined
    if (ended) throw new EndedCredential(parsed!.workspaceId, ended)
    throw new HttpError('unauthorized', UNAUTHORIZED_MESSAGE)
  }
  const { row } = checked

  const state = { limit: row.kind === 'agent' ? LIMITS.agent : LIMITS.workspace, used: checked.used, resetAt: checked.windowStart + WINDOW_MS }
  Object.assign(headers, rateHeaders(state))
  if (row.kind === 'test') headers['X-Service-Mode'] = 'test'
  const caller: Caller = {
    workspaceId: parsed.workspaceId,
    credentialId: row.id,
    mode: row.kind,
    agentId: row.agent_id,
    scopes: row.scopes,
    // Stored sealed; opened once per process (then a Map lookup).
    secretKey: secretsKeyring().open(row.secret_key),
    rateLimit: { limit: state.limit, remaining: Math.max(0, state.limit - state.used), resetAt: new Date(state.resetAt) },
  }
  return { caller, overLimit: isOver(state), apiAccess: row.api_access }
}

/** The credential's call is within its hourly limit, or 429 saying when to retry. */
export function withinRateLimit(who: Authenticated, headers: Record<string, string>): void {
  if (!who.overLimit) return
  const what = who.caller.mode === 'agent' ? 'agent credential' : 'token'
  throw new HttpError('rate_limited', `Rate limit of ${who.caller.rateLimit.limit} requests per hour for this ${what} reached; retry after ${headers['Retry-After']} seconds.`)
}

/**
 * Step 2: the caller may call this operation: within the rate limit, with the kind of credential it
 * takes, on a plan that includes the API, and (a workspace token) with the scope it needs.
 */
export function admit(op: Operation, who: Authenticated, headers: Record<string, string>): void {
  const { caller } = who
  const endpoint = `${op.method} /api/v1${op.path}`
  withinRateLimit(who, headers)
  if (op.auth.kind === 'agent' && caller.mode !== 'agent') {
    throw new HttpError('forbidden', `${endpoint} takes an agent credential (svc_agt_...), not a workspace token.`)
  }
  if (op.auth.kind === 'workspace' && caller.mode === 'agent') {
    throw new HttpError('forbidden', `Agent credentials open only the /api/v1/agent/ endpoints; ${endpoint} takes a workspace token.`)
  }
  if (!who.apiAccess) throw new HttpError('plan_required', "This workspace's plan does not include API access; upgrade to the growth or scale plan.")
  if (op.auth.kind === 'workspace' && !caller.scopes.includes(op.auth.scope)) {
    throw new HttpError('forbidden', `This token lacks the scope ${op.auth.scope}, which ${endpoint} requires.`)
  }
}
