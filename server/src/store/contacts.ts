import type { Db, Tx } from '../core/db.ts'
import { insertRows } from './keyset.ts'

export type ContactRow = {
  id: string
  email: string
  email_key: string
  name: string | null
  first_name: string | null
  last_name: string | null
  company: string | null
  phone: string | null
  tags: string[]
  created_at: Date
  updated_at: Date
}

export const contactColumns = (sql: Db) =>
  sql`c.id, c.email, c.email_key, c.name, c.first_name, c.last_name, c.company, c.phone, c.tags, c.created_at, c.updated_at`

/** The contacts of these addresses (lower-cased) that exist, by address. */
export async function selectContactIdsByKey(tx: Tx, workspaceId: string, keys: string[]): Promise<Map<string, string>> {
  const rows = await tx<{ id: string; email_key: string }[]>`
    SELECT id, email_key FROM contacts WHERE workspace_id = ${workspaceId} AND email_key = ANY (${keys}::text[])`
  return new Map(rows.map((r) => [r.email_key, r.id]))
}

/** Which of these addresses (lower-cased) are on the do-not-contact list. */
export async function selectDoNotContact(tx: Tx, workspaceId: string, keys: string[]): Promise<Set<string>> {
  const rows = await tx<{ email_key: string }[]>`
    SELECT email_key FROM do_not_contact WHERE workspace_id = ${workspaceId} AND email_key = ANY (${keys}::text[])`
  return new Set(rows.map((r) => r.email_key))
}

/** A contact as an import offers it: the fields it sends (null: not sent). */
type ContactUpsert = Omit<ContactRow, 'created_at' | 'updated_at'>

/**
 * The whole import in one statement: new addresses are inserted; existing ones get the fields the
 * request sent (a field not sent keeps its value) and the tags they lack, appended in order. Rows
 * that would not change are left alone and not returned. A returned row whose id is the one we
 * offered was created; any other returned row was updated.
 */
export async function upsertContacts(tx: Tx, workspaceId: string, rows: ContactUpsert[]): Promise<ContactRow[]> {
  if (!rows.length) return []
  return tx<ContactRow[]>`
    INSERT INTO contacts AS c (workspace_id, id, email, email_key, name, first_name, last_name, company, phone, tags)
    SELECT ${workspaceId}, r.id, r.email, r.email_key, r.name, r.first_name, r.last_name, r.company, r.phone, r.tags
    FROM jsonb_to_recordset(${tx.json(rows as never)}::jsonb)
      AS r(id text, email text, email_key text, name text, first_name text, last_name text, company text, phone text, tags text[])
    ON CONFLICT (workspace_id, email_key) DO UPDATE SET
      name = COALESCE(EXCLUDED.name, c.name),
      first_name = COALESCE(EXCLUDED.first_name, c.first_name),
      last_name = COALESCE(EXCLUDED.last_name, c.last_name),
      company = COALESCE(EXCLUDED.company, c.company),
      phone = COALESCE(EXCLUDED.phone, c.phone),
      tags = c.tags || ARRAY(SELECT t FROM unnest(EXCLUDED.tags) WITH ORDINALITY AS x(t, i) WHERE NOT (t = ANY (c.tags)) ORDER BY i),
      updated_at = now()
    WHERE (EXCLUDED.name IS NOT NULL AND EXCLUDED.name IS DISTINCT FROM c.name)
       OR (EXCLUDED.first_name IS NOT NULL AND EXCLUDED.first_name IS DISTINCT FROM c.first_name)
       OR (EXCLUDED.last_name IS NOT NULL AND EXCLUDED.last_name IS DISTINCT FROM c.last_name)
       OR (EXCLUDED.company IS NOT NULL AND EXCLUDED.company IS DISTINCT FROM c.company)
       OR (EXCLUDED.phone IS NOT NULL AND EXCLUDED.phone IS DISTINCT FROM c.phone)
       OR NOT (EXCLUDED.tags <@ c.tags)
    RETURNING ${contactColumns(tx)}`
}

export async function selectContactsByIds(tx: Tx, workspaceId: string, ids: string[]): Promise<ContactRow[]> {
  if (!ids.length) return []
  return tx<ContactRow[]>`
    SELECT ${contactColumns(tx)} FROM contacts c WHERE c.workspace_id = ${workspaceId} AND c.id = ANY (${ids}::text[])`
}

export async function selectContactByKey(tx: Tx, workspaceId: string, key: string): Promise<ContactRow | undefined> {
  const [row] = await tx<ContactRow[]>`
    SELECT ${contactColumns(tx)} FROM contacts c WHERE c.workspace_id = ${workspaceId} AND c.email_key = ${key}`
  return row
}

export type ContactInsert = ContactRow & { workspace_id: string }
export type DoNotContactInsert = { workspace_id: string; email_key: string; reason: string; created_at: Date }

export const insertContacts = (tx: Tx, rows: ContactInsert[]) => insertRows(tx, 'contacts', rows)
export const insertDoNotContact = (tx: Tx, rows: DoNotContactInsert[]) => insertRows(tx, 'do_not_contact', rows)
