import { beforeAll, describe, expect, test } from 'bun:test'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { authorize, decisionOf } from '../agent-helpers.ts'
import { call, getHarness } from '../harness.ts'
import { CLI_TIMEOUT, expectRefused, growthIn, jsonOf, type Run } from './run.ts'

/**
 * `growth admin policy plan` and `apply`, run as an operator runs them, on the test server's
 * database: a blank workspace governed through a policy file, what the server answers on its very
 * next call (it kept views from before the apply: they must not outlive it), a stale plan refused,
 * export -> plan -> apply changing nothing, each kind of bad input refused naming line and field,
 * and the record and event of an apply.
 */
const T = CLI_TIMEOUT
const LOGIN = execFileSync('id', ['-un'], { encoding: 'utf8' }).trim()
const files = mkdtempSync(join(tmpdir(), 'growth-policy-apply-'))
let growth: (args: string[]) => Promise<Run>

beforeAll(async () => {
  const h = await getHarness()
  growth = (args) => growthIn(h.dataDir)(args)
}, T)

let fileNo = 0
/** The text in a file of its own; its path. */
function file(text: string): string {
  const path = join(files, `policy-${++fileNo}.yaml`)
  writeFileSync(path, text)
  return path
}

/** A blank workspace made as an owner makes one, with a live token and one agent. */
async function blankWorkspace() {
  const ws = jsonOf(await growth(['admin', 'workspace', 'create', '--name', 'Governed', '--json']), 'admin workspace create')
  const token = jsonOf(await growth(['admin', 'token', 'create', '--workspace', ws.id, '--json']), 'admin token create').token as string
  const agent = jsonOf(await growth(['admin', 'agent', 'create', '--workspace', ws.id, '--name', 'Triage Bot', '--allow', 'ads.pause_campaign', '--json']), 'admin agent create')
  return { id: ws.id as string, token, agent: { id: agent.id as string, credential: agent.credential as string } }
}

const exported = async (ws: string) => {
  const r = await growth(['admin', 'policy', 'export', '--workspace', ws])
  expect(r.code).toBe(0)
  return r.stdout
}
const plan = async (ws: string, path: string) => jsonOf(await growth(['admin', 'policy', 'plan', '--workspace', ws, path, '--json']), 'admin policy plan')
const apply = (ws: string, path: string, planId: string, json = true) => growth(['admin', 'policy', 'apply', '--workspace', ws, path, '--plan', planId, ...(json ? ['--json'] : [])])
const get = async (token: string, path: string) => {
  const r = await call('GET', `/api/v1${path}`, { token })
  expect(r.status).toBe(200)
  return r.body.data
}

const GITHUB = `  - key: github
    name: GitHub
    description: Issues and pull requests of the connected repositories.
    actions:
      - { key: create_issue, name: Open an issue, risk: low, dataUsed: [ repositories ], reversible: true }
`

/** The exported policy with GitHub added, Triage Bot allowed to open issues, a per-agent rule, a count rule and a rule for every agent. */
function governed(text: string): string {
  return text
    .replace(/^tools:\n/m, `tools:\n${GITHUB}`)
    .replace(/allow: \[ ads\.pause_campaign \]/, 'allow: [ ads.pause_campaign, github.create_issue ]')
    .replace(
      /^rules: \[\]\n?$/m,
      `rules:
  - effect: deny
    match: [ { tool: github, action: create_issue } ]
    agents: [ Triage Bot ]
    when: [ { fact: records, op: '>', value: 100 } ]
  - effect: require_approval
    match: [ { tool: github, action: create_issue } ]
    when: [ { count: allowed, window: 24h, op: '>=', value: 20 } ]
  - effect: deny
    match: [ { tool: github } ]
    when: [ { fact: records, op: '>', value: 1000 } ]
`,
    )
}

describe('growth admin policy plan and apply', () => {
  test('a blank workspace gets a tool, an agent permitted on it, a per-agent rule and a count rule; the server decides by them on its next call', async () => {
    const ws = await blankWorkspace()
    const ask = { tool: 'github', action: 'create_issue', summary: 'Open an issue for the failing build', facts: { records: 500 } }
    // Asked before: no such tool (and the server keeps what it read for the agent's next ask).
    expect(decisionOf(await authorize(ws.agent.credential, ask))).toBe('denied')
    const before = (await get(ws.token, '/agents/rules')).length
    expect(before).toBe(0)

    const path = file(governed(await exported(ws.id)))
    const planned = await plan(ws.id, path)
    expect(planned.planId).toMatch(/^plan_[0-9a-f]{64}$/)
    expect(planned.rulesVersion.to).toBe(planned.rulesVersion.from + 1)
    expect(planned.changes).toEqual([
      { kind: 'tool', op: 'add', key: 'github', sentence: 'Adds the tool GitHub (github) with 1 action.' },
      { kind: 'action', op: 'add', key: 'github.create_issue', sentence: 'Adds the action Open an issue (github.create_issue) to GitHub: risk low, uses repositories, reversible.' },
      { kind: 'agent', op: 'add', key: ws.agent.id, sentence: 'Triage Bot may now open an issue (github.create_issue).' },
      { kind: 'agent', op: 'change', key: ws.agent.id, sentence: "Triage Bot's data access: campaigns -> campaigns, repositories." },
      { kind: 'rule', op: 'add', key: 'rules[0]', sentence: expect.stringMatching(/^Adds the rule: Triage Bot may not .* affecting more than 100 records\.$/) },
      { kind: 'rule', op: 'add', key: 'rules[1]', sentence: expect.stringMatching(/^Adds the rule: Ask a person before any agent .* at least 20 times in the last 24 hours\.$/) },
      { kind: 'rule', op: 'add', key: 'rules[2]', sentence: 'Adds the rule: No agent may use GitHub affecting more than 1,000 records.' },
    ])
    expect(planned.backtest).toMatchObject({ requests: expect.any(Number), changed: expect.any(Array) })

    // The human plan: each change as a line, the backtest, and the command that applies it.
    const human = await growth(['admin', 'policy', 'plan', '--workspace', ws.id, path])
    expect(human.code).toBe(0)
    expect(human.stdout).toContain('  + Adds the tool GitHub (github) with 1 action.\n')
    expect(human.stdout).toMatch(/^Backtest since /m)
    expect(human.stdout).toContain(`To apply: growth admin policy apply --workspace ${ws.id} ${path} --plan ${planned.planId}\n`)

    const applied = jsonOf(await apply(ws.id, path, planned.planId), 'admin policy apply')
    expect(applied.rulesVersion).toBe(planned.rulesVersion.to)
    const ruleIds = applied.changes.filter((c: any) => c.kind === 'rule').map((c: any) => c.key)
    expect(ruleIds).toEqual([expect.stringMatching(/^rule_/), expect.stringMatching(/^rule_/), expect.stringMatching(/^rule_/)])
    expect(applied.changes.map((c: any) => c.sentence)).toEqual(planned.changes.map((c: any) => c.sentence))

    // The very next calls: the tool, the rules, the agent's permission, and a decision by the per-agent rule.
    const tools = await get(ws.token, '/agents/tools')
    expect(tools.find((t: any) => t.key === 'github')).toMatchObject({ name: 'GitHub', actions: [{ key: 'create_issue', risk: 'low', dataUsed: ['repositories'] }] })
    const rules = await get(ws.token, '/agents/rules')
    expect(rules.map((r: any) => r.id)).toEqual(ruleIds)
    expect(rules[0]).toMatchObject({ structure: { agents: [ws.agent.id] }, sentence: expect.stringMatching(/^Triage Bot may not /) })
    expect(rules[1].structure.when).toEqual([{ count: 'allowed', window: '24h', op: '>=', value: 20 }])
    const agents = await get(ws.token, '/agents')
    expect(agents.find((a: any) => a.id === ws.agent.id).permissions.map((p: any) => `${p.tool}.${p.action}`)).toEqual(['ads.pause_campaign', 'github.create_issue'])
    const me = await get(ws.agent.credential, '/agent/me')
    expect(me.permissions.find((p: any) => p.action === 'create_issue')?.sentence).toBe('Triage Bot may open an issue (github.create_issue).')
    // The per-agent rule bites Triage Bot at 500 records (the server kept a view from before the apply); a rule for every agent at 5,000.
    const byAgentRule = await authorize(ws.agent.credential, ask)
    expect(decisionOf(byAgentRule)).toBe('denied')
    expect(byAgentRule.body.data.rules.map((r: any) => r.id)).toEqual([ruleIds[0]])
    const denied = await authorize(ws.agent.credential, { ...ask, facts: { records: 5000 } })
    expect(decisionOf(denied)).toBe('denied')
    expect(denied.body.data.checks.find((c: any) => c.name === 'rules')?.passed).toBe(false)
    expect(decisionOf(await authorize(ws.agent.credential, { ...ask, facts: { records: 5 } }))).toBe('allowed')
  }, 4 * T)

  test('plan over a recorded history lists exactly the requests whose decision would change, with the counts', async () => {
    const ws = await blankWorkspace()
    const asked: string[] = []
    for (const records of [5, 50, 500]) {
      const r = await authorize(ws.agent.credential, { tool: 'ads', action: 'pause_campaign', summary: `pause ${records}`, facts: { records } })
      expect(decisionOf(r)).toBe('allowed')
      asked.push(r.body.data.authorizationId)
    }
    // A rule that would ask a person above 40 records: the two larger pauses change, the first does not.
    const path = file(
      (await exported(ws.id)).replace(/^rules: \[\]\n?$/m, "rules:\n  - effect: require_approval\n    match: [ { tool: ads, action: pause_campaign } ]\n    when: [ { fact: records, op: '>', value: 40 } ]\n"),
    )
    const planned = await plan(ws.id, path)
    expect(planned.backtest.requests).toBe(3)
    expect(planned.backtest.changed.map((c: any) => [c.authorizationId, c.before, c.after])).toEqual([
      [asked[1], 'allowed', 'requires_approval'],
      [asked[2], 'allowed', 'requires_approval'],
    ])
    expect(planned.backtest.changed[0].sentence).toMatch(/^Triage Bot's request to pause a campaign .* would need a person instead of being allowed\.$/)
    expect(planned.backtest.byAgent['Triage Bot']).toMatchObject({ requests: 3, changed: 2, 'allowed->requires_approval': 2 })
    expect(planned.backtest.byToolAction['ads.pause_campaign']).toMatchObject({ requests: 3, changed: 2 })
    const human = await growth(['admin', 'policy', 'plan', '--workspace', ws.id, path])
    expect(human.stdout).toMatch(/^Backtest since .*: 3 recorded requests decided again, 2 would be decided otherwise\.$/m)
  }, 3 * T)

  test('a plan made stale by another apply is refused and changes nothing; export then plan and apply of the same file changes nothing', async () => {
    const ws = await blankWorkspace()
    const first = file(governed(await exported(ws.id)))
    const stale = await plan(ws.id, first)
    // Someone else applies another policy first (the same agent, a stricter ceiling).
    const other = file(governed(await exported(ws.id)).replace('allow: [ ads.pause_campaign, github.create_issue ]', "allow: [ ads.pause_campaign, github.create_issue ], ceilings: { records: 10 }"))
    const theirs = await plan(ws.id, other)
    expect(jsonOf(await apply(ws.id, other, theirs.planId), 'admin policy apply').rulesVersion).toBe(theirs.rulesVersion.to)
    const rulesBefore = await get(ws.token, '/agents/rules')

    expectRefused(await apply(ws.id, first, stale.planId, false), /^error: the policy changed since this plan .*Nothing was applied/)
    expect(await get(ws.token, '/agents/rules')).toEqual(rulesBefore)
    const me = await get(ws.agent.credential, '/agent/me')
    expect(me.ceilings.records).toBe(10)

    // What is in force, exported, planned and applied: no change, no new rules version, no event.
    const same = file(await exported(ws.id))
    const none = await plan(ws.id, same)
    expect(none.changes).toEqual([])
    expect(none.rulesVersion).toEqual({ from: theirs.rulesVersion.to, to: theirs.rulesVersion.to })
    const human = await growth(['admin', 'policy', 'plan', '--workspace', ws.id, same])
    expect(human.stdout).toStartWith(`No changes: ${same} is the policy in force`)
    const eventsBefore = (await get(ws.token, '/events?type=agent.policy.changed&limit=100')).length
    expect(jsonOf(await apply(ws.id, same, none.planId), 'admin policy apply')).toEqual({ rulesVersion: theirs.rulesVersion.to, changes: [] })
    expect((await get(ws.token, '/events?type=agent.policy.changed&limit=100')).length).toBe(eventsBefore)
  }, 6 * T)

  test('the same file planned again after its apply: each rule written without its id is told as replacing the rule in force that says the same, with the id that keeps it', async () => {
    const ws = await blankWorkspace()
    const path = file(governed(await exported(ws.id)))
    const first = await plan(ws.id, path)
    const ruleIds = jsonOf(await apply(ws.id, path, first.planId), 'admin policy apply').changes.filter((c: any) => c.kind === 'rule').map((c: any) => c.key)
    expect(ruleIds).toHaveLength(3)

    // The file kept as written (no ids): by the contract its rules are new ones, replacing those in force.
    const again = await plan(ws.id, path)
    expect(again.changes.map((c: any) => `${c.op} ${c.key}`)).toEqual([...ruleIds.map((id: string) => `remove ${id}`), 'add rules[0]', 'add rules[1]', 'add rules[2]'])
    const human = await growth(['admin', 'policy', 'plan', '--workspace', ws.id, path])
    expect(human.code).toBe(0)
    ruleIds.forEach((id: string, i: number) => {
      expect(human.stdout).toContain(
        `Note: rules[${i}] says what ${id} in force says but is written without its id, so it replaces that rule with a new one (past decisions keep naming ${id}). ` +
          `To keep the rule as it is, give it "id: ${id}" (growth admin policy export prints the rules with their ids).\n`,
      )
    })
    // --json stays the contract's shape; a rule that says something new gets no note.
    expect(Object.keys(again).sort()).toEqual(['backtest', 'changes', 'planId', 'rulesVersion'])
    const changed = file((await exported(ws.id)).replace("value: 20 }", "value: 30 }"))
    const other = await growth(['admin', 'policy', 'plan', '--workspace', ws.id, changed])
    expect(other.stdout).toContain('  + Adds the rule: Ask a person before any agent uses github.create_issue (open an issue) when it has already been allowed to do so at least 30 times')
    expect(other.stdout).not.toContain('Note:')
  }, 4 * T)

  test("a retired agent is left out of the export and its name goes to the active agent of that name; the export applies as no change", async () => {
    const ws = await blankWorkspace()
    const create = async (allow: string) => jsonOf(await growth(['admin', 'agent', 'create', '--workspace', ws.id, '--name', 'Pacer', '--allow', allow, '--json']), 'admin agent create')
    const old = await create('ads.pause_campaign')
    // A rule for the first Pacer, by its name (the only Pacer then).
    const withRule = file((await exported(ws.id)).replace(/^rules: \[\]\n?$/m, `rules:
  - effect: require_approval
    match: [ { tool: ads, action: pause_campaign } ]
    agents: [ Pacer ]
`))
    const first = await plan(ws.id, withRule)
    expect((await apply(ws.id, withRule, first.planId)).code).toBe(0)
    expect(jsonOf(await growth(['admin', 'agent', 'retire', old.id, '--workspace', ws.id, '--json']), 'agent retire').retired).toBe(true)
    const fresh = await create('ads.read_performance')

    const policy = jsonOf(await growth(['admin', 'policy', 'export', '--workspace', ws.id, '--json']), 'admin policy export')
    // The active agents by name (the new Pacer's name is its own now), the retired one left out; its rule names it by id.
    expect(policy.agents.map((a: { agent: string; allow: string[] }) => [a.agent, a.allow])).toEqual([
      ['Triage Bot', ['ads.pause_campaign']],
      ['Pacer', ['ads.read_performance']],
    ])
    expect(policy.rules.map((r: { agents?: string[] }) => r.agents)).toEqual([[old.id]])
    // `policy test` names agents the same way: Pacer is the active one.
    const cases = file(`- name: the new Pacer reads performance\n  agent: Pacer\n  tool: ads\n  action: read_performance\n  expect: allowed\n`)
    const tested = await growth(['admin', 'policy', 'test', '--workspace', ws.id, '--cases', cases])
    expect({ code: tested.code, stderr: tested.stderr }).toEqual({ code: 0, stderr: '' })
    const same = file(await exported(ws.id))
    const none = await plan(ws.id, same)
    expect(none.changes).toEqual([])
    expect(jsonOf(await apply(ws.id, same, none.planId), 'admin policy apply').changes).toEqual([])

    // A rule naming Pacer now means the active one; the retired one is still named by its id.
    const named = file((await exported(ws.id)).replace(/agents: \[ agt_[0-9a-z]+ \]/, 'agents: [ Pacer ]'))
    const planned = await plan(ws.id, named)
    expect(JSON.stringify(planned.changes)).toContain('Pacer')
    expect((await apply(ws.id, named, planned.planId)).code).toBe(0)
    const after = jsonOf(await growth(['admin', 'policy', 'export', '--workspace', ws.id, '--json']), 'admin policy export')
    expect(after.rules.map((r: { agents?: string[] }) => r.agents)).toEqual([['Pacer']])
    const { sql } = await getHarness()
    const [rule] = await sql<{ structure: { agents?: string[] } }[]>`SELECT structure FROM rules WHERE workspace_id = ${ws.id} AND id = ${after.rules[0].id}`
    expect(rule!.structure.agents).toEqual([fresh.id])
  }, 8 * T)

  test('an applied policy is recorded with who applied it and announced as agent.policy.changed with the rules version and the sentences', async () => {
    const ws = await blankWorkspace()
    const path = file(governed(await exported(ws.id)))
    const planned = await plan(ws.id, path)
    const applied = jsonOf(await growth(['admin', 'policy', 'apply', '--workspace', ws.id, path, '--plan', planned.planId, '--by', 'for Kenji', '--json']), 'admin policy apply')
    const events = await get(ws.token, '/events?type=agent.policy.changed&limit=100')
    expect(events).toHaveLength(1)
    expect(events[0].data).toEqual({ rulesVersion: applied.rulesVersion, changes: applied.changes })
    const { sql } = await getHarness()
    const rows = await sql`SELECT id, rules_version, applied_by, changes FROM policy_changes WHERE workspace_id = ${ws.id}`
    expect([...rows]).toEqual([
      { id: expect.stringMatching(/^pch_/), rules_version: applied.rulesVersion, applied_by: { kind: 'operator', name: LOGIN, note: 'for Kenji' }, changes: applied.changes },
    ])
    // growth admin policy history reads the record back: as JSON, and as lines a person reads.
    const history = jsonOf(await growth(['admin', 'policy', 'history', '--workspace', ws.id, '--json']), 'admin policy history')
    expect(history.applied).toEqual([
      { id: rows[0]!.id, rulesVersion: applied.rulesVersion, appliedBy: { kind: 'operator', name: LOGIN, note: 'for Kenji' }, appliedAt: expect.stringMatching(/^\d{4}-/), changes: applied.changes },
    ])
    const human = await growth(['admin', 'policy', 'history', '--workspace', ws.id])
    expect(human.code).toBe(0)
    expect(human.stdout).toContain(`rules version ${applied.rulesVersion}  by ${LOGIN} (operator; note: for Kenji)  ${rows[0]!.id}\n`)
    expect(human.stdout).toContain('  + Adds the tool GitHub (github) with 1 action.\n')
    expectRefused(await growth(['admin', 'policy', 'history', '--workspace', ws.id, '--limit', '0']), /--limit must be a whole number from 1 to 1000 \(got 0\)/)
  }, 3 * T)

  test('retiring a tool removes it, its actions and the permissions to them; past decisions stay readable', async () => {
    const ws = await blankWorkspace()
    const add = file(governed(await exported(ws.id)))
    expect((await apply(ws.id, add, (await plan(ws.id, add)).planId)).code).toBe(0)
    const asked = await authorize(ws.agent.credential, { tool: 'github', action: 'create_issue', summary: 'An issue', facts: { records: 1 } })
    expect(decisionOf(asked)).toBe('allowed')
    // Without GitHub, without the rules that name it, and without the permission to it.
    const text = (await exported(ws.id)).replace(GITHUB, '').replace(/^rules:\n[\s\S]*$/m, 'rules: []\n').replace(', github.create_issue', '').replace(', repositories', '')
    const retire = file(text)
    const planned = await plan(ws.id, retire)
    expect(planned.changes.map((c: any) => [c.kind, c.op, c.key])).toEqual([
      ['tool', 'remove', 'github'],
      ['agent', 'remove', ws.agent.id],
      ['agent', 'change', ws.agent.id],
      ['rule', 'remove', expect.stringMatching(/^rule_/)],
      ['rule', 'remove', expect.stringMatching(/^rule_/)],
      ['rule', 'remove', expect.stringMatching(/^rule_/)],
    ])
    expect(planned.changes[0].sentence).toBe('Retires the tool GitHub (github) and its 1 action; its past decisions stay readable.')
    expect(planned.changes[1].sentence).toBe('Triage Bot may no longer open an issue (github.create_issue).')
    expect((await apply(ws.id, retire, planned.planId)).code).toBe(0)
    expect((await get(ws.token, '/agents/tools')).map((t: any) => t.key)).not.toContain('github')
    expect(await get(ws.token, '/agents/rules')).toEqual([])
    expect((await get(ws.agent.credential, '/agent/me')).permissions.map((p: any) => p.action)).toEqual(['pause_campaign'])
    expect(decisionOf(await authorize(ws.agent.credential, { tool: 'github', action: 'create_issue', summary: 'Another' }))).toBe('denied')
    const past = (await get(ws.token, '/agents/requests')).find((r: any) => r.authorizationId === asked.body.data.authorizationId)
    expect(past).toMatchObject({ tool: 'github', action: 'create_issue', decision: 'allowed' })
  }, 6 * T)
})

describe('growth admin policy plan and apply refuse bad input, naming line and field, and apply nothing', () => {
  let ws: Awaited<ReturnType<typeof blankWorkspace>>
  let base: string
  beforeAll(async () => {
    ws = await blankWorkspace()
    base = governed(await exported(ws.id))
  }, 2 * T)

  /** Plan and apply of `text` both refused with `message`; the workspace keeps its rules version. */
  async function refused(text: string, message: RegExp) {
    const path = file(text)
    const r = await growth(['admin', 'policy', 'plan', '--workspace', ws.id, path])
    expectRefused(r, message)
    expect(r.stderr).toMatch(new RegExp(`^error: ${path.replaceAll('.', '\\.')} line \\d+, column \\d+: `))
    const zeros = `plan_${'0'.repeat(64)}`
    expectRefused(await apply(ws.id, path, zeros, false), message)
    expect(await get(ws.token, '/agents/rules')).toEqual([])
  }

  const cases: [string, (s: string) => string, RegExp][] = [
    ['an unknown agent', (s) => s.replace('agents: [ Triage Bot ]', 'agents: [ Nobody ]'), /line \d+, column \d+: rules\[0\]\.agents\[0\]: no agent Nobody in this workspace; its agents: Triage Bot \(agt_/],
    ['an unknown tool in allow', (s) => s.replace('github.create_issue ]', 'gitlab.create_issue ]'), /agents\[0\]\.allow\[1\]: unknown tool gitlab; the document's tools: /],
    ['an unknown action in a match', (s) => s.replace('{ tool: github, action: create_issue } ]\n    agents', '{ tool: github, action: close_issue } ]\n    agents'), /rules\[0\]\.match\[0\]\.action: unknown action close_issue of tool github; its actions: create_issue/],
    ['unknown data', (s) => s.replace('allow: [ ads.pause_campaign, github.create_issue ]', 'allow: [ ads.pause_campaign, github.create_issue ], dataAccess: [ campaigns, wikis ]'), /agents\[0\]\.dataAccess\[1\]: unknown data wikis: no action of the document uses it/],
    ['an unknown fact', (s) => s.replace('fact: records', 'fact: stars'), /rules\[0\]\.when\[0\]/],
    ['a misspelt field, answered with the one meant and the fields of its place', (s) => s.replace('allow: [ ads.pause_campaign, github.create_issue ]', 'allow: [ ads.pause_campaign, github.create_issue ], maxUnatendedRisk: low'), /line \d+, column \d+: agents\[0\]\.maxUnatendedRisk: unknown field, did you mean maxUnattendedRisk\? \(fields here: agent, allow, dataAccess, maxUnattendedRisk, ceilings\)/],
    ['a misspelt field of a condition, answered with the fields of its kind', (s) => s.replace("when: [ { fact: records, op: '>', value: 100 } ]", "when: [ { fact: records, op: '>', vaule: 100 } ]"), /rules\[0\]\.when\[0\]\.vaule: unknown field, did you mean value\? \(fields here: fact, op, value\)/],
    ['a misspelt field of a count condition, answered as a count condition', (s) => s.replace("{ count: allowed, window: 24h, op: '>=', value: 20 }", "{ count: allowed, windw: 24h, op: '>=', value: 20 }"), /rules\[1\]\.when\[0\]\.window: is required\n.*rules\[1\]\.when\[0\]\.windw: unknown field, did you mean window\? \(fields here: count, window, op, value\)/],
    ['a field no place has', (s) => s.replace('  - effect: deny\n', '  - effect: deny\n    colour: blue\n'), /rules\[0\]\.colour: unknown field \(fields here: id, effect, match, agents, when\)/],
    ['an unknown currency', (s) => s.replace('allow: [ ads.pause_campaign, github.create_issue ]', 'allow: [ ads.pause_campaign, github.create_issue ], ceilings: { amountMinor: { XYZ: 5 } }'), /agents\[0\]\.ceilings\.amountMinor/],
    ['a rule that can never match', (s) => s.replace("when: [ { fact: records, op: '>', value: 100 } ]", "when: [ { fact: records, op: '>', value: 100 }, { fact: records, op: '<', value: 10 } ]"), /rules\[0\]\.when\[1\]: the rule can never match: records > 100 and records < 10 cannot all hold/],
    ['a count at least zero, which always holds', (s) => s.replace("op: '>=', value: 20", "op: '>=', value: 0"), /rules\[1\]\.when\[0\]: count in 24h >= 0 always holds \(a count is never below 0\), so it limits nothing: leave the condition out/],
    ['a count below zero', (s) => s.replace("op: '>=', value: 20", "op: '<', value: 0"), /rules\[1\]\.when\[0\]: the rule can never match: count in 24h < 0 never holds/],
    ['an amount in one currency and currency another', (s) => s.replace("when: [ { fact: records, op: '>', value: 100 } ]", "when: [ { fact: currency, op: '=', value: USD }, { fact: amountMinor, op: '>', value: 5, currency: EUR } ]"), /rules\[0\]\.when\[1\]: the rule can never match: currency = USD and amountMinor > 5 EUR cannot both hold/],
    ['two rules that contradict', (s) => `${s}  - effect: require_approval\n    match: [ { tool: github, action: create_issue } ]\n    agents: [ Triage Bot ]\n    when: [ { fact: records, op: '>', value: 100 } ]\n`, /rules\[3\]: contradicts the rule at line \d+ \(rules\[0\]\): the same match, agents and conditions, but one denies/],
    ['one rule twice', (s) => `${s}  - effect: deny\n    match: [ { tool: github, action: create_issue } ]\n    agents: [ Triage Bot ]\n    when: [ { fact: records, op: '>', value: 100 } ]\n`, /rules\[3\]: the same rule as the rule at line \d+ \(rules\[0\]\)/],
    ['a rule id not of this workspace', (s) => s.replace('  - effect: deny\n', '  - id: rule_01notours\n    effect: deny\n'), /rules\[0\]\.id: rule_01notours is not a rule in force in this workspace/],
    ['a field indented one space short, with what to check', (s) => s.replace('    agents: [ Triage Bot ]\n', '   agents: [ Triage Bot ]\n'), /line \d+, column 1: not valid YAML or JSON: [^\n]+ \(check the indentation of this line: the fields of one mapping start in the same column/],
    ['no space after a colon, with how a field is written', (s) => s.replace('  - effect: deny\n    match', '  - effect:deny\n    match'), /not valid YAML or JSON: [^\n]+ \(a field is written key: value, with a space after the colon\)/],
    ['a file too large', (s) => `${s}# ${'x'.repeat(1024 * 1024)}\n`, /line 1, column 1: the policy is too large/],
  ]
  for (const [what, edit, message] of cases) {
    test(what, async () => refused(edit(base), message), 3 * T)
  }

  test('a plan id that is not one, and a file that cannot be read', async () => {
    const path = file(base)
    expectRefused(await apply(ws.id, path, 'nonsense', false), /^error: --plan must be a plan id/)
    expectRefused(await growth(['admin', 'policy', 'plan', '--workspace', ws.id, join(files, 'missing.yaml')]), /missing\.yaml: cannot read it \(ENOENT\)/)
    expectRefused(await growth(['admin', 'policy', 'plan', '--workspace', ws.id, path, '--since', '7 days']), /since must be a duration such as 30m, 24h or 7d/)
  }, 3 * T)
})
