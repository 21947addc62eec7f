import { describe, expect, test } from 'bun:test'
import { AllowanceError } from '../../server/src/core/errors.ts'
import { consumeMonthly, periodOf, reserveContacts, usageOf } from '../../server/src/domain/allowances.ts'
import { call, expectError, getHarness, makeWorkspace } from '../harness.ts'
import { insertContacts, setAllowance } from '../write-fixtures.ts'

describe('allowances (shared by /track, /contacts, /agent/authorize and GET /usage)', () => {
  test('a monthly allowance is used atomically and refused with 402 naming it and what remains', async () => {
    const { sql } = await getHarness()
    const ws = await makeWorkspace()
    await sql`INSERT INTO allowances (workspace_id, name, amount) VALUES (${ws.id}, 'trackedEvents', 5)`
    const at = new Date()
    // Ten concurrent writers, each wanting 1 of 5: exactly five get through.
    const outcomes = await Promise.allSettled(
      Array.from({ length: 10 }, () => sql.begin((tx) => consumeMonthly(tx, ws.id, 'trackedEvents', 1, at))),
    )
    expect(outcomes.filter((o) => o.status === 'fulfilled').length).toBe(5)
    const refused = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult
    expect(refused.reason).toBeInstanceOf(AllowanceError)
    expect(refused.reason.allowance).toBe('trackedEvents')
    expect(refused.reason.message).toContain('trackedEvents')
    expect(refused.reason.message).toContain('0 remain')
    const usage = await usageOf(sql, ws.id, at)
    expect(usage.find((u) => u.name === 'trackedEvents')).toEqual({
      name: 'trackedEvents', limit: 5, used: 5, remaining: 0,
      periodStart: periodOf(at).start.toISOString(), periodEnd: periodOf(at).end.toISOString(),
    })
  })

  test('the standing contacts allowance counts contacts held and refuses what would pass it', async () => {
    const { sql } = await getHarness()
    const ws = await makeWorkspace()
    await sql`INSERT INTO allowances (workspace_id, name, amount) VALUES (${ws.id}, 'contacts', 2)`
    await sql`INSERT INTO contacts (workspace_id, id, email, email_key) VALUES (${ws.id}, 'ctc_01', 'a@example.com', 'a@example.com')`
    await sql.begin((tx) => reserveContacts(tx, ws.id, 1))
    const err = await sql.begin((tx) => reserveContacts(tx, ws.id, 2)).catch((e) => e)
    expect(err).toBeInstanceOf(AllowanceError)
    expect(err.allowance).toBe('contacts')
    expect(err.message).toContain('contacts allowance')
    expect(err.message).toContain('1 remain')
    const usage = await usageOf(sql, ws.id)
    expect(usage.find((u) => u.name === 'contacts')).toEqual({ name: 'contacts', limit: 2, used: 1, remaining: 1, periodStart: null, periodEnd: null })
  })

  test('the contacts counter stays exact under concurrent creations at the edge of the allowance', async () => {
    const { sql } = await getHarness()
    const ws = await makeWorkspace()
    await insertContacts(ws.id, Array.from({ length: 15 }, (_, i) => ({ email: `held${i}@example.com` })))
    await setAllowance(ws.id, 'contacts', 20)
    // 30 single-contact creations at once for 5 places left, beside updates of held contacts (which
    // take no place) and test-mode creations (which write nothing, so their counting rolls back too).
    const answers = await Promise.all([
      ...Array.from({ length: 30 }, (_, i) => call('POST', '/api/v1/contacts', { token: ws.live, body: { contacts: [{ email: `new${i}@example.com` }] } })),
      ...Array.from({ length: 5 }, (_, i) => call('POST', '/api/v1/contacts', { token: ws.live, body: { contacts: [{ email: `held${i}@example.com`, name: 'Held' }] } })),
      ...Array.from({ length: 5 }, (_, i) => call('POST', '/api/v1/contacts', { token: ws.test, body: { contacts: [{ email: `sim${i}@example.com` }] } })),
    ])
    const creations = answers.slice(0, 30)
    expect(creations.filter((a) => a.status === 201)).toHaveLength(5)
    for (const a of creations.filter((x) => x.status !== 201)) expectError(a, 402, 'plan_required', '0 remain')
    expect(answers.slice(30, 35).map((a) => a.status)).toEqual([201, 201, 201, 201, 201])
    const held = async () => {
      const [row] = await sql<{ counted: number; counter: number }[]>`
        SELECT (SELECT count(*)::int FROM contacts WHERE workspace_id = ${ws.id}) AS counted,
               (SELECT held::int FROM contact_counts WHERE workspace_id = ${ws.id}) AS counter`
      return row!
    }
    expect(await held()).toEqual({ counted: 20, counter: 20 })
    const usage = await call('GET', '/api/v1/usage', { token: ws.live })
    expect(usage.body.data.allowances.find((a: { name: string }) => a.name === 'contacts')).toMatchObject({ limit: 20, used: 20, remaining: 0 })
    // Removing contacts (no operation does it yet; an operator may) gives their places back.
    await sql`DELETE FROM contacts WHERE workspace_id = ${ws.id} AND email_key IN ('held0@example.com', 'held1@example.com')`
    expect(await held()).toEqual({ counted: 18, counter: 18 })
    const again = await call('POST', '/api/v1/contacts', { token: ws.live, body: { contacts: [{ email: 'a@example.com' }, { email: 'b@example.com' }] } })
    expect(again.status).toBe(201)
    expect(await held()).toEqual({ counted: 20, counter: 20 })
  })
})
