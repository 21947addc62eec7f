import type { Db } from '../core/db.ts'

export type SignInLinkRow = { workspace_id: string; token_hash: string; person_id: string; created_at: Date; expires_at: Date; used_at: Date | null }

export async function insertSignInLink(tx: Db, l: { workspaceId: string; hash: string; personId: string; at: Date; expiresAt: Date }) {
  await tx`
    INSERT INTO sign_in_links (workspace_id, token_hash, person_id, created_at, expires_at)
    VALUES (${l.workspaceId}, ${l.hash}, ${l.personId}, ${l.at}, ${l.expiresAt})`
}

/** The link with this hash, as it is now (not locked: for a look that changes nothing). */
export async function selectSignInLink(sql: Db, workspaceId: string, hash: string): Promise<SignInLinkRow | undefined> {
  const [row] = await sql<SignInLinkRow[]>`
    SELECT * FROM sign_in_links WHERE workspace_id = ${workspaceId} AND token_hash = ${hash}`
  return row
}

/** The link with this hash, locked until the transaction ends (two redeems at once: one wins). */
export async function lockSignInLink(tx: Db, workspaceId: string, hash: string): Promise<SignInLinkRow | undefined> {
  const [row] = await tx<SignInLinkRow[]>`
    SELECT * FROM sign_in_links WHERE workspace_id = ${workspaceId} AND token_hash = ${hash} FOR UPDATE`
  return row
}

export async function markLinkUsed(tx: Db, workspaceId: string, hash: string, at: Date) {
  await tx`UPDATE sign_in_links SET used_at = ${at} WHERE workspace_id = ${workspaceId} AND token_hash = ${hash}`
}

/** Every unused link of the person becomes unusable (the person removed). */
export async function useUpLinksOf(tx: Db, workspaceId: string, personId: string, at: Date) {
  await tx`UPDATE sign_in_links SET used_at = ${at} WHERE workspace_id = ${workspaceId} AND person_id = ${personId} AND used_at IS NULL`
}

/** Housekeeping: links that expired before `before` (used or not) are deleted; how many. */
export async function purgeSignInLinks(sql: Db, before: Date): Promise<number> {
  const r = await sql`DELETE FROM sign_in_links WHERE expires_at < ${before}`
  return r.count
}
