import { type ObservedQuery, observeStatements } from './statement-observers.ts'

/**
 * What the database pools are doing, for growth_db_pool_connections: statements on a connection
 * (in_use) and statements waiting for one (waiting), across every pool of the process. postgres.js
 * keeps its connection queues to itself; its statements are what we see (one statement holds one
 * connection, so in_use is the connections busy and waiting the requests queued for one).
 */
const outstanding = new Set<ObservedQuery>()

export function trackPoolUse(): void {
  observeStatements(observer)
}

/** Told of each statement sent; what it returns is called with the statement once settled (one function for all: no allocation per statement). */
function observer(q: ObservedQuery) {
  outstanding.add(q)
  return settled
}

function settled(q: ObservedQuery) {
  outstanding.delete(q)
}

export function poolUse(): { in_use: number; waiting: number } {
  let inUse = 0
  for (const q of outstanding) if (q.active) inUse++
  return { in_use: inUse, waiting: outstanding.size - inUse }
}
