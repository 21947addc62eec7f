import { describe, expect, test } from 'bun:test'
import { decideAction } from '../../server/src/domain/actions.ts'
import { DomainError } from '../../server/src/core/errors.ts'

import { call, getHarness, makeWorkspace, type Workspace } from '../harness.ts'
import { insertCampaign, insertConnection, insertContacts, insertList, insertSegment, outbox, setAllowance, setLimits } from '../write-fixtures.ts'

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
const decide = async (actionId: string, decision: 'approve' | 'reject', at?: Date) => {
  const { sql } = await getHarness()
  return decideAction(sql, { actionId, decision, decider: { kind: 'operator', name: 'maya' }, now: at ? () => at : undefined })
}
const refusal = async (p: Promise<unknown>) => {
  try {
    await p
  } catch (err) {
    expect(err).toBeInstanceOf(DomainError)
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
      decidedBy: { kind: 'operator', name: 'maya' },
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
    expect(a).toMatchObject({ status: 'rejected', decidedBy: { kind: 'operator', name: 'maya' }, outcome: null, appliedAt: null })
    expect((await campaign(ws.id, cmp)).status).toBe('active')
    expect((await outbox(ws.id)).map((e) => e.type)).toEqual(['action.proposed', 'action.rejected'])
    expect(await refusal(decide(id, 'approve'))).toContain('already rejected by maya (operator)')
    expect(await refusal(decide(id, 'reject'))).toContain('already rejected')

    const applied = await propose(ws, 'pause_campaign', { campaignId: cmp })
    await decide(applied, 'approve')
    expect(await refusal(decide(applied, 'reject'))).toContain('already approved by maya (operator)')
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

  test('an action left approved or applying (the carrying out was interrupted) is carried out by approving again, keeping who decided', async () => {
    const ws = await makeWorkspace()
    const { sql } = await getHarness()
    const stuck = async (id: string, status: 'approved' | 'applying') =>
      sql`UPDATE actions SET status = ${status}, decided_by = '{"kind":"operator","name":"kim"}', decided_at = '2026-11-20T10:00:00Z' WHERE workspace_id = ${ws.id} AND id = ${id}`
    const cmp = await insertCampaign(ws.id, { connectionId: await insertConnection(ws.id, { name: 'Meta Ads – US' }) })
    const id = await propose(ws, 'pause_campaign', { campaignId: cmp })
    await stuck(id, 'applying')
    // Rejecting it is still refused: it was approved.
    expect(await refusal(decide(id, 'reject'))).toContain('already approved by kim (operator) at 2026-11-20T10:00:00.000Z and is being carried out; if that was interrupted, approve it again')
    const a = await decide(id, 'approve')
    expect(a).toMatchObject({
      status: 'applied',
      decidedBy: { kind: 'operator', name: 'kim' },
      decidedAt: '2026-11-20T10:00:00.000Z',
      appliedAt: expect.any(String),
      outcome: { ok: true, detail: 'Campaign paused on Meta Ads – US.', error: null },
    })
    expect((await campaign(ws.id, cmp)).status).toBe('paused')
    expect(await refusal(decide(id, 'approve'))).toContain('already approved by kim (operator)')

    const down = await insertCampaign(ws.id, { connectionId: await insertConnection(ws.id, { name: 'Google Ads – EU', delivering: false }) })
    const other = await propose(ws, 'pause_campaign', { campaignId: down })
    await stuck(other, 'approved')
    const b = await decide(other, 'approve')
    expect(b).toMatchObject({ status: 'failed', decidedBy: { kind: 'operator', name: 'kim' }, appliedAt: null, outcome: { ok: false, error: expect.stringContaining('Google Ads – EU is not delivering') } })
    expect((await outbox(ws.id)).map((e) => e.type)).toEqual(['action.proposed', 'action.applied', 'action.proposed', 'action.failed'])
  })

  test('two people approving an interrupted action at once: it is carried out once, the other is refused', async () => {
    const ws = await makeWorkspace()
    const { sql } = await getHarness()
    const cmp = await insertCampaign(ws.id, { budget: 10_000, currency: 'USD', connectionId: await insertConnection(ws.id) })
    const id = await propose(ws, 'adjust_budget', { campaignId: cmp, changePercent: 10 })
    await sql`UPDATE actions SET status = 'applying', decided_by = '{"kind":"operator","name":"kim"}', decided_at = now() WHERE workspace_id = ${ws.id} AND id = ${id}`
    const results = await Promise.allSettled([decide(id, 'approve'), decide(id, 'approve'), decide(id, 'approve')])
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1)
    const refused = results.filter((r) => r.status === 'rejected') as PromiseRejectedResult[]
    expect(refused).toHaveLength(2)
    for (const r of refused) expect(r.reason.message).toContain('and applied')
    expect((await campaign(ws.id, cmp)).daily_budget_minor).toBe(11_000)
    expect((await outbox(ws.id)).map((e) => e.type)).toEqual(['action.proposed', 'action.applied'])
  })

  test('pause or resume fails, changing nothing, when the campaign is no longer in the state the plan expected', async () => {
    const ws = await makeWorkspace()
    const { sql } = await getHarness()
    const conn = await insertConnection(ws.id)
    const setStatus = (id: string, status: string) => sql`UPDATE campaigns SET status = ${status} WHERE workspace_id = ${ws.id} AND id = ${id}`
    const active = await insertCampaign(ws.id, { name: 'Spring prospecting', connectionId: conn })
    const pause = await propose(ws, 'pause_campaign', { campaignId: active })
    await setStatus(active, 'finished')
    const a = await decide(pause, 'approve')
    expect(a.status).toBe('failed')
    expect(a.outcome?.error).toBe('Campaign "Spring prospecting" is finished now, not active as planned; nothing was changed.')
    expect((await campaign(ws.id, active)).status).toBe('finished')

    const paused = await insertCampaign(ws.id, { name: 'Retargeting', status: 'paused', connectionId: conn })
    const resume = await propose(ws, 'resume_campaign', { campaignId: paused })
    await setStatus(paused, 'draft')
    expect((await decide(resume, 'approve')).outcome?.error).toBe('Campaign "Retargeting" is draft now, not paused as planned; nothing was changed.')
    expect((await campaign(ws.id, paused)).status).toBe('draft')

    // Already where the plan wanted it: nothing to change, and that is a success.
    const again = await insertCampaign(ws.id, { connectionId: conn })
    const twice = await propose(ws, 'pause_campaign', { campaignId: again })
    await setStatus(again, 'paused')
    expect((await decide(twice, 'approve')).outcome).toMatchObject({ ok: true, detail: expect.stringContaining('already paused') })

    // A budget change or a send is refused once the campaign has finished.
    const budget = await insertCampaign(ws.id, { name: 'Brand', connectionId: conn })
    const raise = await propose(ws, 'adjust_budget', { campaignId: budget, changePercent: 10 })
    await setStatus(budget, 'finished')
    expect((await decide(raise, 'approve')).outcome?.error).toBe('Campaign "Brand" is finished now, not active or paused as planned; nothing was changed.')
    expect((await campaign(ws.id, budget)).daily_budget_minor).toBe(10_000)
    const email = await insertCampaign(ws.id, { name: 'Newsletter', channel: 'email', connectionId: await insertConnection(ws.id, { kind: 'email_platform' }) })
    const list = await insertList(ws.id, await insertContacts(ws.id, [{ email: 'f@example.com' }]))
    const send = await propose(ws, 'send_campaign', { campaignId: email, listId: list })
    await setStatus(email, 'finished')
    expect((await decide(send, 'approve')).outcome?.error).toBe('Campaign "Newsletter" is finished now, not active or paused as planned; nothing was sent.')
  })

  test('a send planned for "once approved" meets quiet hours when approved; a scheduled one was judged at its sendAt', async () => {
    const ws = await makeWorkspace()
    const cmp = await insertCampaign(ws.id, { name: 'Spring launch', channel: 'email', connectionId: await insertConnection(ws.id, { kind: 'email_platform', name: 'Klaviyo' }) })
    const list = await insertList(ws.id, await insertContacts(ws.id, [{ email: 'a@example.com' }, { email: 'b@example.com' }]))
    await setLimits(ws.id, { quietStart: null, quietEnd: null })
    const now = await propose(ws, 'send_campaign', { campaignId: cmp, listId: list })
    const noon = new Date(Date.now() + 7 * 86_400_000)
    noon.setUTCHours(12, 0, 0, 0)
    const scheduled = await propose(ws, 'send_campaign', { campaignId: cmp, listId: list, sendAt: noon.toISOString() })
    await setLimits(ws.id, { quietStart: 22, quietEnd: 7 })
    const night = new Date('2026-11-20T23:30:00Z')
    const a = await decide(now, 'approve', night)
    expect(a.status).toBe('failed')
    expect(a.outcome?.error).toBe("No send may start in the workspace's quiet hours, 22:00 to 07:00 UTC. Nothing was sent; propose the send again with a sendAt outside them.")
    const b = await decide(scheduled, 'approve', night)
    expect(b.outcome).toEqual({ ok: true, detail: 'Send to 2 contacts of list "Newsletter" handed to Klaviyo.', error: null })
  })

  test('an approved send uses the emails or sms allowance by its recipients; one that does not fit fails naming the allowance', async () => {
    const ws = await makeWorkspace()
    const contacts = await insertContacts(ws.id, [{ email: 'a@example.com' }, { email: 'b@example.com' }, { email: 'c@example.com' }])
    const list = await insertList(ws.id, contacts)
    const used = async (name: string) => {
      const r = await call('GET', '/api/v1/usage', { token: ws.live })
      return r.body.data.allowances.find((u: any) => u.name === name).used as number
    }
    const email = await insertCampaign(ws.id, { channel: 'email', connectionId: await insertConnection(ws.id, { kind: 'email_platform' }) })
    const sms = await insertCampaign(ws.id, { channel: 'sms', connectionId: await insertConnection(ws.id, { kind: 'email_platform' }) })
    expect(await used('emails')).toBe(0)
    expect((await decide(await propose(ws, 'send_campaign', { campaignId: email, listId: list }), 'approve')).status).toBe('applied')
    expect(await used('emails')).toBe(3)
    expect(await used('sms')).toBe(0)
    expect((await decide(await propose(ws, 'send_campaign', { campaignId: sms, listId: list }), 'approve')).status).toBe('applied')
    expect(await used('sms')).toBe(3)

    await setAllowance(ws.id, 'emails', 5)
    const tooMany = await decide(await propose(ws, 'send_campaign', { campaignId: email, listId: list }), 'approve')
    expect(tooMany.status).toBe('failed')
    expect(tooMany.outcome?.error).toBe(
      "The emails allowance of the workspace's plan is 5 a month; 2 remain this month and this request needs 3. Upgrade the plan or wait for next month. Nothing was changed.",
    )
    expect(await used('emails')).toBe(3)
    expect((await outbox(ws.id)).map((e) => e.type).slice(-2)).toEqual(['action.proposed', 'action.failed'])
  })
})
