import type { Sql } from '../core/db.ts'

/** Deliveries waiting to be sent, across every workspace (growth_webhook_backlog; the partial index of pending deliveries answers it). */
export async function webhookBacklog(sql: Sql): Promise<number> {
  const [row] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'pending'`
  return row!.n
}

/** Endpoints whose circuit is open or half open (growth_webhook_circuits_open). */
export async function openCircuits(sql: Sql): Promise<number> {
  const [row] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM webhook_endpoints WHERE circuit <> 'closed'`
  return row!.n
}
