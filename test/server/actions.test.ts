import { describe, expect, test } from 'bun:test'
import { call, expectError, getHarness, makeWorkspace, type Workspace } from '../harness.ts'
import { insertCampaign, insertConnection, insertContacts, insertDoNotContact, insertList, insertSegment, outbox, setLimits } from '../write-fixtures.ts'

const propose = (ws: Workspace, kind: string, args: unknown, opts: { token?: string; key?: string } = {}) =>
  call('POST', '/api/v1/actions', {
    token: opts.token ?? ws.live,
    body: { kind, args },
    headers: opts.key ? { 'Idempotency-Key': opts.key } : {},
  })

const countActions = async (workspaceId: string) => {
  const { sql } = await getHarness()
  const [row] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM actions WHERE workspace_id = ${workspaceId}`
  return row!.n
}

const KINDS = ['pause_campaign', 'resume_campaign', 'adjust_budget', 'send_campaign', 'create_discount', 'tag_contacts']
const inAWeek = () => new Date(Date.now() + 7 * 86_400_000).toISOString()

describe('POST /actions: the kinds and their args', () => {
  test('an unknown kind is 400 invalid_request listing every kind', async () => {
    const ws = await makeWorkspace()
    const r = await propose(ws, 'delete_everything', {})
    expectError(r, 400, 'invalid_request', 'kind must be one of')
    for (const k of KINDS) expect(r.body.error.message).toContain(k)
  })

  test('bad args are 400 naming the arg; an unknown arg is refused, never ignored', async () => {
    const ws = await makeWorkspace()
    const cmp = await insertCampaign(ws.id)
    expectError(await propose(ws, 'pause_campaign', {}), 400, 'invalid_request', 'args.campaignId is required')
    expectError(await propose(ws, 'pause_campaign', { campaignId: 'lst_01jd0000000000000000000000' }), 400, 'invalid_request', 'args.campaignId')
    expectError(await propose(ws, 'pause_campaign', { campaignId: cmp, force: true }), 400, 'invalid_request', 'args.force')
    expectError(await propose(ws, 'adjust_budget', { campaignId: cmp }), 400, 'invalid_request', 'exactly one of dailyBudget or changePercent')
    expectError(await propose(ws, 'adjust_budget', { campaignId: cmp, changePercent: 10, dailyBudget: { amountMinor: 1, currency: 'USD' } }), 400, 'invalid_request', 'exactly one')
    expectError(await propose(ws, 'adjust_budget', { campaignId: cmp, dailyBudget: { amountMinor: 12.5, currency: 'USD' } }), 400, 'invalid_request', 'args.dailyBudget.amountMinor')
    expectError(await propose(ws, 'adjust_budget', { campaignId: cmp, dailyBudget: { amountMinor: 100, currency: 'usd' } }), 400, 'invalid_request', 'args.dailyBudget.currency')
    expectError(await propose(ws, 'adjust_budget', { campaignId: cmp, changePercent: -100 }), 400, 'invalid_request', 'args.changePercent')
    expectError(await propose(ws, 'create_discount', { code: 'X', percentOff: 10, expiresAt: inAWeek() }), 400, 'invalid_request', 'args.code')
    expectError(await propose(ws, 'create_discount', { code: 'SAVE', percentOff: 120, expiresAt: inAWeek() }), 400, 'invalid_request', 'args.percentOff')
    expectError(await propose(ws, 'create_discount', { code: 'SAVE', percentOff: 10, expiresAt: 'next week' }), 400, 'invalid_request', 'args.expiresAt')
    expectError(await propose(ws, 'create_discount', { code: 'SAVE', percentOff: 10, expiresAt: '2020-01-01T00:00:00Z' }), 400, 'invalid_request', 'args.expiresAt')
    expectError(await propose(ws, 'tag_contacts', { tag: 'vip' }), 400, 'invalid_request', 'exactly one of listId or segmentId')
    expectError(await call('POST', '/api/v1/actions', { token: ws.live, body: { kind: 'pause_campaign' } }), 400, 'invalid_request', 'args is required')
    expectError(await call('POST', '/api/v1/actions', { token: ws.live, body: { kind: 'pause_campaign', args: [] } }), 400, 'invalid_request', 'args')
    expect(await countActions(ws.id)).toBe(0)
  })

  test('bad args are refused like any other malformed body: not kept under the Idempotency-Key, so the corrected retry goes through', async () => {
    const ws = await makeWorkspace()
    const cmp = await insertCampaign(ws.id)
    expectError(await propose(ws, 'pause_campaign', { campaignId: cmp, force: true }, { key: 'fix-args' }), 400, 'invalid_request', 'args.force')
    const fixed = await propose(ws, 'pause_campaign', { campaignId: cmp }, { key: 'fix-args' })
    expect(fixed.status).toBe(201)
    expect(fixed.body.data).toMatchObject({ kind: 'pause_campaign', args: { campaignId: cmp }, status: 'proposed' })
    expect(await countActions(ws.id)).toBe(1)
  })

  test('an id in args that is not in this workspace is 404 not_found', async () => {
    const ws = await makeWorkspace()
    const other = await makeWorkspace()
    const theirs = await insertCampaign(other.id)
    const theirList = await insertList(other.id)
    expectError(await propose(ws, 'pause_campaign', { campaignId: theirs }), 404, 'not_found', theirs)
    expectError(await propose(ws, 'adjust_budget', { campaignId: theirs, changePercent: 5 }), 404, 'not_found', theirs)
    expectError(await propose(ws, 'tag_contacts', { tag: 'vip', listId: theirList }), 404, 'not_found', theirList)
    const mine = await insertCampaign(ws.id, { channel: 'email' })
    expectError(await propose(ws, 'send_campaign', { campaignId: mine, segmentId: 'seg_01jd0000000000000000000000' }), 404, 'not_found', 'seg_01jd0000000000000000000000')
    expect(await countActions(ws.id)).toBe(0)
  })

  test('a record whose state refuses the change is 409 conflict', async () => {
    const ws = await makeWorkspace()
    const paused = await insertCampaign(ws.id, { status: 'paused' })
    const active = await insertCampaign(ws.id)
    expectError(await propose(ws, 'pause_campaign', { campaignId: paused }), 409, 'conflict', 'is paused')
    expectError(await propose(ws, 'resume_campaign', { campaignId: active }), 409, 'conflict', 'is active')
  })
})

describe('POST /actions: the plan and the limits', () => {
  test('adjust_budget states the budget before and after in the campaign currency, for USD, EUR and JPY alike', async () => {
    const ws = await makeWorkspace()
    const usd = await insertCampaign(ws.id, { name: 'Meta US', budget: 12_000, currency: 'USD' })
    const eur = await insertCampaign(ws.id, { name: 'Google EU', budget: 9_000, currency: 'EUR' })
    const jpy = await insertCampaign(ws.id, { name: 'Instagram JP', budget: 15_000, currency: 'JPY' })

    const a = await propose(ws, 'adjust_budget', { campaignId: usd, changePercent: 15 })
    expect(a.status).toBe(201)
    expect(a.body.data.plannedEffect).toEqual({
      summary: 'Daily budget of "Meta US": 120.00 USD -> 138.00 USD (+15%)',
      campaign: { id: usd, name: 'Meta US' },
      from: { amountMinor: 12_000, currency: 'USD' },
      to: { amountMinor: 13_800, currency: 'USD' },
      changePercent: 15,
    })
    const b = await propose(ws, 'adjust_budget', { campaignId: eur, dailyBudget: { amountMinor: 8_100, currency: 'EUR' } })
    expect(b.body.data.plannedEffect.summary).toBe('Daily budget of "Google EU": 90.00 EUR -> 81.00 EUR (-10%)')
    expect(b.body.data.plannedEffect.changePercent).toBe(-10)
    const c = await propose(ws, 'adjust_budget', { campaignId: jpy, changePercent: 10 })
    expect(c.body.data.plannedEffect.summary).toBe('Daily budget of "Instagram JP": 15,000 JPY -> 16,500 JPY (+10%)')
    expect(c.body.data.plannedEffect.to).toEqual({ amountMinor: 16_500, currency: 'JPY' })
    for (const x of [a, b, c]) expect(x.body.data.status).toBe('proposed')

    // Money is never converted: a budget in another currency than the campaign's is refused.
    expectError(
      await propose(ws, 'adjust_budget', { campaignId: jpy, dailyBudget: { amountMinor: 100, currency: 'USD' } }),
      400,
      'invalid_request',
      'never converted',
    )
    const noBudget = await insertCampaign(ws.id, { channel: 'email' })
    expectError(await propose(ws, 'adjust_budget', { campaignId: noBudget, changePercent: 5 }), 400, 'invalid_request', 'no daily budget')
  })

  test('adjust_budget of a campaign whose daily budget is 0 is 400: a change from zero has no percentage to judge', async () => {
    const ws = await makeWorkspace()
    const zero = await insertCampaign(ws.id, { name: 'Dormant', budget: 0, currency: 'USD' })
    for (const args of [{ dailyBudget: { amountMinor: 5_000, currency: 'USD' } }, { changePercent: 20 }]) {
      const r = await propose(ws, 'adjust_budget', { campaignId: zero, ...args })
      expectError(r, 400, 'invalid_request', `Campaign ${zero} ("Dormant") has a daily budget of 0.00 USD`)
      expect(r.body.error.message).toContain("a change from zero cannot be judged against the workspace's percentage limit")
    }
    expect(await countActions(ws.id)).toBe(0)
  })

  test('a proposal the limits refuse is recorded as refused with the reason; the others wait as proposed', async () => {
    const ws = await makeWorkspace()
    const cmp = await insertCampaign(ws.id, { budget: 10_000, currency: 'EUR' })
    const refused = await propose(ws, 'adjust_budget', { campaignId: cmp, changePercent: 45 })
    expect(refused.status).toBe(201)
    expect(refused.body.data.status).toBe('refused')
    expect(refused.body.data.limits).toEqual({ allowed: false, reason: 'A budget change of +45% is over the workspace limit of 30%.' })
    const discount = await propose(ws, 'create_discount', { code: 'flash40', percentOff: 40, expiresAt: inAWeek() })
    expect(discount.body.data.status).toBe('refused')
    expect(discount.body.data.args.code).toBe('FLASH40')
    expect(discount.body.data.limits.reason).toBe('A discount of 40% is over the workspace limit of 25%.')
    const fine = await propose(ws, 'create_discount', { code: 'WELCOME10', percentOff: 10, expiresAt: '2099-01-31T00:00:00Z' })
    expect(fine.body.data.status).toBe('proposed')
    expect(fine.body.data.limits).toEqual({ allowed: true, reason: null })
    expect(fine.body.data.plannedEffect.summary).toBe('Create discount code WELCOME10: 10% off until 2099-01-31T00:00:00.000Z')

    // Nothing here approves or carries it out: no decision, no outcome.
    for (const x of [refused, discount, fine]) {
      expect(x.body.data).toMatchObject({ decidedBy: null, decidedAt: null, decisionReason: null, outcome: null, appliedAt: null })
      expect(x.body.data.proposedBy).toEqual({ kind: 'api', id: expect.stringMatching(/^cred_/), name: 'API' })
    }
    const events = await outbox(ws.id)
    expect(events.map((e) => e.type)).toEqual(['action.refused', 'action.refused', 'action.proposed'])
    expect(events[0]!.data.action).toEqual(refused.body.data)
    expect(events[2]!.data.action).toEqual(fine.body.data)
  })

  test('send_campaign counts the people it would reach (never the do-not-contact list) against the recipients limit', async () => {
    const ws = await makeWorkspace()
    const cmp = await insertCampaign(ws.id, { name: 'Spring launch', channel: 'email', connectionId: await insertConnection(ws.id, { kind: 'email_platform' }) })
    const ids = await insertContacts(ws.id, [{ email: 'a@example.com' }, { email: 'b@example.com' }, { email: 'C@example.com' }])
    await insertDoNotContact(ws.id, 'c@example.com')
    const list = await insertList(ws.id, ids, 'Newsletter')
    const ok = await propose(ws, 'send_campaign', { campaignId: cmp, listId: list })
    expect(ok.body.data.status).toBe('proposed')
    expect(ok.body.data.plannedEffect).toEqual({
      summary: 'Send "Spring launch" to 2 contacts of list "Newsletter" once approved',
      campaign: { id: cmp, name: 'Spring launch' },
      audience: { kind: 'list', id: list, name: 'Newsletter' },
      recipients: 2,
      sendAt: null,
    })
    await setLimits(ws.id, { maxRecipients: 1 })
    const over = await propose(ws, 'send_campaign', { campaignId: cmp, listId: list })
    expect(over.body.data.status).toBe('refused')
    expect(over.body.data.limits.reason).toBe('2 recipients is over the workspace limit of 1 per send.')
    const ads = await insertCampaign(ws.id)
    expectError(await propose(ws, 'send_campaign', { campaignId: ads, listId: list }), 400, 'invalid_request', 'only email and SMS')
    const empty = await insertList(ws.id, [], 'Empty')
    expectError(await propose(ws, 'send_campaign', { campaignId: cmp, listId: empty }), 400, 'invalid_request', 'reach no one')
  })

  test('send_campaign: no send may start in quiet hours', async () => {
    const ws = await makeWorkspace()
    const cmp = await insertCampaign(ws.id, { channel: 'email' })
    const list = await insertList(ws.id, await insertContacts(ws.id, [{ email: 'q@example.com' }]))
    const hour = new Date().getUTCHours()
    await setLimits(ws.id, { quietStart: hour, quietEnd: (hour + 2) % 24 })
    const now = await propose(ws, 'send_campaign', { campaignId: cmp, listId: list })
    expect(now.body.data.status).toBe('refused')
    expect(now.body.data.limits.reason).toContain("quiet hours")
    const later = new Date(Date.now() + 6 * 3_600_000)
    later.setUTCMinutes(0, 0, 0)
    const scheduled = await propose(ws, 'send_campaign', { campaignId: cmp, listId: list, sendAt: later.toISOString() })
    expect(scheduled.body.data.status).toBe('proposed')
    expect(scheduled.body.data.plannedEffect.sendAt).toBe(later.toISOString())
  })

  test('tag_contacts counts the contacts of a list or a segment', async () => {
    const ws = await makeWorkspace()
    await insertContacts(ws.id, [{ email: 'v1@example.com', tags: ['vip', 'eu'] }, { email: 'v2@example.com', tags: ['vip'] }, { email: 'n@example.com' }])
    const seg = await insertSegment(ws.id, ['vip'], 'VIP buyers')
    const r = await propose(ws, 'tag_contacts', { tag: 'spring', segmentId: seg })
    expect(r.body.data.status).toBe('proposed')
    expect(r.body.data.plannedEffect).toEqual({
      summary: 'Tag 2 contacts of segment "VIP buyers" with "spring"',
      tag: 'spring',
      audience: { kind: 'segment', id: seg, name: 'VIP buyers' },
      contacts: 2,
    })
  })
})

describe('POST /actions: idempotency and test mode', () => {
  test('a replayed key answers the first action again and records nothing twice', async () => {
    const ws = await makeWorkspace()
    const cmp = await insertCampaign(ws.id)
    const first = await propose(ws, 'pause_campaign', { campaignId: cmp }, { key: 'pause-1' })
    expect(first.status).toBe(201)
    const again = await propose(ws, 'pause_campaign', { campaignId: cmp }, { key: 'pause-1' })
    expect(again.status).toBe(201)
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    expect(again.body).toEqual(first.body)
    expect(await countActions(ws.id)).toBe(1)
    expect((await outbox(ws.id)).length).toBe(1)
    expectError(await propose(ws, 'resume_campaign', { campaignId: cmp }, { key: 'pause-1' }), 422, 'idempotency_key_reused')
  })

  test('a test token runs every check, answers simulated and records nothing', async () => {
    const ws = await makeWorkspace()
    const cmp = await insertCampaign(ws.id)
    const r = await propose(ws, 'adjust_budget', { campaignId: cmp, changePercent: 10 }, { token: ws.test })
    expect(r.status).toBe(200)
    expect(r.body).toEqual({ data: { simulated: true } })
    expect(r.headers.get('x-service-mode')).toBe('test')
    // a refused proposal is simulated too
    expect((await propose(ws, 'adjust_budget', { campaignId: cmp, changePercent: 90 }, { token: ws.test })).body).toEqual({ data: { simulated: true } })
    expectError(await propose(ws, 'pause_campaign', { campaignId: 'cmp_01jd0000000000000000000000' }, { token: ws.test }), 404, 'not_found')
    expectError(await propose(ws, 'nope', {}, { token: ws.test }), 400, 'invalid_request', 'kind')
    expectError(await propose(ws, 'adjust_budget', { campaignId: cmp }, { token: ws.test }), 400, 'invalid_request', 'exactly one')
    expect(await countActions(ws.id)).toBe(0)
    expect(await outbox(ws.id)).toEqual([])
  })
})

describe('GET /actions', () => {
  test('newest first, filtered by status, paged with signed cursors, only this workspace', async () => {
    const ws = await makeWorkspace()
    const other = await makeWorkspace()
    await propose(other, 'create_discount', { code: 'OTHER', percentOff: 5, expiresAt: inAWeek() })
    const made: string[] = []
    for (let i = 0; i < 7; i++) {
      const r = await propose(ws, 'create_discount', { code: `CODE${i}`, percentOff: i % 3 === 0 ? 50 : 5, expiresAt: inAWeek() })
      made.push(r.body.data.id)
    }
    const all = await call('GET', '/api/v1/actions', { token: ws.live })
    expect(all.status).toBe(200)
    expect(all.body.data.map((a: any) => a.id)).toEqual([...made].reverse())
    expect(all.body.meta).toBeUndefined()
    expect(Object.keys(all.body.data[0]).sort()).toEqual(
      ['appliedAt', 'args', 'createdAt', 'decidedAt', 'decidedBy', 'decisionReason', 'id', 'kind', 'limits', 'outcome', 'plannedEffect', 'proposedBy', 'status'],
    )

    const seen: string[] = []
    let cursor: string | undefined
    do {
      const r = await call('GET', `/api/v1/actions?status=proposed&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { token: ws.live })
      expect(r.status).toBe(200)
      for (const a of r.body.data) {
        expect(a.status).toBe('proposed')
        seen.push(a.id)
      }
      cursor = r.body.meta?.nextCursor
    } while (cursor)
    expect(seen).toEqual(made.filter((_, i) => i % 3 !== 0).reverse())
    const refused = await call('GET', '/api/v1/actions?status=refused', { token: ws.live })
    expect(refused.body.data.map((a: any) => a.id)).toEqual(made.filter((_, i) => i % 3 === 0).reverse())

    expectError(await call('GET', '/api/v1/actions?status=done', { token: ws.live }), 400, 'invalid_parameter', 'status')
    expectError(await call('GET', '/api/v1/actions?limit=101', { token: ws.live }), 400, 'invalid_parameter', 'limit')
    const page = await call('GET', '/api/v1/actions?status=proposed&limit=1', { token: ws.live })
    expectError(await call('GET', `/api/v1/actions?status=refused&cursor=${encodeURIComponent(page.body.meta.nextCursor)}`, { token: ws.live }), 400, 'invalid_parameter', 'cursor')
    expectError(await call('GET', `/api/v1/actions?cursor=${encodeURIComponent(page.body.meta.nextCursor)}`, { token: other.live }), 400, 'invalid_parameter', 'cursor')
  })
})

describe('times past the year 9999', () => {
  test('a create_discount expiresAt or a send_campaign sendAt past 9999-12-31 (in UTC) is 400 naming it, not a time written with six digits', async () => {
    const ws = await makeWorkspace()
    const r = await call('POST', '/api/v1/actions', {
      token: ws.live,
      body: { kind: 'create_discount', args: { code: 'FAR', percentOff: 5, expiresAt: '9999-12-31T23:59:59-23:59' } },
    })
    expectError(r, 400, 'invalid_request', /^args.expiresAt .* is after 9999-12-31T23:59:59Z/)
  })
})
