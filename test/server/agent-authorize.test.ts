import { describe, expect, test } from 'bun:test'
import { setAgentsStopped } from '../../server/src/domain/workspaces.ts'
import { authorize as authorizeIn } from '../../server/src/domain/agent-gateway.ts'
import { decisionRecorder } from '../../server/src/store/agent-gateway-recorder.ts'
import { decideApproval } from '../../server/src/domain/approvals.ts'
import { addPerson } from '../../server/src/domain/people.ts'
import { agentIn, authorize, CHECK_ORDER, checkOf, decisionOf, ruleIn } from '../agent-helpers.ts'
import { call, expectError, getHarness, makeWorkspace } from '../harness.ts'

const PACER = {
  allow: 'ads.read_performance,ads.pause_campaign,ads.adjust_budget,email.send_campaign,contacts.export_contacts',
  ceilings: { amounts: [{ amountMinor: 50_000, currency: 'JPY' }, { amountMinor: 50_000, currency: 'USD' }], amountPercent: 30, recipients: 20_000, records: 1_000 },
}
// Decisions from the CLI, as the operator command records them: the operator's login.
const MAYA = { kind: 'operator', name: 'mchen' } as const
const DANIEL = { kind: 'operator', name: 'dokafor' } as const
const budget = (facts: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  tool: 'ads', action: 'adjust_budget', resource: 'cmp_spring', facts, ...extra,
})

async function eventsOf(workspaceId: string, type: string) {
  const { sql } = await getHarness()
  return sql<{ data: any }[]>`SELECT data FROM events WHERE workspace_id = ${workspaceId} AND type = ${type} ORDER BY seq`
}

describe('POST /agent/authorize: allowed', () => {
  test('every check reports in order, mayProceed, 15 minutes of validity, recorded with its event', async () => {
    const ws = await makeWorkspace()
    const agent = await agentIn(ws.id, PACER)
    const before = Date.now()
    const a = await authorize(agent.credential, { tool: 'ads', action: 'pause_campaign', resource: 'cmp_1', summary: 'Pause the tired ad' })
    expect(decisionOf(a)).toBe('allowed')
    const d = a.body.data
    expect(d.mayProceed).toBe(true)
    expect(d.authorizationId).toMatch(/^auth_[0-9a-z]{26}$/)
    expect(d.id).toBe(d.authorizationId)
    expect(d.checks.map((c: any) => c.name)).toEqual(CHECK_ORDER)
    expect(d.checks.every((c: any) => c.passed && typeof c.detail === 'string' && c.detail.length > 10)).toBe(true)
    expect(d.rules).toEqual([])
    expect(d.approvalId).toBeNull()
    expect(d.rulesVersion).toBe(1)
    expect(d.reason).toContain('pause a campaign')
    const validFor = new Date(d.expiresAt).getTime() - before
    expect(validFor).toBeGreaterThan(14 * 60_000)
    expect(validFor).toBeLessThanOrEqual(15 * 60_000 + 5_000)
    const events = await eventsOf(ws.id, 'agent.request.decided')
    expect(events.map((e) => e.data.request.authorizationId)).toEqual([d.authorizationId])
    expect(events[0]!.data.request).toMatchObject({ decision: 'allowed', mayProceed: true, agentId: agent.id })
  })

  test('the product\'s own agents go through the same checks', async () => {
    const ws = await makeWorkspace()
    const { sql } = await getHarness()
    await sql`UPDATE agents SET owner = 'product' WHERE workspace_id = ${ws.id} AND id = ${ws.agent.id}`
    expect(decisionOf(await authorize(ws.agent.credential, { tool: 'ads', action: 'pause_campaign' }))).toBe('allowed')
    const refused = await authorize(ws.agent.credential, { tool: 'ads', action: 'adjust_budget' })
    expect(decisionOf(refused)).toBe('denied')
    expect(checkOf(refused, 'permission').passed).toBe(false)
  })
})

describe('POST /agent/authorize: denied', () => {
  test('by the stop switch: the first check fails with who, when and why; resumed, the same request is allowed', async () => {
    const ws = await makeWorkspace()
    const { sql } = await getHarness()
    await setAgentsStopped(sql, { workspaceId: ws.id, stopped: true, reason: 'Black Friday freeze', actor: 'operator:maya' })
    const a = await authorize(ws.agent.credential, { tool: 'ads', action: 'pause_campaign' })
    expect(decisionOf(a)).toBe('denied')
    expect(a.body.data.mayProceed).toBe(false)
    expect(a.body.data.expiresAt).toBeNull()
    const c = checkOf(a, 'agents_enabled')
    expect(c.passed).toBe(false)
    expect(c.detail).toContain('Black Friday freeze')
    // Who stopped them, in the words a decision names its decider with: never the record's own line (operator:maya).
    expect(c.detail).toContain(' by maya (operator): Black Friday freeze.')
    // every other check still reports
    expect(a.body.data.checks.map((x: any) => x.name)).toEqual(CHECK_ORDER)
    expect(a.body.data.checks.slice(1).every((x: any) => x.passed)).toBe(true)
    expect(a.body.data.reason).toContain('stopped')
    await setAgentsStopped(sql, { workspaceId: ws.id, stopped: false, actor: 'operator:maya' })
    expect(decisionOf(await authorize(ws.agent.credential, { tool: 'ads', action: 'pause_campaign' }))).toBe('allowed')
  })

  test('by the stop switch a person pressed in the console: the check names them by their name', async () => {
    const ws = await makeWorkspace()
    const { sql } = await getHarness()
    const person = await addPerson(sql, { workspaceId: ws.id, email: `stopper-${crypto.randomUUID().slice(0, 8)}@example.com`, name: 'Sam Stopper', role: 'approver' })
    await setAgentsStopped(sql, { workspaceId: ws.id, stopped: true, reason: 'Audit week', actor: { kind: 'person', id: person.id, name: person.name } })
    const c = checkOf(await authorize(ws.agent.credential, { tool: 'ads', action: 'pause_campaign' }), 'agents_enabled')
    expect(c.passed).toBe(false)
    expect(c.detail).toContain(' by Sam Stopper: Audit week.')
    expect(c.detail).not.toContain(person.id)
  })

  test('by the tool: an unknown tool or action is denied and recorded, naming what exists', async () => {
    const ws = await makeWorkspace()
    const a = await authorize(ws.agent.credential, { tool: 'ads', action: 'launch_rockets' })
    expect(decisionOf(a)).toBe('denied')
    expect(checkOf(a, 'tool')).toMatchObject({ passed: false })
    expect(checkOf(a, 'tool').detail).toContain('pause_campaign')
    const b = await authorize(ws.agent.credential, { tool: 'rockets', action: 'launch' })
    expect(checkOf(b, 'tool').detail).toContain('rockets is not a tool')
    const { sql } = await getHarness()
    const [n] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM agent_requests WHERE workspace_id = ${ws.id} AND decision = 'denied'`
    expect(n!.n).toBe(2)
  })

  test('by permission: the detail names what the agent is permitted', async () => {
    const ws = await makeWorkspace()
    const a = await authorize(ws.agent.credential, { tool: 'email', action: 'send_campaign', facts: { recipients: 10 } })
    expect(decisionOf(a)).toBe('denied')
    const c = checkOf(a, 'permission')
    expect(c.passed).toBe(false)
    expect(c.detail).toContain('not permitted to send an email campaign (email.send_campaign)')
    expect(c.detail).toContain('ads.pause_campaign')
  })

  test('by data: an action using data the agent may not use', async () => {
    const ws = await makeWorkspace()
    const agent = await agentIn(ws.id, { ...PACER, dataAccess: ['campaigns'] })
    const ok = await authorize(agent.credential, { tool: 'ads', action: 'pause_campaign' })
    expect(decisionOf(ok)).toBe('allowed')
    expect(checkOf(ok, 'data').detail).toContain('campaigns')
    const a = await authorize(agent.credential, { tool: 'ads', action: 'read_performance' })
    expect(decisionOf(a)).toBe('denied')
    const c = checkOf(a, 'data')
    expect(c.passed).toBe(false)
    expect(c.detail).toContain('may not use ad spend')
    expect(a.body.data.reason).toContain('ad spend')
  })

  test('by a ceiling: the detail gives what was asked and the most that passes, in the currency\'s own format', async () => {
    const ws = await makeWorkspace()
    const agent = await agentIn(ws.id, PACER)
    const jpy = await authorize(agent.credential, budget({ amountMinor: 90_000, currency: 'JPY', amountPercent: 10, increase: true }))
    expect(decisionOf(jpy)).toBe('denied')
    expect(checkOf(jpy, 'limits')).toMatchObject({ passed: false })
    expect(checkOf(jpy, 'limits').detail).toContain('asked 90,000 JPY, ceiling 50,000 JPY')
    const usd = await authorize(agent.credential, budget({ amountMinor: 40_000, currency: 'USD', amountPercent: 10, increase: true }))
    expect(decisionOf(usd)).toBe('allowed')
    expect(checkOf(usd, 'limits').detail).toContain('asked 400.00 USD, ceiling 500.00 USD')
    const pct = await authorize(agent.credential, budget({ amountPercent: 35, increase: false }))
    expect(checkOf(pct, 'limits').detail).toContain('asked 35%, ceiling 30%')
    const recipients = await authorize(agent.credential, { tool: 'email', action: 'send_campaign', facts: { recipients: 25_000 } })
    expect(decisionOf(recipients)).toBe('denied')
    expect(checkOf(recipients, 'limits').detail).toContain('asked 25,000 recipients, ceiling 20,000 recipients')
    // Any safe integer is an amount the API takes, and the sentence says it to the last cent.
    const huge = await authorize(agent.credential, budget({ amountMinor: Number.MAX_SAFE_INTEGER, currency: 'USD', amountPercent: 10, increase: true }))
    expect(checkOf(huge, 'limits').detail).toContain('asked 90,071,992,547,409.91 USD, ceiling 500.00 USD')
  })

  test('by a ceiling: one recipient or record is said in the singular, in the check and in the summary a person reads', async () => {
    const ws = await makeWorkspace()
    const agent = await agentIn(ws.id, { allow: 'email.send_campaign,contacts.export_contacts', maxUnattendedRisk: 'high', ceilings: { recipients: 0, records: 0 } })
    const one = await authorize(agent.credential, { tool: 'email', action: 'send_campaign', facts: { recipients: 1 } })
    expect(decisionOf(one)).toBe('denied')
    expect(checkOf(one, 'limits').detail).toBe("Over Gateway agent's ceilings: asked 1 recipient, ceiling 0 recipients.")
    const record = await authorize(agent.credential, { tool: 'contacts', action: 'export_contacts', facts: { records: 1 } })
    expect(checkOf(record, 'limits').detail).toBe("Over Gateway agent's ceilings: asked 1 record, ceiling 0 records.")
    const wider = await agentIn(ws.id, { allow: 'email.send_campaign', ceilings: { recipients: 5 } })
    const waits = await authorize(wider.credential, { tool: 'email', action: 'send_campaign', facts: { recipients: 1 } })
    expect(decisionOf(waits)).toBe('requires_approval')
    const approvals = await call('GET', '/api/v1/approvals?status=pending', { token: ws.live })
    expect(approvals.body.data.find((a: { id: string }) => a.id === waits.body.data.approvalId)?.summary).toBe('Gateway agent 2 asks to send an email campaign (email.send_campaign): 1 recipient.')
  })

  test('by a ceiling: an amount in a currency the agent has no ceiling for is denied', async () => {
    const ws = await makeWorkspace()
    const agent = await agentIn(ws.id, PACER)
    const a = await authorize(agent.credential, budget({ amountMinor: 1, currency: 'EUR' }))
    expect(decisionOf(a)).toBe('denied')
    expect(checkOf(a, 'limits').detail).toContain('no ceiling in EUR')
    expect(checkOf(a, 'limits').detail).toContain('0.01 EUR')
  })

  test("by the workspace's limits, through the shared limits module", async () => {
    const ws = await makeWorkspace()
    const agent = await agentIn(ws.id, { ...PACER, ceilings: { ...PACER.ceilings, amountPercent: 80 } })
    const a = await authorize(agent.credential, budget({ amountPercent: 60, increase: true }))
    expect(decisionOf(a)).toBe('denied')
    expect(checkOf(a, 'limits').detail).toContain('A budget change of +60% is over the workspace limit of 30%.')
    const { sql } = await getHarness()
    const hour = new Date().getUTCHours()
    await sql`UPDATE workspace_limits SET quiet_hours_start = ${hour}, quiet_hours_end = ${(hour + 1) % 24} WHERE workspace_id = ${ws.id}`
    const send = await authorize(agent.credential, { tool: 'email', action: 'send_campaign', facts: { recipients: 10 } })
    expect(decisionOf(send)).toBe('denied')
    expect(checkOf(send, 'limits').detail).toContain('quiet hours')
  })

  test('by a rule: the rule bites only when its conditions hold on the stated facts', async () => {
    const ws = await makeWorkspace()
    const agent = await agentIn(ws.id, PACER)
    const rule = await ruleIn(ws.id, { match: [{ tool: 'contacts', action: 'export_contacts' }], when: [{ fact: 'records', op: '>', value: 500 }] }, 'deny')
    expect(rule.sentence).toBe('No agent may export contacts affecting more than 500 records.')
    const a = await authorize(agent.credential, { tool: 'contacts', action: 'export_contacts', facts: { records: 800 } })
    expect(decisionOf(a)).toBe('denied')
    expect(a.body.data.rules).toEqual([{ id: rule.id, sentence: rule.sentence, effect: 'deny' }])
    expect(checkOf(a, 'rules')).toMatchObject({ passed: false })
    expect(a.body.data.rulesVersion).toBe(2)
    // 400 records: the rule does not bite; the action is high risk, so it waits for a person instead
    const b = await authorize(agent.credential, { tool: 'contacts', action: 'export_contacts', facts: { records: 400 } })
    expect(decisionOf(b)).toBe('requires_approval')
    expect(b.body.data.rules).toEqual([])
  })
})

describe('POST /agent/authorize: requires_approval', () => {
  test('by risk: a pending approval a person reads, asked once however often the agent repeats', async () => {
    const ws = await makeWorkspace()
    const agent = await agentIn(ws.id, PACER)
    const body = { tool: 'email', action: 'send_campaign', resource: 'lst_news', summary: 'Send "Spring origins" to 3,200 subscribers', facts: { recipients: 3_200 } }
    const a = await authorize(agent.credential, body)
    expect(decisionOf(a)).toBe('requires_approval')
    const d = a.body.data
    expect(d.mayProceed).toBe(false)
    expect(d.expiresAt).toBeNull()
    expect(d.approvalId).toMatch(/^apr_[0-9a-z]{26}$/)
    expect(checkOf(a, 'risk')).toMatchObject({ passed: false })
    expect(checkOf(a, 'risk').detail).toContain('High risk that cannot be undone')
    expect(d.reason).toContain("Needs a person's approval")
    const { sql } = await getHarness()
    const [apr] = await sql<any[]>`SELECT * FROM approvals WHERE workspace_id = ${ws.id} AND id = ${d.approvalId}`
    expect(apr).toMatchObject({ kind: 'agent_request', status: 'pending', summary: body.summary, subject_id: d.authorizationId, requested_by: 'Gateway agent', used_at: null })
    expect(new Date(apr.expires_at).getTime() - Date.now()).toBeGreaterThan(23.9 * 3_600_000)
    expect((await eventsOf(ws.id, 'approval.requested')).map((e) => e.data.approval.id)).toEqual([d.approvalId])
    // a person finds it in GET /approvals, with the line they read
    const listed = await call('GET', '/api/v1/approvals?status=pending', { token: ws.live })
    const item = listed.body.data.find((x: any) => x.id === d.approvalId)
    expect(item).toMatchObject({ kind: 'agent_request', summary: body.summary, subjectId: d.authorizationId })
    // the event carries the approval as GET /approvals shows it, written with the decision's event
    const [event] = await sql<any[]>`SELECT seq, data FROM events WHERE workspace_id = ${ws.id} AND type = 'approval.requested'`
    expect(event.data.approval).toEqual(item)
    const [decided] = await sql<any[]>`SELECT seq FROM events WHERE workspace_id = ${ws.id} AND type = 'agent.request.decided'`
    expect(decided.seq).toBe(event.seq + 1)
    // asking again while it waits: the same approval, not a second one
    const again = await authorize(agent.credential, body)
    expect(decisionOf(again)).toBe('requires_approval')
    expect(again.body.data.approvalId).toBe(d.approvalId)
    expect(checkOf(again, 'risk').detail).toContain(`${d.approvalId} is waiting`)
    const [n] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM approvals WHERE workspace_id = ${ws.id}`
    expect(n!.n).toBe(1)
  })

  test('by risk: an agent allowed only low risk needs a person for a medium-risk action', async () => {
    const ws = await makeWorkspace()
    const agent = await agentIn(ws.id, { ...PACER, maxUnattendedRisk: 'low' })
    expect(decisionOf(await authorize(agent.credential, { tool: 'ads', action: 'pause_campaign' }))).toBe('allowed')
    const a = await authorize(agent.credential, budget({ amountPercent: 5, increase: true }))
    expect(decisionOf(a)).toBe('requires_approval')
    expect(checkOf(a, 'risk').detail).toContain('may take up to low risk')
  })

  test('by a rule: "Ask a person before any agent raises a daily budget by more than 20%."', async () => {
    const ws = await makeWorkspace()
    const agent = await agentIn(ws.id, PACER)
    const rule = await ruleIn(
      ws.id,
      { match: [{ tool: 'ads', action: 'adjust_budget' }], when: [{ fact: 'increase', op: '=', value: true }, { fact: 'amountPercent', op: '>', value: 20 }] },
      'require_approval',
    )
    expect(rule.sentence).toBe('Ask a person before any agent raises a daily budget by more than 20%.')
    const up = await authorize(agent.credential, budget({ amountPercent: 25, increase: true }))
    expect(decisionOf(up)).toBe('requires_approval')
    expect(up.body.data.rules).toEqual([{ id: rule.id, sentence: rule.sentence, effect: 'require_approval' }])
    expect(checkOf(up, 'rules').detail).toContain(rule.sentence)
    expect(checkOf(up, 'risk').passed).toBe(true)
    // lowering by as much is not what the rule is about
    expect(decisionOf(await authorize(agent.credential, budget({ amountPercent: 25, increase: false })))).toBe('allowed')
    expect(decisionOf(await authorize(agent.credential, budget({ amountPercent: 20, increase: true })))).toBe('allowed')
  })

  test('a denial wins over a need for a person', async () => {
    const ws = await makeWorkspace()
    const agent = await agentIn(ws.id, PACER)
    const a = await authorize(agent.credential, { tool: 'email', action: 'send_campaign', facts: { recipients: 99_000 } })
    expect(decisionOf(a)).toBe('denied')
    expect(a.body.data.approvalId).toBeNull()
  })
})

describe('approvals of agent requests', () => {
  const send = { tool: 'email', action: 'send_campaign', resource: 'lst_news', facts: { recipients: 3_200 }, params: { subject: 'Spring', listId: 'lst_news' } }

  async function pending() {
    const ws = await makeWorkspace()
    const agent = await agentIn(ws.id, PACER)
    const first = await authorize(agent.credential, send)
    expect(decisionOf(first)).toBe('requires_approval')
    return { ws, agent, approvalId: first.body.data.approvalId as string }
  }

  test('approved: the same request is allowed once, then needs a person again', async () => {
    const { ws, agent, approvalId } = await pending()
    const { sql } = await getHarness()
    const decided = await decideApproval(sql, { id: approvalId, approve: true, decider: MAYA })
    expect(decided).toMatchObject({ id: approvalId, status: 'approved', decidedBy: MAYA, decisionReason: null })
    // another request (other params) is not the one approved
    const other = await authorize(agent.credential, { ...send, params: { subject: 'Summer', listId: 'lst_news' } })
    expect(decisionOf(other)).toBe('requires_approval')
    expect(other.body.data.approvalId).not.toBe(approvalId)
    // another agent asking the same is not the one approved either
    const twin = await agentIn(ws.id, PACER)
    expect((await authorize(twin.credential, send)).body.data.approvalId).not.toBe(approvalId)
    const used = await authorize(agent.credential, { ...send, params: { listId: 'lst_news', subject: 'Spring' } })
    expect(decisionOf(used)).toBe('allowed')
    expect(used.body.data.mayProceed).toBe(true)
    expect(used.body.data.approvalId).toBe(approvalId)
    expect(used.body.data.reason).toContain('Allowed once: mchen approved')
    expect(used.body.data.approvalDecision).toMatchObject({ approvalId, status: 'approved', decidedBy: MAYA, reason: null })
    expect(checkOf(used, 'risk')).toMatchObject({ passed: true })
    expect(checkOf(used, 'risk').detail).toContain(`Approved by mchen (${approvalId})`)
    const [row] = await sql<any[]>`SELECT used_at FROM approvals WHERE workspace_id = ${ws.id} AND id = ${approvalId}`
    expect(row.used_at).not.toBeNull()
    const third = await authorize(agent.credential, send)
    expect(decisionOf(third)).toBe('requires_approval')
    expect(third.body.data.approvalId).not.toBe(approvalId)
    expect(third.body.data.approvalDecision).toBeNull()
    expect(checkOf(third, 'risk').detail).toContain('was used at')
  })

  test('approved: two identical requests at once, only one is allowed', async () => {
    const { agent, approvalId } = await pending()
    const { sql } = await getHarness()
    await decideApproval(sql, { id: approvalId, approve: true, decider: MAYA })
    const answers = await Promise.all([authorize(agent.credential, send), authorize(agent.credential, send), authorize(agent.credential, send)])
    expect(answers.map(decisionOf).sort()).toEqual(['allowed', 'requires_approval', 'requires_approval'])
  })

  test('rejected: the same request is denied, never allowed; the answer says who rejected it, when and why, to this agent only', async () => {
    const { ws, agent, approvalId } = await pending()
    const { sql } = await getHarness()
    const reason = 'Not before the spring catalogue is printed.'
    const decided = await decideApproval(sql, { id: approvalId, approve: false, decider: DANIEL, reason })
    const a = await authorize(agent.credential, send)
    expect(decisionOf(a)).toBe('denied')
    expect(checkOf(a, 'risk').passed).toBe(false)
    expect(a.body.data.reason).toContain(`dokafor rejected this same request (${approvalId})`)
    expect(a.body.data.reason).toContain(`saying: ${JSON.stringify(reason)}`)
    expect(a.body.data.approvalDecision).toEqual({ approvalId, status: 'rejected', decidedBy: DANIEL, decidedAt: decided.decidedAt, reason })
    // Another agent asking the same learns nothing of this agent's approval: it waits on its own.
    const twin = await agentIn(ws.id, PACER)
    const other = await authorize(twin.credential, send)
    expect(decisionOf(other)).toBe('requires_approval')
    expect(other.body.data.approvalDecision).toBeNull()
    expect(decisionOf(await authorize(agent.credential, send))).toBe('denied')
    await expect(decideApproval(sql, { id: approvalId, approve: true, decider: MAYA })).rejects.toThrow(/already rejected by dokafor \(operator\)/)
  })

  test('rejected, past its 24 hours: asking again waits for a new approval, never allowed', async () => {
    const { ws, agent, approvalId } = await pending()
    const { sql } = await getHarness()
    await decideApproval(sql, { id: approvalId, approve: false, decider: DANIEL })
    await sql`UPDATE approvals SET expires_at = now() - interval '1 minute' WHERE workspace_id = ${ws.id} AND id = ${approvalId}`
    const a = await authorize(agent.credential, send)
    expect(decisionOf(a)).toBe('requires_approval')
    expect(a.body.data.approvalId).toMatch(/^apr_/)
    expect(a.body.data.approvalId).not.toBe(approvalId)
    const again = await authorize(agent.credential, send)
    expect(decisionOf(again)).toBe('requires_approval')
    expect(again.body.data.approvalId).toBe(a.body.data.approvalId)
  })

  test('the event of a decided approval carries it as GET /approvals shows it', async () => {
    const { ws, approvalId } = await pending()
    const { sql } = await getHarness()
    const decided = await decideApproval(sql, { id: approvalId, approve: true, decider: MAYA })
    const listed = await call('GET', '/api/v1/approvals?status=approved', { token: ws.live })
    const item = listed.body.data.find((x: any) => x.id === approvalId)
    expect(item).toMatchObject({ status: 'approved', decidedBy: MAYA, decisionReason: null })
    expect((await eventsOf(ws.id, 'approval.approved')).map((e) => e.data.approval)).toEqual([item])
    expect(decided).toEqual({ workspaceId: ws.id, ...item })
  })

  test('the same request arriving several times at once opens one approval, not one each', async () => {
    // a few rounds: the requests of one round must really overlap for a missing lock to show
    for (let round = 0; round < 4; round++) {
      const ws = await makeWorkspace()
      const agent = await agentIn(ws.id, PACER)
      const body = { tool: 'email', action: 'send_campaign', resource: 'lst_at_once', facts: { recipients: 1_200 } }
      const answers = await Promise.all(Array.from({ length: 5 }, () => authorize(agent.credential, body)))
      expect(answers.map(decisionOf)).toEqual(Array(5).fill('requires_approval'))
      expect(new Set(answers.map((a) => a.body.data.approvalId)).size).toBe(1)
      const { sql } = await getHarness()
      const [n] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM approvals WHERE workspace_id = ${ws.id}`
      expect(n!.n).toBe(1)
    }
  })

  test('expired: never a yes; asking again waits for a new approval, and the expired one cannot be decided', async () => {
    const { ws, agent, approvalId } = await pending()
    const { sql } = await getHarness()
    await sql`UPDATE approvals SET expires_at = now() - interval '1 minute' WHERE workspace_id = ${ws.id} AND id = ${approvalId}`
    await expect(decideApproval(sql, { id: approvalId, approve: true, decider: MAYA })).rejects.toThrow(/expired at .* can no longer be decided/)
    const a = await authorize(agent.credential, send)
    expect(decisionOf(a)).toBe('requires_approval')
    expect(a.body.data.approvalId).not.toBe(approvalId)
    expect(checkOf(a, 'risk').detail).toContain(`${approvalId} expired at`)
    // approved, but past its validity before use: also never a yes
    await decideApproval(sql, { id: a.body.data.approvalId, approve: true, decider: MAYA })
    await sql`UPDATE approvals SET expires_at = now() - interval '1 minute' WHERE workspace_id = ${ws.id} AND id = ${a.body.data.approvalId}`
    expect(decisionOf(await authorize(agent.credential, send))).toBe('requires_approval')
  })

  test('an approval lifts only the need for a person: a ceiling still denies', async () => {
    const { ws, agent, approvalId } = await pending()
    const { sql } = await getHarness()
    await decideApproval(sql, { id: approvalId, approve: true, decider: MAYA })
    await setAgentsStopped(sql, { workspaceId: ws.id, stopped: true, reason: 'Audit', actor: 'operator:maya' })
    expect(decisionOf(await authorize(agent.credential, send))).toBe('denied')
    const [row] = await sql<any[]>`SELECT used_at FROM approvals WHERE workspace_id = ${ws.id} AND id = ${approvalId}`
    expect(row.used_at).toBeNull()
  })
})

describe('POST /agent/authorize: the request', () => {
  test('an unknown fact name is 400 naming it, and nothing is recorded', async () => {
    const ws = await makeWorkspace()
    expectError(await authorize(ws.agent.credential, { tool: 'ads', action: 'pause_campaign', facts: { budgetPercent: 10 } }), 400, 'invalid_request', 'facts.budgetPercent')
    expectError(await authorize(ws.agent.credential, { tool: 'ads', action: 'pause_campaign', facts: { amountMinor: 1.5, currency: 'USD' } }), 400, 'invalid_request', 'facts.amountMinor')
    expectError(await authorize(ws.agent.credential, { tool: 'ads', action: 'pause_campaign', facts: { amountMinor: 100 } }), 400, 'invalid_request', 'facts.currency')
    expectError(await authorize(ws.agent.credential, { tool: 'ads', action: 'pause_campaign', facts: { amountMinor: 100, currency: 'usd' } }), 400, 'invalid_request', 'ISO 4217')
    expectError(await authorize(ws.agent.credential, { tool: 'ads', action: 'pause_campaign', facts: { amountPercent: -1 } }), 400, 'invalid_request', 'facts.amountPercent')
    expectError(await authorize(ws.agent.credential, { tool: 'ads', action: 'pause_campaign', facts: { increase: 'yes' } }), 400, 'invalid_request', 'facts.increase')
    expectError(await authorize(ws.agent.credential, { tool: 'ads', action: 'pause_campaign', facts: { recipients: -3 } }), 400, 'invalid_request', 'facts.recipients')
    expectError(await authorize(ws.agent.credential, { tool: 'ads', action: 'pause_campaign', facts: { records: '5' } }), 400, 'invalid_request', 'facts.records')
    expectError(await authorize(ws.agent.credential, { tool: 'ads', action: 'pause_campaign', facts: { amountMinor: -1, currency: 'USD' } }), 400, 'invalid_request', 'facts.amountMinor')
    expectError(await authorize(ws.agent.credential, { tool: 'ads', action: 'pause_campaign', facts: { amountMinor: 1e20, currency: 'USD' } }), 400, 'invalid_request', 'facts.amountMinor')
    expectError(await authorize(ws.agent.credential, { tool: 'ads', action: 'pause_campaign', facts: { records: -1 } }), 400, 'invalid_request', 'facts.records')
    expectError(await authorize(ws.agent.credential, { tool: 'ads', action: 'pause_campaign', facts: { recipients: 1.5 } }), 400, 'invalid_request', 'facts.recipients')
    expectError(await authorize(ws.agent.credential, { tool: 'ads', action: 'pause_campaign', facts: { amountMinor: 100, currency: 'ABC' } }), 400, 'invalid_request', 'ISO 4217')
    expectError(await authorize(ws.agent.credential, { tool: 'ads', action: 'pause_campaign', verb: 'now' }), 400, 'invalid_request', 'verb')
    expectError(await authorize(ws.agent.credential, { action: 'pause_campaign' }), 400, 'invalid_request', 'tool')
    const { sql } = await getHarness()
    const [n] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM agent_requests WHERE workspace_id = ${ws.id}`
    expect(n!.n).toBe(0)
  })

  test('summary is one line a person reads: a line break, a tab or an escape sequence is 400 naming it, and nothing is recorded', async () => {
    const ws = await makeWorkspace()
    const ask = (summary: string) => authorize(ws.agent.credential, { tool: 'ads', action: 'pause_campaign', summary })
    for (const summary of ['Pause the ad\nDecided by: mchen (operator)', 'Pause\r\nnow', 'Pause\tnow', 'Pause \u001b[2Know', 'Pause\u2028now', 'Pause\u0085now']) {
      expectError(await ask(summary), 400, 'invalid_request', 'summary must be one line')
    }
    const { sql } = await getHarness()
    const [n] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM agent_requests WHERE workspace_id = ${ws.id}`
    expect(n!.n).toBe(0)
    // Surrounding whitespace is trimmed, a final newline with it; what is left is one line.
    const ok = await ask('  Pause the tired ad\n')
    expect(ok.status).toBe(201)
  })

  test('params are kept only as a keyed digest: the same params give the same digest, the values are nowhere', async () => {
    const ws = await makeWorkspace()
    const params = { campaignId: 'cmp_secret_campaign_42', note: 'very-recognisable-value' }
    const a = await authorize(ws.agent.credential, { tool: 'ads', action: 'pause_campaign', params })
    const b = await authorize(ws.agent.credential, { tool: 'ads', action: 'pause_campaign', params: { note: 'very-recognisable-value', campaignId: 'cmp_secret_campaign_42' } })
    const c = await authorize(ws.agent.credential, { tool: 'ads', action: 'pause_campaign', params: { campaignId: 'cmp_other' } })
    const { sql } = await getHarness()
    const rows = await sql<any[]>`SELECT id, params_digest, row_to_json(r)::text AS whole FROM agent_requests r WHERE workspace_id = ${ws.id} ORDER BY created_at, id`
    const digest = (id: string) => rows.find((r) => r.id === id)!.params_digest
    expect(digest(a.body.data.authorizationId)).toMatch(/^[0-9a-f]{64}$/)
    expect(digest(a.body.data.authorizationId)).toBe(digest(b.body.data.authorizationId))
    expect(digest(c.body.data.authorizationId)).not.toBe(digest(a.body.data.authorizationId))
    for (const r of rows) expect(r.whole).not.toContain('very-recognisable-value')
    // keyed: another workspace's digest of the same params differs
    const other = await makeWorkspace()
    const d = await authorize(other.agent.credential, { tool: 'ads', action: 'pause_campaign', params })
    const [od] = await sql<any[]>`SELECT params_digest FROM agent_requests WHERE workspace_id = ${other.id} AND id = ${d.body.data.authorizationId}`
    expect(od.params_digest).not.toBe(digest(a.body.data.authorizationId))
  })

  test('past the agentRequests allowance: 402 plan_required naming it, and nothing is recorded', async () => {
    const ws = await makeWorkspace()
    const { sql } = await getHarness()
    await sql`INSERT INTO allowances (workspace_id, name, amount) VALUES (${ws.id}, 'agentRequests', 2)`
    expect(decisionOf(await authorize(ws.agent.credential, { tool: 'ads', action: 'pause_campaign' }))).toBe('allowed')
    expect(decisionOf(await authorize(ws.agent.credential, { tool: 'email', action: 'send_campaign' }))).toBe('denied')
    expectError(await authorize(ws.agent.credential, { tool: 'ads', action: 'pause_campaign' }), 402, 'plan_required', 'agentRequests')
    const [n] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM agent_requests WHERE workspace_id = ${ws.id}`
    expect(n!.n).toBe(2)
    // a request that would open an approval: refused before anything is kept, the approval included
    const agent = await agentIn(ws.id, PACER)
    expectError(await authorize(agent.credential, { tool: 'email', action: 'send_campaign', facts: { recipients: 10 } }), 402, 'plan_required', 'agentRequests')
    const [kept] = await sql<{ approvals: number; events: number }[]>`
      SELECT (SELECT count(*)::int FROM approvals WHERE workspace_id = ${ws.id}) AS approvals,
             (SELECT count(*)::int FROM events WHERE workspace_id = ${ws.id} AND type LIKE 'approval.%') AS events`
    expect(kept).toEqual({ approvals: 0, events: 0 })
  })

  test.skipIf(!process.env.DATABASE_URL)('requests of one workspace are decided side by side; only the allowance counter is taken in turn', async () => {
    const ws = await makeWorkspace()
    const { sql } = await getHarness()
    const [{ secret_key: secretKey }] = await sql<{ secret_key: string }[]>`SELECT secret_key FROM workspaces WHERE workspace_id = ${ws.id}`
    let second: ReturnType<typeof authorize> | undefined
    let pid = 0
    let advisory = -1
    await sql.begin(async (tx) => {
      // one request decided and recorded, not yet committed
      await authorizeIn(tx, { workspaceId: ws.id, agentId: ws.agent.id, secretKey }, { tool: 'ads', action: 'pause_campaign', resource: 'cmp_a' }, decisionRecorder())
      second = authorize(ws.agent.credential, { tool: 'ads', action: 'pause_campaign', resource: 'cmp_b' })
      for (let i = 0; !pid; i++) {
        // It waits in its last statement, the one that records the decisions (their items, the
        // allowance, the requests, the events), known by its items (pg_stat_activity shows its
        // first 1,024 bytes: the items and the check of the view they were judged against).
        const [w] = await sql<{ pid: number }[]>`
          SELECT pid FROM pg_stat_activity
          WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%jsonb_to_recordset%'
            AND query LIKE '%view_digest text%'`
        if (w) pid = w.pid
        else if (i > 200) throw new Error('the second request never waited on the allowance counter')
        else await Bun.sleep(10)
      }
      // by then the other request has read everything and decided; an allowed request needs no
      // same-request lock (only a request whose checks need a person reads the approvals)
      const [held] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM pg_locks WHERE pid = ${pid} AND locktype = 'advisory' AND granted`
      advisory = held!.n
    })
    expect(decisionOf(await second!)).toBe('allowed')
    expect(advisory).toBe(0)
  })

  test('a workspace token cannot ask; the same Idempotency-Key replays the decision', async () => {
    const ws = await makeWorkspace()
    expectError(await authorize(ws.live, { tool: 'ads', action: 'pause_campaign' }), 403, 'forbidden', 'agent credential')
    const key = { 'Idempotency-Key': `authz-${ws.id}` }
    const first = await authorize(ws.agent.credential, { tool: 'ads', action: 'pause_campaign' }, key)
    const again = await authorize(ws.agent.credential, { tool: 'ads', action: 'pause_campaign' }, key)
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    expect(again.body).toEqual(first.body)
  })

  test('every decision records the rules version in force', async () => {
    const ws = await makeWorkspace()
    const first = await authorize(ws.agent.credential, { tool: 'ads', action: 'pause_campaign' })
    await ruleIn(ws.id, { match: [{ tool: 'sms' }], when: [] }, 'deny')
    const second = await authorize(ws.agent.credential, { tool: 'ads', action: 'pause_campaign' })
    expect([first.body.data.rulesVersion, second.body.data.rulesVersion]).toEqual([1, 2])
    const { sql } = await getHarness()
    const rows = await sql<any[]>`SELECT rules_version FROM agent_requests WHERE workspace_id = ${ws.id} ORDER BY created_at, id`
    expect(rows.map((r) => r.rules_version)).toEqual([1, 2])
    expect((await call('GET', '/api/v1/agents/rules', { token: ws.live })).body.data[0].sentence).toBe('No agent may use SMS.')
  })
})
