import type { Db } from '../core/db.ts'

export type PersonRow = {
  workspace_id: string
  id: string
  email: string
  name: string
  role: 'owner' | 'approver' | 'viewer'
  created_at: Date
  removed_at: Date | null
  /** When they last signed in; null until they first do. */
  signed_in_at: Date | null
}

export async function insertPerson(tx: Db, p: { workspaceId: string; id: string; email: string; name: string; role: string }): Promise<PersonRow> {
  const [row] = await tx<PersonRow[]>`
    INSERT INTO people (workspace_id, id, email, name, role)
    VALUES (${p.workspaceId}, ${p.id}, ${p.email}, ${p.name}, ${p.role})
    RETURNING *`
  return row!
}

/** The person of the workspace (not removed) with this email, lower-cased. */
export async function selectPersonByEmail(sql: Db, workspaceId: string, email: string): Promise<PersonRow | undefined> {
  const [row] = await sql<PersonRow[]>`SELECT * FROM people WHERE workspace_id = ${workspaceId} AND email = ${email} AND removed_at IS NULL`
  return row
}

/** The people of a workspace not removed, oldest first. */
export async function selectPeople(sql: Db, workspaceId: string): Promise<PersonRow[]> {
  return sql<PersonRow[]>`SELECT * FROM people WHERE workspace_id = ${workspaceId} AND removed_at IS NULL ORDER BY created_at, id`
}

/** A person by id, in whichever workspace holds them (operator commands name only the id). */
export async function selectPersonById(sql: Db, id: string): Promise<PersonRow | undefined> {
  const [row] = await sql<PersonRow[]>`SELECT * FROM people WHERE id = ${id}`
  return row
}

export async function selectPerson(sql: Db, workspaceId: string, id: string): Promise<PersonRow | undefined> {
  const [row] = await sql<PersonRow[]>`SELECT * FROM people WHERE workspace_id = ${workspaceId} AND id = ${id}`
  return row
}

/** A person of the workspace, their row locked until the transaction ends (a sign-in's markSignedIn waits). */
export async function lockPerson(tx: Db, workspaceId: string, id: string): Promise<PersonRow | undefined> {
  const [row] = await tx<PersonRow[]>`SELECT * FROM people WHERE workspace_id = ${workspaceId} AND id = ${id} FOR UPDATE`
  return row
}

/** Records a sign-in of the person (their session just begun). */
export async function markSignedIn(tx: Db, workspaceId: string, id: string, at: Date): Promise<void> {
  await tx`UPDATE people SET signed_in_at = ${at} WHERE workspace_id = ${workspaceId} AND id = ${id}`
}

/** Marks the person removed; false when they already were. */
export async function markRemoved(tx: Db, workspaceId: string, id: string, at: Date): Promise<boolean> {
  const r = await tx`UPDATE people SET removed_at = ${at} WHERE workspace_id = ${workspaceId} AND id = ${id} AND removed_at IS NULL`
  return r.count > 0
}

/**
 * The people (not removed) with this email, lower-cased, in every workspace: the one read across
 * workspaces, for the console's "mail me a sign-in link", where no workspace is known yet.
 */
export async function selectPeopleWithEmail(sql: Db, email: string): Promise<PersonRow[]> {
  return sql<PersonRow[]>`SELECT * FROM people WHERE email = ${email} AND removed_at IS NULL ORDER BY workspace_id, id`
}

/**
 * The owners (not removed) of the workspace, locked until the transaction ends: two changes at once
 * that would each leave one owner wait for each other, and the second sees the first's result.
 */
export async function lockOwners(tx: Db, workspaceId: string): Promise<string[]> {
  const rows = await tx<{ id: string }[]>`
    SELECT id FROM people WHERE workspace_id = ${workspaceId} AND role = 'owner' AND removed_at IS NULL ORDER BY id FOR UPDATE`
  return rows.map((r) => r.id)
}

/** Sets the role of a person not removed; the row as it is now, or undefined when there is none. */
export async function updateRole(tx: Db, workspaceId: string, id: string, role: string): Promise<PersonRow | undefined> {
  const [row] = await tx<PersonRow[]>`
    UPDATE people SET role = ${role} WHERE workspace_id = ${workspaceId} AND id = ${id} AND removed_at IS NULL RETURNING *`
  return row
}
