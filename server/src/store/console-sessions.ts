import type { Db } from '../core/db.ts'
import type { PersonRow } from './people.ts'

type SessionRow = {
  workspace_id: string
  token_hash: string
  person_id: string
  csrf_secret: string
  created_at: Date
  last_seen_at: Date
  ended_at: Date | null
}

export async function insertSession(tx: Db, s: { workspaceId: string; hash: string; personId: string; csrfSecret: string; at: Date }) {
  await tx`
    INSERT INTO console_sessions (workspace_id, token_hash, person_id, csrf_secret, created_at, last_seen_at)
    VALUES (${s.workspaceId}, ${s.hash}, ${s.personId}, ${s.csrfSecret}, ${s.at}, ${s.at})`
}

/** The session with this hash, with its person and the workspace's name. */
export async function selectSession(
  sql: Db,
  workspaceId: string,
  hash: string,
): Promise<{ session: SessionRow; person: PersonRow; workspaceName: string } | undefined> {
  const [row] = await sql<(SessionRow & { p: PersonRow; workspace_name: string })[]>`
    SELECT s.*, to_jsonb(p) AS p, w.name AS workspace_name
    FROM console_sessions s
    JOIN people p ON p.workspace_id = s.workspace_id AND p.id = s.person_id
    JOIN workspaces w ON w.workspace_id = s.workspace_id
    WHERE s.workspace_id = ${workspaceId} AND s.token_hash = ${hash}`
  if (!row) return undefined
  const { p, workspace_name, ...session } = row
  const person: PersonRow = { ...p, created_at: new Date(p.created_at), removed_at: p.removed_at ? new Date(p.removed_at) : null, signed_in_at: p.signed_in_at ? new Date(p.signed_in_at) : null }
  return { session, person, workspaceName: workspace_name }
}

export async function touchSession(sql: Db, workspaceId: string, hash: string, at: Date) {
  await sql`UPDATE console_sessions SET last_seen_at = ${at} WHERE workspace_id = ${workspaceId} AND token_hash = ${hash} AND last_seen_at < ${at}`
}

/** Ends one session; false when it had already ended (or never existed). */
export async function endSessionRow(tx: Db, workspaceId: string, hash: string, at: Date): Promise<boolean> {
  const r = await tx`UPDATE console_sessions SET ended_at = ${at} WHERE workspace_id = ${workspaceId} AND token_hash = ${hash} AND ended_at IS NULL`
  return r.count > 0
}

/** Ends every open session of the person; how many. */
export async function endSessionsOf(tx: Db, workspaceId: string, personId: string, at: Date): Promise<number> {
  const r = await tx`UPDATE console_sessions SET ended_at = ${at} WHERE workspace_id = ${workspaceId} AND person_id = ${personId} AND ended_at IS NULL`
  return r.count
}

/**
 * Housekeeping: sessions that stopped working before the given times (ended, idle since, or begun
 * before) are deleted; how many.
 */
export async function purgeSessions(sql: Db, c: { endedBefore: Date; seenBefore: Date; createdBefore: Date }): Promise<number> {
  const r = await sql`
    DELETE FROM console_sessions
    WHERE ended_at < ${c.endedBefore} OR last_seen_at < ${c.seenBefore} OR created_at < ${c.createdBefore}`
  return r.count
}
