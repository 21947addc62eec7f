import type { Tx } from '../core/db.ts'
import { NotFoundError, RuleError } from '../core/errors.ts'
import { newId } from '../core/ids.ts'
import { iso } from '../core/time.ts'
import type { Contact, ContactImport, ImportContactsInput } from '../schemas/contacts.ts'
import { addToList, selectList } from '../store/audiences.ts'
import * as store from '../store/contacts.ts'
import { appendEvents } from '../store/events.ts'
import { holdContactsAllowance, reserveContacts } from './allowances.ts'

export function toContact(c: store.ContactRow): Contact {
  return {
    id: c.id,
    email: c.email,
    name: c.name,
    firstName: c.first_name,
    lastName: c.last_name,
    company: c.company,
    phone: c.phone,
    tags: c.tags,
    createdAt: iso(c.created_at),
    updatedAt: iso(c.updated_at),
  }
}

const DNC_MESSAGE = 'The address is on the do-not-contact list; nothing was written.'
const UNCHANGED_MESSAGE = 'Nothing in the request differs from the contact; nothing was written.'

/**
 * POST /contacts, as an import does it. Addresses are compared without regard to case; one that is
 * twice in the request is refused (400 naming both indexes) rather than guessed at. Addresses on the
 * do-not-contact list are skipped. New contacts must fit the plan's contacts allowance (402, nothing
 * written). The upsert is one statement; list membership and the events are one statement each.
 */
export async function importContacts(tx: Tx, workspaceId: string, input: ImportContactsInput): Promise<ContactImport> {
  const keys = input.contacts.map((c) => c.email.toLowerCase())
  const firstIndex = new Map<string, number>()
  keys.forEach((k, i) => {
    const seen = firstIndex.get(k)
    if (seen !== undefined) {
      throw new RuleError(
        'contacts.unique_addresses',
        `contacts.${seen}.email and contacts.${i}.email are the same address (compared without regard to case); send each contact once.`,
        `contacts.${i}.email`,
      )
    }
    firstIndex.set(k, i)
  })
  if (input.listId !== undefined && !(await selectList(tx, workspaceId, input.listId))) throw new NotFoundError('list', input.listId)

  // Hold the contacts allowance before counting who is new, so two imports cannot both fit.
  await holdContactsAllowance(tx, workspaceId)
  const [existing, blocked] = await Promise.all([
    store.selectContactIdsByKey(tx, workspaceId, keys),
    store.selectDoNotContact(tx, workspaceId, keys),
  ])
  const writable = input.contacts.map((c, i) => ({ c, key: keys[i]!, index: i })).filter((x) => !blocked.has(x.key))
  await reserveContacts(tx, workspaceId, writable.filter((x) => !existing.has(x.key)).length)

  const offered = writable.map(({ c, key }) => ({
    id: newId('contact'),
    email: c.email,
    email_key: key,
    name: c.name ?? null,
    first_name: c.firstName ?? null,
    last_name: c.lastName ?? null,
    company: c.company ?? null,
    phone: c.phone ?? null,
    tags: [...new Set(c.tags ?? [])],
  }))
  const written = await store.upsertContacts(tx, workspaceId, offered)
  const offeredIds = new Set(offered.map((o) => o.id))
  const byKey = new Map(written.map((r) => [r.email_key, r]))

  const contactIds = writable.map((x) => byKey.get(x.key)?.id ?? existing.get(x.key)!)
  const joined = new Set(input.listId === undefined ? [] : await addToList(tx, workspaceId, input.listId, contactIds))
  // Contacts whose only change is joining the list: read them once, for their events.
  const listOnly = writable.filter((x) => !byKey.has(x.key) && joined.has(existing.get(x.key)!)).map((x) => existing.get(x.key)!)
  for (const row of await store.selectContactsByIds(tx, workspaceId, listOnly)) byKey.set(row.email_key, row)

  const results: ContactImport['results'] = input.contacts.map((c, index) => {
    const key = keys[index]!
    if (blocked.has(key)) return { index, email: c.email, status: 'skipped', contactId: null, reason: { code: 'do_not_contact', message: DNC_MESSAGE } }
    const row = byKey.get(key)
    if (!row) return { index, email: c.email, status: 'skipped', contactId: existing.get(key)!, reason: { code: 'unchanged', message: UNCHANGED_MESSAGE } }
    return { index, email: c.email, status: offeredIds.has(row.id) ? 'created' : 'updated', contactId: row.id, reason: null }
  })
  await appendEvents(
    tx,
    workspaceId,
    results
      .filter((r) => r.status !== 'skipped')
      .map((r) => ({ type: r.status === 'created' ? 'contact.created' : 'contact.updated', data: { contact: toContact(byKey.get(keys[r.index]!)!) } })),
  )
  const total = (s: string) => results.filter((r) => r.status === s).length
  return { results, totals: { created: total('created'), updated: total('updated'), skipped: total('skipped') }, listId: input.listId ?? null }
}
