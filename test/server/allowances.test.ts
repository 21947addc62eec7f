import { describe, expect, test } from 'bun:test'
import { AllowanceError } from '../../server/src/core/errors.ts'
import { consumeMonthly, periodOf, reserveContacts, usageOf } from '../../server/src/domain/allowances.ts'
import { getHarness, makeWorkspace } from '../harness.ts'

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
})
