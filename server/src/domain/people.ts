import { type Actor, SYSTEM_ACTOR } from '../core/actor.ts'
import type { Db } from '../core/db.ts'
import { ConflictError, NotFoundError, RuleError } from '../core/errors.ts'
import { idPattern, newId } from '../core/ids.ts'
import { iso } from '../core/time.ts'
import { codePoints } from '../schemas/common.ts'
import { endSessionsOf } from '../store/console-sessions.ts'
import { inTransaction } from '../store/driver/db.ts'
import * as store from '../store/people.ts'
import { useUpLinksOf } from '../store/sign-in-links.ts'
import { workspaceExists } from '../store/workspaces.ts'
import { recordAudit } from './audit.ts'

/**
 * The people of a workspace (CONTRACT: People and the console): each with an email (one person per
 * address in a workspace), a name, and a role: owner (everything), approver (decides what waits,
 * stops and resumes agents, reads everything), viewer (reads).
 */
export const ROLES = ['owner', 'approver', 'viewer'] as const
export type Role = (typeof ROLES)[number]

export type Person = { id: string; email: string; name: string; role: Role }

export const toPerson = (p: store.PersonRow): Person => ({ id: p.id, email: p.email, name: p.name, role: p.role })

// One @, something before it, a dot in the domain, no spaces or angle brackets; at most 254 characters (RFC 5321).
const EMAIL = /^[^\s@<>(),;:"]+@[^\s@<>(),;:"]+\.[^\s@<>(),;:".]+$/
const CONTROL = /[\u0000-\u001F\u007F-\u009F]/

/** An email as stored: trimmed, lower-cased; refused naming it when it is not an address. */
function personEmail(input: string): string {
  const email = input.trim().toLowerCase()
  if (email.length > 254 || !EMAIL.test(email)) {
    throw new RuleError('email', `email must be an address such as maya@example.com (got ${JSON.stringify(input)}).`, 'email')
  }
  return email
}

function personName(input: string): string {
  const name = input.trim()
  if (!name) throw new RuleError('name.given', 'A person needs a name.', 'name')
  if (codePoints(name) > 100 || CONTROL.test(name)) {
    throw new RuleError('name.text', 'name must be at most 100 characters, without control characters.', 'name')
  }
  return name
}

function personRole(input: string): Role {
  if (!(ROLES as readonly string[]).includes(input)) throw new RuleError('role', `role must be one of ${ROLES.join(', ')} (got ${input}).`, 'role')
  return input as Role
}

export async function addPerson(
  sql: Db,
  opts: { workspaceId: string; email: string; name: string; role: string; by?: Actor },
): Promise<Person> {
  const email = personEmail(opts.email)
  const name = personName(opts.name)
  const role = personRole(opts.role)
  if (!(await workspaceExists(sql, opts.workspaceId))) throw new NotFoundError('workspace', opts.workspaceId, `No workspace ${opts.workspaceId}.`)
  // Who has it, so that the one adding can change their role instead.
  const taken = (p: { id: string; name: string; role: string } | undefined) =>
    new RuleError(
      'email.unique',
      `${email} is already a person of workspace ${opts.workspaceId}${p ? ` (${p.name}, ${p.role}, ${p.id})` : ''}; an address names one person: change their role instead.`,
      'email',
    )
  const existing = await store.selectPersonByEmail(sql, opts.workspaceId, email)
  if (existing) throw taken(existing)
  try {
    return await inTransaction(sql, async (tx) => {
      const row = await store.insertPerson(tx, { workspaceId: opts.workspaceId, id: newId('person'), email, name, role })
      await recordAudit(tx, opts.workspaceId, opts.by ?? SYSTEM_ACTOR, 'person.added', row.id, { email, name, role })
      return toPerson(row)
    })
  } catch (err) {
    // Two adds of one address at once: the unique index refuses the second.
    if ((err as { code?: string }).code === '23505') throw taken(await store.selectPersonByEmail(sql, opts.workspaceId, email))
    throw err
  }
}

/** A person as the console lists them: when added, and when they last signed in (null: not yet). */
export type PersonListed = Person & { addedAt: string; signedInAt: string | null }

/** The people of a workspace (not removed), oldest first; `added`: with when each was added (the console's list). */
export async function listPeople(sql: Db, workspaceId: string): Promise<{ people: Person[] }>
export async function listPeople(sql: Db, workspaceId: string, opts: { added: true }): Promise<{ people: PersonListed[] }>
export async function listPeople(sql: Db, workspaceId: string, opts: { added?: boolean } = {}): Promise<{ people: Person[] }> {
  if (!(await workspaceExists(sql, workspaceId))) throw new NotFoundError('workspace', workspaceId, `No workspace ${workspaceId}.`)
  const rows = await store.selectPeople(sql, workspaceId)
  return { people: rows.map((r) => (opts.added ? { ...toPerson(r), addedAt: iso(r.created_at), signedInAt: r.signed_in_at ? iso(r.signed_in_at) : null } : toPerson(r))) }
}

/**
 * A person of `workspaceId` who has never signed in, for a new link to their invitation (the
 * console's owners). Once someone has signed in, a link made for them by another person would let
 * that person act as them: they ask for one themselves (the sign-in page, when the server sends
 * mail), use their passkey, or an operator makes one (growth admin person link). Before, it gives
 * the one who invited them nothing they did not have: the first link was theirs to pass on.
 */
export async function stillInvited(sql: Db, workspaceId: string, id: string): Promise<store.PersonRow> {
  const row = await currentPerson(sql, id, workspaceId)
  refuseIfSignedIn(row)
  return row
}

/**
 * The refusal of stillInvited, for a row read again where the link is made: signInLink's
 * `beforeFirstSignIn` locks the person's row in its transaction and asks this again, so that a
 * sign-in committed between the two (markSignedIn updates that row) is not given a link by another.
 */
export function refuseIfSignedIn(row: store.PersonRow): void {
  if (!row.signed_in_at) return
  throw new ConflictError(
    `${row.name} has signed in already (last at ${iso(row.signed_in_at).slice(0, 16).replace('T', ' ')} UTC), so a new link is theirs to ask for, not another person's to make: on the sign-in page when this server sends mail, with their passkey, or from an operator (growth admin person link).`,
  )
}

/**
 * A person not removed, by id alone (operator commands), or of `workspaceId` only (the console: a
 * person of another workspace is not found, worded alike); refused naming the id otherwise.
 */
export async function currentPerson(sql: Db, id: string, workspaceId?: string): Promise<store.PersonRow> {
  const trimmed = id.trim()
  if (!idPattern('person').test(trimmed)) throw new RuleError('id_prefix', `A person id starts with per_ (got ${id}).`, 'id')
  const row = await store.selectPersonById(sql, trimmed)
  if (!row || (workspaceId !== undefined && row.workspace_id !== workspaceId)) throw new NotFoundError('person', trimmed, `No person ${trimmed}.`)
  if (row.removed_at) throw new RuleError('person_removed', `${row.name} (${row.id}) was removed from workspace ${row.workspace_id}.`, 'id')
  return row
}

/**
 * A workspace keeps at least one owner (someone must be able to manage it without the database):
 * refused when `id` is its only owner and would stop being one. Under the owners' lock, so two
 * changes at once cannot each leave the other as the last owner and then both go.
 */
async function keepAnOwner(tx: Db, row: store.PersonRow, change: 'remove' | 'demote') {
  if (row.role !== 'owner') return
  const owners = await store.lockOwners(tx, row.workspace_id)
  if (owners.length === 1 && owners[0] === row.id) {
    throw new ConflictError(
      `${row.name} is the only owner of this workspace, so they cannot be ${change === 'remove' ? 'removed' : 'given another role'}: a workspace keeps at least one owner. Make someone else an owner first.`,
    )
  }
}

/**
 * Removes a person: their sessions end at once and their unused links stop working. Refused for a
 * workspace's last owner. `workspaceId`: only a person of that workspace (the console).
 */
export async function removePerson(sql: Db, id: string, opts: { by?: Actor; at?: Date; workspaceId?: string } = {}) {
  const row = await currentPerson(sql, id, opts.workspaceId)
  const at = opts.at ?? new Date()
  return inTransaction(sql, async (tx) => {
    await keepAnOwner(tx, row, 'remove')
    if (!(await store.markRemoved(tx, row.workspace_id, row.id, at))) throw new RuleError('person_removed', `${row.name} (${row.id}) was already removed.`, 'id')
    const sessionsEnded = await endSessionsOf(tx, row.workspace_id, row.id, at)
    await useUpLinksOf(tx, row.workspace_id, row.id, at)
    await recordAudit(tx, row.workspace_id, opts.by ?? SYSTEM_ACTOR, 'person.removed', row.id, { email: row.email, name: row.name, sessionsEnded }, at)
    return { ...toPerson(row), workspaceId: row.workspace_id, removed: true, sessionsEnded }
  })
}

/**
 * Gives a person (not removed) of the workspace another role, in the audit list with who did it and
 * the role before; refused for the workspace's last owner. The person's next request obeys the new
 * role (a session reads the role when it is used).
 */
export async function changeRole(sql: Db, opts: { workspaceId: string; id: string; role: string; by?: Actor; at?: Date }): Promise<Person & { from: Role }> {
  const row = await currentPerson(sql, opts.id, opts.workspaceId)
  const role = personRole(opts.role)
  const at = opts.at ?? new Date()
  return inTransaction(sql, async (tx) => {
    if (role !== 'owner') await keepAnOwner(tx, row, 'demote')
    const updated = await store.updateRole(tx, row.workspace_id, row.id, role)
    if (!updated) throw new RuleError('person_removed', `${row.name} (${row.id}) was removed from workspace ${row.workspace_id}.`, 'id')
    await recordAudit(tx, row.workspace_id, opts.by ?? SYSTEM_ACTOR, 'person.role_changed', row.id, { email: row.email, name: row.name, from: row.role, to: role }, at)
    return { ...toPerson(updated), from: row.role }
  })
}
