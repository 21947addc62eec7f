import type { Sql } from '../core/db.ts'
import { recordDecisions, type DecisionToRecord, type Recorded } from './agent-gateway.ts'
import { waitForFlush } from './db.ts'
import { outsideRequestScope } from './request-scope.ts'

type Pending = { decision: DecisionToRecord; resolve: (r: Recorded) => void; reject: (e: unknown) => void }
type Group = { workspaceId: string; periodStart: string; waiting: Pending[]; inFlight: boolean; scheduled: boolean }

/**
 * Records the agent gateway's decisions (POST /agent/authorize) that arrive together for one
 * workspace in one statement (recordDecisions), so that the two rows every decision of a workspace
 * locks, its allowance counter and its event sequence, are locked once per batch rather than once
 * per request: sixteen agents asking at once take turns on them as a few batches, not as sixteen.
 * Built like the credential check (http/credential-batch.ts): one statement in flight per workspace,
 * and what arrives meanwhile goes into the next one.
 *
 * The batch is all or nothing in the database; so that one decision cannot fail its neighbours, a
 * batch refused for its data (a data or constraint error) or by an allowance without room for all
 * of it is recorded again one decision at a time, in arrival order: near the end of the allowance
 * the first ones still fit and only the rest are refused, exactly as one at a time. A failure of
 * the database itself (unreachable, a time-out) is every decision's answer at once: trying each
 * again alone would only hold the workspace's later decisions behind it.
 *
 * The statements go through `unflushed`, a pool whose commits do not wait for the WAL flush, so
 * the shared rows are free again at once; each decision is answered only after a flush barrier on
 * `flushed` (waitForFlush), shared by the whole batch, so an answered decision is durable.
 *
 * A batch serves several requests, so it runs outside their request scopes: a client that goes
 * away, or a request past its time-out, does not cancel it. Such a decision is recorded although
 * its answer is never read, as one whose own statement had already finished would be; its agent,
 * which had no answer, asks again.
 */
export class DecisionBatch {
  private groups = new Map<string, Group>()

  constructor(
    private readonly unflushed: Sql,
    private readonly flushed: Sql,
  ) {}

  record(workspaceId: string, periodStart: string, decision: DecisionToRecord): Promise<Recorded> {
    const key = `${workspaceId}\u0001${periodStart}`
    let group = this.groups.get(key)
    if (!group) this.groups.set(key, (group = { workspaceId, periodStart, waiting: [], inFlight: false, scheduled: false }))
    const g = group
    return new Promise((resolve, reject) => {
      g.waiting.push({ decision, resolve, reject })
      this.schedule(key, g)
    })
  }

  private schedule(key: string, g: Group) {
    if (g.scheduled || g.inFlight) return
    if (g.waiting.length === 0) {
      this.groups.delete(key)
      return
    }
    g.scheduled = true
    // The batch serves several requests: a client that goes away must not cancel the others' statement.
    queueMicrotask(() =>
      outsideRequestScope(() => {
        g.scheduled = false
        void this.flush(key, g)
      }),
    )
  }

  private async flush(key: string, g: Group) {
    if (g.inFlight || g.waiting.length === 0) return
    const batch = g.waiting
    g.waiting = []
    g.inFlight = true
    let outcomes: ({ ok: true; value: Recorded } | { ok: false; error: unknown })[]
    try {
      outcomes = await this.recordAll(g, batch)
    } finally {
      g.inFlight = false
      this.schedule(key, g)
    }
    // Answered only once durable; the next batch of the workspace need not wait for this flush.
    try {
      if (outcomes.some((o) => o.ok && o.value.recorded)) await waitForFlush(this.flushed)
    } catch (err) {
      for (const p of batch) p.reject(err)
      return
    }
    batch.forEach((p, i) => {
      const o = outcomes[i]!
      if (o.ok) p.resolve(o.value)
      else p.reject(o.error)
    })
  }

  private async recordAll(g: Group, batch: Pending[]) {
    const record = (ds: DecisionToRecord[]) => recordDecisions(this.unflushed, g.workspaceId, g.periodStart, ds)
    if (batch.length > 1) {
      try {
        const all = await record(batch.map((p) => p.decision))
        if (all.recorded) return batch.map(() => ({ ok: true as const, value: all }))
      } catch (error) {
        // A failure of the database or the connection (not of one decision's data) would fail each
        // one alone too: answer them all with it now rather than wait for it again one by one.
        if (!isDataError(error)) return batch.map(() => ({ ok: false as const, error }))
        // One at a time below: each decision gets its own outcome.
      }
    }
    const outcomes: ({ ok: true; value: Recorded } | { ok: false; error: unknown })[] = []
    for (const p of batch) {
      try {
        outcomes.push({ ok: true, value: await record([p.decision]) })
      } catch (error) {
        outcomes.push({ ok: false, error })
      }
    }
    return outcomes
  }
}

/** A statement refused for the data it was given (SQLSTATE class 22, data exception, or 23, integrity constraint violation). */
function isDataError(error: unknown): boolean {
  const code = (error as { code?: unknown }).code
  return typeof code === 'string' && /^2[23][0-9A-Z]{3}$/.test(code)
}

/** One DecisionBatch per pool that records without waiting for the flush (the server makes one such pool). */
const batches = new WeakMap<Sql, DecisionBatch>()

export function decisionBatch(unflushed: Sql, flushed: Sql): DecisionBatch {
  let batch = batches.get(unflushed)
  if (!batch) batches.set(unflushed, (batch = new DecisionBatch(unflushed, flushed)))
  return batch
}
