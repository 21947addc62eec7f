import { inTransaction, type Sql, type Tx } from '../store/db.ts'
import { seedDemoData, type DemoFixtures } from '../store/demo-data.ts'
import { createAgent, createToken, createWorkspace } from './admin.ts'

export type DemoWorkspace = {
  workspace: { id: string; name: string; plan: string }
  tokens: { live: string; test: string }
  agents: { id: string; name: string; credential: string }[]
  fixtures: DemoFixtures
}

/**
 * A new workspace full of realistic demo data (CONTRACT: `growth admin demo --json`): live and test
 * tokens with every scope, two agents whose permissions show both yes and no, and the fixtures
 * tests and tutorials use. One transaction: if seeding fails, no workspace with live credentials is
 * left behind (and `npm start` seeds again next time).
 */
export function createDemoWorkspace(sql: Sql | Tx, opts: { name?: string; now?: Date } = {}): Promise<DemoWorkspace> {
  return inTransaction(sql, (tx) => createIn(tx, opts))
}

async function createIn(sql: Tx, opts: { name?: string; now?: Date }): Promise<DemoWorkspace> {
  const workspace = await createWorkspace(sql, { name: opts.name ?? 'Northwind Coffee Roasters', plan: 'growth' })
  const live = await createToken(sql, { workspaceId: workspace.id, scopes: 'all' })
  const test = await createToken(sql, { workspaceId: workspace.id, scopes: 'all', test: true })
  // The first agent may do low-risk ad work but not send email or export contacts.
  const pacer = await createAgent(sql, {
    workspaceId: workspace.id,
    name: 'Budget Pacer',
    owner: 'workspace',
    description: 'Keeps ad spend on pace with the monthly plan.',
    allow: 'ads.read_performance,ads.pause_campaign,ads.adjust_budget,email.draft_campaign',
    ceilings: {
      amounts: [
        { amountMinor: 50_000, currency: 'EUR' },
        { amountMinor: 50_000, currency: 'JPY' },
        { amountMinor: 50_000, currency: 'USD' },
      ],
      amountPercent: 20,
      recipients: 0,
      records: 1_000,
    },
  })
  const writer = await createAgent(sql, {
    workspaceId: workspace.id,
    name: 'Lifecycle Writer',
    owner: 'product',
    description: 'Drafts and sends lifecycle email to opted-in contacts.',
    allow: 'email.draft_campaign,email.send_campaign,contacts.tag_contacts',
    ceilings: { amounts: [], amountPercent: 0, recipients: 5_000, records: 5_000 },
  })
  const now = opts.now ?? new Date()
  const fixtures = await seedDemoData(sql, workspace.id, { now, agents: [{ id: pacer.id, name: pacer.name }, { id: writer.id, name: writer.name }] })
  return { workspace, tokens: { live: live.token, test: test.token }, agents: [pacer, writer], fixtures }
}
