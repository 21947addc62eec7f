import { describe, expect, test } from 'bun:test'
import { listRequests } from '../../server/src/domain/agent-requests.ts'
import { TOOL_CATALOGUE } from '../../server/src/domain/agent-tools.ts'
import type { Sql } from '../../server/src/store/driver/db.ts'
import { agentIn, authorize, decisionOf, report, ruleIn } from '../agent-helpers.ts'
import { call, expectError, getHarness, makeWorkspace } from '../harness.ts'

describe('GET /agents, /agents/tools, /agents/rules', () => {
  test('agents with their permissions in words, data, ceilings, and when each last acted', async () => {
    const ws = await makeWorkspace()
    const before = await call('GET', '/api/v1/agents', { token: ws.live })
    expect(before.status).toBe(200)
    expect(before.body.data).toHaveLength(1)
    expect(before.body.data[0]).toMatchObject({ id: ws.agent.id, name: 'Test agent', owner: 'workspace', lastActedAt: null, retiredAt: null })
    expect(before.body.data[0].permissions).toEqual([{ tool: 'ads', action: 'pause_campaign', sentence: 'Test agent may pause a campaign (ads.pause_campaign).' }])
    expect(before.body.data[0].ceilings).toEqual({ amounts: [], amountPercent: null, recipients: null, records: null, sentences: ['No amount in any currency.'] })
    await authorize(ws.agent.credential, { tool: 'ads', action: 'pause_campaign' })
    const after = await call('GET', '/api/v1/agents', { token: ws.live })
    expect(after.body.data[0].lastActedAt).toEqual(expect.any(String))
  })

  test('tools list every action with risk, data used and whether it can be undone', async () => {
    const ws = await makeWorkspace()
    const r = await call('GET', '/api/v1/agents/tools', { token: ws.live })
    expect(r.status).toBe(200)
    expect(r.body.data.map((t: any) => t.key).sort()).toEqual(TOOL_CATALOGUE.map((t) => t.key).sort())
    const ads = r.body.data.find((t: any) => t.key === 'ads')
    expect(ads.actions.find((a: any) => a.key === 'adjust_budget')).toEqual({
      key: 'adjust_budget', name: 'Change a daily budget', risk: 'medium', dataUsed: ['campaigns', 'ad_spend'], reversible: true,
    })
    expect(ads.createdAt).toEqual(expect.any(String))
  })

  test('rules as sentences, money in the currency\'s own format, with their structure', async () => {
    const ws = await makeWorkspace()
    const jpy = await ruleIn(ws.id, { match: [{ tool: 'ads', action: 'adjust_budget' }], when: [{ fact: 'amountMinor', op: '>', value: 90_000, currency: 'JPY' }] }, 'require_approval')
    const eur = await ruleIn(ws.id, { match: [{ tool: 'discounts', action: 'create_discount' }, { tool: 'sms', action: 'send_message' }], when: [{ fact: 'amountMinor', op: '>=', value: 5_000_000, currency: 'EUR' }] }, 'deny')
    const r = await call('GET', '/api/v1/agents/rules', { token: ws.live })
    expect(r.body.data.map((x: any) => x.sentence)).toEqual([
      'Ask a person before any agent changes a daily budget for more than 90,000 JPY.',
      'No agent may create a discount code or send an SMS message for at least 50,000.00 EUR.',
    ])
    expect(r.body.data[0]).toMatchObject({ id: jpy.id, effect: 'require_approval', structure: { match: [{ tool: 'ads', action: 'adjust_budget' }] } })
    expect(r.body.data[1].id).toBe(eur.id)
    // an amount condition holds only in its own currency (the change in percent stated too: the
    // workspace's budget limit reads it, and a fact not stated would need a person by itself)
    const agent = await agentIn(ws.id, { allow: 'ads.adjust_budget', ceilings: { amounts: [{ amountMinor: 1_000_000, currency: 'JPY' }, { amountMinor: 1_000_000, currency: 'USD' }] } })
    const change = { amountPercent: 5, increase: true }
    expect(decisionOf(await authorize(agent.credential, { tool: 'ads', action: 'adjust_budget', facts: { amountMinor: 95_000, currency: 'JPY', ...change } }))).toBe('requires_approval')
    expect(decisionOf(await authorize(agent.credential, { tool: 'ads', action: 'adjust_budget', facts: { amountMinor: 95_000, currency: 'USD', ...change } }))).toBe('allowed')
  })

  test('the read:agents scope opens them; agent credentials do not', async () => {
    const ws = await makeWorkspace({ scoped: 'read:agents' })
    const other = await makeWorkspace({ scoped: 'read:growth' })
    for (const path of ['/agents', '/agents/tools', '/agents/rules', '/agents/requests']) {
      expect((await call('GET', `/api/v1${path}`, { token: ws.scoped })).status).toBe(200)
      expectError(await call('GET', `/api/v1${path}`, { token: other.scoped }), 403, 'forbidden', 'read:agents')
      expectError(await call('GET', `/api/v1${path}`, { token: ws.agent.credential }), 403, 'forbidden')
    }
  })
})

describe('GET /agents/requests', () => {
  async function history() {
    const ws = await makeWorkspace()
    const second = await agentIn(ws.id, { name: 'Second', allow: 'ads.pause_campaign,email.send_campaign' })
    const ids: string[] = []
    for (let i = 0; i < 5; i++) ids.push((await authorize(ws.agent.credential, { tool: 'ads', action: 'pause_campaign', resource: `cmp_${i}` })).body.data.authorizationId)
    ids.push((await authorize(ws.agent.credential, { tool: 'email', action: 'send_campaign' })).body.data.authorizationId) // denied
    ids.push((await authorize(second.credential, { tool: 'email', action: 'send_campaign' })).body.data.authorizationId) // requires_approval
    await report(ws.agent.credential, { authorizationId: ids[4], status: 'completed', summary: 'Paused.' })
    return { ws, second, ids }
  }

  test('newest first, refusals included, each with its result if reported', async () => {
    const { ws, ids } = await history()
    const r = await call('GET', '/api/v1/agents/requests', { token: ws.live })
    expect(r.status).toBe(200)
    expect(r.body.meta).toBeUndefined()
    expect(r.body.data.map((x: any) => x.authorizationId)).toEqual([...ids].reverse())
    expect(r.body.data.map((x: any) => x.decision)).toEqual(['requires_approval', 'denied', 'allowed', 'allowed', 'allowed', 'allowed', 'allowed'])
    // status (the Resources table's name for it) is the decision, the value ?status= filters on
    expect(r.body.data.map((x: any) => x.status)).toEqual(r.body.data.map((x: any) => x.decision))
    const reported = r.body.data.find((x: any) => x.id === ids[4])
    expect(reported.result).toMatchObject({ status: 'completed', summary: 'Paused.', verified: false })
    expect(r.body.data.find((x: any) => x.id === ids[3]).result).toBeNull()
    const denied = r.body.data[1]
    expect(denied).toMatchObject({ agentName: 'Test agent', tool: 'email', action: 'send_campaign', mayProceed: false, rulesVersion: 1, approvalId: null, expiresAt: null })
    expect(denied.checks.find((c: any) => c.name === 'permission').passed).toBe(false)
    expect(r.body.data[0].approvalId).toMatch(/^apr_/)
  })

  test('filters by status and agentId; an unknown agent is 404; a bad status is 400', async () => {
    const { ws, second, ids } = await history()
    const denied = await call('GET', '/api/v1/agents/requests?status=denied', { token: ws.live })
    expect(denied.body.data.map((x: any) => x.id)).toEqual([ids[5]])
    expect(denied.body.data[0].status).toBe('denied')
    const mine = await call('GET', `/api/v1/agents/requests?agentId=${second.id}`, { token: ws.live })
    expect(mine.body.data.map((x: any) => x.id)).toEqual([ids[6]])
    const both = await call('GET', `/api/v1/agents/requests?agentId=${ws.agent.id}&status=allowed`, { token: ws.live })
    expect(both.body.data).toHaveLength(5)
    const stranger = await makeWorkspace()
    expectError(await call('GET', `/api/v1/agents/requests?agentId=${stranger.agent.id}`, { token: ws.live }), 404, 'not_found', stranger.agent.id)
    expectError(await call('GET', '/api/v1/agents/requests?status=maybe', { token: ws.live }), 400, 'invalid_parameter', 'status')
    expectError(await call('GET', '/api/v1/agents/requests?agentId=nope', { token: ws.live }), 400, 'invalid_parameter', 'agentId')
    // nothing of another workspace shows
    expect((await call('GET', '/api/v1/agents/requests', { token: stranger.live })).body.data).toEqual([])
  })

  test('pages with meta.nextBefore, bound to the filter', async () => {
    const { ws, ids } = await history()
    const seen: string[] = []
    let before: string | undefined
    for (let i = 0; i < 10; i++) {
      const r = await call('GET', `/api/v1/agents/requests?limit=3${before ? `&before=${encodeURIComponent(before)}` : ''}`, { token: ws.live })
      expect(r.status).toBe(200)
      seen.push(...r.body.data.map((x: any) => x.id))
      before = r.body.meta?.nextBefore
      if (!before) break
      expect(Object.keys(r.body.meta)).toEqual(['nextBefore'])
    }
    expect(seen).toEqual([...ids].reverse())
    const first = await call('GET', '/api/v1/agents/requests?limit=2', { token: ws.live })
    const cursor = encodeURIComponent(first.body.meta.nextBefore)
    expectError(await call('GET', `/api/v1/agents/requests?status=allowed&before=${cursor}`, { token: ws.live }), 400, 'invalid_parameter', 'before')
    expectError(await call('GET', '/api/v1/agents/requests?before=made-up', { token: ws.live }), 400, 'invalid_parameter', 'before')
  })
})

describe('GET /agents/requests: the agent is looked up only when its page is empty', () => {
  /** The harness's database, noting the text of every statement and fragment sent through it. */
  async function noting() {
    const { sql } = await getHarness()
    const texts: string[] = []
    const spy = new Proxy(sql, {
      apply(target, self, args) {
        if (Array.isArray(args[0])) texts.push((args[0] as string[]).join('?'))
        return Reflect.apply(target as never, self, args)
      },
    }) as Sql
    return { spy, lookups: () => texts.filter((t) => /FROM agents WHERE/.test(t)).length }
  }

  test('a page with requests answers without looking the agent up; an empty one looks it up', async () => {
    const ws = await makeWorkspace()
    await authorize(ws.agent.credential, { tool: 'ads', action: 'pause_campaign' })
    const full = await noting()
    expect(await listRequests(full.spy, ws.id, { agentId: ws.agent.id, limit: 10 })).toHaveLength(1)
    expect(full.lookups()).toBe(0)
    const empty = await noting()
    expect(await listRequests(empty.spy, ws.id, { agentId: ws.agent.id, decision: 'denied', limit: 10 })).toEqual([])
    expect(empty.lookups()).toBe(1)
    const stranger = await makeWorkspace()
    await expect(listRequests(empty.spy, ws.id, { agentId: stranger.agent.id, limit: 10 })).rejects.toThrow(stranger.agent.id)
  })
})
