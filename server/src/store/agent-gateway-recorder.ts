import type { Db, Sql } from '../core/db.ts'
import type { DecisionBatch } from './agent-gateway-batch.ts'
import { statementInTime } from './driver/request-scope.ts'
import type { GatewayViewCache } from './agent-gateway-view-cache.ts'
import { type DecisionToRecord, type GatewayAsk, type GatewayView, type Recorded, recordDecisions, selectGatewayView } from './agent-gateway.ts'

/** What recording a decision came to, once a kept view that no longer held was read again: recorded, or refused by the allowance. */
export type Counted = Exclude<Recorded, { stale: true }>

/**
 * What the gateway's rule made of a view: a decision to record (`answer` turns what recording came
 * to into the answer, or throws), or that a person is needed (`withPerson` takes the decision
 * itself, in a transaction of its own; asked only on a view read for this decision).
 */
export type Ruling<T> =
  | { periodStart: string; decision: Omit<DecisionToRecord, 'viewDigest'>; answer: (outcome: Counted) => T }
  | { withPerson: () => Promise<T> }

/**
 * The agent gateway's one way to the database for a decision (POST /agent/authorize): given the
 * database handle the request runs on, what is asked and the rule, it finds the view to judge
 * against, records what the rule decided and answers it. On its own pool it judges an ask made
 * again against the view kept from the last read (GatewayViewCache, checked in the recording
 * statement) and records with the decisions ready at the same moment (DecisionBatch, when it has
 * one); in a transaction (a request with an Idempotency-Key, a test token's), it reads and records
 * in that transaction. Built once at start (server.ts).
 */
export type RecordDecision = <T>(db: Db, workspaceId: string, ask: GatewayAsk, rule: (view: GatewayView) => Promise<Ruling<T>>) => Promise<T>

/**
 * The recorder of a server: `pool`, the pool requests run on; `views`, the views kept for it;
 * `batch`, the decision batch recording through the pool that does not wait for the WAL flush (on a
 * PostgreSQL server). Given nothing, it reads and records on whatever handle it is given, one
 * decision a statement, keeping nothing.
 */
export function decisionRecorder(opts: { pool?: Sql; views?: GatewayViewCache; batch?: DecisionBatch } = {}): RecordDecision {
  return async function recordDecision<T>(db: Db, workspaceId: string, ask: GatewayAsk, rule: (view: GatewayView) => Promise<Ruling<T>>): Promise<T> {
    const onPool = db === opts.pool
    const views = onPool ? opts.views : undefined
    const batch = onPool ? opts.batch : undefined
    // On the pool without a batch, one statement that commits by itself: within the request's time.
    const save = (periodStart: string, d: DecisionToRecord) =>
      batch ? batch.record(workspaceId, periodStart, d) : 'savepoint' in db ? recordDecisions(db, workspaceId, periodStart, [d]) : statementInTime(() => recordDecisions(db, workspaceId, periodStart, [d]))

    const kept = views?.get(workspaceId, ask)
    if (kept) {
      const ruling = await rule(kept.view)
      // A decision that needs a person is never taken on a kept view: it is taken on the read below.
      if (!('withPerson' in ruling)) {
        const outcome = await save(ruling.periodStart, { ...ruling.decision, viewDigest: kept.digest })
        if (!isStale(outcome)) return ruling.answer(outcome)
        // The database no longer holds that view: nothing was written; decide again on a fresh read.
        views!.delete(workspaceId, ask)
      }
    }
    const read = await selectGatewayView(db, workspaceId, ask)
    if (!read) throw new Error(`workspace ${workspaceId} of a valid credential is missing`)
    const ruling = await rule(read.view)
    let answer: T
    if ('withPerson' in ruling) answer = await ruling.withPerson()
    else {
      const outcome = await save(ruling.periodStart, { ...ruling.decision, viewDigest: null })
      if (isStale(outcome)) throw new Error('a decision on a fresh read was refused as stale')
      answer = ruling.answer(outcome)
    }
    // Kept once a decision was taken on it.
    views?.set(workspaceId, ask, read)
    return answer
  }
}

const isStale = (outcome: Recorded): outcome is Extract<Recorded, { stale: true }> => !outcome.recorded && outcome.stale
