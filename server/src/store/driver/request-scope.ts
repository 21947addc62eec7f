import { AsyncLocalStorage } from 'node:async_hooks'
import type { Sql, Tx } from '../../core/db.ts'
import { type ObservedQuery, statementObservers } from './statement-observers.ts'

/**
 * The queries of one request, so that they can be cancelled when it ends early: its client went
 * away, or it ran out of time. Every query postgres.js sends while a request's scope is active
 * (in a transaction or not, in any pool) registers with the scope as it is sent and leaves it when
 * it settles; cancelling the scope cancels what is still outstanding: a query waiting for a
 * connection is taken out of the queue at once, and one running on a PostgreSQL server gets a
 * cancel request (pg_cancel_backend's protocol message), so its connection is free again.
 *
 * postgres.js has no hook for this; its queries are one class (Query, a Promise) whose handle()
 * sends them, so that method is wrapped once for the process. `cancelRunning: false` (PGlite, which
 * takes no cancel request) cancels only the queries still waiting.
 */

type Query = Promise<unknown> & {
  executed: boolean
  active: boolean
  handle(): Promise<void>
  canceller: ((q: Query) => Promise<void>) | null
}
type Scope = {
  queries: Set<Query>
  /** The deadline has passed: the request was answered 500 (or will be, once its commit settles). */
  expired: boolean
  /**
   * How many of the request's transactions (or statements) are committing: while any is, the deadline
   * waits for its outcome (transactionInTime). A count, not a flag: one commit's end must not let the
   * deadline answer 500 while another's COMMIT is still out.
   */
  committing: number
  deadlineMs: number
}

const scopes = new AsyncLocalStorage<Scope>()
/** Per pool (keyed by its canceller, one per postgres.js instance): whether a running statement may be cancelled. */
const cancelRunningOf = new WeakMap<object, boolean>()
let wrapped = false

export function trackQueries(sql: Sql, opts: { cancelRunning: boolean }): void {
  // A query is sent only when awaited: this one never is, it only shows the class and the pool's canceller.
  const sample = sql`SELECT 1` as unknown as Query
  if (sample.canceller) cancelRunningOf.set(sample.canceller, opts.cancelRunning)
  if (wrapped) return
  wrapped = true
  const proto = Object.getPrototypeOf(sample) as Query
  const handle = proto.handle
  proto.handle = function (this: Query) {
    const scope = this.executed ? undefined : scopes.getStore()
    if (scope) {
      scope.queries.add(this)
      const settled = () => void scope.queries.delete(this)
      // The native then: Query's own would send the query again.
      Promise.prototype.then.call(this, settled, settled)
    }
    if (statementObservers.length && !this.executed) observe(this)
    return handle.call(this)
  }
}

/** Tells the statement observers of `q` now, and each that asks of its end. */
function observe(q: Query) {
  const query = q as unknown as ObservedQuery
  // One observer (the SQL spans) is the common case: no arrays per statement then.
  if (statementObservers.length === 1) {
    const end = statementObservers[0]!(query)
    if (end) Promise.prototype.then.call(q, () => end(query), (error) => end(query, error))
    return
  }
  const ends = statementObservers.map((o) => o(query)).filter((e) => e !== undefined)
  if (ends.length) Promise.prototype.then.call(q, () => ends.forEach((end) => end(query)), (error) => ends.forEach((end) => end(query, error)))
}

/** Cancel what the scope still has outstanding. */
function cancelAll(scope: Scope) {
  for (const q of scope.queries) {
    if (!q.canceller || (q.active && !cancelRunningOf.get(q.canceller))) continue
    const cancel = q.canceller
    q.canceller = null
    // A cancel request that cannot be delivered (the database is away) changes nothing.
    cancel(q)?.catch?.(() => {})
  }
  scope.queries.clear()
}

/**
 * Runs `fn` (one request) with its queries tracked: when `signal` aborts (Bun aborts a request's
 * signal when its client disconnects) or `deadlineMs` passes, its outstanding queries are
 * cancelled, and past the deadline the returned promise rejects with a RequestTimeout at once,
 * whatever the database is doing, but for a commit of the request's already sent
 * (transactionInTime): its outcome is the answer, given within the time again at most.
 */
export async function withRequestScope<T>(signal: AbortSignal, deadlineMs: number, fn: () => Promise<T>): Promise<T> {
  const scope: Scope = { queries: new Set(), expired: false, committing: 0, deadlineMs }
  const onAbort = () => cancelAll(scope)
  signal.addEventListener('abort', onAbort, { once: true })
  let timer: ReturnType<typeof setTimeout> | undefined
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      scope.expired = true
      const expire = () => {
        cancelAll(scope)
        reject(new RequestTimeout(deadlineMs))
      }
      // A COMMIT already sent decides the answer: the work's own (a commit fails when its
      // connection does). Answering 500 meanwhile would say a write failed that then commits. A
      // commit that has no outcome within the time again (the database unreachable) is answered
      // 500 then: it may or may not have committed, which only a retry with the key can settle.
      if (scope.committing > 0) timer = setTimeout(expire, deadlineMs)
      else expire()
    }, deadlineMs)
  })
  const work = scopes.run(scope, fn)
  // Whatever the work does after the deadline answered, it must not become an unhandled rejection.
  work.catch(() => {})
  try {
    return await Promise.race([work, deadline])
  } finally {
    clearTimeout(timer)
    signal.removeEventListener('abort', onAbort)
  }
}

/**
 * `sql.begin(fn)` for a request's write: a transaction whose request has been answered 500 for its
 * time is rolled back, never committed afterwards (the client was told the write failed, and one
 * that sent no Idempotency-Key can only send it again). Past `fn`, just before COMMIT, the deadline
 * is looked at: passed, the transaction rolls back with the time-out; not yet, the COMMIT is sent
 * and the deadline, should it pass meanwhile, waits for the commit's outcome (withRequestScope).
 * Outside a request's scope it is `sql.begin(fn)`.
 */
export async function transactionInTime<T>(sql: Sql, fn: (tx: Tx) => Promise<T>): Promise<T> {
  const scope = scopes.getStore()
  if (!scope) return sql.begin(fn) as Promise<T>
  let committing = false
  try {
    return (await sql.begin(async (tx) => {
      const result = await fn(tx)
      if (scope.expired) throw new RequestTimeout(scope.deadlineMs)
      // From here (this tick) to the commit's outcome, the deadline waits for it.
      committing = true
      scope.committing++
      return result
    })) as T
  } finally {
    if (committing) scope.committing--
  }
}

/**
 * One statement of a request's that commits by itself (autocommit, or a batch's): sent only while
 * the deadline has not passed, and then waited for by the deadline as a commit is.
 */
export async function statementInTime<T>(fn: () => Promise<T>): Promise<T> {
  const scope = scopes.getStore()
  if (!scope) return fn()
  return commitsFor([scope], fn)
}

/** The request's deadline, for work done outside its scope on its behalf (a batch: store/driver/batcher.ts). */
export type RequestDeadline = { readonly scope: Scope }

export function requestDeadline(): RequestDeadline | undefined {
  const scope = scopes.getStore()
  return scope ? { scope } : undefined
}

/** The time-out of a request whose deadline has passed (its work must not commit), or undefined. */
export function timedOut(deadline: RequestDeadline | undefined): Error | undefined {
  return deadline?.scope.expired ? new RequestTimeout(deadline.scope.deadlineMs) : undefined
}

/**
 * Runs `fn`, which commits on behalf of the requests of `deadlines` (each not yet expired: see
 * timedOut), with their deadlines waiting for its outcome.
 */
export function committingFor<T>(deadlines: (RequestDeadline | undefined)[], fn: () => Promise<T>): Promise<T> {
  return commitsFor(deadlines.flatMap((d) => (d ? [d.scope] : [])), fn)
}

async function commitsFor<T>(list: Scope[], fn: () => Promise<T>): Promise<T> {
  const expired = list.find((s) => s.expired)
  if (expired) throw new RequestTimeout(expired.deadlineMs)
  for (const s of list) s.committing++
  try {
    return await fn()
  } finally {
    for (const s of list) s.committing--
  }
}

/** A request that did not finish within its time: answered 500 internal. */
class RequestTimeout extends Error {
  constructor(readonly ms: number) {
    super(`the request did not finish within ${ms} ms`)
  }
}

/** Runs `fn` outside any request's scope: work shared by several requests (a batch) is no one request's to cancel. */
export function outsideRequestScope<T>(fn: () => T): T {
  return scopes.exit(fn)
}
