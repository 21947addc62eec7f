import { expect, test } from 'bun:test'
import { createDemoWorkspace } from '../../server/src/demo/index.ts'
import { authorize, CHECK_ORDER, decisionOf } from '../agent-helpers.ts'
import { call, getHarness } from '../harness.ts'

test('the demo: two agents whose permissions show yes and no, a history decided by the real gateway, the same answers live', async () => {
  const { sql } = await getHarness()
  const demo = await createDemoWorkspace(sql)
  const token = demo.tokens.live
  const [pacer, writer] = demo.agents
  expect(demo.agents).toHaveLength(2)

  const agents = (await call('GET', '/api/v1/agents', { token })).body.data
  expect(agents.map((a: any) => a.owner).sort()).toEqual(['product', 'workspace'])

  // The seeded history: every decision value, every check in order, rules version recorded.
  const seeded: any[] = []
  let before: string | undefined
  do {
    const page = await call('GET', `/api/v1/agents/requests?limit=100${before ? `&before=${encodeURIComponent(before)}` : ''}`, { token })
    seeded.push(...page.body.data)
    before = page.body.meta?.nextBefore
  } while (before)
  expect(seeded.length).toBeGreaterThanOrEqual(30)
  expect(new Set(seeded.map((r) => r.decision))).toEqual(new Set(['allowed', 'denied', 'requires_approval']))
  for (const r of seeded) expect(r.checks.map((c: any) => c.name)).toEqual(CHECK_ORDER)
  expect(seeded.some((r) => r.result !== null)).toBe(true)
  const rules = (await call('GET', '/api/v1/agents/rules', { token })).body.data
  expect(rules.map((r: any) => r.sentence)).toContain('Ask a person before any agent raises a daily budget by more than 15%.')
  const version = seeded[0].rulesVersion
  expect(new Set(seeded.map((r) => r.rulesVersion))).toEqual(new Set([version]))
  expect(version).toBeGreaterThanOrEqual(rules.length)

  // Live: the first agent may pause a campaign (low risk) and may not send email.
  const yes = await authorize(pacer!.credential, { tool: 'ads', action: 'pause_campaign', resource: 'cmp_demo' })
  expect(decisionOf(yes)).toBe('allowed')
  const no = await authorize(pacer!.credential, { tool: 'email', action: 'send_campaign', facts: { recipients: 1_000 } })
  expect(decisionOf(no)).toBe('denied')
  // the live gateway decides under the same version the history was decided under
  expect(no.body.data.rulesVersion).toBe(version)
  // The second may send, with a person's approval (high risk).
  expect(decisionOf(await authorize(writer!.credential, { tool: 'email', action: 'send_campaign', facts: { recipients: 1_000 } }))).toBe('requires_approval')
  // A seeded denial reads like a live one.
  const seededNo = seeded.find((r) => r.agentId === pacer!.id && r.tool === 'email' && r.action === 'send_campaign')
  if (seededNo) expect(seededNo.checks.find((c: any) => c.name === 'permission').detail).toBe(no.body.data.checks.find((c: any) => c.name === 'permission').detail)
}, 60_000)
