import type { Sql } from '../core/db.ts'

/** How long a scrape waits for the database's answer before it counts the database as away. */
const ANSWER_WITHIN_MS = 2_000

/**
 * Whether the database answers a statement now, within ANSWER_WITHIN_MS (growth_database_up): 1, or
 * 0 when it is refused, fails or takes longer. Read at each scrape, so an outage shows as a gauge of
 * its own instead of only as the share of 500s (and the backlog's last value kept meanwhile).
 */
export async function databaseUp(sql: Sql): Promise<number> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const late = new Promise<number>((resolve) => (timer = setTimeout(resolve, ANSWER_WITHIN_MS, 0)))
  const answered = sql`SELECT 1`.then(
    () => 1,
    () => 0,
  )
  try {
    return await Promise.race([answered, late])
  } finally {
    clearTimeout(timer)
  }
}
