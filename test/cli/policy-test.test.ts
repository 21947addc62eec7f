import { beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createDemoWorkspace, type DemoWorkspace } from '../../server/src/demo/index.ts'
import { authorize } from '../agent-helpers.ts'
import { getHarness, type Harness } from '../harness.ts'
import { CLI_TIMEOUT, expectRefused, growthIn, refusalJson, type Run } from './run.ts'

/**
 * `growth admin policy test`, black-box: the CLI runs as its own process against the test server's
 * database, on the demo workspace (its Budget Pacer, Lifecycle Writer and rules); what it decides is
 * compared with what the gateway decides over HTTP for the same request, and the database is read
 * before and after to show that a test records nothing.
 */
const T = CLI_TIMEOUT
let h: Harness
let demo: DemoWorkspace
let ws: string
let growth: (args: string[]) => Promise<Run>
const dir = mkdtempSync(join(tmpdir(), 'growth-policy-test-'))
let files = 0

/** A cases file (YAML text, or a value written as JSON); its path. */
function casesFile(content: string | unknown): string {
  const path = join(dir, `cases-${++files}.${typeof content === 'string' ? 'yaml' : 'json'}`)
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content))
  return path
}

const policyTest = (cases: string, ...more: string[]) => growth(['admin', 'policy', 'test', '--workspace', ws, '--cases', cases, ...more])

const SMALL_RAISE = { agent: 'Budget Pacer', tool: 'ads', action: 'adjust_budget', facts: { amountPercent: 10, increase: true } }
const BIG_RAISE = { agent: 'Budget Pacer', tool: 'ads', action: 'adjust_budget', facts: { amountPercent: 17, increase: true } }
const WRITER_PAUSES = { agent: 'Lifecycle Writer', tool: 'ads', action: 'pause_campaign' }

beforeAll(async () => {
  h = await getHarness()
  demo = await createDemoWorkspace(h.sql, { name: 'Policy test' })
  ws = demo.workspace.id
  growth = growthIn(h.dataDir)
}, T)

/** What a decision could leave behind in the workspace: requests, approvals, events, the allowance used. */
async function recorded() {
  const [row] = await h.sql<{ requests: number; approvals: number; events: number; used: number }[]>`
    SELECT (SELECT count(*)::int FROM agent_requests WHERE workspace_id = ${ws}) AS requests,
           (SELECT count(*)::int FROM approvals WHERE workspace_id = ${ws}) AS approvals,
           (SELECT count(*)::int FROM events WHERE workspace_id = ${ws}) AS events,
           (SELECT COALESCE(sum(used), 0)::int FROM usage_counters WHERE workspace_id = ${ws} AND name = 'agentRequests') AS used`
  return row!
}

describe('growth admin policy test', () => {
  test('cases that pass: a line each and a summary, exit 0; an agent by id or by name; nothing recorded', async () => {
    const before = await recorded()
    const file = casesFile(`# the demo's rules, as an owner would pin them
cases:
  - name: a small raise goes through
    agent: Budget Pacer
    tool: ads
    action: adjust_budget
    facts: { amountPercent: 10, increase: true }
    expect: allowed
  - name: a raise over 15% needs a person
    agent: ${demo.agents[0]!.id}
    tool: ads
    action: adjust_budget
    facts: { amountPercent: 17, increase: true }
    expect: requires_approval
    failing: [rules]
  - name: the writer may not touch ads
    agent: Lifecycle Writer
    tool: ads
    action: pause_campaign
    expect: denied
`)
    const r = await policyTest(file)
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' })
    expect(r.stdout.trimEnd().split('\n')).toEqual([
      'ok   a small raise goes through: allowed',
      'ok   a raise over 15% needs a person: requires_approval (failing: rules)',
      expect.stringMatching(/^ok {3}the writer may not touch ads: denied \(failing: permission/),
      `ok: 3 passed, 0 failed, under the policy in force of workspace ${ws}; nothing was recorded.`,
    ])
    expect(await recorded()).toEqual(before)
  }, T)

  test('cases that fail: FAIL lines naming what was expected and what came, exit 1; --json as the contract says', async () => {
    const cases = [
      { name: 'right', ...SMALL_RAISE, expect: 'allowed' },
      { name: 'wrong decision', ...BIG_RAISE, expect: 'allowed' },
      { name: 'wrong checks', ...WRITER_PAUSES, expect: 'denied', failing: ['permission'] },
    ]
    const file = casesFile(cases)
    const r = await policyTest(file)
    expect(r.code).toBe(1)
    expect(r.stderr).toBe('')
    // A failed case ends with the gateway's reason: what asked for a person, or what denied it.
    expect(r.stdout.trimEnd().split('\n')).toEqual([
      'ok   right: allowed',
      "FAIL wrong decision: expected allowed, got requires_approval (failing: rules): Needs a person's approval: Ask a person before any agent raises a daily budget by more than 15%.",
      'FAIL wrong checks: expected denied (failing: permission), got denied (failing: permission, data): Denied: Lifecycle Writer is not permitted to pause a campaign (ads.pause_campaign); it is permitted contacts.tag_contacts, email.draft_campaign and email.send_campaign.',
      `FAIL: 1 passed, 2 failed, under the policy in force of workspace ${ws}; nothing was recorded.`,
    ])
    const j = await policyTest(casesFile({ cases }), '--json')
    expect(j.code).toBe(1)
    expect(j.stderr).toBe('')
    expect(JSON.parse(j.stdout)).toEqual({
      passed: 1,
      failed: 2,
      cases: [
        { name: 'right', expected: 'allowed', got: 'allowed', failing: [], ok: true },
        { name: 'wrong decision', expected: 'allowed', got: 'requires_approval', failing: ['rules'], ok: false },
        { name: 'wrong checks', expected: 'denied', got: 'denied', failing: ['permission', 'data'], ok: false },
      ],
    })
  }, T)

  test('a case is decided as the gateway decides the same request over HTTP, and records nothing of its own', async () => {
    const [pacer, writer] = demo.agents
    const asks = [
      { name: 'small raise', ...SMALL_RAISE, credential: pacer!.credential },
      { name: 'big raise', ...BIG_RAISE, credential: pacer!.credential },
      { name: 'raise without facts', agent: 'Budget Pacer', tool: 'ads', action: 'adjust_budget', facts: {}, credential: pacer!.credential },
      { name: 'over the ceiling', agent: 'Budget Pacer', tool: 'ads', action: 'adjust_budget', facts: { amountMinor: 90_000, currency: 'USD', amountPercent: 5 }, credential: pacer!.credential },
      { name: 'writer pauses', ...WRITER_PAUSES, facts: {}, credential: writer!.credential },
      { name: 'big send', agent: 'Lifecycle Writer', tool: 'email', action: 'send_campaign', facts: { recipients: 12_000 }, credential: writer!.credential },
      { name: 'small send', agent: 'Lifecycle Writer', tool: 'email', action: 'send_campaign', facts: { recipients: 40 }, credential: writer!.credential },
    ]
    const before = await recorded()
    const r = await policyTest(casesFile(asks.map(({ credential: _, ...c }) => ({ ...c, expect: 'allowed' }))), '--json')
    const tested = JSON.parse(r.stdout).cases as { name: string; got: string; failing: string[] }[]
    expect(new Set(tested.map((c) => c.got))).toEqual(new Set(['allowed', 'requires_approval', 'denied']))
    expect(await recorded()).toEqual(before)

    for (const [i, a] of asks.entries()) {
      const answer = await authorize(a.credential, { tool: a.tool, action: a.action, facts: a.facts })
      expect(answer.status).toBe(201)
      const live = answer.body.data as { decision: string; checks: { name: string; passed: boolean }[] }
      const failing = live.checks.filter((c) => !c.passed).map((c) => c.name)
      expect({ name: a.name, got: live.decision, failing }).toEqual({ name: a.name, got: tested[i]!.got, failing: tested[i]!.failing })
    }
    // The real requests were recorded; the tests before them were not.
    expect((await recorded()).requests).toBe(before.requests + asks.length)
  }, T)

  test('a case never uses an approval: a request a person approved still reads requires_approval, and the approval stays unused', async () => {
    const pacer = demo.agents[0]!
    const asked = await authorize(pacer.credential, { tool: 'ads', action: 'adjust_budget', facts: { amountPercent: 18, increase: true } })
    expect(asked.body.data.decision).toBe('requires_approval')
    const approvalId = asked.body.data.approvalId as string
    expect((await growth(['admin', 'approval', 'approve', approvalId])).code).toBe(0)
    const r = await policyTest(casesFile([{ name: 'approved once', ...BIG_RAISE, facts: { amountPercent: 18, increase: true }, expect: 'requires_approval', failing: ['rules'] }]))
    expect(r.code).toBe(0)
    expect(r.stdout).toStartWith('ok   approved once: requires_approval (failing: rules)\n')
    const [row] = await h.sql<{ status: string; used_at: Date | null }[]>`SELECT status, used_at FROM approvals WHERE workspace_id = ${ws} AND id = ${approvalId}`
    expect(row).toEqual({ status: 'approved', used_at: null })
  }, T)

  test('the stop switch: with the agents stopped every case is denied by agents_enabled', async () => {
    expect((await growth(['admin', 'agents', 'stop', '--workspace', ws, '--reason', 'policy test'])).code).toBe(0)
    try {
      const cases = [SMALL_RAISE, BIG_RAISE, WRITER_PAUSES].map((c, i) => ({ name: `case ${i}`, ...c, expect: 'denied' }))
      const r = await policyTest(casesFile(cases), '--json')
      expect(r.code).toBe(0)
      const out = JSON.parse(r.stdout)
      expect(out.passed).toBe(3)
      for (const c of out.cases) expect(c.failing[0]).toBe('agents_enabled')
    } finally {
      expect((await growth(['admin', 'agents', 'resume', '--workspace', ws])).code).toBe(0)
    }
  }, T)

  test('bad input is refused with exit 1, naming the case, line and field, and nothing is decided', async () => {
    const one = (c: Record<string, unknown>) => casesFile([{ name: 'the case', ...SMALL_RAISE, expect: 'allowed', ...c }])
    expectRefused(await policyTest(one({ agent: 'Nobody' })), /cases-\d+\.json line 1, column 29: case 1 "the case": no agent "Nobody" in workspace ws_\w+; its agents are Budget Pacer \(agt_\w+\), Lifecycle Writer/)
    expectRefused(await policyTest(one({ tool: 'fax' })), /cases-\d+\.json line 1, column 51: case 1 "the case": no tool "fax" in workspace ws_\w+; its tools are .*ads/)
    expectRefused(await policyTest(one({ action: 'burn_budget' })), /cases-\d+\.json line 1, column 66: case 1 "the case": the tool ads has no action "burn_budget"; its actions are .*adjust_budget/)
    // Every case the workspace cannot resolve is told, one line each, in the order of the file.
    const two = casesFile([{ name: 'first', ...SMALL_RAISE, agent: 'Nobody', expect: 'allowed' }, { name: 'second', ...SMALL_RAISE, action: 'burn_budget', expect: 'allowed' }])
    expectRefused(await policyTest(two), /^error: \S+cases-\d+\.json line 1, column \d+: case 1 "first": no agent "Nobody"[^\n]*\n\S+cases-\d+\.json line 1, column \d+: case 2 "second": the tool ads has no action "burn_budget"/)
    const nobody = casesFile('cases:\n  - name: who\n    agent: Nobody\n    tool: ads\n    action: pause_campaign\n    expect: denied\n')
    expectRefused(await policyTest(nobody), /cases-\d+\.yaml line 3, column 12: case 1 "who": no agent "Nobody"/)
    expectRefused(await policyTest(one({ facts: { amountPercent: 5, budget: 3 } })), /line 1, column 109: case 1 "the case": unknown fact budget; the facts are amountMinor, currency/)
    expectRefused(await policyTest(one({ failing: ['rules', 'mood'] })), /line 1, column 165: case 1 "the case": failing\[1\] names no check: "mood"; the checks are agents_enabled, tool/)
    expectRefused(await policyTest(one({ expect: 'maybe' })), /line 1, column 136: case 1 "the case": expect must be one of allowed, denied, requires_approval; got "maybe"/)
    const yaml = casesFile(`- name: first\n  agent: Budget Pacer\n  tool: ads\n  action: adjust_budget\n  expect: allowed\n- name: second\n  agent: Budget Pacer\n  tool: ads\n  actoin: adjust_budget\n  expect: allowed\n`)
    // Every error, each on its line: the misspelt field, and the field it meant that is missing.
    expectRefused(await policyTest(yaml), /^error: \S+cases-\d+\.yaml line 6, column 3: case 2 "second": action is missing\.\n\S+cases-\d+\.yaml line 9, column 3: case 2 "second": unknown field actoin \(did you mean action\?\);/)
    // expect misspelt: it is missing, with the values it takes, and the slip is named with a guess.
    const expected = casesFile(`- name: first\n  agent: Budget Pacer\n  tool: ads\n  action: adjust_budget\n  expected: allowed\n`)
    expectRefused(await policyTest(expected), /case 1 "first": expect is missing; it is one of allowed, denied, requires_approval\.\n\S+ line 5, column 3: case 1 "first": unknown field expected \(did you mean expect\?\); a case has/)
    expectRefused(await policyTest(casesFile('- name: [unclosed\n')), /line 2, column 1: not valid YAML or JSON/)
    // In { cases: [...] } too, the case is named, not the file: the list form is not what was meant.
    expectRefused(await policyTest(casesFile({ cases: [{ name: 'wrapped', ...SMALL_RAISE, expect: 'maybe' }] })), /line 1, column \d+: case 1 "wrapped": expect must be one of allowed/)
    expectRefused(await policyTest(casesFile('hello')), /line 1, column 1: the file must be a list of cases, or \{ cases: \[\.\.\.\] \}/)
    const twice = casesFile(`- name: same\n  agent: Budget Pacer\n  tool: ads\n  action: adjust_budget\n  expect: allowed\n- name: same\n  agent: Budget Pacer\n  tool: ads\n  action: adjust_budget\n  expect: allowed\n`)
    expectRefused(await policyTest(twice), /line 6, column 9: case 2 is named "same" like case 1; name each case once/)
    // Every mistake of the file at once, in its order, not one a run: names given twice, then agents, tools and actions.
    const thrice = casesFile([{ name: 'same', ...SMALL_RAISE, expect: 'allowed' }, { name: 'same', ...SMALL_RAISE, expect: 'allowed' }, { name: 'other', ...SMALL_RAISE, expect: 'allowed' }, { name: 'other', ...SMALL_RAISE, expect: 'allowed' }])
    expectRefused(await policyTest(thrice), /^error: \S+ line 1, column \d+: case 2 is named "same" like case 1; name each case once\.\n\S+ line 1, column \d+: case 4 is named "other" like case 3; name each case once\.\n$/)
    const several = casesFile([{ name: 'first', ...SMALL_RAISE, agent: 'Budget Pacr', expect: 'allowed' }, { name: 'second', ...SMALL_RAISE, action: 'adjust_budgt', expect: 'allowed' }, { name: 'third', ...SMALL_RAISE, agent: 'Nobody', tool: 'fax', expect: 'allowed' }])
    const told = await policyTest(several)
    expectRefused(told, /^error: \S+ line 1, column \d+: case 1 "first": no agent "Budget Pacr" in workspace/)
    const lines = told.stderr.trim().split('\n')
    expect(lines).toHaveLength(4)
    expect(lines[1]).toMatch(/case 2 "second": the tool ads has no action "adjust_budgt"; its actions are .*adjust_budget/)
    expect(lines[2]).toMatch(/case 3 "third": no agent "Nobody"/)
    expect(lines[3]).toMatch(/case 3 "third": no tool "fax"/)
    expectRefused(await policyTest(casesFile(`# ${'x'.repeat(1024 * 1024)}\n`)), /cases-\d+\.yaml line 1, column 1: the cases file is too large: 1048579 bytes, at most 1048576 \(1 MiB\)/)
    expectRefused(await policyTest(casesFile([])), /holds no cases/)
    expectRefused(await policyTest(join(dir, 'missing.yaml')), /--cases .*missing\.yaml: cannot read it \(ENOENT\)/)
    expectRefused(await growth(['admin', 'policy', 'test', '--workspace', ws, join(dir, 'no-policy.yaml'), '--cases', one({})]), /no-policy\.yaml: cannot read it \(ENOENT\)/)
    const json = refusalJson(await growth(['admin', 'policy', 'test', '--workspace', 'ws_nope', '--cases', one({}), '--json']))
    expect(json).toMatchObject({ code: 'not_found', message: expect.stringContaining('ws_nope') })
  }, T)
})

describe('growth admin policy test FILE', () => {
  const BIG_RAISE_CASE = { name: 'a raise of 17%', ...BIG_RAISE }

  test('decides the cases under the document, not the policy in force, and records nothing', async () => {
    const exported = await growth(['admin', 'policy', 'export', '--workspace', ws])
    expect(exported.code).toBe(0)
    // The owner's edit: a raise needs a person only above 20%, no longer above 15%.
    expect(exported.stdout).toContain('{ fact: amountPercent, op: ">", value: 15 }')
    const policy = join(dir, 'raised.yaml')
    writeFileSync(policy, exported.stdout.replace('{ fact: amountPercent, op: ">", value: 15 }', '{ fact: amountPercent, op: ">", value: 20 }'))
    const before = await recorded()
    const underFile = await growth(['admin', 'policy', 'test', '--workspace', ws, policy, '--cases', casesFile([{ ...BIG_RAISE_CASE, expect: 'allowed' }])])
    expect({ code: underFile.code, stderr: underFile.stderr }).toEqual({ code: 0, stderr: '' })
    expect(underFile.stdout).toContain(`ok: 1 passed, 0 failed, under ${policy}, with the limits and stop switch of workspace ${ws}; nothing was recorded.`)
    // The policy in force still asks a person: the file was tested, not applied.
    const inForce = await growth(['admin', 'policy', 'test', '--workspace', ws, '--cases', casesFile([{ ...BIG_RAISE_CASE, expect: 'allowed' }])])
    expect(inForce.code).toBe(1)
    expect(inForce.stdout).toContain('FAIL a raise of 17%: expected allowed, got requires_approval (failing: rules)')
    expect(await recorded()).toEqual(before)
  }, 3 * T)

  test('a document that plan would refuse is refused the same way, naming its line and field', async () => {
    const exported = await growth(['admin', 'policy', 'export', '--workspace', ws])
    const policy = join(dir, 'unknown-agent.yaml')
    writeFileSync(policy, exported.stdout.replace('agent: Budget Pacer', 'agent: Budget Pacr'))
    expectRefused(
      await growth(['admin', 'policy', 'test', '--workspace', ws, policy, '--cases', casesFile([{ ...BIG_RAISE_CASE, expect: 'allowed' }])]),
      /unknown-agent\.yaml line \d+, column \d+: agents\[\d+\]\.agent: no agent Budget Pacr in this workspace/,
    )
  }, 2 * T)
})
