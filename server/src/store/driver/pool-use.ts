import type { Sql } from '../../core/db.ts'

/**
 * What the database pools are doing, for growth_db_pool_connections: connections in use (running
 * statements, held by a transaction, or opening for a statement) and statements waiting for one,
 * across every pool of the process. Read from postgres.js's own connection queues when scraped (the
 * `pool` getter our patch of it adds, patches/postgres+3.4.9.patch), so a statement costs nothing
 * for it: following each statement instead (a set entry and a callback each) cost the API about 5%
 * of its CPU with metrics on (docs/performance.md).
 */
type PoolState = { in_use: number; waiting: number }

/** Each pool opened by this process (store/driver/db.ts), held weakly: a pool dropped leaves. */
const pools = new Set<WeakRef<Sql>>()

export function countPool(sql: Sql): void {
  pools.add(new WeakRef(sql))
}

/** One pool's connections in use and statements waiting, now. */
export function poolState(sql: Sql): PoolState {
  const state = (sql as unknown as { pool?: PoolState }).pool
  // Without the patch (an install that skipped postinstall) there is nothing to read: said, not guessed.
  if (!state) throw new Error('postgres.js is not patched (patches/postgres+3.4.9.patch): run npm install')
  return state
}

/** Every pool of the process, summed. */
export function poolUse(): PoolState {
  const use: PoolState = { in_use: 0, waiting: 0 }
  for (const ref of pools) {
    const sql = ref.deref()
    if (!sql) {
      pools.delete(ref)
      continue
    }
    const state = poolState(sql)
    use.in_use += state.in_use
    use.waiting += state.waiting
  }
  return use
}
