import type { Sql } from '../core/db.ts'
import { selectEventSeq, selectEvents } from '../store/events.ts'

/**
 * Watching a workspace's event stream from this process, for pages that update themselves (the
 * console's live updates). Several server processes share one database, so an event written by any
 * of them (a person in another process, the CLI, the gateway) is learnt the way `GET /events` is
 * read: by its position in the stream. One poll per workspace watched, whatever the number of
 * watchers, and only while someone watches; each watcher costs a callback in a set.
 */

/** What changed: the event types and the ids of the things they name (approvals, actions, agent requests). */
export type WatchedChange = { types: string[]; ids: string[] }

type Watch = {
  seq: number | null
  listeners: Set<(c: WatchedChange) => void>
  timer: ReturnType<typeof setInterval>
  busy: boolean
  started: Promise<void>
  /** The last poll failed: the next failures of the same run are not reported again. */
  failing: boolean
}

const BATCH = 500

/** Ids an event names: its approval, action or agent request, and the approval a request waits on. */
function idsOf(data: Record<string, unknown>): string[] {
  const ids: string[] = []
  for (const key of ['approval', 'action', 'request']) {
    const thing = data[key] as { id?: unknown; approvalId?: unknown } | undefined
    if (typeof thing?.id === 'string') ids.push(thing.id)
    if (typeof thing?.approvalId === 'string') ids.push(thing.approvalId)
  }
  return ids
}

export class EventWatcher {
  private watches = new Map<string, Watch>()

  constructor(
    private readonly sql: Sql,
    private readonly opts: {
      everyMs: number
      types: (type: string) => boolean
      /** A poll failed (the database is away): called once for a run of failures, not at every poll; again after a poll succeeds. */
      onError?: (error: unknown) => void
    },
  ) {}

  /**
   * Calls `listener` with each batch of matching events committed after the watch started; returns
   * the unsubscribe, and `started`, which resolves once the starting position is known (an event
   * committed after that is never missed).
   */
  watch(workspaceId: string, listener: (c: WatchedChange) => void): { stop: () => void; started: Promise<void> } {
    let w = this.watches.get(workspaceId)
    if (!w) {
      const created: Watch = {
        seq: null,
        listeners: new Set(),
        busy: false,
        failing: false,
        started: Promise.resolve(),
        timer: setInterval(() => void this.poll(workspaceId, created), this.opts.everyMs),
      }
      created.timer.unref?.()
      created.started = this.poll(workspaceId, created)
      w = created
      this.watches.set(workspaceId, w)
    }
    w.listeners.add(listener)
    const watch = w
    const stop = () => {
      watch.listeners.delete(listener)
      if (watch.listeners.size === 0 && this.watches.get(workspaceId) === watch) {
        clearInterval(watch.timer)
        this.watches.delete(workspaceId)
      }
    }
    return { stop, started: watch.started }
  }

  /** How many pages watch, over all workspaces. */
  get watching(): number {
    let n = 0
    for (const w of this.watches.values()) n += w.listeners.size
    return n
  }

  /** Stops every poll (the server's shutdown). */
  close() {
    for (const w of this.watches.values()) clearInterval(w.timer)
    this.watches.clear()
  }

  private async poll(workspaceId: string, w: Watch) {
    if (w.busy) return
    w.busy = true
    try {
      if (w.seq === null) {
        w.seq = await selectEventSeq(this.sql, workspaceId)
        w.failing = false
        return
      }
      const rows = await selectEvents(this.sql, workspaceId, { afterSeq: w.seq, limit: BATCH })
      w.failing = false
      if (!rows.length) return
      w.seq = Number(rows.at(-1)!.seq)
      const matching = rows.filter((r) => this.opts.types(r.type))
      if (!matching.length) return
      const change = { types: [...new Set(matching.map((r) => r.type))], ids: [...new Set(matching.flatMap((r) => idsOf(r.data)))] }
      for (const l of w.listeners) l(change)
    } catch (error) {
      if (!w.failing) this.opts.onError?.(error)
      w.failing = true
    } finally {
      w.busy = false
    }
  }
}
