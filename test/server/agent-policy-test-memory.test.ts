import { beforeAll, expect, test } from 'bun:test'
import { policyInForce, type ResolvedPolicy } from '../../server/src/domain/agent-policy-model.ts'
import { parsePolicyCases, testPolicy } from '../../server/src/domain/agent-policy-test.ts'
import { selectMissingFacts } from '../../server/src/store/workspaces.ts'
import { agentIn } from '../agent-helpers.ts'
import { getHarness, makeWorkspace } from '../harness.ts'

/**
 * `policy test` under a policy held in memory (a document resolved, before it is applied): the
 * cases are decided under it, by the gateway's code, and checked against its catalogue and agents.
 */
beforeAll(() => getHarness(), 90_000)

const CASES = `
- { name: big send, agent: Mailer, tool: email, action: send_campaign, facts: { recipients: 20000 }, expect: requires_approval, failing: [rules] }
- { name: small send, agent: Mailer, tool: email, action: send_campaign, facts: { recipients: 100 }, expect: allowed }
- { name: open an issue, agent: Mailer, tool: github, action: create_issue, expect: allowed }
`

test('cases decided under a policy in memory: a rule and a tool it adds, an agent it permits; the same cases against the policy in force', async () => {
  const { sql } = await getHarness()
  const ws = (await makeWorkspace()).id
  const mailer = await agentIn(ws, { name: 'Mailer', allow: 'email.send_campaign', maxUnattendedRisk: 'high' })
  const current = await policyInForce(sql, ws, (await selectMissingFacts(sql, ws))!)
  const planned: ResolvedPolicy = {
    ...current,
    tools: [...current.tools, { key: 'github', name: 'GitHub', description: 'Issues.', actions: [{ key: 'create_issue', name: 'Open an issue', risk: 'low', dataUsed: [], reversible: true }] }],
    agents: current.agents.map((a) => (a.id === mailer.id ? { ...a, permissions: [...a.permissions, { tool: 'github', action: 'create_issue' }] } : a)),
    rules: [...current.rules, { id: null, effect: 'require_approval', structure: { match: [{ tool: 'email', action: 'send_campaign' }], when: [{ fact: 'recipients', op: '>', value: 10_000 }] } }],
  }
  const r = await testPolicy(sql, ws, parsePolicyCases(CASES), { policy: planned })
  expect(r.cases.map((c) => [c.name, c.got, c.ok])).toEqual([
    ['big send', 'requires_approval', true],
    ['small send', 'allowed', true],
    ['open an issue', 'allowed', true],
  ])
  expect({ passed: r.passed, failed: r.failed }).toEqual({ passed: 3, failed: 0 })

  // Without the rule, the big send is allowed: the case fails.
  const noRule = await testPolicy(sql, ws, parsePolicyCases(CASES), { policy: { ...planned, rules: current.rules } })
  expect(noRule.cases[0]).toMatchObject({ got: 'allowed', failing: [], ok: false })

  // The policy in force has no github tool: the file is refused, naming the case.
  await expect(testPolicy(sql, ws, parsePolicyCases(CASES))).rejects.toThrow(/case 3 "open an issue": no tool "github"/)
})
