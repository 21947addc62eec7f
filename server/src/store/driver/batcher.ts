import { committingFor, outsideRequestScope, requestDeadline, type RequestDeadline, timedOut } from './request-scope.ts'

/** What one item of a batch came to: its value, or the error it alone failed with. */
export type Settled<R> = { ok: true; value: R } | { ok: false; error: unknown }

type Pending<T, R> = { item: T; resolve: (r: R) => void; reject: (e: unknown) => void; deadline?: RequestDeadline | undefined }
type Queue<T, R> = { waiting: Pending<T, R>[]; inFlight: boolean; scheduled: boolean }

/**
 * Items that arrive while an earlier batch of the same key is in flight are run together as the
 * next batch: one `run` in flight per key, so under load one statement serves many requests, and
 * with nothing in flight an item goes at the next microtask, alone. The shared mechanism of the
 * credential check (http/credential-batch.ts) and the agent gateway's decisions (agent-gateway-batch.ts).
 *
 * `run` answers each item in order (a Settled each); when it throws, every item of the batch gets
 * that error. `afterRun`, when given, runs once the key's next batch may start and before the
 * items are answered (the decisions' flush barrier: the next batch need not wait for it).
 *
 * A batch serves several requests, so it runs outside their request scopes: a client that goes
 * away, or a request past its time-out, does not cancel it. A batcher that writes (`inTime`) keeps
 * to its requests' deadlines all the same: an item whose request was answered 500 for its time
 * before its batch went is not run (it fails with the time-out), and the deadline of every item
 * of a batch under way waits for the batch's outcome (request-scope.ts, committingFor).
 */
export class Batcher<T, R> {
  private queues = new Map<string, Queue<T, R>>()

  constructor(
    private readonly run: (items: T[]) => Promise<Settled<R>[]>,
    private readonly afterRun?: (outcomes: Settled<R>[], items: T[]) => Promise<void>,
    private readonly opts: { inTime?: boolean } = {},
  ) {}

  add(key: string, item: T): Promise<R> {
    let q = this.queues.get(key)
    if (!q) this.queues.set(key, (q = { waiting: [], inFlight: false, scheduled: false }))
    const queue = q
    return new Promise((resolve, reject) => {
      queue.waiting.push({ item, resolve, reject, deadline: this.opts.inTime ? requestDeadline() : undefined })
      this.schedule(key, queue)
    })
  }

  private schedule(key: string, q: Queue<T, R>) {
    if (q.scheduled || q.inFlight) return
    if (q.waiting.length === 0) {
      this.queues.delete(key)
      return
    }
    q.scheduled = true
    queueMicrotask(() =>
      outsideRequestScope(() => {
        q.scheduled = false
        void this.flush(key, q)
      }),
    )
  }

  private async flush(key: string, q: Queue<T, R>) {
    if (q.inFlight || q.waiting.length === 0) return
    const batch: Pending<T, R>[] = []
    for (const p of q.waiting) {
      const late = timedOut(p.deadline)
      if (late) p.reject(late)
      else batch.push(p)
    }
    q.waiting = []
    if (batch.length === 0) return this.schedule(key, q)
    q.inFlight = true
    let released = false
    const release = () => {
      if (released) return
      released = true
      q.inFlight = false
      this.schedule(key, q)
    }
    let outcomes: Settled<R>[]
    try {
      outcomes = await committingFor(
        batch.map((p) => p.deadline),
        async () => {
          const items = batch.map((p) => p.item)
          const ran = await this.run(items)
          // The next batch of this key may start now; these wait for afterRun.
          release()
          await this.afterRun?.(ran, items)
          return ran
        },
      )
    } catch (err) {
      for (const p of batch) p.reject(err)
      return
    } finally {
      release()
    }
    batch.forEach((p, i) => {
      const o = outcomes[i]
      if (!o) p.reject(new Error('a batch answered fewer items than it was given'))
      else if (o.ok) p.resolve(o.value)
      else p.reject(o.error)
    })
  }
}
