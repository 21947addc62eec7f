import { describe, expect, test } from 'bun:test'
import { decideAction } from '../../server/src/domain/actions.ts'
import { AdminError } from '../../server/src/domain/admin.ts'
import { call, getHarness, makeWorkspace, type Workspace } from '../harness.ts'
import { insertCampaign, insertConnection, insertContacts, insertSegment, outbox } from '../write-fixtures.ts'

/**
 * A person's decision on a proposed change (the domain of `growth admin action approve|reject`; the
 * CLI's own tests spawn the command). The stand-in executor is deterministic: a change fails when the
 * connection that would carry it out is missing or not delivering, or when the record moved on.
 */

const propose = async (ws: Workspace, kind: string, args: unknown) => {
  const r = await call('POST', '/api/v1/actions', { token: ws.live, body: { kind, args } })
  if (r.status !== 201) throw new Error(r.text)
  return r.body.data.id as string
}
const decide = async (actionId: string, decision: 'approve' | 'reject') => {
  const { sql } = await getHarness()
  return decideAction(sql, { actionId, decision, actor: 'operator:maya' })
}
const refusal = async (p: Promise<unknown>) => {
  try {
    await p
  } catch (err) {
    expect(err).toBeInstanceOf(AdminError)
    return (err as Error).message
  }
  throw new Error('expected a refusal')
}
const campaign = async (workspaceId: string, id: string) => {
  const { sql } = await getHarness()
  const [row] = await sql<{ status: string; daily_budget_minor: number }[]>`SELECT status, daily_budget_minor FROM campaigns WHERE workspace_id = ${workspaceId} AND id = ${id}`
  return row!
}

describe('growth admin action approve|reject (domain)', () => {
  test('approve: the change is carried out and ends applied, with the outcome, who decided and when; GET /actions and GET /events show it', async () => {
    const ws = await makeWorkspace()
    const meta = await insertConnection(ws.id, { name: 'Meta Ads – Test' })
    const cmp = await insertCampaign(ws.id, { budget: 15_000, currency: 'JPY', connectionId: meta })
    const id = await propose(ws, 'adjust_budget', { campaignId: cmp, changePercent: 20 })
    const a = await decide(id, 'approve')
    expect(a).toMatchObject({
      id,
      status: 'applied',
      decidedBy: 'operator:maya',
      decidedAt: expect.any(String),
      appliedAt: expect.any(String),
      outcome: { ok: true, detail: 'Daily budget set to 18,000 JPY on Meta Ads – Test.', error: null },
    })
    expect(await campaign(ws.id, cmp)).toEqual({ status: 'active', daily_budget_minor: 18_000 })
    const listed = (await call('GET', '/api/v1/actions?status=applied', { token: ws.live })).body.data
    expect(listed).toEqual([a])
    const events = await outbox(ws.id)
    expect(events.map((e) => e.type)).toEqual(['action.proposed', 'action.applied'])
    expect(events[1]!.data.action).toEqual(a)
  })

  test('approve: a connection that is not delivering fails the change, nothing is changed, action.failed says why', async () => {
    const ws = await makeWorkspace()
    const down = await insertConnection(ws.id, { name: 'Google Ads – EU', delivering: false })
    const cmp = await insertCampaign(ws.id, { budget: 9_000, currency: 'EUR', connectionId: down })
    const id = await propose(ws, 'pause_campaign', { campaignId: cmp })
    const a = await decide(id, 'approve')
    expect(a.status).toBe('failed')
    expect(a.outcome).toEqual({ ok: false, detail: null, error: 'Google Ads – EU is not delivering (failing since 2026-11-20T09:30:00.000Z); nothing was changed.' })
    expect(a.appliedAt).toBeNull()
    expect(await campaign(ws.id, cmp)).toEqual({ status: 'active', daily_budget_minor: 9_000 })
    expect((await outbox(ws.id)).map((e) => e.type)).toEqual(['action.proposed', 'action.failed'])

    const orphan = await insertCampaign(ws.id, { name: 'No account' })
    const b = await decide(await propose(ws, 'pause_campaign', { campaignId: orphan }), 'approve')
    expect(b.outcome?.error).toContain('no connected account')
  })

  test('approve: a budget that moved since the plan fails rather than overwrite it', async () => {
    const ws = await makeWorkspace()
    const cmp = await insertCampaign(ws.id, { budget: 10_000, currency: 'USD', connectionId: await insertConnection(ws.id) })
    const id = await propose(ws, 'adjust_budget', { campaignId: cmp, changePercent: 10 })
    const { sql } = await getHarness()
    await sql`UPDATE campaigns SET daily_budget_minor = 20000 WHERE workspace_id = ${ws.id} AND id = ${cmp}`
    const a = await decide(id, 'approve')
    expect(a.status).toBe('failed')
    expect(a.outcome?.error).toContain('planned from 100.00 USD, now 200.00 USD')
    expect((await campaign(ws.id, cmp)).daily_budget_minor).toBe(20_000)
  })

  test('approve tag_contacts: the contacts are tagged, each with contact.updated, then action.applied', async () => {
    const ws = await makeWorkspace()
    await insertContacts(ws.id, [{ email: 'v1@example.com', tags: ['vip'] }, { email: 'v2@example.com', tags: ['vip', 'spring'] }, { email: 'n@example.com' }])
    const seg = await insertSegment(ws.id, ['vip'])
    const a = await decide(await propose(ws, 'tag_contacts', { tag: 'spring', segmentId: seg }), 'approve')
    expect(a.outcome?.detail).toBe('1 contacts of segment "VIP buyers" tagged "spring".')
    const events = await outbox(ws.id)
    expect(events.map((e) => e.type)).toEqual(['action.proposed', 'contact.updated', 'action.applied'])
    expect(events[1]!.data.contact).toMatchObject({ email: 'v1@example.com', tags: ['vip', 'spring'] })
  })

  test('approve create_discount needs a delivering store', async () => {
    const ws = await makeWorkspace()
    const args = { code: 'welcome10', percentOff: 10, expiresAt: '2099-01-01T00:00:00Z' }
    expect((await decide(await propose(ws, 'create_discount', args), 'approve')).outcome?.error).toContain('No store is connected')
    await insertConnection(ws.id, { kind: 'store', name: 'Northwind (Shopify)' })
    expect((await decide(await propose(ws, 'create_discount', args), 'approve')).outcome?.detail).toBe('Discount code WELCOME10 created in Northwind (Shopify).')
  })

  test('reject: never carried out, action.rejected recorded; a second decision is refused with what became of it', async () => {
    const ws = await makeWorkspace()
    const cmp = await insertCampaign(ws.id, { connectionId: await insertConnection(ws.id) })
    const id = await propose(ws, 'pause_campaign', { campaignId: cmp })
    const a = await decide(id, 'reject')
    expect(a).toMatchObject({ status: 'rejected', decidedBy: 'operator:maya', outcome: null, appliedAt: null })
    expect((await campaign(ws.id, cmp)).status).toBe('active')
    expect((await outbox(ws.id)).map((e) => e.type)).toEqual(['action.proposed', 'action.rejected'])
    expect(await refusal(decide(id, 'approve'))).toContain('already rejected by operator:maya')
    expect(await refusal(decide(id, 'reject'))).toContain('already rejected')

    const applied = await propose(ws, 'pause_campaign', { campaignId: cmp })
    await decide(applied, 'approve')
    expect(await refusal(decide(applied, 'reject'))).toContain('already approved by operator:maya')
    const refused = await propose(ws, 'adjust_budget', { campaignId: await insertCampaign(ws.id), changePercent: 80 })
    expect(await refusal(decide(refused, 'approve'))).toContain("refused by the workspace's limits")
    expect(await refusal(decide('act_01jd0000000000000000000000', 'approve'))).toContain('No action act_01jd0000000000000000000000')
    expect((await outbox(ws.id)).map((e) => e.type)).toEqual(['action.proposed', 'action.rejected', 'action.proposed', 'action.applied', 'action.refused'])
  })

  test('two people approving at once: one decides, the other is refused', async () => {
    const ws = await makeWorkspace()
    const cmp = await insertCampaign(ws.id, { connectionId: await insertConnection(ws.id) })
    const id = await propose(ws, 'pause_campaign', { campaignId: cmp })
    const results = await Promise.allSettled([decide(id, 'approve'), decide(id, 'approve')])
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1)
    expect(results.filter((r) => r.status === 'rejected')).toHaveLength(1)
    expect((await outbox(ws.id)).map((e) => e.type)).toEqual(['action.proposed', 'action.applied'])
  })
})
