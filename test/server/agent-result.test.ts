import { describe, expect, test } from 'bun:test'
import { setAgentsStopped } from '../../server/src/domain/admin.ts'
import { agentIn, authorize, decisionOf, report } from '../agent-helpers.ts'
import { call, expectError, getHarness, makeWorkspace } from '../harness.ts'

async function allowedIn() {
  const ws = await makeWorkspace()
  const a = await authorize(ws.agent.credential, { tool: 'ads', action: 'pause_campaign', resource: 'cmp_1' })
  expect(decisionOf(a)).toBe('allowed')
  return { ws, authorizationId: a.body.data.authorizationId as string }
}

async function refusalsOf(workspaceId: string) {
  const { sql } = await getHarness()
  return sql<any[]>`SELECT authorization_id, status, reason FROM agent_result_refusals WHERE workspace_id = ${workspaceId} ORDER BY created_at, id`
}

describe('POST /agent/result', () => {
  test('a result of an allowed authorization is recorded as unverified, with its event', async () => {
    const { ws, authorizationId } = await allowedIn()
    const r = await report(ws.agent.credential, { authorizationId, status: 'completed', summary: 'Paused on Meta Ads.' })
    expect(r.status).toBe(201)
    expect(r.body.data).toEqual({
      id: expect.stringMatching(/^res_[0-9a-z]{26}$/),
      authorizationId,
      agentId: ws.agent.id,
      status: 'completed',
      summary: 'Paused on Meta Ads.',
      error: null,
      verified: false,
      createdAt: expect.any(String),
    })
    const { sql } = await getHarness()
    const events = await sql<any[]>`SELECT data FROM events WHERE workspace_id = ${ws.id} AND type = 'agent.result.reported'`
    expect(events.map((e) => e.data.result.id)).toEqual([r.body.data.id])
    // the workspace sees it with its request
    const list = await call('GET', '/api/v1/agents/requests', { token: ws.live })
    expect(list.body.data[0].result).toMatchObject({ id: r.body.data.id, status: 'completed', verified: false })
  })

  test('a failed result carries its error', async () => {
    const { ws, authorizationId } = await allowedIn()
    const r = await report(ws.agent.credential, { authorizationId, status: 'failed', error: 'Meta Ads: 503' })
    expect(r.body.data).toMatchObject({ status: 'failed', error: 'Meta Ads: 503', summary: null })
  })

  test('a second result for the same authorization is 409, and the refusal is recorded', async () => {
    const { ws, authorizationId } = await allowedIn()
    expect((await report(ws.agent.credential, { authorizationId, status: 'completed' })).status).toBe(201)
    const second = await report(ws.agent.credential, { authorizationId, status: 'cancelled' })
    expectError(second, 409, 'conflict', 'already reported')
    expect([...(await refusalsOf(ws.id))]).toEqual([{ authorization_id: authorizationId, status: 'cancelled', reason: second.body.error.message }])
    const { sql } = await getHarness()
    const events = await sql<any[]>`SELECT 1 FROM events WHERE workspace_id = ${ws.id} AND type = 'agent.result.reported'`
    expect(events.length).toBe(1)
  })

  test('a result for an authorization that was not allowed is 409, recorded', async () => {
    const ws = await makeWorkspace()
    const { sql } = await getHarness()
    await setAgentsStopped(sql, { workspaceId: ws.id, stopped: true, reason: 'Audit', actor: 'operator:test' })
    const denied = await authorize(ws.agent.credential, { tool: 'ads', action: 'pause_campaign' })
    expect(decisionOf(denied)).toBe('denied')
    const r = await report(ws.agent.credential, { authorizationId: denied.body.data.authorizationId, status: 'completed' })
    expectError(r, 409, 'conflict', 'was denied')
    expect((await refusalsOf(ws.id)).length).toBe(1)
  })

  test('a result after the authorization expired is 409, recorded', async () => {
    const { ws, authorizationId } = await allowedIn()
    const { sql } = await getHarness()
    await sql`UPDATE agent_requests SET expires_at = now() - interval '1 second' WHERE workspace_id = ${ws.id} AND id = ${authorizationId}`
    expectError(await report(ws.agent.credential, { authorizationId, status: 'completed' }), 409, 'conflict', 'expired at')
    expect((await refusalsOf(ws.id)).map((r) => r.authorization_id)).toEqual([authorizationId])
  })

  test("another agent's, another workspace's or nobody's authorization: the same 404", async () => {
    const { ws, authorizationId } = await allowedIn()
    const sibling = await agentIn(ws.id, { allow: 'ads.pause_campaign' })
    const stranger = await makeWorkspace()
    const nobody = authorizationId.slice(0, -4) + '0000'
    const answers = [
      await report(sibling.credential, { authorizationId, status: 'completed' }),
      await report(stranger.agent.credential, { authorizationId, status: 'completed' }),
      await report(ws.agent.credential, { authorizationId: nobody, status: 'completed' }),
    ]
    const words = answers.map((a) => {
      expectError(a, 404, 'not_found')
      return a.body.error.message.replace(/auth_\w+/, 'ID')
    })
    expect(new Set(words).size).toBe(1)
    // and the rightful agent can still report it
    expect((await report(ws.agent.credential, { authorizationId, status: 'completed' })).status).toBe(201)
  })

  test('the body is strict: status from the list, an authorization id, nothing else', async () => {
    const { ws, authorizationId } = await allowedIn()
    expectError(await report(ws.agent.credential, { authorizationId, status: 'done' }), 400, 'invalid_request', 'status')
    expectError(await report(ws.agent.credential, { authorizationId: 'apr_x', status: 'completed' }), 400, 'invalid_request', 'authorizationId')
    expectError(await report(ws.agent.credential, { authorizationId, status: 'completed', verified: true }), 400, 'invalid_request', 'verified')
  })

  test('a refusal under an Idempotency-Key is replayed, not recorded twice', async () => {
    const { ws, authorizationId } = await allowedIn()
    await report(ws.agent.credential, { authorizationId, status: 'completed' })
    const key = { 'Idempotency-Key': `dup-${authorizationId}` }
    const first = await report(ws.agent.credential, { authorizationId, status: 'failed' }, key)
    const again = await report(ws.agent.credential, { authorizationId, status: 'failed' }, key)
    expectError(first, 409, 'conflict')
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    expect(again.body).toEqual(first.body)
    expect((await refusalsOf(ws.id)).length).toBe(1)
  })
})

describe('GET /agent/me', () => {
  test('permissions in words, ceilings, its own rate limit and what remains, the stop switch', async () => {
    const ws = await makeWorkspace()
    const agent = await agentIn(ws.id, {
      name: 'Budget Pacer',
      allow: 'ads.pause_campaign,ads.adjust_budget',
      ceilings: { amounts: [{ amountMinor: 50_000, currency: 'JPY' }, { amountMinor: 50_000, currency: 'EUR' }], amountPercent: 20 },
    })
    const me = await call('GET', '/api/v1/agent/me', { token: agent.credential })
    expect(me.status).toBe(200)
    const d = me.body.data
    expect(d.agent).toEqual({ id: agent.id, name: 'Budget Pacer', owner: 'workspace' })
    expect(d.permissions).toEqual([
      { tool: 'ads', action: 'adjust_budget', sentence: 'Budget Pacer may change a daily budget (ads.adjust_budget).' },
      { tool: 'ads', action: 'pause_campaign', sentence: 'Budget Pacer may pause a campaign (ads.pause_campaign).' },
    ])
    expect(d.ceilings.amounts).toEqual([{ amountMinor: 50_000, currency: 'EUR' }, { amountMinor: 50_000, currency: 'JPY' }])
    expect(d.ceilings.sentences).toContain('At most 50,000 JPY in one request.')
    expect(d.ceilings.sentences).toContain('At most 500.00 EUR in one request.')
    expect(d.ceilings).toMatchObject({ amountPercent: 20, recipients: null, records: null })
    expect(d.dataAccess).toEqual(['ad_spend', 'campaigns'])
    expect(d.maxUnattendedRisk).toBe('medium')
    expect(d.limits.requestsPerHour).toBe(1200)
    expect(d.limits.remaining).toBe(Number(me.headers.get('x-ratelimit-remaining')))
    expect(d.agentsStopped).toBe(false)
    expect(d.stoppedReason).toBeUndefined()
    const next = await call('GET', '/api/v1/agent/me', { token: agent.credential })
    expect(next.body.data.limits.remaining).toBe(d.limits.remaining - 1)

    const { sql } = await getHarness()
    await setAgentsStopped(sql, { workspaceId: ws.id, stopped: true, reason: 'Runaway spend', actor: 'operator:maya' })
    const stopped = await call('GET', '/api/v1/agent/me', { token: agent.credential })
    expect(stopped.body.data).toMatchObject({ agentsStopped: true, stoppedReason: 'Runaway spend' })
    expect(stopped.body.data.stoppedAt).toEqual(expect.any(String))
  })

  test('takes no parameters and no workspace token', async () => {
    const ws = await makeWorkspace()
    expectError(await call('GET', '/api/v1/agent/me?x=1', { token: ws.agent.credential }), 400, 'invalid_parameter', 'x')
    expectError(await call('GET', '/api/v1/agent/me', { token: ws.live }), 403, 'forbidden')
  })
})
