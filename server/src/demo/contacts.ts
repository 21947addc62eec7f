import { newId } from '../core/ids.ts'
import { toContact } from '../domain/contacts.ts'
import {
  insertListMembers,
  insertLists,
  insertSegments,
  type ListInsert,
  type ListMemberInsert,
  type SegmentInsert,
} from '../store/audiences.ts'
import { type ContactInsert, type DoNotContactInsert, insertContacts, insertDoNotContact } from '../store/contacts.ts'
import type { DemoContext } from './context.ts'
import { COMPANIES, COUNTRIES, type Shopper, personMaker, region } from './people.ts'

/** Email, reason, added (days ago). */
const DO_NOT_CONTACT: [string, string, number][] = [
  ['tom.harlow@outlook.com', 'Unsubscribed from every list', 64],
  ['j.whitfield@yahoo.com', 'Hard bounce: mailbox does not exist', 131],
  ['claire.dupont@orange.fr', 'Asked to be forgotten (GDPR erasure)', 47],
  ['orders@copperkettlediner.com', 'Marked the newsletter as spam', 22],
  ['k.yamaguchi@docomo.ne.jp', 'Unsubscribed by replying STOP', 9],
]

export type DemoAudience = {
  /** Their first tag is their region (us, eu, jp). Olivia Bennett (a fixture) is the first. */
  contacts: ContactInsert[]
  /** Newsletter, Coffee subscribers, Wholesale leads. */
  lists: ListInsert[]
  listMembers: ListMemberInsert[]
  /** VIP buyers, Espresso drinkers in Europe. */
  segments: SegmentInsert[]
  doNotContact: DoNotContactInsert[]
  /** More new people, with addresses none of the contacts (nor do-not-contact) has. */
  makePerson: () => Shopper
}

/**
 * 200 contacts in the US, Europe and Japan, three lists, two segments and the do-not-contact list.
 * Built here, written by `insertAudience` once the actions have tagged some of the contacts.
 */
export function buildAudience(ctx: DemoContext): DemoAudience {
  const { r, ws, ago, agoJitter, events } = ctx
  const now = ctx.now.getTime()
  const taken = new Set<string>(DO_NOT_CONTACT.map(([e]) => e))
  const makePerson = personMaker(r, taken)
  const people: Shopper[] = [{ country: 'us', first: 'Olivia', last: 'Bennett', email: 'olivia.bennett@gmail.com' }]
  taken.add(people[0].email)
  while (people.length < 200) people.push(makePerson())
  const contacts = people.map((p, i): ContactInsert => {
    const createdAt = i === 0 ? ago(150) : agoJitter(r.float(0.3, 180), 0)
    const reg = region(p.country)
    const company = i !== 0 && r.chance(0.12) ? r.pick(COMPANIES[reg]) : null
    const tags: string[] = [reg]
    if (i === 0 || r.chance(0.3)) tags.push('subscriber')
    if (r.chance(0.6)) tags.push(i === 0 ? 'filter' : r.pick(['espresso', 'filter']))
    if (r.chance(0.08)) tags.push('vip')
    if (company) tags.push('wholesale')
    if (r.chance(0.1)) tags.push('gift-buyer')
    const updated = i > 0 && r.chance(0.12)
    const updatedAt = updated ? new Date(createdAt.getTime() + r.float(0.2, 0.9) * (now - createdAt.getTime())) : createdAt
    return {
      ...ws, id: newId('contact', createdAt), email: p.email, email_key: p.email.toLowerCase(), name: `${p.first} ${p.last}`,
      first_name: p.first, last_name: p.last, company, phone: i === 0 || r.chance(0.35) ? COUNTRIES[p.country].phone(r) : null,
      tags, created_at: createdAt, updated_at: updatedAt,
    }
  })
  for (const c of contacts) {
    events.add('contact.created', c.created_at, { contact: toContact({ ...c, tags: [...c.tags], updated_at: c.created_at }) })
    if (c.updated_at > c.created_at) events.add('contact.updated', c.updated_at, { contact: toContact({ ...c, tags: [...c.tags] }) })
  }
  const listSpecs: [string, number, (c: ContactInsert, i: number) => boolean][] = [
    ['Newsletter', 178, (c, i) => i === 0 || !c.company && r.chance(0.72)],
    ['Coffee subscribers', 150, (c) => c.tags.includes('subscriber')],
    ['Wholesale leads', 95, (c) => c.company !== null],
  ]
  const lists = listSpecs.map(([name, days]): ListInsert => {
    const createdAt = agoJitter(days)
    return { ...ws, id: newId('list', createdAt), name, created_at: createdAt }
  })
  const listMembers = listSpecs.flatMap(([, , member], li) =>
    contacts.filter((c, i) => member(c, i)).map((c): ListMemberInsert => ({
      ...ws, list_id: lists[li].id, contact_id: c.id,
      added_at: new Date(Math.max(c.created_at.getTime(), lists[li].created_at.getTime()) + r.int(1, 600) * 1000),
    })),
  )
  const has = (...tags: string[]) => contacts.filter((c) => tags.every((t) => c.tags.includes(t))).length
  const segments = [
    { name: 'VIP buyers', definition: { match: 'all', conditions: [{ field: 'tags', op: 'contains', value: 'vip' }] }, size: has('vip'), days: 140 },
    {
      name: 'Espresso drinkers in Europe',
      definition: { match: 'all', conditions: [{ field: 'tags', op: 'contains', value: 'espresso' }, { field: 'tags', op: 'contains', value: 'eu' }] },
      size: has('espresso', 'eu'), days: 60,
    },
  ].map((s): SegmentInsert => {
    const createdAt = agoJitter(s.days)
    return { ...ws, id: newId('segment', createdAt), name: s.name, definition: s.definition, size: s.size, created_at: createdAt }
  })
  const doNotContact = DO_NOT_CONTACT.map(([email, reason, days]): DoNotContactInsert => ({ ...ws, email_key: email, reason, created_at: agoJitter(days) }))
  return { contacts, lists, listMembers, segments, doNotContact, makePerson }
}

export async function insertAudience(ctx: DemoContext, a: DemoAudience) {
  await insertContacts(ctx.tx, a.contacts)
  await insertLists(ctx.tx, a.lists)
  await insertListMembers(ctx.tx, a.listMembers)
  await insertSegments(ctx.tx, a.segments)
  await insertDoNotContact(ctx.tx, a.doNotContact)
}
