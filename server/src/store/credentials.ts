import type { Db, Sql, Tx } from '../core/db.ts'

export type AuthenticatedRow = {
  workspace_id: string
  token_hash: string
  id: string
  kind: 'live' | 'test' | 'agent'
  agent_id: string | null
  scopes: string[]
  secret_key: string
  api_access: boolean
  /** The credential's count in this window after this statement's increments. */
  used: number
}

/**
 * One statement for a batch of requests: find each live credential by (workspace, hash), join its
 * workspace's plan, and add `n` (the requests presenting it in this batch) to its rate-limit
 * window. Counter rows are upserted in a fixed order, so two processes' batches never deadlock.
 * Unknown, revoked and expired credentials are simply absent from the result.
 */
export async function authenticateAndCount(
  sql: Sql,
  items: { workspaceId: string; tokenHash: string; n: number }[],
  windowStart: Date,
): Promise<AuthenticatedRow[]> {
  return sql<AuthenticatedRow[]>`
    WITH req AS (
      SELECT * FROM unnest(${items.map((i) => i.workspaceId)}::text[], ${items.map((i) => i.tokenHash)}::text[],
                           ${items.map((i) => i.n)}::int[]) AS r(workspace_id, token_hash, n)
    ), cred AS (
      SELECT c.workspace_id, c.token_hash, r.n, c.id, c.kind, c.agent_id, c.scopes, w.secret_key, p.api_access
      FROM req r
      JOIN credentials c ON c.workspace_id = r.workspace_id AND c.token_hash = r.token_hash
      JOIN workspaces w ON w.workspace_id = c.workspace_id
      JOIN plans p ON p.plan = w.plan
      WHERE c.revoked_at IS NULL AND (c.expires_at IS NULL OR c.expires_at > now())
    ), counted AS (
      INSERT INTO rate_limit_counters AS rc (workspace_id, credential_id, window_start, count)
      SELECT workspace_id, id, ${windowStart}, n FROM cred ORDER BY workspace_id, id
      ON CONFLICT (workspace_id, credential_id, window_start) DO UPDATE SET count = rc.count + excluded.count
      RETURNING rc.workspace_id, rc.credential_id, rc.count
    )
    SELECT cred.workspace_id, cred.token_hash, cred.id, cred.kind, cred.agent_id, cred.scopes, cred.secret_key,
           cred.api_access, counted.count AS used
    FROM cred JOIN counted ON counted.workspace_id = cred.workspace_id AND counted.credential_id = cred.id`
}

/** Drop rate-limit windows that ended more than an hour ago. */
export async function purgeRateLimitWindows(sql: Sql): Promise<number> {
  const r = await sql`DELETE FROM rate_limit_counters WHERE window_start < now() - interval '2 hours'`
  return r.count
}

export async function insertCredential(
  tx: Db,
  c: { workspaceId: string; id: string; kind: 'live' | 'test' | 'agent'; agentId?: string; hash: string; hint: string; scopes: string[]; expiresAt: Date | null },
) {
  await tx`
    INSERT INTO credentials (workspace_id, id, kind, agent_id, token_hash, token_hint, scopes, expires_at)
    VALUES (${c.workspaceId}, ${c.id}, ${c.kind}, ${c.agentId ?? null}, ${c.hash}, ${c.hint}, ${c.scopes}, ${c.expiresAt})`
}

/**
 * Revoke a credential by id, in whichever workspace holds it (or only in `workspaceId`, when
 * given: the console's owner revokes their own workspace's). Undefined if there is none.
 */
export async function revokeCredential(sql: Db, id: string, workspaceId?: string): Promise<{ workspaceId: string; alreadyRevoked: boolean } | undefined> {
  const row = await credentialWorkspace(sql, id)
  if (!row || (workspaceId !== undefined && row.workspace_id !== workspaceId)) return undefined
  if (!row.revoked_at) {
    await sql`UPDATE credentials SET revoked_at = now() WHERE workspace_id = ${row.workspace_id} AND id = ${id} AND revoked_at IS NULL`
  }
  return { workspaceId: row.workspace_id, alreadyRevoked: row.revoked_at !== null }
}

/** Which workspace holds the credential `id` (any workspace's: ids are unique), and whether it is revoked. */
async function credentialWorkspace(sql: Db, id: string): Promise<{ workspace_id: string; revoked_at: Date | null } | undefined> {
  const [row] = await sql<{ workspace_id: string; revoked_at: Date | null }[]>`SELECT workspace_id, revoked_at FROM credentials WHERE id = ${id}`
  return row
}

/** The id of the workspace's credential whose token has this hash (revoked ones too), if any. */
export async function credentialIdByHash(sql: Db, workspaceId: string, hash: string): Promise<string | undefined> {
  const [row] = await sql<{ id: string }[]>`SELECT id FROM credentials WHERE workspace_id = ${workspaceId} AND token_hash = ${hash}`
  return row?.id
}

/** Whether the workspace has (or had: revoked ones count) this credential. */
export async function credentialExists(sql: Db, workspaceId: string, id: string): Promise<boolean> {
  return (await sql`SELECT 1 FROM credentials WHERE workspace_id = ${workspaceId} AND id = ${id}`).length > 0
}

type TokenRow = {
  id: string
  kind: 'live' | 'test'
  token_hint: string
  scopes: string[]
  created_at: Date
  expires_at: Date | null
  revoked_at: Date | null
  last_used_at: Date | null
  /** The token that took its place, once it was rotated. */
  replaced_by: string | null
}

/**
 * A workspace's tokens (not its agents' credentials), newest first, with when each was last used
 * (kept by the call counts' flush, at most a minute behind: null, no use on record).
 */
/** A workspace's API tokens (or the one of id `only`): those in force first, then the ended ones, each newest first. */
export async function selectTokens(sql: Db, workspaceId: string, limit: number, only?: string): Promise<TokenRow[]> {
  return sql<TokenRow[]>`
    SELECT c.id, c.kind, c.token_hint, c.scopes, c.created_at, c.expires_at, c.revoked_at,
           c.last_used_at, c.replaced_by
      FROM credentials c
     WHERE c.workspace_id = ${workspaceId} AND c.kind IN ('live', 'test') ${only === undefined ? sql`` : sql`AND c.id = ${only}`}
     ORDER BY (c.revoked_at IS NULL AND (c.expires_at IS NULL OR c.expires_at > now())) DESC, c.created_at DESC, c.id DESC
     LIMIT ${limit}`
}

type AgentCredentialRow = { id: string; token_hint: string; created_at: Date; expires_at: Date | null; revoked_at: Date | null; replaced_by: string | null }

/** An agent's credentials, newest first (revoked and expired ones too: the page says which). */
export async function selectAgentCredentials(sql: Db, workspaceId: string, agentId: string): Promise<AgentCredentialRow[]> {
  return sql<AgentCredentialRow[]>`
    SELECT id, token_hint, created_at, expires_at, revoked_at, replaced_by FROM credentials
     WHERE workspace_id = ${workspaceId} AND agent_id = ${agentId} AND kind = 'agent'
     ORDER BY created_at DESC, id DESC`
}

/** End a credential at `at` (sooner only: a credential already ending earlier keeps its end), replaced by `replacedBy`. */
export async function endCredentialAt(sql: Db, workspaceId: string, id: string, at: Date, replacedBy: string) {
  await sql`
    UPDATE credentials SET expires_at = LEAST(COALESCE(expires_at, ${at}), ${at}), replaced_by = ${replacedBy}
     WHERE workspace_id = ${workspaceId} AND id = ${id} AND revoked_at IS NULL`
}

/**
 * A workspace token for a rotation, named by its id alone: its workspace found first (a read of every
 * workspace, as revokeCredential's), then the row locked with it until the transaction ends (two
 * rotations of it at once: one waits and sees the other's).
 */
export async function lockToken(
  tx: Tx,
  id: string,
): Promise<{ workspace_id: string; kind: 'live' | 'test' | 'agent'; scopes: string[]; expires_at: Date | null; revoked_at: Date | null } | undefined> {
  const found = await credentialWorkspace(tx, id)
  if (!found) return undefined
  const [row] = await tx<{ workspace_id: string; kind: 'live' | 'test' | 'agent'; scopes: string[]; expires_at: Date | null; revoked_at: Date | null }[]>`
    SELECT workspace_id, kind, scopes, expires_at, revoked_at FROM credentials WHERE workspace_id = ${found.workspace_id} AND id = ${id} FOR UPDATE`
  return row
}

/** One credential of the agent, locked until the transaction ends (two rotations of it at once: one waits and sees the other's). */
export async function lockAgentCredential(tx: Tx, workspaceId: string, agentId: string, id: string): Promise<AgentCredentialRow | undefined> {
  const [row] = await tx<AgentCredentialRow[]>`
    SELECT id, token_hint, created_at, expires_at, revoked_at, replaced_by FROM credentials
     WHERE workspace_id = ${workspaceId} AND agent_id = ${agentId} AND kind = 'agent' AND id = ${id}
       FOR UPDATE`
  return row
}
