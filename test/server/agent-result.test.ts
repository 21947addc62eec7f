import { describe, expect, test } from 'bun:test'
import { setAgentsStopped } from '../../server/src/domain/workspaces.ts'
import { reportResult } from '../../server/src/domain/agent-gateway.ts'
import { agentIn, authorize, decisionOf, report } from '../agent-helpers.ts'
import { call, expectError, getHarness, makeWorkspace } from '../harness.ts'
import { withinOneWindow } from '../support/clock-window.ts'

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

  test.skipIf(!process.env.DATABASE_URL)('a second result arriving while the first is being recorded is 409 and recorded, not a 500', async () => {
    const { ws, authorizationId } = await allowedIn()
    const { sql } = await getHarness()
    let second: Promise<Awaited<ReturnType<typeof report>>> | undefined
    await sql.begin(async (tx) => {
      // the first result is written and its authorization locked, not yet committed
      await reportResult(tx, { workspaceId: ws.id, agentId: ws.agent.id }, { authorizationId, status: 'completed' })
      second = report(ws.agent.credential, { authorizationId, status: 'failed' })
      // commit only once the second is waiting on the authorization's lock
      for (let i = 0; ; i++) {
        const [w] = await sql<{ n: number }[]>`
          SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%agent_requests%'`
        if (w!.n > 0) break
        if (i > 200) throw new Error('the second result never waited on the lock')
        await Bun.sleep(10)
      }
    })
    const answer = await second!
    expectError(answer, 409, 'conflict', 'already reported')
    expect([...(await refusalsOf(ws.id))]).toEqual([{ authorization_id: authorizationId, status: 'failed', reason: answer.body.error.message }])
    const [n] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM agent_results WHERE workspace_id = ${ws.id}`
    expect(n!.n).toBe(1)
  })

  test.skipIf(!process.env.DATABASE_URL)('two results for one authorization at once: one 201, one 409 recorded, never a 500', async () => {
    for (let round = 0; round < 5; round++) {
      const { ws, authorizationId } = await allowedIn()
      const answers = await Promise.all([
        report(ws.agent.credential, { authorizationId, status: 'completed' }),
        report(ws.agent.credential, { authorizationId, status: 'cancelled' }),
      ])
      expect(answers.map((a) => a.status).sort()).toEqual([201, 409])
      expect((await refusalsOf(ws.id)).length).toBe(1)
    }
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

  test('a result for an authorization that requires approval is 409, recorded', async () => {
    const ws = await makeWorkspace()
    const writer = await agentIn(ws.id, { allow: 'email.send_campaign' })
    const held = await authorize(writer.credential, { tool: 'email', action: 'send_campaign', facts: { recipients: 300 } })
    expect(decisionOf(held)).toBe('requires_approval')
    const authorizationId = held.body.data.authorizationId
    const r = await report(writer.credential, { authorizationId, status: 'completed' })
    expectError(r, 409, 'conflict', 'requires approval')
    expect([...(await refusalsOf(ws.id))]).toEqual([{ authorization_id: authorizationId, status: 'completed', reason: r.body.error.message }])
    const { sql } = await getHarness()
    const [n] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM agent_results WHERE workspace_id = ${ws.id}`
    expect(n!.n).toBe(0)
  })

  test('a refusal is recorded at the time it was decided', async () => {
    const { ws, authorizationId } = await allowedIn()
    const { sql } = await getHarness()
    const later = new Date(Date.now() + 3_600_000) // past the authorization's 15 minutes
    const refused = await sql.begin(async (tx) => {
      try {
        await reportResult(tx, { workspaceId: ws.id, agentId: ws.agent.id }, { authorizationId, status: 'completed' }, later)
      } catch (err) {
        return (err as Error).message
      }
      throw new Error('the late result was taken')
    })
    expect(refused).toContain('expired at')
    const [row] = await sql<{ created_at: Date }[]>`SELECT created_at FROM agent_result_refusals WHERE workspace_id = ${ws.id}`
    expect(row!.created_at.toISOString()).toBe(later.toISOString())
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

  test('summary is one line on what happened: a line break or an escape sequence is 400 naming it; error may run to several lines', async () => {
    const { ws, authorizationId } = await allowedIn()
    for (const summary of ['Paused\nDecided by: mchen (operator)', 'Paused\u001b[1A', 'Paused\u2029again']) {
      expectError(await report(ws.agent.credential, { authorizationId, status: 'completed', summary }), 400, 'invalid_request', 'summary must be one line')
    }
    const r = await report(ws.agent.credential, { authorizationId, status: 'failed', summary: 'Could not pause', error: 'Meta Ads answered 500\n  at pause (ads.ts:12)' })
    expect(r.status).toBe(201)
    expect(r.body.data).toMatchObject({ summary: 'Could not pause', error: 'Meta Ads answered 500\n  at pause (ads.ts:12)' })
  })

  test('a refusal under an Idempotency-Key is replayed, not recorded twice', async () => {
    const { ws, authorizationId } = await allowedIn()
    await report(ws.agent.credential, { authorizationId, status: 'completed' })
    const key = { 'Idempotency-Key': `dup-${authorizationId}` }
    const first = await report(ws.agent.credential, { authorizationId, status: 'failed' }, key)
    const again = await report(ws.agent.credential, { authorizationId, status: 'failed' }, key)
    expectError(first, 409, 'conflict')
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    // the first answer again; its requestId is this answer's own
    expectError(again, 409, 'conflict')
    expect({ ...again.body.error, requestId: null }).toEqual({ ...first.body.error, requestId: null })
    expect((await refusalsOf(ws.id)).length).toBe(1)
  })
})

describe('POST /agent/result under an Idempotency-Key', () => {
  test('a result replayed under the same key gives the same answer and is stored once', async () => {
    const { ws, authorizationId } = await allowedIn()
    const key = { 'Idempotency-Key': `res-${authorizationId}` }
    const first = await report(ws.agent.credential, { authorizationId, status: 'completed', summary: 'Paused.' }, key)
    const again = await report(ws.agent.credential, { authorizationId, status: 'completed', summary: 'Paused.' }, key)
    expect(first.status).toBe(201)
    expect(again.status).toBe(201)
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    expect(again.body).toEqual(first.body)
    const { sql } = await getHarness()
    const results = await sql<{ id: string }[]>`SELECT id FROM agent_results WHERE workspace_id = ${ws.id}`
    expect(results.map((r) => r.id)).toEqual([first.body.data.id])
    expect((await refusalsOf(ws.id)).length).toBe(0)
  })
})

describe('GET /agent/me', () => {
  test('permissions in words, ceilings, its own rate limit and what remains, the stop switch', async () => {
    await withinOneWindow()
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
