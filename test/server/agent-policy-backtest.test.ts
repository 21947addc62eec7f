import { beforeAll, describe, expect, test } from 'bun:test'
import { decide } from '../../server/src/domain/agent-decision.ts'
import { decisionInputOf } from '../../server/src/domain/agent-decision-input.ts'
import { backtestPolicy } from '../../server/src/domain/agent-policy-backtest.ts'
import { HistoryCounts } from '../../server/src/domain/agent-policy-counts.ts'
import { policyInForce, type ResolvedPolicy } from '../../server/src/domain/agent-policy-model.ts'
import { policyViews } from '../../server/src/domain/agent-policy-views.ts'
import { createDemoWorkspace } from '../../server/src/demo/index.ts'
import type { Facts } from '../../server/src/schemas/agent-gateway.ts'
import { requestHistory } from '../../server/src/store/agent-request-history.ts'
import { insertRequestHistory } from '../../server/src/store/agent-requests.ts'
import { selectWorkspaceLimits } from '../../server/src/store/limits.ts'
import { selectMissingFacts, selectWorkspaceGate, setAgentsStopped } from '../../server/src/store/workspaces.ts'
import type { Sql } from '../../server/src/store/driver/db.ts'
import { agentIn, authorize, decisionOf, ruleIn } from '../agent-helpers.ts'
import { getHarness, makeWorkspace } from '../harness.ts'

/**
 * The backtest (issue 27 items 2 and 5): recorded requests decided again by the gateway's own
 * decision function under the policy in force and a planned one. Histories made by real POST
 * /agent/authorize calls, and the demo's.
 */
beforeAll(() => getHarness(), 90_000)

const DAY = 86_400_000
const inForce = async (sql: Sql, ws: string) => policyInForce(sql, ws, (await selectMissingFacts(sql, ws))!)
const window = () => ({ since: new Date(Date.now() - 7 * DAY), at: new Date(Date.now() + 1_000) })

/**
 * Each recorded request at the rules version in force, replayed under the policy in force at its
 * own time, counts from the history before it: the decision recorded (those an approval allowed
 * once excepted: a replay uses no approval). Returns how many were replayed.
 */
async function expectReplaysAsRecorded(sql: Sql, ws: string): Promise<number> {
  const gate = (await selectWorkspaceGate(sql, ws))!
  const counts = new HistoryCounts()
  const views = policyViews(await inForce(sql, ws), { gate: { ...gate, agents_stopped: false }, limits: (await selectWorkspaceLimits(sql, ws))!, counts })
  const rows = []
  for await (const page of requestHistory(sql, ws, { since: new Date(0), until: new Date(Date.now() + 1_000) })) rows.push(...page)
  let replayed = 0
  for (const r of rows) {
    if (r.rules_version === gate.rules_version && !r.reason.startsWith('Allowed once')) {
      const ask = { agentId: r.agent_id, tool: r.tool, action: r.action, facts: JSON.parse(r.facts) as Facts, judgedFacts: r.judged_facts === null ? undefined : (JSON.parse(r.judged_facts) as Facts) }
      const verdict = decide({ ...(await decisionInputOf(sql, ws, views.viewOf(ask, r.created_at), ask, r.created_at)), prior: null })
      expect({ id: r.id, decision: verdict.decision }).toEqual({ id: r.id, decision: r.decision })
      replayed++
    }
    if (r.decision === 'allowed') counts.add(r.agent_id, r.tool, r.action, r.created_at.getTime())
  }
  return replayed
}

describe('the backtest', () => {
  let ws: string
  let pacer: { id: string; credential: string }
  let mailer: { id: string; credential: string }
  let current: ResolvedPolicy
  const ids: Record<string, string> = {}

  beforeAll(async () => {
    const { sql } = await getHarness()
    const w = await makeWorkspace()
    ws = w.id
    pacer = await agentIn(ws, { name: 'Budget Pacer', allow: 'ads.adjust_budget,ads.pause_campaign', ceilings: { amountPercent: 30 } })
    mailer = await agentIn(ws, { name: 'Mailer', allow: 'email.send_campaign', maxUnattendedRisk: 'high', ceilings: { recipients: 50_000 } })
    await ruleIn(ws, { match: [{ tool: 'ads', action: 'adjust_budget' }], when: [{ fact: 'increase', op: '=', value: true }, { fact: 'amountPercent', op: '>', value: 15 }] }, 'require_approval')
    const asks: [string, { credential: string }, unknown, string][] = [
      ['budget10', pacer, { tool: 'ads', action: 'adjust_budget', facts: { amountPercent: 10, increase: true } }, 'allowed'],
      ['budget17', pacer, { tool: 'ads', action: 'adjust_budget', facts: { amountPercent: 17, increase: true } }, 'requires_approval'],
      ['pause1', pacer, { tool: 'ads', action: 'pause_campaign' }, 'allowed'],
      ['pause2', pacer, { tool: 'ads', action: 'pause_campaign' }, 'allowed'],
      ['pause3', pacer, { tool: 'ads', action: 'pause_campaign' }, 'allowed'],
      ['send100', mailer, { tool: 'email', action: 'send_campaign', facts: { recipients: 100 } }, 'allowed'],
      ['send20000', mailer, { tool: 'email', action: 'send_campaign', facts: { recipients: 20_000 } }, 'allowed'],
      ['mailerPause', mailer, { tool: 'ads', action: 'pause_campaign' }, 'denied'],
      ['testAgent', w.agent, { tool: 'ads', action: 'pause_campaign' }, 'allowed'],
    ]
    for (const [name, agent, body, expected] of asks) {
      const answer = await authorize(agent.credential, body)
      expect(`${name} ${decisionOf(answer)}`).toBe(`${name} ${expected}`)
      ids[name] = answer.body.data.authorizationId
      await Bun.sleep(3) // each its own millisecond: a count is of the requests strictly before
    }
    // The stop switch is not policy: the backtest decides as if the agents were running.
    await sql.begin((tx) => setAgentsStopped(tx, ws, true, 'test', 'backtest under a stop'))
    current = await inForce(sql, ws)
  }, 60_000)

  test('of an unchanged policy changes nothing, and every recorded decision replays as recorded', async () => {
    const { sql } = await getHarness()
    const b = await backtestPolicy(sql, ws, { current, planned: current }, window())
    expect(b.requests).toBe(9)
    expect(b.undecidable).toBe(0)
    expect(b.changed).toEqual([])
    expect(b.byAgent['Budget Pacer']).toEqual({ requests: 5, changed: 0, undecidable: 0 })
    expect(b.byToolAction['ads.pause_campaign']).toEqual({ requests: 5, changed: 0, undecidable: 0 })
    expect(await expectReplaysAsRecorded(sql, ws)).toBe(9)
  })

  test('lists exactly the requests whose decision a planned rule changes, with a sentence and the counts', async () => {
    const { sql } = await getHarness()
    const planned: ResolvedPolicy = {
      ...current,
      rules: [...current.rules, { id: null, effect: 'require_approval', structure: { match: [{ tool: 'email', action: 'send_campaign' }], when: [{ fact: 'recipients', op: '>', value: 10_000 }] } }],
    }
    const b = await backtestPolicy(sql, ws, { current, planned }, window())
    expect(b.changed.map((c) => [c.authorizationId, c.before, c.after])).toEqual([[ids.send20000, 'allowed', 'requires_approval']])
    const send = b.changed[0]!
    expect(send).toMatchObject({ agentId: mailer.id, agentName: 'Mailer', tool: 'email', action: 'send_campaign' })
    expect(send.sentence).toBe(`Mailer's request to send an email campaign to 20,000 recipients on ${send.createdAt.slice(0, 16).replace('T', ' ')} UTC would need a person instead of being allowed.`)
    expect(b.byAgent).toEqual({
      'Budget Pacer': { requests: 5, changed: 0, undecidable: 0 },
      Mailer: { requests: 3, changed: 1, undecidable: 0, 'allowed->requires_approval': 1 },
      'Test agent': { requests: 1, changed: 0, undecidable: 0 },
    })
    expect(b.byToolAction['email.send_campaign']).toEqual({ requests: 2, changed: 1, undecidable: 0, 'allowed->requires_approval': 1 })
    expect(b.byToolAction['ads.adjust_budget']).toEqual({ requests: 2, changed: 0, undecidable: 0 })

    // The other way round: the change reversed.
    const back = await backtestPolicy(sql, ws, { current: planned, planned: current }, window())
    expect(back.changed.map((c) => `${c.before}->${c.after}`)).toEqual(['requires_approval->allowed'])
  })

  // Fails until the decision reads counts and rule agents (the gate helper's branch, wt-gate):
  // merging it, make this `test`.
  test('counts the recorded allowed requests before each: a count rule for one agent denies the third pause within the hour', async () => {
    const { sql } = await getHarness()
    const planned: ResolvedPolicy = {
      ...current,
      rules: [...current.rules, { id: null, effect: 'deny', structure: { match: [{ tool: 'ads' }], agents: [pacer.id], when: [{ count: 'allowed', window: '1h', op: '>=', value: 2 }] } }],
    }
    const b = await backtestPolicy(sql, ws, { current, planned }, window())
    expect(b.changed.map((c) => [c.authorizationId, c.before, c.after])).toEqual([[ids.pause3, 'allowed', 'denied']])
    expect(b.changed[0]!.sentence).toEndWith('would be denied instead of being allowed.')
    expect(b.byAgent['Budget Pacer']).toEqual({ requests: 5, changed: 1, undecidable: 0, 'allowed->denied': 1 })
  })

  test('a retired tool denies what it allowed; an agent no longer there is counted, not decided; the window bounds it', async () => {
    const { sql } = await getHarness()
    const retired = { ...current, tools: current.tools.filter((t) => t.key !== 'email') }
    const b = await backtestPolicy(sql, ws, { current, planned: retired }, window())
    expect(b.changed.map((c) => [c.authorizationId, c.before, c.after])).toEqual([
      [ids.send100, 'allowed', 'denied'],
      [ids.send20000, 'allowed', 'denied'],
    ])

    // A grant changed: the Mailer may no longer send.
    const narrowed = { ...current, agents: current.agents.map((a) => (a.id === mailer.id ? { ...a, permissions: a.permissions.filter((p) => p.tool !== 'email') } : a)) }
    const n = await backtestPolicy(sql, ws, { current, planned: narrowed }, window())
    expect(n.changed.map((c) => [c.authorizationId, c.after])).toEqual([[ids.send100, 'denied'], [ids.send20000, 'denied']])

    // An action's risk changed: a pause now needs a person for every agent allowed one (the Mailer's stays denied).
    const risky = { ...current, tools: current.tools.map((t) => (t.key === 'ads' ? { ...t, actions: t.actions.map((a) => (a.key === 'pause_campaign' ? { ...a, risk: 'high' as const } : a)) } : t)) }
    const r = await backtestPolicy(sql, ws, { current, planned: risky }, window())
    expect(r.changed.map((c) => [c.authorizationId, c.after])).toEqual([ids.pause1, ids.pause2, ids.pause3, ids.testAgent].map((id) => [id, 'requires_approval']))

    const gone = current.agents.filter((a) => a.name !== 'Test agent')
    const without = await backtestPolicy(sql, ws, { current: { ...current, agents: gone }, planned: { ...current, agents: gone } }, window())
    expect(without.requests).toBe(9)
    expect(without.undecidable).toBe(1)
    expect(Object.values(without.byAgent).filter((t) => t.undecidable === 1)).toEqual([{ requests: 1, changed: 0, undecidable: 1 }])

    const later = await backtestPolicy(sql, ws, { current, planned: retired }, { since: new Date(Date.now() + 1_000), at: new Date(Date.now() + 2_000) })
    expect({ requests: later.requests, changed: later.changed }).toEqual({ requests: 0, changed: [] })
  })
})

test('the demo history: the backtest of the policy in force changes nothing, and it replays as recorded', async () => {
  const { sql } = await getHarness()
  const demo = await createDemoWorkspace(sql)
  const ws = demo.workspace.id
  const policy = await inForce(sql, ws)
  const b = await backtestPolicy(sql, ws, { current: policy, planned: policy }, { since: new Date(Date.now() - 30 * DAY), at: new Date() })
  expect(b.requests).toBeGreaterThanOrEqual(30)
  expect(b.changed).toEqual([])
  expect(await expectReplaysAsRecorded(sql, ws)).toBeGreaterThanOrEqual(25)
}, 60_000)

test('requests alike but for the hour: each decided at its own time (a send in the quiet hours is denied under either policy)', async () => {
  const { sql } = await getHarness()
  const ws = (await makeWorkspace()).id
  const mailer = await agentIn(ws, { name: 'Mailer', allow: 'email.send_campaign', maxUnattendedRisk: 'high' })
  await sql`UPDATE workspace_limits SET quiet_hours_start = 22, quiet_hours_end = 6 WHERE workspace_id = ${ws}`
  const day = new Date(Date.now() - DAY)
  const at = (hour: number) => new Date(Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate(), hour))
  const row = (id: string, createdAt: Date) => ({
    id, agentId: mailer.id, tool: 'email', action: 'send_campaign', resource: null, summary: null, facts: { recipients: 100 }, paramsDigest: 'x',
    decision: 'allowed', reason: 'Recorded.', checks: [], rules: [], rulesVersion: 1, approvalId: null, expiresAt: null, createdAt,
  })
  await sql.begin((tx) => insertRequestHistory(tx, ws, [row('auth_quiet', at(23)), row('auth_day', at(12))]))
  const current = await inForce(sql, ws)
  const planned: ResolvedPolicy = { ...current, rules: [{ id: null, effect: 'require_approval', structure: { match: [{ tool: 'email', action: 'send_campaign' }], when: [] } }] }
  const b = await backtestPolicy(sql, ws, { current, planned }, { since: new Date(Date.now() - 3 * DAY), at: new Date() })
  expect(b.changed.map((c) => [c.authorizationId, c.before, c.after])).toEqual([['auth_day', 'allowed', 'requires_approval']])
  expect(b.requests).toBe(2)
})

describe('the backtest of requests whose params were read as facts', () => {
  test('decides them on the facts they were judged on: an unchanged policy changes nothing, and a contradiction replays as denied', async () => {
    const { sql } = await getHarness()
    const w = await makeWorkspace()
    const pacer = await agentIn(w.id, { name: 'Budget Pacer', allow: 'ads.adjust_budget', ceilings: { amountPercent: 10 } })
    const asks: [unknown, string][] = [
      // The review's case: a small stated figure, a large one in params.
      [{ tool: 'ads', action: 'adjust_budget', facts: { amountPercent: 1 }, params: { campaignId: 'cmp_1', changePercent: 300 } }, 'denied'],
      [{ tool: 'ads', action: 'adjust_budget', params: { campaignId: 'cmp_1', changePercent: 8 } }, 'allowed'],
      [{ tool: 'ads', action: 'adjust_budget', params: { campaignId: 'cmp_1', changePercent: 12 } }, 'denied'],
    ]
    for (const [body, expected] of asks) expect(decisionOf(await authorize(pacer.credential, body))).toBe(expected)
    const current = await inForce(sql, w.id)
    const b = await backtestPolicy(sql, w.id, { current, planned: current }, window())
    expect(b.requests).toBe(3)
    expect(b.changed).toEqual([])
    expect(await expectReplaysAsRecorded(sql, w.id)).toBe(3)
    // A planned ceiling of 20% lets the 12% change through: judged on params' 12, not on the facts stated (none).
    const planned = { ...current, agents: current.agents.map((a) => (a.id === pacer.id ? { ...a, ceilings: { amountPercent: 20 } } : a)) }
    const widened = await backtestPolicy(sql, w.id, { current, planned }, window())
    expect(widened.changed.map((c) => `${c.before}->${c.after}`)).toEqual(['denied->allowed'])
  }, 60_000)
})
