import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parsePolicy } from '../../server/src/domain/agent-policy-document.ts'
import { documentErrorLine } from '../../server/src/domain/document-text.ts'
import { catalogueTools } from '../../server/src/domain/agent-tools.ts'
import { createDemoWorkspace } from '../../server/src/demo/index.ts'
import { openDatabase, type Database } from '../../server/src/store/driver/db.ts'
import { migrate } from '../../server/src/store/driver/migrate.ts'
import { CLI_TIMEOUT, expectRefused, growthIn, jsonOf } from './run.ts'

/**
 * `growth admin policy export`, spawned as an operator runs it: the policy in force as the agent
 * policy document, in YAML or JSON, which the policy parser reads back to the same value. This
 * process holds the database (DATABASE_URL, or an embedded one) to seed the demo and read its rules.
 */

const dataDir = mkdtempSync(join(tmpdir(), 'growth-cli-policy-'))
const T = CLI_TIMEOUT
const growth = growthIn(dataDir)
let db: Database
let demoId: string

const exportJson = async (workspaceId: string) => jsonOf(await growth(['admin', 'policy', 'export', '--workspace', workspaceId, '--json']), 'admin policy export')

/** The YAML export, read back by the policy parser; it must parse. */
async function exportYaml(workspaceId: string) {
  const r = await growth(['admin', 'policy', 'export', '--workspace', workspaceId])
  expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' })
  const parsed = parsePolicy(r.stdout)
  if (!parsed.ok) throw new Error(`the exported policy does not parse:\n${parsed.errors.map(documentErrorLine).join('\n')}\n${r.stdout}`)
  return { text: r.stdout, policy: parsed.policy }
}

beforeAll(async () => {
  db = await openDatabase({ databaseUrl: process.env.DATABASE_URL, dataDir })
  await migrate(db.sql)
  demoId = (await createDemoWorkspace(db.sql)).workspace.id
}, T)

afterAll(async () => {
  await db?.close()
  rmSync(dataDir, { recursive: true, force: true })
})

describe('growth admin policy export', () => {
  test('a new workspace exports the standard catalogue, no agents, no rules, and missing facts sent to a person (the default)', async () => {
    const ws = jsonOf(await growth(['admin', 'workspace', 'create', '--name', 'Blank', '--json']), 'admin workspace create')
    const policy = await exportJson(ws.id)
    // Tools and actions made at one moment come in key order.
    const byKey = <T extends { key: string }>(xs: T[]) => [...xs].sort((x, y) => x.key.localeCompare(y.key))
    const catalogue = byKey(catalogueTools()).map((t) => ({ ...t, actions: byKey(t.actions) }))
    expect(policy).toEqual({ tools: catalogue, agents: [], missingFacts: 'require_approval', rules: [] })
    const yaml = await exportYaml(ws.id)
    expect(yaml.policy).toEqual(policy)
    expect(yaml.text).toContain('      - { key: pause_campaign, name: Pause a campaign, risk: low, dataUsed: [ campaigns ], reversible: true }\n')
    // The workspace's own setting, whatever it is.
    await db.sql`UPDATE workspaces SET missing_facts = 'ignore' WHERE workspace_id = ${ws.id}`
    expect((await exportJson(ws.id)).missingFacts).toBe('ignore')
  }, T)

  test("an agent's data access is written only where it is not the data its allowed actions use (written out, it would not follow an action added to allow)", async () => {
    const ws = jsonOf(await growth(['admin', 'workspace', 'create', '--name', 'Data', '--json']), 'admin workspace create')
    const agent = jsonOf(await growth(['admin', 'agent', 'create', '--workspace', ws.id, '--name', 'Triage Bot', '--allow', 'ads.pause_campaign', '--json']), 'admin agent create')
    expect((await exportJson(ws.id)).agents).toEqual([{ agent: 'Triage Bot', allow: ['ads.pause_campaign'], maxUnattendedRisk: 'medium' }])
    expect((await exportYaml(ws.id)).text).toContain('  - { agent: Triage Bot, allow: [ ads.pause_campaign ], maxUnattendedRisk: medium }\n')
    // Narrowed below the default (as a document with dataAccess: [] leaves it), it is written out.
    await db.sql`UPDATE agents SET data_access = '{}'::text[] WHERE workspace_id = ${ws.id} AND id = ${agent.id}`
    expect((await exportJson(ws.id)).agents).toEqual([{ agent: 'Triage Bot', allow: ['ads.pause_campaign'], dataAccess: [], maxUnattendedRisk: 'medium' }])
  }, 3 * T)

  test("the demo workspace exports its agents by name, their permissions and ceilings, and its rules with their ids; YAML and JSON round-trip", async () => {
    const policy = await exportJson(demoId)
    const { policy: fromYaml } = await exportYaml(demoId)
    expect(fromYaml).toEqual(policy)
    expect(parsePolicy(JSON.stringify(policy))).toEqual({ ok: true, policy })

    expect(policy.agents).toEqual([
      {
        agent: 'Budget Pacer',
        allow: ['ads.adjust_budget', 'ads.pause_campaign', 'ads.read_performance', 'email.draft_campaign'],
        maxUnattendedRisk: 'medium',
        ceilings: { amountMinor: { EUR: 50000, JPY: 50000, USD: 50000 }, amountPercent: 20, recipients: 0, records: 1000 },
      },
      {
        agent: 'Lifecycle Writer',
        allow: ['contacts.tag_contacts', 'email.draft_campaign', 'email.send_campaign'],
        maxUnattendedRisk: 'medium',
        ceilings: { amountPercent: 0, recipients: 5000, records: 5000 },
      },
    ])
    const ruleIds = (await db.sql<{ id: string }[]>`SELECT id FROM rules WHERE workspace_id = ${demoId} AND enabled ORDER BY created_at, id`).map((r) => r.id)
    expect(ruleIds).toHaveLength(3)
    expect(policy.rules.map((r: { id: string }) => r.id)).toEqual(ruleIds)
    expect(policy.rules).toContainEqual({
      id: expect.stringMatching(/^rule_/),
      effect: 'require_approval',
      match: [{ tool: 'ads', action: 'adjust_budget' }],
      when: [{ fact: 'increase', op: '=', value: true }, { fact: 'amountPercent', op: '>', value: 15 }],
    })
    expect(policy.rules).toContainEqual({ id: expect.stringMatching(/^rule_/), effect: 'deny', match: [{ tool: 'contacts', action: 'export_contacts' }], when: [{ fact: 'records', op: '>', value: 500 }] })
  }, T)

  test('a second active agent of one name is refused; two of one name (from before that rule) are named by their ids', async () => {
    const ws = jsonOf(await growth(['admin', 'workspace', 'create', '--name', 'Twins', '--json']), 'admin workspace create')
    const create = (name: string, allow: string) => growth(['admin', 'agent', 'create', '--workspace', ws.id, '--name', name, '--allow', allow, '--json'])
    const a = jsonOf(await create('Pacer', 'ads.pause_campaign'), 'admin agent create')
    expectRefused(await create('pacer', 'ads.read_performance'), new RegExp(`^error: An agent named "pacer" is already registered \\(${a.id}\\): give this one another name, or retire that one first\\. \\(--name\\)$`))
    const b = jsonOf(await create('Pacer Two', 'ads.read_performance'), 'admin agent create')
    // A database of an earlier version may hold two of one name.
    await db.sql`UPDATE agents SET name = 'Pacer' WHERE workspace_id = ${ws.id} AND id = ${b.id}`
    const policy = await exportJson(ws.id)
    expect(policy.agents.map((x: { agent: string; allow: string[] }) => [x.agent, x.allow])).toEqual([
      [a.id, ['ads.pause_campaign']],
      [b.id, ['ads.read_performance']],
    ])
    expect(policy.agents[0]).not.toHaveProperty('ceilings')
  }, T)

  test('a workspace that does not exist: exit 1 naming it', async () => {
    const where = process.env.DATABASE_URL ? 'PostgreSQL database at ' : `embedded database in ${dataDir}`
    const r = await growth(['admin', 'policy', 'export', '--workspace', 'ws_doesnotexist'])
    expectRefused(r, /^error: No workspace ws_doesnotexist in the .*\. Check the id \(growth admin workspace list lists them\), and that DATABASE_URL \(or DATA_DIR\) names the server's database\.\n$/)
    expect(r.stderr).toContain(`in the ${where}`)
  }, T)
})
