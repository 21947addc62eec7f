import type { Sql } from './db.ts'

export type AuthenticatedRow = {
  id: string
  kind: 'live' | 'test' | 'agent'
  agent_id: string | null
  scopes: string[]
  secret_key: string
  api_access: boolean
  used: number
}

/**
 * One round trip for the hot path: find a live credential by (workspace, hash), join its
 * workspace's plan, and count this request in the credential's rate-limit window, all in one
 * statement. Returns nothing when the credential is unknown, revoked or expired.
 */
export async function authenticateAndCount(
  sql: Sql,
  workspaceId: string,
  tokenHash: string,
  windowStart: Date,
): Promise<AuthenticatedRow | undefined> {
  const rows = await sql<AuthenticatedRow[]>`
    WITH cred AS (
      SELECT c.id, c.kind, c.agent_id, c.scopes, w.secret_key, p.api_access
      FROM credentials c
      JOIN workspaces w ON w.workspace_id = c.workspace_id
      JOIN plans p ON p.plan = w.plan
      WHERE c.workspace_id = ${workspaceId} AND c.token_hash = ${tokenHash}
        AND c.revoked_at IS NULL AND (c.expires_at IS NULL OR c.expires_at > now())
    ), counted AS (
      INSERT INTO rate_limit_counters AS r (workspace_id, credential_id, window_start, count)
      SELECT ${workspaceId}, cred.id, ${windowStart}, 1 FROM cred
      ON CONFLICT (workspace_id, credential_id, window_start) DO UPDATE SET count = r.count + 1
      RETURNING r.count
    )
    SELECT cred.*, (SELECT count FROM counted) AS used FROM cred`
  return rows[0]
}

/** Drop rate-limit windows that ended more than an hour ago. */
export async function purgeRateLimitWindows(sql: Sql): Promise<number> {
  const r = await sql`DELETE FROM rate_limit_counters WHERE window_start < now() - interval '2 hours'`
  return r.count
}
