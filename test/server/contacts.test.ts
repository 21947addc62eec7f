import { describe, expect, test } from 'bun:test'
import { call, expectError, getHarness, makeWorkspace, type Workspace } from '../harness.ts'
import { insertContacts, insertDoNotContact, insertList, outbox, setAllowance } from '../write-fixtures.ts'

const importContacts = (ws: Workspace, body: unknown, opts: { token?: string; key?: string } = {}) =>
  call('POST', '/api/v1/contacts', { token: opts.token ?? ws.live, body, headers: opts.key ? { 'Idempotency-Key': opts.key } : {} })

async function contactsOf(workspaceId: string) {
  const { sql } = await getHarness()
  return [...(await sql<{ id: string; email: string; name: string | null; company: string | null; phone: string | null; tags: string[] }[]>`
    SELECT id, email, name, company, phone, tags FROM contacts WHERE workspace_id = ${workspaceId} ORDER BY email_key`)]
}

describe('POST /contacts', () => {
  test('creates contacts and answers per index with the totals, each with its contact.created event', async () => {
    const ws = await makeWorkspace()
    const r = await importContacts(ws, {
      contacts: [
        { email: 'olivia.bennett@gmail.com', name: 'Olivia Bennett', firstName: 'Olivia', lastName: 'Bennett', company: 'Bluebird Café', phone: '+1 503-555-0100', tags: ['us', 'subscriber', 'us'] },
        { email: '  Kenji@Example.JP ' },
      ],
    })
    expect(r.status).toBe(201)
    const [a, b] = r.body.data.results
    expect(a).toEqual({ index: 0, email: 'olivia.bennett@gmail.com', status: 'created', contactId: expect.stringMatching(/^ctc_/), reason: null })
    expect(b).toMatchObject({ index: 1, email: 'Kenji@Example.JP', status: 'created' })
    expect(r.body.data.totals).toEqual({ created: 2, updated: 0, skipped: 0 })
    expect(r.body.data.listId).toBeNull()
    const events = await outbox(ws.id)
    expect(events.map((e) => e.type)).toEqual(['contact.created', 'contact.created'])
    expect(events[0]!.data.contact).toEqual({
      id: a.contactId, email: 'olivia.bennett@gmail.com', name: 'Olivia Bennett', firstName: 'Olivia', lastName: 'Bennett',
      company: 'Bluebird Café', phone: '+1 503-555-0100', tags: ['us', 'subscriber'],
      createdAt: expect.any(String), updatedAt: expect.any(String),
    })
  })

  test('an existing contact (compared without regard to case) is updated: fields not sent are kept, tags merged', async () => {
    const ws = await makeWorkspace()
    const r1 = await importContacts(ws, { contacts: [{ email: 'Ann@Example.com', name: 'Ann Lee', company: 'Lantern Bakery', tags: ['us', 'filter'] }] })
    const id = r1.body.data.results[0].contactId
    const r2 = await importContacts(ws, { contacts: [{ email: 'ann@EXAMPLE.com', phone: '+1 206-555-0199', tags: ['vip', 'filter'] }] })
    expect(r2.body.data.results[0]).toEqual({ index: 0, email: 'ann@EXAMPLE.com', status: 'updated', contactId: id, reason: null })
    expect(r2.body.data.totals).toEqual({ created: 0, updated: 1, skipped: 0 })
    expect(await contactsOf(ws.id)).toEqual([
      { id, email: 'Ann@Example.com', name: 'Ann Lee', company: 'Lantern Bakery', phone: '+1 206-555-0199', tags: ['us', 'filter', 'vip'] },
    ])
    // Sending what it already holds changes nothing: skipped, said why, no event.
    const r3 = await importContacts(ws, { contacts: [{ email: 'ann@example.com', name: 'Ann Lee', tags: ['vip'] }] })
    expect(r3.body.data.results[0]).toMatchObject({ status: 'skipped', contactId: id, reason: { code: 'unchanged' } })
    expect((await outbox(ws.id)).map((e) => e.type)).toEqual(['contact.created', 'contact.updated'])
  })

  test('addresses on the do-not-contact list are skipped with the reason, whatever their case', async () => {
    const ws = await makeWorkspace()
    await insertDoNotContact(ws.id, 'tom.harlow@outlook.com')
    const r = await importContacts(ws, { contacts: [{ email: 'ok@example.com' }, { email: 'Tom.Harlow@Outlook.com', name: 'Tom' }] })
    expect(r.body.data.results[1]).toEqual({
      index: 1, email: 'Tom.Harlow@Outlook.com', status: 'skipped', contactId: null,
      reason: { code: 'do_not_contact', message: expect.stringContaining('do-not-contact') },
    })
    expect(r.body.data.totals).toEqual({ created: 1, updated: 0, skipped: 1 })
    expect((await contactsOf(ws.id)).map((c) => c.email)).toEqual(['ok@example.com'])
  })

  test('the same address twice in one request is 400 naming both indexes, and nothing is written', async () => {
    const ws = await makeWorkspace()
    const r = await importContacts(ws, { contacts: [{ email: 'a@example.com' }, { email: 'b@example.com' }, { email: 'A@Example.com' }] })
    expectError(r, 400, 'invalid_request', 'contacts.0.email and contacts.2.email')
    expect(await contactsOf(ws.id)).toEqual([])
  })

  test('bad input is 400 naming the contact by index and the field', async () => {
    const ws = await makeWorkspace()
    expectError(await importContacts(ws, { contacts: [{ email: 'a@example.com' }, { email: 'not-an-address' }] }), 400, 'invalid_request', 'contacts.1.email')
    expectError(await importContacts(ws, { contacts: [{ email: 'a@example.com', nickname: 'A' }] }), 400, 'invalid_request', 'contacts.0.nickname')
    expectError(await importContacts(ws, { contacts: [{ email: 'a@example.com', tags: 'vip' }] }), 400, 'invalid_request', 'contacts.0.tags must be an array')
    expectError(await importContacts(ws, { contacts: [{ email: 'a@example.com', name: 5 }] }), 400, 'invalid_request', 'contacts.0.name must be a string')
    expectError(await importContacts(ws, { contacts: [] }), 400, 'invalid_request', 'contacts')
    const many = Array.from({ length: 101 }, (_, i) => ({ email: `p${i}@example.com` }))
    expectError(await importContacts(ws, { contacts: many }), 400, 'invalid_request', 'at most 100')
    expectError(await importContacts(ws, { contacts: [{ email: 'a@example.com' }], listId: 'oops' }), 400, 'invalid_request', 'listId')
    expect(await contactsOf(ws.id)).toEqual([])
  })

  test('exactly 100 contacts in one request are all written, each with its event', async () => {
    const ws = await makeWorkspace()
    const hundred = Array.from({ length: 100 }, (_, i) => ({ email: `p${i}@example.com` }))
    const r = await importContacts(ws, { contacts: hundred })
    expect(r.status).toBe(201)
    expect(r.body.data.totals).toEqual({ created: 100, updated: 0, skipped: 0 })
    expect(r.body.data.results.map((x: any) => x.index)).toEqual(hundred.map((_, i) => i))
    expect((await contactsOf(ws.id)).length).toBe(100)
    expect((await outbox(ws.id)).filter((e) => e.type === 'contact.created').length).toBe(100)
  })

  test('listId puts the contacts on the list (404 if the list is not in this workspace); joining a list is an update', async () => {
    const ws = await makeWorkspace()
    const other = await makeWorkspace()
    const theirs = await insertList(other.id)
    expectError(await importContacts(ws, { contacts: [{ email: 'a@example.com' }], listId: theirs }), 404, 'not_found', theirs)
    const [existing] = await insertContacts(ws.id, [{ email: 'old@example.com' }])
    const list = await insertList(ws.id)
    const r = await importContacts(ws, { contacts: [{ email: 'new@example.com' }, { email: 'old@example.com' }], listId: list })
    expect(r.body.data.results.map((x: any) => x.status)).toEqual(['created', 'updated'])
    expect(r.body.data.listId).toBe(list)
    const { sql } = await getHarness()
    const members = await sql<{ contact_id: string }[]>`SELECT contact_id FROM list_members WHERE workspace_id = ${ws.id} AND list_id = ${list}`
    expect(members.map((m) => m.contact_id).sort()).toEqual([existing!, r.body.data.results[0].contactId].sort())
    const again = await importContacts(ws, { contacts: [{ email: 'old@example.com' }], listId: list })
    expect(again.body.data.results[0]).toMatchObject({ status: 'skipped', reason: { code: 'unchanged' } })
  })

  test("the plan's contacts allowance: past it is 402 naming it and what remains, and nothing is written", async () => {
    const ws = await makeWorkspace()
    await insertContacts(ws.id, [{ email: 'one@example.com' }, { email: 'two@example.com' }])
    await setAllowance(ws.id, 'contacts', 3)
    const r = await importContacts(ws, { contacts: [{ email: 'one@example.com', name: 'One' }, { email: 'three@example.com' }, { email: 'four@example.com' }] })
    expectError(r, 402, 'plan_required', 'contacts allowance')
    expect(r.body.error.message).toContain('1 remain')
    expect(r.body.error.message).toContain('needs 2')
    expect((await contactsOf(ws.id)).map((c) => [c.email, c.name])).toEqual([['one@example.com', null], ['two@example.com', null]])
    expect(await outbox(ws.id)).toEqual([])
    // Updates and skipped addresses take no room: this one fits exactly.
    await insertDoNotContact(ws.id, 'blocked@example.com')
    const ok = await importContacts(ws, { contacts: [{ email: 'one@example.com', name: 'One' }, { email: 'three@example.com' }, { email: 'blocked@example.com' }] })
    expect(ok.body.data.totals).toEqual({ created: 1, updated: 1, skipped: 1 })
    expectError(await importContacts(ws, { contacts: [{ email: 'five@example.com' }] }), 402, 'plan_required', '0 remain')
  })

  test('concurrent imports never pass the allowance together', async () => {
    const ws = await makeWorkspace()
    await setAllowance(ws.id, 'contacts', 5)
    const answers = await Promise.all(
      Array.from({ length: 4 }, (_, i) => importContacts(ws, { contacts: [{ email: `c${i}a@example.com` }, { email: `c${i}b@example.com` }] })),
    )
    expect(answers.filter((a) => a.status === 201)).toHaveLength(2)
    for (const a of answers.filter((x) => x.status !== 201)) expectError(a, 402, 'plan_required')
    expect(await contactsOf(ws.id)).toHaveLength(4)
  })

  test('a replayed key writes nothing twice; a reused key is 422; a test token checks everything and writes nothing', async () => {
    const ws = await makeWorkspace()
    const body = { contacts: [{ email: 'idem@example.com', tags: ['a'] }] }
    const first = await importContacts(ws, body, { key: 'import-1' })
    const again = await importContacts(ws, body, { key: 'import-1' })
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    expect(again.body).toEqual(first.body)
    expect(again.body.data.results[0].status).toBe('created')
    expect((await outbox(ws.id)).length).toBe(1)
    expectError(await importContacts(ws, { contacts: [{ email: 'other@example.com' }] }, { key: 'import-1' }), 422, 'idempotency_key_reused')

    const sim = await importContacts(ws, { contacts: [{ email: 'sim@example.com' }, { email: 'idem@example.com', tags: ['b'] }] }, { token: ws.test })
    expect(sim.status).toBe(200)
    expect(sim.body).toEqual({ data: { simulated: true } })
    expect((await contactsOf(ws.id)).map((c) => [c.email, c.tags])).toEqual([['idem@example.com', ['a']]])
    expect((await outbox(ws.id)).length).toBe(1)
    expectError(await importContacts(ws, { contacts: [{ email: 'x@example.com' }], listId: 'lst_01jd0000000000000000000000' }, { token: ws.test }), 404, 'not_found')
    await setAllowance(ws.id, 'contacts', 1)
    expectError(await importContacts(ws, { contacts: [{ email: 'y@example.com' }] }, { token: ws.test }), 402, 'plan_required', 'contacts')
  })
})
