import type { Db, Sql } from '../core/db.ts'

/**
 * The mail outbox (migration 0019): mail to people, shared by every server process. Senders claim
 * due mail with FOR UPDATE SKIP LOCKED under a lease, as the webhook workers claim deliveries; a
 * lease that runs out (its sender died) makes the mail pending again.
 */

export type WaitingItem = { kind: 'approval' | 'action'; id: string }

export type ClaimedMail = {
  workspace_id: string
  id: string
  person_id: string
  kind: 'sign_in_link' | 'invitation' | 'waiting'
  items: WaitingItem[]
  /** The attempt this claim makes (1 for the first). */
  attempt: number
  expires_at: Date
  /** The person it goes to, as they are now, and their workspace's name. */
  email: string
  name: string
  role: 'owner' | 'approver' | 'viewer'
  removed: boolean
  workspace_name: string
  /** An invitation's inviter, by their name now (null: not an invitation, or the inviter unknown). */
  invited_by_name: string | null
}

/**
 * Tells each owner and approver of the workspace (not removed) that `item` waits: added to their
 * notice still gathering, or a new notice. In the transaction that made the item wait, so the
 * notice is kept exactly when the item is.
 */
export async function queueWaitingNotices(tx: Db, workspaceId: string, item: WaitingItem, ids: () => string, at: Date, expiresAt: Date): Promise<number> {
  const deciders = await tx<{ id: string }[]>`
    SELECT id FROM people WHERE workspace_id = ${workspaceId} AND removed_at IS NULL AND role IN ('owner', 'approver') ORDER BY id`
  if (!deciders.length) return 0
  // In the order of the people's ids: two requests at once lock their notices in the same order.
  const personIds = deciders.map((d) => d.id)
  const mailIds = personIds.map(() => ids())
  await tx`
    INSERT INTO mail_outbox AS o (workspace_id, id, person_id, kind, items, next_attempt_at, expires_at, created_at)
    SELECT ${workspaceId}, m.id, m.person_id, 'waiting', ${tx.json([item] as never)}, ${at}, ${expiresAt}, ${at}
    FROM unnest(${mailIds}::text[], ${personIds}::text[]) AS m(id, person_id)
    ON CONFLICT (workspace_id, person_id) WHERE kind = 'waiting' AND status = 'pending' AND attempts = 0
    DO UPDATE SET items = o.items || excluded.items, expires_at = GREATEST(o.expires_at, excluded.expires_at)`
  return personIds.length
}

/**
 * A sign-in link to mail to the person (made when it goes), due now, of no use after `expiresAt`:
 * one they asked for, or the link of an invitation (`kind`: each is written in its own words).
 */
/** `invitedBy`: for an invitation, the id of the person who invited. */
export async function queueSignInMail(sql: Db, m: { workspaceId: string; id: string; personId: string; at: Date; expiresAt: Date; kind: 'sign_in_link' | 'invitation'; invitedBy?: string }) {
  await sql`
    INSERT INTO mail_outbox (workspace_id, id, person_id, kind, next_attempt_at, expires_at, created_at, invited_by)
    VALUES (${m.workspaceId}, ${m.id}, ${m.personId}, ${m.kind}, ${m.at}, ${m.expiresAt}, ${m.at}, ${m.invitedBy ?? null})`
}

/**
 * Claims due mail: pending, due, not expired; a notice never attempted only when the person's last
 * notice was first claimed at least `paceMs` ago (what came meanwhile has gathered in it).
 */
export async function claimMail(sql: Sql, c: { owner: string; leaseMs: number; paceMs: number; limit: number }): Promise<ClaimedMail[]> {
  return sql<ClaimedMail[]>`
    WITH picked AS (
      SELECT o.workspace_id, o.id FROM mail_outbox o
      WHERE o.status = 'pending' AND o.next_attempt_at <= now() AND o.expires_at > now()
        AND (o.kind <> 'waiting' OR o.attempts > 0 OR NOT EXISTS (
          SELECT 1 FROM mail_outbox prev
          WHERE prev.workspace_id = o.workspace_id AND prev.person_id = o.person_id AND prev.kind = 'waiting'
            AND prev.claimed_at IS NOT NULL AND prev.claimed_at > now() - make_interval(secs => ${c.paceMs / 1000})))
      ORDER BY o.next_attempt_at, o.id
      LIMIT ${c.limit}
      FOR UPDATE OF o SKIP LOCKED
    )
    UPDATE mail_outbox o
    SET status = 'sending', attempts = o.attempts + 1, lease_owner = ${c.owner},
        lease_until = now() + make_interval(secs => ${c.leaseMs / 1000}), claimed_at = COALESCE(o.claimed_at, now())
    FROM picked p
    JOIN people pe ON pe.workspace_id = p.workspace_id
    JOIN workspaces w ON w.workspace_id = p.workspace_id
    WHERE o.workspace_id = p.workspace_id AND o.id = p.id AND pe.id = o.person_id
    RETURNING o.workspace_id, o.id, o.person_id, o.kind, o.items, o.attempts AS attempt, o.expires_at,
              pe.email, pe.name, pe.role, pe.removed_at IS NOT NULL AS removed, w.name AS workspace_name,
              (SELECT i.name FROM people i WHERE i.workspace_id = o.workspace_id AND i.id = o.invited_by) AS invited_by_name`
}

type Outcome =
  | { status: 'sent' }
  /** Not sent and not to be: the person removed, nothing left waiting, the schedule run out, or a permanent refusal. */
  | { status: 'failed' | 'dropped'; error: string | null }
  | { status: 'pending'; error: string; nextAttemptAt: Date }

/**
 * What became of a claimed mail, if this sender still holds it; the last failure's words are kept
 * (a mail sent at its third attempt says why the first two failed). A dropped notice (nothing sent)
 * does not count for the person's pace.
 */
export async function recordMail(sql: Db, m: { workspaceId: string; id: string; owner: string }, o: Outcome) {
  const error = o.status === 'sent' ? null : o.error
  const next = o.status === 'pending' ? o.nextAttemptAt : null
  const done = o.status === 'pending' ? null : new Date()
  await sql`
    UPDATE mail_outbox SET status = ${o.status}, last_error = COALESCE(${error}, last_error), next_attempt_at = COALESCE(${next}, next_attempt_at), done_at = ${done},
      lease_owner = NULL, lease_until = NULL, claimed_at = ${o.status === 'dropped' ? sql`NULL` : sql`claimed_at`}
    WHERE workspace_id = ${m.workspaceId} AND id = ${m.id} AND status = 'sending' AND lease_owner = ${m.owner}`
}

/** Mail whose sender's lease ran out (it died, or stopped mid-send) goes again. */
export async function reapMailLeases(sql: Sql): Promise<number> {
  const r = await sql`UPDATE mail_outbox SET status = 'pending', lease_owner = NULL, lease_until = NULL WHERE status = 'sending' AND lease_until < now()`
  return r.count
}

/** A stopping sender gives back what it still holds. */
export async function releaseMailLeases(sql: Sql, owner: string) {
  await sql`UPDATE mail_outbox SET status = 'pending', lease_owner = NULL, lease_until = NULL WHERE status = 'sending' AND lease_owner = ${owner}`
}

/**
 * Housekeeping: mail that can no longer go (past its expiry) is dropped; finished mail older than
 * `keepMs` is deleted.
 */
export async function purgeMail(sql: Sql, now: Date, keepMs: number): Promise<number> {
  await sql`
    UPDATE mail_outbox SET status = 'dropped', done_at = ${now}, last_error = COALESCE(last_error, 'Not sent before it expired.'), claimed_at = NULL
    WHERE status = 'pending' AND expires_at <= ${now}`
  const r = await sql`DELETE FROM mail_outbox WHERE done_at < ${new Date(now.getTime() - keepMs)}`
  return r.count
}
