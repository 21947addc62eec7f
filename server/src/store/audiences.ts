import type { Tx } from '../core/db.ts'
import { contactColumns, type ContactRow } from './contacts.ts'
import { insertRows } from './keyset.ts'

/** Audiences of contacts: lists (their members) and segments (conditions on tags). */

export async function selectList(tx: Tx, workspaceId: string, id: string): Promise<{ id: string; name: string } | undefined> {
  const [row] = await tx<{ id: string; name: string }[]>`SELECT id, name FROM lists WHERE workspace_id = ${workspaceId} AND id = ${id}`
  return row
}

/** Puts the contacts on the list; returns the ids that were not on it before. */
export async function addToList(tx: Tx, workspaceId: string, listId: string, contactIds: string[]): Promise<string[]> {
  if (!contactIds.length) return []
  const rows = await tx<{ contact_id: string }[]>`
    INSERT INTO list_members (workspace_id, list_id, contact_id)
    SELECT ${workspaceId}, ${listId}, x FROM unnest(${contactIds}::text[]) AS x
    ON CONFLICT (workspace_id, list_id, contact_id) DO NOTHING
    RETURNING contact_id`
  return rows.map((r) => r.contact_id)
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

export type ListInsert = { workspace_id: string; id: string; name: string; created_at: Date }
export type ListMemberInsert = { workspace_id: string; list_id: string; contact_id: string; added_at: Date }
export type SegmentInsert = { workspace_id: string; id: string; name: string; definition: unknown; size: number; created_at: Date }

export const insertLists = (tx: Tx, rows: ListInsert[]) => insertRows(tx, 'lists', rows)
export const insertListMembers = (tx: Tx, rows: ListMemberInsert[]) => insertRows(tx, 'list_members', rows)
export const insertSegments = (tx: Tx, rows: SegmentInsert[]) =>
  insertRows(tx, 'segments', rows.map((r) => ({ ...r, definition: tx.json(r.definition as never) })))
