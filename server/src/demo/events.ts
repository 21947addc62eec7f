import type { Tx } from '../core/db.ts'
import type { EventType } from '../core/event-types.ts'
import { appendEvents } from '../store/events.ts'
import { DAY } from './context.ts'

/** Frequent event types keep only this recent stretch in the outbox; rare ones keep all history. */
const FREQUENT_EVENT_DAYS = 30
const FREQUENT_EVENTS = new Set<EventType>(['decision.recorded', 'decision.measured', 'contact.created', 'contact.updated', 'workflow.started'])

type DemoEvent = { type: EventType; at: Date; data: Record<string, unknown> }

/** The events of the demo's history, collected by every step as it happens and written once at the end. */
export class DemoEvents {
  private events: DemoEvent[] = []

  add(type: EventType, at: Date, data: Record<string, unknown>) {
    this.events.push({ type, at, data })
  }

  /**
   * Into the outbox through the API's own append, in one statement: the events up to `now` (the
   * frequent kinds only of the last FREQUENT_EVENT_DAYS), in time order (ties in the order they
   * happened), so they are numbered 1..N in time order and the workspace's event_seq ends at N.
   */
  async write(tx: Tx, workspaceId: string, now: Date) {
    const since = now.getTime() - FREQUENT_EVENT_DAYS * DAY
    const kept = this.events
      .filter((e) => e.at.getTime() <= now.getTime() && (!FREQUENT_EVENTS.has(e.type) || e.at.getTime() >= since))
      .map((e, i) => ({ e, i }))
      .sort((a, b) => a.e.at.getTime() - b.e.at.getTime() || a.i - b.i)
    await appendEvents(tx, workspaceId, kept.map(({ e }) => ({ type: e.type, data: e.data, at: e.at })))
  }
}
