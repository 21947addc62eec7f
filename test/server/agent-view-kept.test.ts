import { describe, expect, test } from 'bun:test'
import { applyPolicy } from '../../server/src/domain/agent-policy-apply.ts'
import { exportPolicy } from '../../server/src/domain/agent-policy-export.ts'
import { planPolicy } from '../../server/src/domain/agent-policy-plan.ts'
import { setAgentsStopped } from '../../server/src/domain/workspaces.ts'
import { agentIn, authorize, checkOf, decisionOf, requestsOf, ruleIn } from '../agent-helpers.ts'
import { getHarness, makeWorkspace } from '../harness.ts'

/**
 * The gateway keeps the view an agent's last ask was judged against (store/agent-gateway-view-cache.ts)
 * and judges the next ask for the same action against it, recording it only if the database still
 * holds that view. Nothing tells the server of a change here: each is written straight to the
 * database, as another server process or an operator's command would write it. After every change
 * the very next ask is decided on what the database holds, and the refused attempt wrote nothing.
 */
const PAUSE = { tool: 'ads', action: 'pause_campaign', resource: 'cmp_kept' }
const BUDGET = { tool: 'ads', action: 'adjust_budget', resource: 'cmp_kept', facts: { amountPercent: 20, increase: true } }

type Case = {
  name: string
  ask: typeof PAUSE | typeof BUDGET
  change: (ws: string, agentId: string) => Promise<unknown>
  decision: 'denied' | 'requires_approval'
  check: string
}

const sqlOf = async () => (await getHarness()).sql

const cases: Case[] = [
  {
    name: 'the stop switch',
    ask: PAUSE,
    change: async (ws) => setAgentsStopped(await sqlOf(), { workspaceId: ws, stopped: true, reason: 'Kept-view test', actor: 'test' }),
    decision: 'denied',
    check: 'agents_enabled',
  },
  {
    name: 'a permission taken away',
    ask: PAUSE,
    change: async (ws, agentId) => (await sqlOf())`DELETE FROM agent_permissions WHERE workspace_id = ${ws} AND agent_id = ${agentId} AND action_key = 'pause_campaign'`,
    decision: 'denied',
    check: 'permission',
  },
  {
    name: 'the data the agent may use',
    ask: PAUSE,
    change: async (ws, agentId) => (await sqlOf())`UPDATE agents SET data_access = ARRAY['contacts'] WHERE workspace_id = ${ws} AND id = ${agentId}`,
    decision: 'denied',
    check: 'data',
  },
  {
    name: "the agent's ceilings",
    ask: BUDGET,
    change: async (ws, agentId) => (await sqlOf())`UPDATE agents SET ceilings = '{"amountPercent": 5}' WHERE workspace_id = ${ws} AND id = ${agentId}`,
    decision: 'denied',
    check: 'limits',
  },
  {
    name: "the workspace's limits",
    ask: BUDGET,
    change: async (ws) => (await sqlOf())`UPDATE workspace_limits SET max_budget_change_percent = 10 WHERE workspace_id = ${ws}`,
    decision: 'denied',
    check: 'limits',
  },
  {
    name: "the action's risk (now a person's to decide: taken on a fresh read)",
    ask: PAUSE,
    change: async (ws) => (await sqlOf())`UPDATE tool_actions SET risk = 'high' WHERE workspace_id = ${ws} AND tool_key = 'ads' AND key = 'pause_campaign'`,
    decision: 'requires_approval',
    check: 'risk',
  },
  {
    name: 'a rule written',
    ask: PAUSE,
    change: async (ws) => ruleIn(ws, { match: [{ tool: 'ads', action: 'pause_campaign' }], when: [] }, 'deny'),
    decision: 'denied',
    check: 'rules',
  },
]

describe('POST /agent/authorize: a kept view never outlives a change', () => {
  for (const c of cases) {
    test(`${c.name}: the next ask is decided on it`, async () => {
      const ws = await makeWorkspace()
      const agent = await agentIn(ws.id, { allow: 'ads.pause_campaign,ads.adjust_budget', ceilings: { amountPercent: 30 } })
      // Twice: the second is judged against the view the first read.
      for (let i = 0; i < 2; i++) expect(decisionOf(await authorize(agent.credential, c.ask))).toBe('allowed')
      await c.change(ws.id, agent.id)
      const after = await authorize(agent.credential, c.ask)
      expect(decisionOf(after)).toBe(c.decision)
      expect(checkOf(after, c.check).passed).toBe(false)
      // The attempt on the kept view wrote nothing: three asks, three requests, three counted.
      expect(await requestsOf(ws.id)).toEqual({ requests: 3, used: 3 })
    })
  }

  // The names a rule's sentence uses are not in the kept view's digest: an apply, the only way to
  // rename a tool, moves the rules version, which is.
  test('a tool renamed by an applied policy: the next ask is taken on a fresh read, and its rule says the new name', async () => {
    const ws = await makeWorkspace()
    const agent = await agentIn(ws.id, { allow: 'ads.pause_campaign' })
    await ruleIn(ws.id, { match: [{ tool: 'ads' }], when: [] }, 'deny')
    const sentenceOf = (a: Awaited<ReturnType<typeof authorize>>) => {
      expect(decisionOf(a)).toBe('denied')
      return (a.body.data.rules as { sentence: string }[]).map((r) => r.sentence).join(' ')
    }
    for (let i = 0; i < 2; i++) expect(sentenceOf(await authorize(agent.credential, PAUSE))).not.toContain('Paid ads, renamed')
    const sql = await sqlOf()
    const policy = await exportPolicy(sql, ws.id)
    policy.tools.find((t) => t.key === 'ads')!.name = 'Paid ads, renamed'
    const text = JSON.stringify(policy)
    const plan = await planPolicy(sql, ws.id, text, { source: 'policy.json' })
    await applyPolicy(sql, ws.id, text, { source: 'policy.json', planId: plan.planId, appliedBy: { kind: 'operator', name: 'test' } })
    expect(sentenceOf(await authorize(agent.credential, PAUSE))).toContain('Paid ads, renamed')
    expect(await requestsOf(ws.id)).toEqual({ requests: 3, used: 3 })
  })

  // A count changes with every request allowed: a decision that read one is recorded only if it
  // still holds; one that read none (a condition on a fact failed first) holds whatever it became.
  test('a count the decision read moves with each request allowed: the next ask is decided on it', async () => {
    const ws = await makeWorkspace()
    const agent = await agentIn(ws.id, { allow: 'ads.pause_campaign' })
    await ruleIn(ws.id, { match: [{ tool: 'ads', action: 'pause_campaign' }], when: [{ fact: 'records', op: '>', value: 1_000 }, { count: 'allowed', window: '24h', op: '>=', value: 2 }] }, 'deny')
    const big = { ...PAUSE, facts: { records: 2_000 } }
    const small = { ...PAUSE, facts: { records: 10 } }
    // Small asks read no count; each is allowed and each counts.
    for (let i = 0; i < 2; i++) expect(decisionOf(await authorize(agent.credential, small))).toBe('allowed')
    // A big ask reads the count (2 allowed already) on the view kept from the small ones.
    const denied = await authorize(agent.credential, big)
    expect(decisionOf(denied)).toBe('denied')
    expect(checkOf(denied, 'rules').passed).toBe(false)
    expect(decisionOf(await authorize(agent.credential, small))).toBe('allowed')
    expect(await requestsOf(ws.id)).toEqual({ requests: 4, used: 4 })
  })

  test('a count the decision read, moved by requests allowed on another process: the kept view is not trusted with it', async () => {
    const ws = await makeWorkspace()
    const agent = await agentIn(ws.id, { allow: 'ads.pause_campaign' })
    await ruleIn(ws.id, { match: [{ tool: 'ads', action: 'pause_campaign' }], when: [{ count: 'allowed', window: '1h', op: '>=', value: 2 }] }, 'deny')
    // Kept: a view with a count of 0.
    expect(decisionOf(await authorize(agent.credential, PAUSE))).toBe('allowed')
    // Two more allowed, written as another server process records them.
    const sql = await sqlOf()
    for (let i = 0; i < 2; i++)
      await sql`INSERT INTO agent_requests (workspace_id, id, agent_id, tool, action, decision, reason, checks, rules_version)
                VALUES (${ws.id}, ${`areq_elsewhere${i}`}, ${agent.id}, 'ads', 'pause_campaign', 'allowed', 'Allowed elsewhere.', '[]', 1)`
    // On the kept view the count is 0 and the ask would pass; the database holds 3: denied, on a fresh read.
    const next = await authorize(agent.credential, PAUSE)
    expect(decisionOf(next)).toBe('denied')
    expect(checkOf(next, 'rules').passed).toBe(false)
    // The attempt on the kept view wrote nothing: two asks recorded, two counted, beside the two written elsewhere.
    expect(await requestsOf(ws.id)).toEqual({ requests: 4, used: 2 })
  })

  test('agents of one workspace do not share a kept view: a permission of one is not lent to another', async () => {
    const ws = await makeWorkspace()
    const allowed = await agentIn(ws.id, { allow: 'ads.pause_campaign' })
    const other = await agentIn(ws.id, { allow: 'ads.read_performance' })
    expect(decisionOf(await authorize(allowed.credential, PAUSE))).toBe('allowed')
    const denied = await authorize(other.credential, PAUSE)
    expect(decisionOf(denied)).toBe('denied')
    expect(checkOf(denied, 'permission').passed).toBe(false)
  })
})
