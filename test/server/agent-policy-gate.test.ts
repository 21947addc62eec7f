import { afterAll, describe, expect, test } from 'bun:test'
import { createDemoWorkspace } from '../../server/src/demo/index.ts'
import { newId } from '../../server/src/core/ids.ts'
import { insertRequestHistory } from '../../server/src/store/agent-requests.ts'
import { insertTools } from '../../server/src/store/agent-tools.ts'
import { agentIn, authorize, checkOf, decisionOf, requestsOf, ruleIn } from '../agent-helpers.ts'
import { call, expectError, getHarness, makeWorkspace } from '../harness.ts'
import { startServerProcess, type ServerProcess } from '../support/server-process.ts'

/**
 * The gateway decides by the policy an owner writes (issue 27): rules naming the agents they apply
 * to, rules counting how often the agent was already allowed the action, facts not stated sent to
 * a person (missingFacts), and facts read from an action's params, a stated fact the params
 * contradict denied. Black-box over HTTP; changes are written straight to the database, as another
 * server process or `growth admin policy apply` would write them, and the very next ask decides by
 * them although the server keeps the view of the last one.
 */

const PAUSE = { tool: 'ads', action: 'pause_campaign', resource: 'cmp_gate' }
const sqlOf = async () => (await getHarness()).sql

async function recorded(workspaceId: string, id: string) {
  const sql = await sqlOf()
  const [row] = await sql<{ facts: unknown; judged_facts: unknown }[]>`SELECT facts, judged_facts FROM agent_requests WHERE workspace_id = ${workspaceId} AND id = ${id}`
  return row
}

describe('the review case: Budget Pacer cannot slip past the demo rule by what it leaves out', () => {
  test('17% needs a person; no facts needs a person; 1% with params of +300% is denied naming both; params of +17% alone need a person', async () => {
    const { sql } = await getHarness()
    const demo = await createDemoWorkspace(sql)
    const pacer = demo.agents.find((a) => a.name === 'Budget Pacer')!
    const ask = (extra: Record<string, unknown>) => authorize(pacer.credential, { tool: 'ads', action: 'adjust_budget', resource: 'cmp_review', ...extra })
    const RULE = 'Ask a person before any agent raises a daily budget by more than 15%.'

    const stated = await ask({ facts: { amountPercent: 17, increase: true } })
    expect(decisionOf(stated)).toBe('requires_approval')
    expect(checkOf(stated, 'rules').detail).toStartWith(RULE)

    // Nothing stated: the rule, Budget Pacer's ceilings and the workspace's budget limit all read a fact not stated.
    const none = await ask({})
    expect(decisionOf(none)).toBe('requires_approval')
    expect(checkOf(none, 'rules')).toMatchObject({ passed: false, detail: expect.stringContaining(`${RULE} It reads increase and amountPercent, which the request did not state.`) })
    expect(checkOf(none, 'limits').passed).toBe(false)
    expect(checkOf(none, 'limits').detail).toContain("Budget Pacer's ceilings on amountPercent and amountMinor read amountPercent and amountMinor, which the request did not state.")
    expect(checkOf(none, 'limits').detail).toContain("The workspace's limit on budget changes (30%) reads amountPercent, which the request did not state.")
    expect(none.body.data.reason).toStartWith("Needs a person's approval:")
    expect(none.body.data.approvalId).toEqual(expect.any(String))

    const contradicted = await ask({ facts: { amountPercent: 1 }, params: { campaignId: 'cmp_review', changePercent: 300 } })
    expect(decisionOf(contradicted)).toBe('denied')
    expect(checkOf(contradicted, 'limits').detail).toContain('facts.amountPercent is 1 but params.changePercent is 300')
    expect(contradicted.body.data.reason).toContain('facts.amountPercent is 1 but params.changePercent is 300')
    // The rule that would ask a person does not say "A person must approve it." beside a denial.
    expect(checkOf(contradicted, 'rules')).toMatchObject({ passed: false, detail: `${RULE} It would need a person's approval, but the limits check denies the request: no approval can allow it.` })
    // Kept: the facts stated, and those judged; never the params.
    expect(await recorded(demo.workspace.id, contradicted.body.data.id)).toEqual({ facts: { amountPercent: 1 }, judged_facts: { amountPercent: 300, increase: true } })

    const fromParams = await ask({ params: { campaignId: 'cmp_review', changePercent: 17 } })
    expect(decisionOf(fromParams)).toBe('requires_approval')
    // Judged on the params: the rule bites on what they say, and no fact is missing.
    expect(checkOf(fromParams, 'rules').detail).toBe(`${RULE} A person must approve it.`)
    expect(checkOf(fromParams, 'limits').passed).toBe(true)
    expect(await recorded(demo.workspace.id, fromParams.body.data.id)).toEqual({ facts: {}, judged_facts: { amountPercent: 17, increase: true } })

    // A fact stated that the params agree with is no contradiction, and nothing more is kept.
    const agreed = await ask({ facts: { amountPercent: 10, increase: true }, params: { changePercent: 10 } })
    expect(decisionOf(agreed)).toBe('allowed')
    expect(await recorded(demo.workspace.id, agreed.body.data.id)).toEqual({ facts: { amountPercent: 10, increase: true }, judged_facts: null })
  }, 60_000)
})

describe('facts read from params', () => {
  test('a lowering, a new daily budget and a discount are read as facts; the direction and the currency contradict too', async () => {
    const ws = await makeWorkspace()
    const agent = await agentIn(ws.id, { allow: 'ads.adjust_budget,discounts.create_discount', ceilings: { amountPercent: 25, amounts: [{ amountMinor: 50_000, currency: 'USD' }] } })
    const lower = await authorize(agent.credential, { tool: 'ads', action: 'adjust_budget', params: { changePercent: -20 } })
    expect(decisionOf(lower)).toBe('allowed')
    expect(checkOf(lower, 'limits').detail).toContain('asked 20%, ceiling 25%')
    expect(await recorded(ws.id, lower.body.data.id)).toMatchObject({ judged_facts: { amountPercent: 20, increase: false } })

    const raise = await authorize(agent.credential, { tool: 'ads', action: 'adjust_budget', facts: { increase: false }, params: { changePercent: 10 } })
    expect(decisionOf(raise)).toBe('denied')
    expect(checkOf(raise, 'limits').detail).toContain('facts.increase is false but params.changePercent is 10')

    const budget = await authorize(agent.credential, {
      tool: 'ads', action: 'adjust_budget', facts: { amountPercent: 10, increase: true, currency: 'EUR' }, params: { dailyBudget: { amountMinor: 60_000, currency: 'USD' } },
    })
    expect(decisionOf(budget)).toBe('denied')
    const limits = checkOf(budget, 'limits').detail
    expect(limits).toContain('facts.currency is "EUR" but params.dailyBudget.currency is "USD"')
    // Judged on the params' amount: over the agent's ceiling in USD too.
    expect(limits).toContain('asked 600.00 USD, ceiling 500.00 USD')

    const discount = await authorize(agent.credential, { tool: 'discounts', action: 'create_discount', params: { code: 'SPRING', percentOff: 40 } })
    expect(decisionOf(discount)).toBe('denied')
    expect(checkOf(discount, 'limits').detail).toContain('asked 40%, ceiling 25%')
  })

  test('a param of a known name but not of its shape is 400 naming it; params of other actions imply nothing', async () => {
    const ws = await makeWorkspace()
    const agent = await agentIn(ws.id, { allow: 'ads.adjust_budget,ads.pause_campaign' })
    const bad = await authorize(agent.credential, { tool: 'ads', action: 'adjust_budget', facts: { amountPercent: 5, increase: true }, params: { changePercent: '300' } })
    expectError(bad, 400, 'invalid_request', 'params.changePercent must be a number above -100 and at most 10000')
    const badBudget = await authorize(agent.credential, { tool: 'ads', action: 'adjust_budget', params: { dailyBudget: { amountMinor: 100, currency: 'usd' } } })
    expectError(badBudget, 400, 'invalid_request', 'params.dailyBudget.currency must be an ISO 4217 code')
    // pause_campaign carries no figure: its params are kept only as their digest.
    const pause = await authorize(agent.credential, { ...PAUSE, params: { changePercent: 'whatever' } })
    expect(decisionOf(pause)).toBe('allowed')
    expect(await recorded(ws.id, pause.body.data.id)).toEqual({ facts: {}, judged_facts: null })
  })
})

describe('rules naming agents', () => {
  test('a rule naming one agent bites it, by name in its sentence, and not another', async () => {
    const ws = await makeWorkspace()
    const named = await agentIn(ws.id, { allow: 'ads.pause_campaign', name: 'Pacer One' })
    const other = await agentIn(ws.id, { allow: 'ads.pause_campaign', name: 'Pacer Two' })
    await ruleIn(ws.id, { match: [{ tool: 'ads', action: 'pause_campaign' }], agents: [named.id], when: [] }, 'deny')
    const denied = await authorize(named.credential, PAUSE)
    expect(decisionOf(denied)).toBe('denied')
    expect(checkOf(denied, 'rules').detail).toStartWith('Pacer One may not pause a campaign.')
    expect(denied.body.data.rules).toEqual([expect.objectContaining({ sentence: 'Pacer One may not pause a campaign.', effect: 'deny' })])
    // GET /agents/rules says the same sentence.
    const listed = await call('GET', '/api/v1/agents/rules', { token: ws.live })
    expect(listed.body.data.map((r: { sentence: string }) => r.sentence)).toEqual(['Pacer One may not pause a campaign.'])
    const allowed = await authorize(other.credential, PAUSE)
    expect(decisionOf(allowed)).toBe('allowed')
    expect(checkOf(allowed, 'rules').detail).toMatch(/^No rule applies \(1 rule in force, version \d+\)\.$/)
  })
})

describe('rules counting allowed requests', () => {
  test('count allowed in 24h >= 2: two go through, the third needs a person; another agent and older requests count apart', async () => {
    const ws = await makeWorkspace()
    const agent = await agentIn(ws.id, { allow: 'ads.pause_campaign', name: 'Counter' })
    const other = await agentIn(ws.id, { allow: 'ads.pause_campaign', name: 'Other' })
    // Allowed two days ago, five times: outside the window.
    const sql = await sqlOf()
    const twoDaysAgo = new Date(Date.now() - 2 * 86_400_000)
    await sql.begin((tx) =>
      insertRequestHistory(tx, ws.id, Array.from({ length: 5 }, (_, i) => ({
        id: newId('authorization', new Date(twoDaysAgo.getTime() + i)), agentId: agent.id, tool: 'ads', action: 'pause_campaign', resource: null, summary: null,
        facts: {}, paramsDigest: 'x', decision: 'allowed', reason: 'Allowed.', checks: [], rules: [], rulesVersion: 0, approvalId: null, expiresAt: null,
        createdAt: new Date(twoDaysAgo.getTime() + i),
      }))),
    )
    await ruleIn(ws.id, { match: [{ tool: 'ads', action: 'pause_campaign' }], when: [{ count: 'allowed', window: '24h', op: '>=', value: 2 }] }, 'require_approval')
    // A count rule for the other agent only: it counts for that agent, and nothing for this one.
    await ruleIn(ws.id, { match: [{ tool: 'ads', action: 'pause_campaign' }], agents: [other.id], when: [{ count: 'allowed', window: '24h', op: '>=', value: 1 }] }, 'deny')
    const SENTENCE = 'Ask a person before any agent pauses a campaign when it has already been allowed to do so at least 2 times in the last 24 hours.'
    expect(decisionOf(await authorize(agent.credential, PAUSE))).toBe('allowed')
    expect(decisionOf(await authorize(agent.credential, PAUSE))).toBe('allowed')
    const third = await authorize(agent.credential, PAUSE)
    expect(decisionOf(third)).toBe('requires_approval')
    expect(checkOf(third, 'rules').detail).toStartWith(SENTENCE)
    // Needing a person is not being allowed: it still needs one.
    expect(decisionOf(await authorize(agent.credential, { ...PAUSE, resource: 'cmp_other' }))).toBe('requires_approval')
    expect(decisionOf(await authorize(other.credential, PAUSE))).toBe('allowed')
    const otherAgain = await authorize(other.credential, PAUSE)
    expect(decisionOf(otherAgain)).toBe('denied')
    expect(checkOf(otherAgain, 'rules').detail).toStartWith('Other may not pause a campaign when it has already been allowed to do so at least 1 time in the last 24 hours.')
    // Each ask judged against a kept view that a newer allowed request made stale was recorded once.
    expect(await requestsOf(ws.id)).toEqual({ requests: 5 + 6, used: 6 })
  })
})

describe('missingFacts', () => {
  test('require_approval sends a request leaving out what a rule, ceiling or limit reads to a person; ignore does not; a kept view notices the change', async () => {
    const ws = await makeWorkspace()
    const agent = await agentIn(ws.id, { allow: 'ads.adjust_budget,email.send_campaign', ceilings: { amountPercent: 30 }, maxUnattendedRisk: 'high' })
    await ruleIn(ws.id, { match: [{ tool: 'ads', action: 'adjust_budget' }], when: [{ fact: 'amountPercent', op: '>', value: 50 }] }, 'deny')
    const BUDGET = { tool: 'ads', action: 'adjust_budget', resource: 'cmp_missing' }

    const asked = await authorize(agent.credential, BUDGET)
    expect(decisionOf(asked)).toBe('requires_approval')
    // A deny rule that reads a fact not stated asks a person: it cannot tell whether it would deny.
    expect(checkOf(asked, 'rules').detail).toBe('No agent may change a daily budget by more than 50%. It reads amountPercent, which the request did not state. A person must approve it.')
    expect(checkOf(asked, 'limits').detail).toBe(
      "Gateway agent's ceiling on amountPercent reads amountPercent, which the request did not state. The workspace's limit on budget changes (30%) reads amountPercent, which the request did not state. A person must approve it.",
    )
    // A send's recipients, read by the workspace's limit on one send.
    const send = await authorize(agent.credential, { tool: 'email', action: 'send_campaign' })
    expect(decisionOf(send)).toBe('requires_approval')
    expect(checkOf(send, 'limits').detail).toContain("The workspace's limit on recipients per send (")
    // Stated: judged as before.
    expect(decisionOf(await authorize(agent.credential, { ...BUDGET, facts: { amountPercent: 10, increase: true } }))).toBe('allowed')
    expect(decisionOf(await authorize(agent.credential, { ...BUDGET, facts: { amountPercent: 10, increase: true } }))).toBe('allowed')

    const sql = await sqlOf()
    await sql`UPDATE workspaces SET missing_facts = 'ignore' WHERE workspace_id = ${ws.id}`
    const ignored = await authorize(agent.credential, BUDGET)
    expect(decisionOf(ignored)).toBe('allowed')
    expect(checkOf(ignored, 'rules').detail).toMatch(/^No rule applies \(1 rule in force, version \d+\)\.$/)
    expect(checkOf(ignored, 'limits').passed).toBe(true)
    // The other way, on a view kept from the ask just before.
    expect(decisionOf(await authorize(agent.credential, { ...BUDGET, facts: { amountPercent: 10, increase: true } }))).toBe('allowed')
    await sql`UPDATE workspaces SET missing_facts = 'require_approval' WHERE workspace_id = ${ws.id}`
    expect(decisionOf(await authorize(agent.credential, BUDGET))).toBe('requires_approval')
  })

  test('an action of a tool the owner added carries no known figure: a ceiling is not read for it', async () => {
    const ws = await makeWorkspace()
    const sql = await sqlOf()
    await sql.begin((tx) => insertTools(tx, ws.id, [{ key: 'github', name: 'GitHub', description: 'Issues.', actions: [{ key: 'create_issue', name: 'Open an issue', risk: 'low', dataUsed: [], reversible: true }] }]))
    const agent = await agentIn(ws.id, { allow: 'github.create_issue', ceilings: { records: 10, amountPercent: 5 } })
    expect(decisionOf(await authorize(agent.credential, { tool: 'github', action: 'create_issue' }))).toBe('allowed')
  })
})

describe('a kept view never outlives a change of the policy', () => {
  test('a rule naming the agent, and a new name in its sentence, decide the very next ask', async () => {
    const ws = await makeWorkspace()
    const agent = await agentIn(ws.id, { allow: 'ads.pause_campaign', name: 'Kept' })
    for (let i = 0; i < 2; i++) expect(decisionOf(await authorize(agent.credential, PAUSE))).toBe('allowed')
    await ruleIn(ws.id, { match: [{ tool: 'ads', action: 'pause_campaign' }], agents: [agent.id], when: [] }, 'deny')
    const denied = await authorize(agent.credential, PAUSE)
    expect(decisionOf(denied)).toBe('denied')
    expect(checkOf(denied, 'rules').detail).toStartWith('Kept may not pause a campaign.')
    const sql = await sqlOf()
    await sql`UPDATE agents SET name = 'Renamed' WHERE workspace_id = ${ws.id} AND id = ${agent.id}`
    expect(checkOf(await authorize(agent.credential, PAUSE), 'rules').detail).toStartWith('Renamed may not pause a campaign.')
    expect(await requestsOf(ws.id)).toEqual({ requests: 4, used: 4 })
  })

  let other: ServerProcess | undefined
  afterAll(() => other?.proc.kill())

  // Another server process needs a database both can open: a PostgreSQL server.
  test.skipIf(!process.env.DATABASE_URL)('requests allowed on another server process count at once on this one', async () => {
    const { dataDir } = await getHarness()
    other = await startServerProcess({ DATABASE_URL: process.env.DATABASE_URL, DATA_DIR: dataDir })
    const ws = await makeWorkspace()
    const agent = await agentIn(ws.id, { allow: 'ads.pause_campaign' })
    await ruleIn(ws.id, { match: [{ tool: 'ads', action: 'pause_campaign' }], when: [{ count: 'allowed', window: '1h', op: '>', value: 1 }] }, 'deny')
    // Here (a view kept with a count of 0), then twice there.
    expect(decisionOf(await authorize(agent.credential, PAUSE))).toBe('allowed')
    const viaOther = async () => {
      const res = await fetch(`${other!.base}/agent/authorize`, { method: 'POST', headers: { authorization: `Bearer ${agent.credential}`, 'content-type': 'application/json' }, body: JSON.stringify(PAUSE) })
      const text = await res.text()
      expect(res.status, text).toBe(201)
      return (JSON.parse(text) as { data: { decision: string } }).data.decision
    }
    expect(await viaOther()).toBe('allowed')
    expect(await viaOther()).toBe('denied')
    const here = await authorize(agent.credential, PAUSE)
    expect(decisionOf(here)).toBe('denied')
    expect(checkOf(here, 'rules').detail).toStartWith('No agent may pause a campaign when it has already been allowed to do so more than 1 time in the last 1 hour.')
  }, 120_000)
})
