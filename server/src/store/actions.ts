import { contactColumns, type ContactRow } from './contacts.ts'
import type { Sql, Tx } from './db.ts'
import { olderThan, type Position } from './growth.ts'

export type ActionRow = {
  workspace_id: string
  id: string
  kind: string
  args: Record<string, unknown>
  status: string
  planned_effect: { summary: string } & Record<string, unknown>
  limits_allowed: boolean
  refusal_reason: string | null
  proposed_by: { kind: 'api' | 'agent' | 'product'; id: string | null; name: string }
  decided_by: string | null
  decided_at: Date | null
  outcome: { ok: boolean; detail?: string; error?: string } | null
  applied_at: Date | null
  created_at: Date
}

const columns = (sql: Sql | Tx) => sql`
  workspace_id, id, kind, args, status, planned_effect, limits_allowed, refusal_reason, proposed_by,
  decided_by, decided_at, outcome, applied_at, created_at`

export async function insertAction(
  tx: Tx,
  a: Omit<ActionRow, 'decided_by' | 'decided_at' | 'outcome' | 'applied_at' | 'created_at'>,
): Promise<ActionRow> {
  const [row] = await tx<ActionRow[]>`
    INSERT INTO actions (workspace_id, id, kind, args, status, planned_effect, limits_allowed, refusal_reason, proposed_by)
    VALUES (${a.workspace_id}, ${a.id}, ${a.kind}, ${tx.json(a.args as never)}, ${a.status}, ${tx.json(a.planned_effect as never)},
            ${a.limits_allowed}, ${a.refusal_reason}, ${tx.json(a.proposed_by as never)})
    RETURNING ${columns(tx)}`
  return row!
}

/** Actions newest first, keyset-paged on (created_at, id), optionally of one status. */
export async function selectActions(sql: Sql, workspaceId: string, opts: { status?: string; before?: Position; limit: number }): Promise<ActionRow[]> {
  const status = opts.status ? sql`AND status = ${opts.status}` : sql``
  return sql<ActionRow[]>`
    SELECT ${columns(sql)} FROM actions
    WHERE workspace_id = ${workspaceId} ${status} ${olderThan(sql, opts.before)}
    ORDER BY created_at DESC, id DESC
    LIMIT ${opts.limit}`
}

/** One action by id in whichever workspace holds it (operator commands name only the id), locked. */
export async function lockActionById(tx: Tx, id: string): Promise<ActionRow | undefined> {
  const [row] = await tx<ActionRow[]>`SELECT ${columns(tx)} FROM actions WHERE id = ${id} FOR UPDATE`
  return row
}

export async function updateAction(
  tx: Tx,
  workspaceId: string,
  id: string,
  change: { status: string; decidedBy?: string; decidedAt?: Date; outcome?: ActionRow['outcome']; appliedAt?: Date | null },
): Promise<ActionRow> {
  const [row] = await tx<ActionRow[]>`
    UPDATE actions SET
      status = ${change.status},
      decided_by = COALESCE(${change.decidedBy ?? null}, decided_by),
      decided_at = COALESCE(${change.decidedAt ?? null}::timestamptz, decided_at),
      outcome = COALESCE(${change.outcome ? tx.json(change.outcome as never) : null}::jsonb, outcome),
      applied_at = COALESCE(${change.appliedAt ?? null}::timestamptz, applied_at)
    WHERE workspace_id = ${workspaceId} AND id = ${id}
    RETURNING ${columns(tx)}`
  return row!
}

// --- What the action kinds act on -----------------------------------------------------------------

export type CampaignRow = {
  id: string
  name: string
  channel: 'email' | 'sms' | 'ads' | 'social'
  status: 'draft' | 'active' | 'paused' | 'finished'
  daily_budget_minor: number | null
  currency: string | null
  connection_id: string | null
}

export async function selectCampaign(tx: Tx, workspaceId: string, id: string, opts: { lock?: boolean } = {}): Promise<CampaignRow | undefined> {
  const lock = opts.lock ? tx`FOR UPDATE` : tx``
  const [row] = await tx<CampaignRow[]>`
    SELECT id, name, channel, status, daily_budget_minor, trim(currency) AS currency, connection_id
    FROM campaigns WHERE workspace_id = ${workspaceId} AND id = ${id} ${lock}`
  return row
}

export async function setCampaignStatus(tx: Tx, workspaceId: string, id: string, status: string) {
  await tx`UPDATE campaigns SET status = ${status} WHERE workspace_id = ${workspaceId} AND id = ${id}`
}

export async function setCampaignBudget(tx: Tx, workspaceId: string, id: string, amountMinor: number) {
  await tx`UPDATE campaigns SET daily_budget_minor = ${amountMinor} WHERE workspace_id = ${workspaceId} AND id = ${id}`
}

export type ConnectionRow = { id: string; kind: string; name: string; delivering: boolean; failing_since: Date | null }

export async function selectConnection(tx: Tx, workspaceId: string, id: string): Promise<ConnectionRow | undefined> {
  const [row] = await tx<ConnectionRow[]>`
    SELECT id, kind, name, delivering, failing_since FROM connections WHERE workspace_id = ${workspaceId} AND id = ${id}`
  return row
}

/** The workspace's store connections, delivering ones first. */
export async function selectStoreConnection(tx: Tx, workspaceId: string): Promise<ConnectionRow | undefined> {
  const [row] = await tx<ConnectionRow[]>`
    SELECT id, kind, name, delivering, failing_since FROM connections
    WHERE workspace_id = ${workspaceId} AND kind = 'store'
    ORDER BY delivering DESC, created_at, id LIMIT 1`
  return row
}

export async function selectSegment(tx: Tx, workspaceId: string, id: string) {
  const [row] = await tx<{ id: string; name: string; definition: unknown }[]>`
    SELECT id, name, definition FROM segments WHERE workspace_id = ${workspaceId} AND id = ${id}`
  return row
}

/** Who an audience holds: a list's members, or the contacts whose tags match a segment's tags. */
export type AudienceQuery = { kind: 'list'; id: string } | { kind: 'segment'; match: 'all' | 'any'; tags: string[] }

function audienceWhere(tx: Tx, workspaceId: string, a: AudienceQuery) {
  if (a.kind === 'list') {
    return tx`c.workspace_id = ${workspaceId} AND EXISTS (
      SELECT 1 FROM list_members m WHERE m.workspace_id = c.workspace_id AND m.list_id = ${a.id} AND m.contact_id = c.id)`
  }
  return a.match === 'all'
    ? tx`c.workspace_id = ${workspaceId} AND c.tags @> ${a.tags}::text[]`
    : tx`c.workspace_id = ${workspaceId} AND c.tags && ${a.tags}::text[]`
}

/** How many contacts the audience holds; with `reachable`, only those not on the do-not-contact list. */
export async function countAudience(tx: Tx, workspaceId: string, a: AudienceQuery, opts: { reachable: boolean }): Promise<number> {
  const reachable = opts.reachable
    ? tx`AND NOT EXISTS (SELECT 1 FROM do_not_contact d WHERE d.workspace_id = c.workspace_id AND d.email_key = c.email_key)`
    : tx``
  const [row] = await tx<{ n: number }[]>`SELECT count(*)::int AS n FROM contacts c WHERE ${audienceWhere(tx, workspaceId, a)} ${reachable}`
  return row?.n ?? 0
}

/** Adds `tag` to every contact of the audience that lacks it; returns the contacts changed. */
export async function tagAudience(tx: Tx, workspaceId: string, a: AudienceQuery, tag: string): Promise<ContactRow[]> {
  return tx<ContactRow[]>`
    UPDATE contacts c SET tags = c.tags || ${[tag]}::text[], updated_at = now()
    WHERE ${audienceWhere(tx, workspaceId, a)} AND NOT (${tag} = ANY (c.tags))
    RETURNING ${contactColumns(tx)}`
}
