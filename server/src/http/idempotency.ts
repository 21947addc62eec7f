import { createHash } from 'node:crypto'
import { canonicalJson } from '../core/canonical-json.ts'
import type { Caller } from '../core/caller.ts'
import type { Tx } from '../core/db.ts'
import { findAnswer, saveAnswer, tryLockKey } from '../store/idempotency.ts'
import { type Answer, HttpError } from './answer.ts'
import { observeIdempotency } from '../core/metrics.ts'

/** The Idempotency-Key window (spec: Limits). */
const KEY_TTL_HOURS = 24
const MAX_KEY_LENGTH = 255

/**
 * What a key may hold: visible ASCII, spaces only between characters. HTTP trims a header value's
 * surrounding whitespace (a key of spaces arrives empty) and carries non-ASCII text only as bytes
 * each side may read differently, so the document states this pattern and the server holds to it.
 */
export const IDEMPOTENCY_KEY = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/

/** The request's Idempotency-Key, if it sent one: 1 to 255 visible ASCII characters. */
export function idempotencyKey(request: Request): string | null {
  const key = request.headers.get('idempotency-key')
  if (key !== null && (key.length === 0 || key.length > MAX_KEY_LENGTH)) {
    throw new HttpError('invalid_request', `Idempotency-Key must be 1 to ${MAX_KEY_LENGTH} characters long (got ${key.length}).`)
  }
  if (key !== null && !IDEMPOTENCY_KEY.test(key)) {
    throw new HttpError('invalid_request', 'Idempotency-Key must be visible ASCII characters (spaces only between them), e.g. a UUID.')
  }
  return key
}

/** Where a key is kept: per workspace and mode, per agent for agent credentials. */
function keyScope(caller: Caller): string {
  return caller.mode === 'agent' ? `agent:${caller.agentId}` : caller.mode
}

/**
 * The keys this process is answering a write under. The transaction's advisory lock (below) says
 * the same across processes, but only once the transaction has begun: on the embedded database,
 * which has one session, a second request's BEGIN waited for the first to finish and then replayed
 * it, where the spec gives 409 while the first is in flight. Held from before BEGIN to after COMMIT.
 */
const keysInFlight = new Set<string>()

/** Runs `write` (the keyed write's whole transaction) holding the key in this process; 409 if it is held. */
export async function holdingKey<T>(caller: Caller, key: string, write: () => Promise<T>): Promise<T> {
  const held = `${caller.workspaceId}\u0001${keyScope(caller)}\u0001${key}`
  if (keysInFlight.has(held)) throw inFlight()
  keysInFlight.add(held)
  try {
    return await write()
  } finally {
    keysInFlight.delete(held)
  }
}

function inFlight(): HttpError {
  observeIdempotency('in_progress')
  return new HttpError('conflict', 'A request with this Idempotency-Key is still being answered; retry shortly with the same key.')
}

/**
 * A write under an Idempotency-Key, inside its transaction: the key is locked for the transaction
 * (a second request under it meanwhile is 409, retry shortly); an answer kept under it is replayed
 * (a different request under it is 422); otherwise the write runs and its final answer is kept for
 * 24 hours. Keys are scoped per workspace and mode, per agent for agent credentials. The lock goes
 * with the transaction, so a process that dies mid-request frees its keys as its connection closes.
 */
export async function withIdempotency(
  tx: Tx,
  opts: { caller: Caller; key: string; requestId: string; request: { method: string; path: string; raw: unknown } },
  run: () => Promise<Answer>,
): Promise<Answer> {
  const { caller, key } = opts
  const scope = keyScope(caller)
  const requestHash = createHash('sha256').update(`${opts.request.method} ${opts.request.path}\n${canonicalJson(opts.request.raw)}`).digest('hex')
  if (!(await tryLockKey(tx, caller.workspaceId, scope, key))) throw inFlight()
  const stored = await findAnswer(tx, caller.workspaceId, scope, key)
  if (stored) {
    if (stored.requestHash !== requestHash) {
      observeIdempotency('key_reused')
      throw new HttpError('idempotency_key_reused', 'This Idempotency-Key was used in the last 24 hours with a different request; use a new key for a new request.')
    }
    observeIdempotency('replayed')
    return { status: stored.status, body: replayed(stored, opts.requestId), headers: { 'Idempotent-Replayed': 'true' } }
  }
  const answer = await run()
  await saveAnswer(tx, caller.workspaceId, scope, key, { requestHash, status: answer.status, body: answer.body }, KEY_TTL_HOURS)
  return answer
}

/**
 * The first answer, again. A kept refusal is replayed as it was, but for its requestId, which is
 * always the id of the request being answered (the X-Request-Id of this answer).
 */
function replayed(stored: { status: number; body: string }, requestId: string): string {
  if (stored.status < 400) return stored.body
  const body = JSON.parse(stored.body) as { error: Record<string, unknown> }
  return JSON.stringify({ error: { ...body.error, requestId } })
}
