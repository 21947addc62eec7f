import { beforeAll, describe, expect, test } from 'bun:test'
import { createDemoWorkspace, type DemoWorkspace } from '../../server/src/demo/index.ts'
import { createToken } from '../../server/src/domain/credentials.ts'
import { operations } from '../../server/src/http/operations.ts'
import { call, getHarness, makeWorkspace, type Answer } from '../harness.ts'
import { checkAgainstDocument, checked } from '../support/response-models.ts'

/**
 * Every operation of the route table, answered for real at least once with success and once with a
 * refusal, each answer held against the published OpenAPI document by call() (harness.ts). The
 * table below says, per operationId, what to send and which status must come back; the last test
 * proves that the table and the route table agree and that each operation had a 2xx and a 4xx
 * checked here, so a new operation without an entry fails by name.
 */

/** What the table's requests draw on: the demo workspace and a few workspaces made to be refused. */
type Ctx = {
  demo: DemoWorkspace
  live: string
  test: string
  /** A live token of the demo workspace with only read:analytics. */
  scoped: string
  /** The demo's first agent (may ads.pause_campaign). */
  agent: string
  /** A live token of a workspace on the starter plan (no API access). */
  starter: string
  /** An agent of a workspace whose agentRequests allowance is used up. */
  spentAgent: string
  activeCampaign: string
  pausedCampaign: string
  /** An allowed authorization of the demo's first agent, not yet reported on. */
  authorizationId: string
  idempotencyKey: string
}

/** One request to the operation (its method and path come from the route table) and the status it must answer. */
type Case = { why: string; status: number; token?: string; query?: string; body?: unknown; headers?: Record<string, string> }

const BAD_TOKEN = 'svc_live_ws_nothing_notatoken'
const hypothesis = (subjectId: string, text = 'Naming the roast in the subject line lifts opens.') =>
  ({ hypothesis: text, kind: 'email_ab_test', subjectId, expectation: 'a_better' })
const pause = (campaignId: string) => ({ kind: 'pause_campaign', args: { campaignId } })
const contacts = (listId?: string) => ({ ...(listId ? { listId } : {}), contacts: [{ email: `rm-${crypto.randomUUID()}@example.com`, tags: ['rm'] }] })
const ask = (resource: string) => ({ tool: 'ads', action: 'pause_campaign', resource, summary: 'Pause a campaign that overspends' })

const TABLE: Record<string, (c: Ctx) => Case[]> = {
  getApiIndex: () => [
    { why: 'public', status: 200 },
    { why: 'unknown query parameter', query: '?verbose=1', status: 400 },
  ],
  getOpenApiDocument: () => [
    { why: 'public', status: 200 },
    { why: 'unknown query parameter', query: '?format=yaml', status: 400 },
  ],
  listMissions: (c) => [
    { why: 'live token', token: c.live, status: 200 },
    { why: 'test token reads too', token: c.test, status: 200 },
    { why: 'no credential', status: 401 },
    { why: 'starter plan', token: c.starter, status: 402 },
  ],
  listDecisions: (c) => [
    { why: 'paged', token: c.live, query: '?limit=5', status: 200 },
    { why: 'missionId with another prefix', token: c.live, query: '?missionId=dec_x', status: 400 },
    { why: 'mission that is not there', token: c.live, query: '?missionId=msn_doesnotexist', status: 404 },
  ],
  listSignals: (c) => [
    { why: 'by status', token: c.live, query: '?status=resolved', status: 200 },
    { why: 'unknown status', token: c.live, query: '?status=closed', status: 400 },
    { why: 'agent credential', token: c.agent, status: 403 },
  ],
  listOpportunities: (c) => [
    { why: 'open ones', token: c.live, query: '?status=open&limit=10', status: 200 },
    { why: 'token without read:growth', token: c.scoped, status: 403 },
  ],
  listExperiments: (c) => [
    { why: 'paged', token: c.live, query: '?limit=10', status: 200 },
    { why: 'limit 0', token: c.live, query: '?limit=0', status: 400 },
  ],
  createExperiment: (c) => [
    { why: 'test token: simulated', token: c.test, body: hypothesis(c.demo.fixtures.openAbTestId), status: 200 },
    { why: 'recorded', token: c.live, body: hypothesis(c.demo.fixtures.openAbTestId), headers: { 'Idempotency-Key': c.idempotencyKey }, status: 201 },
    { why: 'same key, another body', token: c.live, body: hypothesis(c.demo.fixtures.openAbTestId, 'A shorter subject line lifts opens.'), headers: { 'Idempotency-Key': c.idempotencyKey }, status: 422 },
    { why: 'A/B test already decided', token: c.live, body: hypothesis(c.demo.fixtures.decidedAbTestId), status: 409 },
    { why: 'A/B test that is not there', token: c.live, body: hypothesis('abt_doesnotexist'), status: 404 },
    { why: 'unknown field', token: c.live, body: { ...hypothesis(c.demo.fixtures.openAbTestId), colour: 'blue' }, status: 400 },
  ],
  getOutcomes: (c) => [
    { why: 'live token', token: c.live, status: 200 },
    { why: 'not a token', token: BAD_TOKEN, status: 401 },
  ],
  listApprovals: (c) => [
    { why: 'pending ones', token: c.live, query: '?status=pending', status: 200 },
    { why: 'unknown status', token: c.live, query: '?status=maybe', status: 400 },
  ],
  listActions: (c) => [
    { why: 'paged', token: c.live, query: '?limit=10', status: 200 },
    { why: 'a cursor this API did not sign', token: c.live, query: '?cursor=garbage', status: 400 },
  ],
  createAction: (c) => [
    { why: 'test token: simulated', token: c.test, body: pause(c.activeCampaign), status: 200 },
    { why: 'proposed', token: c.live, body: pause(c.activeCampaign), status: 201 },
    { why: 'campaign that is not there', token: c.live, body: pause('cmp_doesnotexist'), status: 404 },
    { why: 'pausing a paused campaign', token: c.live, body: pause(c.pausedCampaign), status: 409 },
    { why: 'token without write:actions', token: c.scoped, body: pause(c.activeCampaign), status: 403 },
  ],
  importContacts: (c) => [
    { why: 'test token: simulated', token: c.test, body: contacts(c.demo.fixtures.listId), status: 200 },
    { why: 'imported onto a list', token: c.live, body: contacts(c.demo.fixtures.listId), status: 201 },
    { why: 'list that is not there', token: c.live, body: contacts('lst_doesnotexist'), status: 404 },
    { why: 'no contacts', token: c.live, body: { contacts: [] }, status: 400 },
    { why: 'starter plan', token: c.starter, body: contacts(), status: 402 },
  ],
  trackEvent: (c) => [
    { why: 'test token: simulated', token: c.test, body: { event: c.demo.fixtures.trackedEvent, email: c.demo.fixtures.contactEmail }, status: 200 },
    { why: 'tracked', token: c.live, body: { event: c.demo.fixtures.trackedEvent, email: c.demo.fixtures.contactEmail }, status: 201 },
    { why: 'no event name', token: c.live, body: { email: c.demo.fixtures.contactEmail }, status: 400 },
    { why: 'address of no contact', token: c.live, body: { event: c.demo.fixtures.trackedEvent, email: 'nobody-here@example.com' }, status: 404 },
  ],
  listCustomers: (c) => [
    { why: 'by stage', token: c.live, query: '?stage=repeat&limit=10', status: 200 },
    { why: 'token without read:contacts', token: c.scoped, status: 403 },
  ],
  getRevenue: (c) => [
    { why: 'the default span', token: c.scoped, status: 200 },
    { why: 'from after to', token: c.live, query: '?from=2026-10-01T00:00:00Z&to=2026-09-01T00:00:00Z', status: 400 },
  ],
  getUsage: (c) => [
    { why: 'live token', token: c.live, status: 200 },
    { why: 'agent credential', token: c.agent, status: 403 },
  ],
  listConnections: (c) => [
    { why: 'live token', token: c.live, status: 200 },
    { why: 'starter plan', token: c.starter, status: 402 },
  ],
  listEvents: (c) => [
    { why: 'by type', token: c.live, query: '?type=action.applied&limit=50', status: 200 },
    { why: 'unknown type', token: c.live, query: '?type=nothing.happened', status: 400 },
  ],
  listAgents: (c) => [
    { why: 'live token', token: c.live, status: 200 },
    { why: 'token without read:agents', token: c.scoped, status: 403 },
  ],
  listAgentTools: (c) => [
    { why: 'live token', token: c.live, status: 200 },
    { why: 'no credential', status: 401 },
  ],
  listAgentRules: (c) => [
    { why: 'live token', token: c.live, status: 200 },
    { why: 'agent credential', token: c.agent, status: 403 },
  ],
  listAgentRequests: (c) => [
    { why: "one agent's", token: c.live, query: `?agentId=${c.demo.agents[0]!.id}&limit=5`, status: 200 },
    { why: 'agent that is not there', token: c.live, query: '?agentId=agt_doesnotexist', status: 404 },
    { why: 'agentId with another prefix', token: c.live, query: '?agentId=ws_x', status: 400 },
  ],
  listRequestLogs: (c) => [
    { why: 'the refusals', token: c.live, query: '?status=4xx&limit=5', status: 200 },
    { why: 'credential that is not there', token: c.live, query: '?credentialId=cred_doesnotexist', status: 404 },
    { why: 'a status class that does not exist', token: c.live, query: '?status=6xx', status: 400 },
    { why: 'token without read:logs', token: c.scoped, status: 403 },
  ],
  authorizeAgentAction: (c) => [
    { why: 'decided', token: c.agent, body: ask(c.activeCampaign), status: 201 },
    { why: 'workspace token', token: c.live, body: ask(c.activeCampaign), status: 403 },
    { why: 'unknown fact', token: c.agent, body: { ...ask(c.activeCampaign), facts: { mood: 1 } }, status: 400 },
    { why: 'agentRequests allowance used up', token: c.spentAgent, body: ask('cmp_any'), status: 402 },
  ],
  reportAgentResult: (c) => [
    { why: 'reported', token: c.agent, body: { authorizationId: c.authorizationId, status: 'completed', summary: 'Paused.' }, status: 201 },
    { why: 'a second result', token: c.agent, body: { authorizationId: c.authorizationId, status: 'completed' }, status: 409 },
    { why: 'authorization that is not there', token: c.agent, body: { authorizationId: 'auth_doesnotexist', status: 'failed' }, status: 404 },
    { why: 'test token', token: c.test, body: { authorizationId: c.authorizationId, status: 'completed' }, status: 403 },
  ],
  getAgentSelf: (c) => [
    { why: 'agent credential', token: c.agent, status: 200 },
    { why: 'workspace token', token: c.live, status: 403 },
    { why: 'no credential', status: 401 },
  ],
}

const byId = new Map(operations.map((op) => [op.operationId, op]))
/** The "<operationId> <status>" pairs answered in this file and recorded by the checker. */
const seenHere = new Set<string>()
let ctx: Ctx

beforeAll(async () => {
  const { sql } = await getHarness()
  const demo = await createDemoWorkspace(sql)
  const ws = demo.workspace.id
  const campaign = async (status: string) =>
    (await sql`SELECT id FROM campaigns WHERE workspace_id = ${ws} AND channel = 'ads' AND status = ${status} ORDER BY id LIMIT 1`)[0]!.id as string
  const spent = await makeWorkspace()
  await sql`INSERT INTO allowances (workspace_id, name, amount) VALUES (${spent.id}, 'agentRequests', 0)`
  const activeCampaign = await campaign('active')
  const agent = demo.agents[0]!.credential
  const allowed = await call('POST', '/api/v1/agent/authorize', { token: agent, body: ask(activeCampaign) })
  expect(allowed.status).toBe(201)
  expect(allowed.body.data.decision).toBe('allowed')
  ctx = {
    demo,
    live: demo.tokens.live,
    test: demo.tokens.test,
    scoped: (await createToken(sql, { workspaceId: ws, scopes: 'read:analytics' })).token,
    agent,
    starter: (await makeWorkspace({ plan: 'starter' })).live,
    spentAgent: spent.agent.credential,
    activeCampaign,
    pausedCampaign: await campaign('paused'),
    authorizationId: allowed.body.data.authorizationId,
    idempotencyKey: `rm-${crypto.randomUUID()}`,
  }
}, 120_000)

describe('every operation answers success and refusal as its OpenAPI description says', () => {
  for (const [operationId, cases] of Object.entries(TABLE)) {
    test(operationId, async () => {
      const op = byId.get(operationId)
      if (!op) throw new Error(`the table has an entry for ${operationId}, which the route table does not hold`)
      for (const c of cases(ctx)) {
        // call() checks the answer against the document (status documented, body exactly its schema, requestId).
        const answer = await call(op.method, `/api/v1${op.path}${c.query ?? ''}`, { token: c.token, body: c.body, headers: c.headers })
        if (answer.status !== c.status) throw new Error(`${operationId} (${c.why}): expected ${c.status}, got ${answer.status} ${answer.text.slice(0, 500)}`)
        const key = `${operationId} ${answer.status}`
        expect(checked.has(key)).toBe(true)
        seenHere.add(key)
        if (c.status === 200 && op.kind === 'write') expect(answer.body).toEqual({ data: { simulated: true } })
      }
    })
  }
})

describe('the checker bites', () => {
  /** A real answer, then the same answer with one thing changed: the checker must refuse each change. */
  const check = (a: Pick<Answer, 'status' | 'body' | 'headers'>, path = '/api/v1/missions', method = 'GET') =>
    () => checkAgainstDocument(method, path, a.status, a.body, a.headers)
  const tampered = (a: Answer, change: (body: any) => void) => {
    const body = structuredClone(a.body)
    change(body)
    return { ...a, body }
  }

  test('an extra member, a missing required member, a wrong type, an undocumented status, a wrong requestId: each throws', async () => {
    const ok = await call('GET', '/api/v1/missions', { token: ctx.live })
    expect(ok.status).toBe(200)
    expect(ok.body.data.length).toBeGreaterThan(0)
    expect(check(ok)).not.toThrow()

    expect(check(tampered(ok, (b) => (b.data[0].surprise = true)))).toThrow(/does not allow/)
    expect(check(tampered(ok, (b) => (b.extra = 1)))).toThrow(/does not allow/)
    expect(check(tampered(ok, (b) => delete b.data[0].id))).toThrow(/does not allow/)
    expect(check(tampered(ok, (b) => delete b.data))).toThrow(/does not allow/)
    expect(check(tampered(ok, (b) => (b.data[0].createdAt = 1_700_000_000)))).toThrow(/does not allow/)
    expect(check(tampered(ok, (b) => (b.data = b.data[0])))).toThrow(/does not allow/)
    expect(check({ ...ok, status: 201 })).toThrow(/does not document/)
    expect(check({ ...ok, status: 418 })).toThrow(/does not document/)

    const refused = await call('GET', '/api/v1/missions')
    expect(refused.status).toBe(401)
    expect(check(refused)).not.toThrow()
    const otherId = new Headers({ 'X-Request-Id': 'req_someoneelse' })
    expect(check({ ...refused, headers: otherId })).toThrow(/not its X-Request-Id/)
    expect(check(tampered(refused, (b) => (b.error.details = 'more')))).toThrow(/does not allow/)
    expect(check(tampered(refused, (b) => delete b.error.code))).toThrow(/does not allow/)
    // a success body under an error status, and an error body under a success status
    expect(check({ ...refused, body: ok.body })).toThrow(/does not allow/)
    expect(check({ ...ok, body: refused.body })).toThrow(/does not allow/)
  })
})

test('the table covers every operation, and each had a 2xx and a 4xx answer checked in this file', () => {
  const routeIds = operations.map((op) => op.operationId)
  const missing = routeIds.filter((id) => !(id in TABLE))
  if (missing.length) throw new Error(`operations without an entry in the response-model table: ${missing.join(', ')}`)
  expect(Object.keys(TABLE).filter((id) => !routeIds.includes(id))).toEqual([])
  const seen = (id: string, range: number) => [...seenHere].some((k) => k.startsWith(`${id} `) && Math.floor(Number(k.split(' ')[1]) / 100) === range)
  const unproven = routeIds.flatMap((id) => [...(seen(id, 2) ? [] : [`${id} 2xx`]), ...(seen(id, 4) ? [] : [`${id} 4xx`])])
  if (unproven.length) throw new Error(`never answered and checked in this file: ${unproven.join(', ')}`)
})
