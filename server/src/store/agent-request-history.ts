import type { Db } from '../core/db.ts'
import type { GatewayDecision } from '../core/enums.ts'

/**
 * The recorded agent requests as the backtest reads them (domain/agent-policy-backtest.ts): what
 * each asked, what was decided, at which rules version, oldest first; and the times of the allowed
 * ones, which count conditions count.
 */

export type HistoryRow = {
  id: string
  agent_id: string
  tool: string
  action: string
  /**
   * The facts the request stated, as PostgreSQL writes the jsonb out (keys in its own order: facts
   * alike give the same text), unparsed: the backtest keys its decisions by this text and parses
   * only the facts of an ask it has not decided yet.
   */
  facts: string
  /** The facts it was judged on, when they differ from those stated (read from its params), as text; null otherwise. */
  judged_facts: string | null
  decision: GatewayDecision
  reason: string
  rules_version: number
  created_at: Date
}

/**
 * Every request recorded in [since, until), oldest first, `batch` rows at a time through one
 * cursor (the rows are never all held at once). The caller sends no other statement on `sql`
 * while it consumes them (an embedded database serves one connection).
 */
export function requestHistory(sql: Db, workspaceId: string, range: { since: Date; until: Date }, batch = 5_000): AsyncIterable<HistoryRow[]> {
  return sql<HistoryRow[]>`
    SELECT id, agent_id, tool, action, facts::text AS facts, judged_facts::text AS judged_facts, decision, reason, rules_version, created_at FROM agent_requests
    WHERE workspace_id = ${workspaceId} AND created_at >= ${range.since} AND created_at < ${range.until}
    ORDER BY created_at, id`.cursor(batch)
}

type AllowedRow = { agent_id: string; tool: string; action: string; created_at: Date }

/** The allowed requests recorded in [since, until), oldest first: what a count condition counts. */
export function selectAllowedTimes(sql: Db, workspaceId: string, range: { since: Date; until: Date }): Promise<AllowedRow[]> {
  return sql<AllowedRow[]>`
    SELECT agent_id, tool, action, created_at FROM agent_requests
    WHERE workspace_id = ${workspaceId} AND decision = 'allowed' AND created_at >= ${range.since} AND created_at < ${range.until}
    ORDER BY created_at, id`
}
