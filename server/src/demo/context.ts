import type { Tx } from '../core/db.ts'
import type { EventType } from '../core/event-types.ts'
import type { Money } from '../core/money.ts'
import type { Rng } from './random.ts'

export const DAY = 86_400_000
export const HOUR = 3_600_000
export const MINUTE = 60_000

export const money = (amountMinor: number, currency: string): Money => ({ amountMinor, currency })

export type DemoAgent = { id: string; name: string }

/** What every step of the seed works with: the transaction, the workspace, the one generator, the clock and the events so far. */
export type DemoContext = {
  tx: Tx
  workspaceId: string
  /** `workspace_id` of every row, to spread into it. */
  ws: { workspace_id: string }
  /** The one seeded generator: every step draws from it in turn, so the order of the steps is fixed. */
  r: Rng
  /** The demo's "now": the history ends here. */
  now: Date
  ago: (days: number) => Date
  /** Some time in the `spreadDays` (one by default) before `days` ago; draws from the generator. */
  agoJitter: (days: number, spreadDays?: number) => Date
  /** Where each step records the events of its history (written to the outbox once, at the end). */
  events: { add(type: EventType, at: Date, data: Record<string, unknown>): void }
  /** The agents of the workspace, the Budget Pacer first, then the Lifecycle Writer. */
  agents: DemoAgent[]
}

export function demoContext(tx: Tx, workspaceId: string, opts: { now: Date; agents: DemoAgent[]; r: Rng; events: DemoContext['events'] }): DemoContext {
  const { r } = opts
  const now = opts.now.getTime()
  return {
    tx,
    workspaceId,
    ws: { workspace_id: workspaceId },
    r,
    now: opts.now,
    ago: (days) => new Date(now - days * DAY),
    agoJitter: (days, spreadDays = 1) => new Date(now - (days + r.float(0, spreadDays)) * DAY),
    events: opts.events,
    agents: opts.agents,
  }
}
