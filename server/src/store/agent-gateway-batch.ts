import type { Sql } from '../core/db.ts'
import { recordDecisions, requestsExist, type DecisionToRecord, type Recorded } from './agent-gateway.ts'
import { waitForFlush } from './driver/db.ts'
import { Batcher, type Settled } from './driver/batcher.ts'

type Ask = { workspaceId: string; periodStart: string; decision: DecisionToRecord }

/**
 * Records the agent gateway's decisions (POST /agent/authorize) that arrive together for one
 * workspace in one statement (recordDecisions), so that the two rows every decision of a workspace
 * locks, its allowance counter and its event sequence, are locked once per batch rather than once
 * per request: sixteen agents asking at once take turns on them as a few batches, not as sixteen.
 * On the batching shared with the credential check (store/driver/batcher.ts): one statement in flight per
 * workspace and month, and what arrives meanwhile goes into the next one.
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
 * A batch runs outside its requests' scopes (store/driver/batcher.ts): a decision whose client goes away
 * is recorded although its answer is never read, as one whose own statement had already finished
 * would be; its agent, which had no answer, asks again. But one whose request was answered 500 for
 * its time is not: the batcher keeps to each request's deadline (`inTime`).
 */
export class DecisionBatch {
  private readonly batcher: Batcher<Ask, Recorded>

  constructor(
    private readonly unflushed: Sql,
    private readonly flushed: Sql,
  ) {
    // Answered only once durable; the workspace's next batch need not wait for this flush.
    this.batcher = new Batcher(
      (asks) => this.recordAll(asks),
      (outcomes, asks) => this.durable(asks, outcomes),
      // A decision whose request was answered 500 for its time is not recorded afterwards.
      { inTime: true },
    )
  }

  /**
   * Returns once the batch's recorded decisions are on disk (the flush barrier), or throws when that
   * cannot be known. The barrier runs on another connection than the batch: when it fails (its
   * connection ended, say), the batch has committed all the same, only its flush is unconfirmed, and
   * answering 500 for decisions that stand would have their agents ask again and be counted twice.
   * So the decisions are looked for, on a connection of the pool's choosing: all there, a barrier
   * after that read makes them durable and they are answered as recorded; any missing (a commit not
   * yet flushed when the database crashed is lost with it), the barrier's error is the answer,
   * truthfully: they are not done.
   */
  private async durable(asks: Ask[], outcomes: Settled<Recorded>[]): Promise<void> {
    const recorded = asks.filter((_, i) => wasRecorded(outcomes[i]))
    if (recorded.length === 0) return
    try {
      await waitForFlush(this.flushed)
    } catch (error) {
      if (!(await this.stillRecorded(recorded).catch(() => false))) throw error
    }
  }

  private async stillRecorded(asks: Ask[]): Promise<boolean> {
    const ids = asks.map((a) => a.decision.id)
    if (!(await requestsExist(this.flushed, asks[0]!.workspaceId, ids))) return false
    await waitForFlush(this.flushed)
    return true
  }

  record(workspaceId: string, periodStart: string, decision: DecisionToRecord): Promise<Recorded> {
    return this.batcher.add(`${workspaceId}\u0001${periodStart}`, { workspaceId, periodStart, decision })
  }

  /** The asks of one batch share their workspace and month (the batcher's key). */
  private async recordAll(asks: Ask[]): Promise<Settled<Recorded>[]> {
    const { workspaceId, periodStart } = asks[0]!
    const record = (ds: DecisionToRecord[]) => recordDecisions(this.unflushed, workspaceId, periodStart, ds)
    if (asks.length > 1) {
      try {
        const all = await record(asks.map((a) => a.decision))
        if (all.recorded) return asks.map(() => ({ ok: true as const, value: all }))
      } catch (error) {
        // A failure of the database or the connection (not of one decision's data) would fail each
        // one alone too: answer them all with it now rather than wait for it again one by one.
        if (!isDataError(error)) throw error
        // One at a time below: each decision gets its own outcome.
      }
    }
    const outcomes: Settled<Recorded>[] = []
    for (const a of asks) {
      try {
        outcomes.push({ ok: true, value: await record([a.decision]) })
      } catch (error) {
        outcomes.push({ ok: false, error })
      }
    }
    return outcomes
  }
}

const wasRecorded = (o: Settled<Recorded> | undefined): boolean => o !== undefined && o.ok && o.value.recorded

/** A statement refused for the data it was given (SQLSTATE class 22, data exception, or 23, integrity constraint violation). */
function isDataError(error: unknown): boolean {
  const code = (error as { code?: unknown }).code
  return typeof code === 'string' && /^2[23][0-9A-Z]{3}$/.test(code)
}
