import { beforeAll, expect, test } from 'bun:test'
import fc from 'fast-check'
import { decide } from '../../server/src/domain/agent-decision.ts'
import { decisionInputOf, type DecisionAsk } from '../../server/src/domain/agent-decision-input.ts'
import { HistoryCounts } from '../../server/src/domain/agent-policy-counts.ts'
import { policyInForce } from '../../server/src/domain/agent-policy-model.ts'
import { policyViews } from '../../server/src/domain/agent-policy-views.ts'
import { createDemoWorkspace } from '../../server/src/demo/index.ts'
import type { Facts } from '../../server/src/schemas/agent-gateway.ts'
import { selectGatewayView } from '../../server/src/store/agent-gateway.ts'
import { selectAllowedTimes } from '../../server/src/store/agent-request-history.ts'
import { insertTools } from '../../server/src/store/agent-tools.ts'
import { selectWorkspaceLimits } from '../../server/src/store/limits.ts'
import { selectMissingFacts, selectWorkspaceGate } from '../../server/src/store/workspaces.ts'
import { authorize, decisionOf, ruleIn } from '../agent-helpers.ts'
import { getHarness } from '../harness.ts'

/**
 * The policy in memory (agent-policy-views.ts), which the backtest and `policy test FILE` decide
 * under, against the gateway's own SQL view of the same policy in force: for every agent of the
 * demo workspace, every tool action (one the owner added, one retired, one unknown) and many
 * generated facts, the same decision, reason, checks and rules. This is why the backtest and the
 * gateway cannot disagree.
 */
beforeAll(() => getHarness(), 90_000)

const factsArbitrary: fc.Arbitrary<Facts> = fc.record(
  {
    amountMinor: fc.integer({ min: 0, max: 200_000 }),
    currency: fc.constantFrom('USD', 'EUR', 'GBP'),
    amountPercent: fc.constantFrom(0, 5, 14, 15, 16, 17, 20, 21, 40),
    increase: fc.boolean(),
    recipients: fc.constantFrom(0, 100, 5_000, 10_000, 10_001, 16_900),
    records: fc.constantFrom(10, 500, 501, 1_000, 4_200),
  },
  { requiredKeys: [] },
).map((f) => (f.amountMinor !== undefined && f.currency === undefined ? { ...f, currency: 'USD' } : f))

test('a policy in memory decides every ask exactly as the gateway view of the same policy in force', async () => {
  const { sql } = await getHarness()
  const demo = await createDemoWorkspace(sql)
  const ws = demo.workspace.id
  const [pacer, writer] = demo.agents
  // What the demo lacks: a tool the owner added, rules naming one agent, a whole tool, and counting allowed requests.
  await sql.begin((tx) =>
    insertTools(tx, ws, [{ key: 'github', name: 'GitHub', description: 'Issues.', actions: [{ key: 'create_issue', name: 'Open an issue', risk: 'low', dataUsed: [], reversible: true }] }]),
  )
  await ruleIn(ws, { match: [{ tool: 'ads', action: 'pause_campaign' }], agents: [pacer!.id], when: [{ count: 'allowed', window: '1h', op: '>=', value: 1 }] }, 'require_approval')
  await ruleIn(ws, { match: [{ tool: 'github' }], when: [] }, 'require_approval')
  await ruleIn(ws, { match: [{ tool: 'email' }], agents: [writer!.id], when: [{ fact: 'recipients', op: '>', value: 5_000 }] }, 'deny')
  // An allowed request in the last hour, for the count to count.
  expect(decisionOf(await authorize(pacer!.credential, { tool: 'ads', action: 'read_performance' }))).toBe('allowed')

  const at = new Date()
  const missing = (await selectMissingFacts(sql, ws))!
  const policy = await policyInForce(sql, ws, missing)
  const counts = new HistoryCounts()
  for (const r of await selectAllowedTimes(sql, ws, { since: new Date(at.getTime() - 86_400_000), until: at })) counts.add(r.agent_id, r.tool, r.action, r.created_at.getTime())
  const gate = (await selectWorkspaceGate(sql, ws))!
  const memory = policyViews(policy, { gate, limits: (await selectWorkspaceLimits(sql, ws))!, counts })

  const actions = [...policy.tools.flatMap((t) => t.actions.map((a) => [t.key, a.key] as const)), ['ads', 'no_such_action'] as const, ['no_such_tool', 'x'] as const]
  const facts = fc.sample(factsArbitrary, { numRuns: 40, seed: 27 })
  facts.push({})
  let compared = 0
  const seen = new Set<string>()
  for (const agent of policy.agents) {
    for (const [tool, action] of actions) {
      const read = (await selectGatewayView(sql, ws, { agentId: agent.id, tool, action }))!
      for (const f of facts) {
        const ask: DecisionAsk = { agentId: agent.id, tool, action, facts: f }
        const live = decide({ ...(await decisionInputOf(sql, ws, read.view, ask, at)), prior: null })
        const held = decide({ ...(await decisionInputOf(sql, ws, memory.viewOf(ask, at), ask, at)), prior: null })
        expect({ ask, ...held }).toEqual({ ask, ...live })
        compared++
        seen.add(live.decision)
      }
    }
  }
  expect(compared).toBe(policy.agents.length * actions.length * facts.length)
  expect(actions.length).toBeGreaterThan(14)
  expect([...seen].sort()).toEqual(['allowed', 'denied', 'requires_approval'])
}, 120_000)
