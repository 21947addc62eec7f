import { beforeAll, expect, test } from 'bun:test'
import { listAudit } from '../../server/src/domain/audit.ts'
import { call, getHarness, makeWorkspace, type Workspace } from '../harness.ts'
import { CLI_TIMEOUT, expectRefused, growthIn, jsonOf, refusalJson, type Run } from './run.ts'

/**
 * growth admin agent create with its limits, and agent credentials issued and revoked by id. The
 * CLI writes to the test server's own database; what it did is read back through the API.
 */
let ws: Workspace
let growth: (args: string[]) => Promise<Run>

beforeAll(async () => {
  const h = await getHarness()
  ws = await makeWorkspace()
  growth = (args) => growthIn(h.dataDir)(args)
})

test(
  'create sets ceilings per currency in its own unit, percent, recipients, records, the risk limit and data access, as GET /agents shows them',
  async () => {
    const made = jsonOf(
      await growth([
        'admin', 'agent', 'create', '--workspace', ws.id, '--name', 'Spend Guard', '--allow', 'ads.adjust_budget,email.send_campaign',
        '--max-amount', 'USD:499.99', '--max-amount', 'JPY:50000', '--max-percent', '15', '--max-recipients', '2000', '--max-records', '0',
        '--max-risk', 'low', '--data-access', 'campaigns,ad_spend', '--description', 'Keeps spend in bounds.', '--json',
      ]),
      'admin agent create',
    )
    expect(made.id).toMatch(/^agt_/)
    expect(made.credentialId).toMatch(/^cred_/)
    const listed = (await call('GET', '/api/v1/agents', { token: ws.live })).body.data.find((a: any) => a.id === made.id)
    const { amounts, amountPercent, recipients, records } = listed.ceilings
    expect([...amounts].sort((a: any, b: any) => a.currency.localeCompare(b.currency))).toEqual([
      { amountMinor: 50_000, currency: 'JPY' },
      { amountMinor: 49_999, currency: 'USD' },
    ])
    expect({ amountPercent, recipients, records }).toEqual({ amountPercent: 15, recipients: 2000, records: 0 })
    expect(listed.maxUnattendedRisk).toBe('low')
    expect([...listed.dataAccess].sort()).toEqual(['ad_spend', 'campaigns'])
    const me = await call('GET', '/api/v1/agent/me', { token: made.credential })
    expect(me.status).toBe(200)
    expect(me.body.data.agent.id).toBe(made.id)
  },
  CLI_TIMEOUT,
)

test(
  'an action the workspace does not have yet is refused, saying where it is added: the agent policy',
  async () => {
    const r = await growth(['admin', 'agent', 'create', '--workspace', ws.id, '--name', 'Refund Bot', '--allow', 'billing.issue_refund'])
    expectRefused(r, /Unknown tool action billing\.issue_refund; known: .*ads\.pause_campaign.*\. An action of the workspace's own is added to its agent policy \(its tools\) first, and allowed to the agent there\. \(--allow\)/)
    const names = (await call('GET', '/api/v1/agents', { token: ws.live })).body.data.map((a: any) => a.name)
    expect(names).not.toContain('Refund Bot')
  },
  CLI_TIMEOUT,
)

test(
  'a bad limit is named by its flag before anything is saved',
  async () => {
    const base = ['admin', 'agent', 'create', '--workspace', ws.id, '--name', 'Refused']
    expectRefused(await growth([...base, '--max-amount', 'USD:5.005']), /--max-amount USD:5\.005: USD has 2 decimal places/)
    expectRefused(await growth([...base, '--max-amount', '500']), /--max-amount takes CURRENCY:AMOUNT/)
    expectRefused(await growth([...base, '--max-amount', 'XYZ:5']), /XYZ is not an ISO 4217 currency code/)
    expectRefused(await growth([...base, '--max-percent', 'lots']), /--max-percent must be a whole number/)
    expectRefused(await growth([...base, '--data-access', 'secrets']), /Unknown data secrets; known: .*campaigns.*\(--data-access\)/)
    expect(refusalJson(await growth([...base, '--max-risk', 'extreme', '--json'])).message).toBe('--max-risk must be one of low, medium, high; got "extreme"')
    const names = (await call('GET', '/api/v1/agents', { token: ws.live })).body.data.map((a: any) => a.name)
    expect(names).not.toContain('Refused')
  },
  CLI_TIMEOUT,
)

test(
  'a leaked agent credential is replaced: issue another, then revoke the old one by its id; the old one stops working at once',
  async () => {
    const old = ws.agent.credential
    const issued = jsonOf(await growth(['admin', 'agent', 'credential', 'create', '--workspace', ws.id, '--agent', ws.agent.id, '--json']), 'credential create')
    expect(issued).toMatchObject({ agentId: ws.agent.id })
    expect((await call('GET', '/api/v1/agent/me', { token: issued.credential })).status).toBe(200)
    // The old credential's id: the one makeWorkspace's agent was given.
    const { sql } = await getHarness()
    const [row] = await sql<{ id: string }[]>`SELECT id FROM credentials WHERE workspace_id = ${ws.id} AND agent_id = ${ws.agent.id} AND id <> ${issued.credentialId}`
    const revoked = jsonOf(await growth(['admin', 'agent', 'credential', 'revoke', row!.id, '--json']), 'credential revoke')
    expect(revoked).toEqual({ id: row!.id, revoked: true, alreadyRevoked: false })
    expect((await call('GET', '/api/v1/agent/me', { token: old })).status).toBe(401)
    expect((await call('GET', '/api/v1/agent/me', { token: issued.credential })).status).toBe(200)
    expectRefused(await growth(['admin', 'agent', 'credential', 'create', '--workspace', ws.id, '--agent', 'agt_00000000000000000000000000']), /No agent agt_0+ in workspace/)
    expectRefused(await growth(['admin', 'agent', 'credential', 'revoke', ws.agent.id]), /starts with cred_/)
  },
  CLI_TIMEOUT,
)

test(
  'retire revokes every credential of the agent at once and records it; twice is not an error; a retired agent gets no new credential',
  async () => {
    const made = jsonOf(await growth(['admin', 'agent', 'create', '--workspace', ws.id, '--name', 'Old Hand', '--allow', 'ads.pause_campaign', '--json']), 'admin agent create')
    const extra = jsonOf(await growth(['admin', 'agent', 'credential', 'create', '--workspace', ws.id, '--agent', made.id, '--json']), 'credential create')
    expect((await call('GET', '/api/v1/agent/me', { token: made.credential })).status).toBe(200)
    const listed = async () => ((await call('GET', '/api/v1/agents?limit=100', { token: ws.live })).body.data as { id: string; retiredAt: string | null }[]).find((a) => a.id === made.id)!
    expect((await listed()).retiredAt).toBeNull()
    const retiring = Date.now()
    const retired = jsonOf(await growth(['admin', 'agent', 'retire', made.id, '--workspace', ws.id, '--json']), 'agent retire')
    // The API's list still has it, and says since when it is retired.
    const retiredAt = Date.parse((await listed()).retiredAt!)
    expect(retiredAt).toBeGreaterThan(retiring - 5_000)
    expect(retiredAt).toBeLessThan(Date.now() + 5_000)
    expect(retired).toEqual({ id: made.id, retired: true, alreadyRetired: false, revokedCredentials: [made.credentialId, extra.credentialId].sort() })
    expect((await call('GET', '/api/v1/agent/me', { token: made.credential })).status).toBe(401)
    expect((await call('GET', '/api/v1/agent/me', { token: extra.credential })).status).toBe(401)
    const again = jsonOf(await growth(['admin', 'agent', 'retire', made.id, '--workspace', ws.id, '--json']), 'agent retire again')
    expect(again).toMatchObject({ alreadyRetired: true, revokedCredentials: [] })
    expectRefused(await growth(['admin', 'agent', 'credential', 'create', '--workspace', ws.id, '--agent', made.id]), /is retired: it gets no new credential/)
    expectRefused(await growth(['admin', 'agent', 'retire', 'agt_00000000000000000000000000', '--workspace', ws.id]), /No agent agt_0+ in workspace/)
    expectRefused(await growth(['admin', 'agent', 'retire', 'Old Hand', '--workspace', ws.id]), /starts with agt_/)
    const { sql } = await getHarness()
    const entries = (await listAudit(sql, ws.id, 100)).entries.filter((e) => e.action === 'agent.retired' && e.subject === made.id)
    expect(entries.map((e) => e.actor.kind)).toEqual(['operator'])
  },
  CLI_TIMEOUT,
)
