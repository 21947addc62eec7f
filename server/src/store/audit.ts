import type { Actor } from '../core/actor.ts'
import type { Db } from '../core/db.ts'

type AuditRow = { workspace_id: string; id: string; at: Date; actor: Actor; action: string; subject: string; detail: Record<string, unknown> }

export async function insertAuditEntry(tx: Db, e: { workspaceId: string; id: string; at: Date; actor: Actor; action: string; subject: string; detail: Record<string, unknown> }) {
  await tx`
    INSERT INTO audit_entries (workspace_id, id, at, actor, action, subject, detail)
    VALUES (${e.workspaceId}, ${e.id}, ${e.at}, ${tx.json(e.actor as never)}, ${e.action}, ${e.subject}, ${tx.json(e.detail as never)})`
}

/** Which entries: of these actions, by an actor of this kind (and id), about this subject. */
export type AuditWhere = { actions?: string[]; actorKind?: 'person' | 'operator' | 'system'; actorId?: string; subject?: string }

/**
 * The workspace's entries, newest first; with `before`, those older than that entry (the index's
 * order); with `where`, only those it names (read along the same index: a workspace's audit list
 * is people's doings, thousands, not millions).
 */
export async function selectAuditEntries(sql: Db, workspaceId: string, limit: number, before?: { at: Date; id: string }, where: AuditWhere = {}): Promise<AuditRow[]> {
  return sql<AuditRow[]>`
    SELECT * FROM audit_entries
    WHERE workspace_id = ${workspaceId} ${before ? sql`AND (at, id) < (${before.at}, ${before.id})` : sql``}
      ${where.actions ? sql`AND action = ANY(${where.actions})` : sql``}
      ${where.actorKind ? sql`AND actor->>'kind' = ${where.actorKind}` : sql``}
      ${where.actorId ? sql`AND actor->>'id' = ${where.actorId}` : sql``}
      ${where.subject ? sql`AND subject = ${where.subject}` : sql``}
    ORDER BY at DESC, id DESC LIMIT ${limit}`
}
