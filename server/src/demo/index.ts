import type { Db, Tx } from '../core/db.ts'
import { createAgent } from '../domain/agents.ts'
import { createToken } from '../domain/credentials.ts'
import { createWorkspace } from '../domain/workspaces.ts'
import { inTransaction } from '../store/driver/db.ts'
import { seedActions } from './actions.ts'
import { seedAgentHistory } from './agents.ts'
import { seedSendApprovals } from './approvals.ts'
import { seedCampaigns } from './campaigns.ts'
import { seedCustomers } from './customers.ts'
import { seedConnections } from './connections.ts'
import { buildAudience, insertAudience } from './contacts.ts'
import { type DemoAgent, demoContext } from './context.ts'
import { seedDecisions, seedFindings } from './decisions.ts'
import { DemoEvents } from './events.ts'
import { seedExperiments } from './experiments.ts'
import { seedOpportunities } from './opportunities.ts'
import { seedMissions } from './missions.ts'
import { Rng } from './random.ts'
import { seedTracking, TRACKED_EVENT } from './tracking.ts'
import { seedUsage } from './usage.ts'

/**
 * Demo data: six months of the history of "Northwind Coffee Roasters", a specialty roaster selling
 * online in the US, Europe and Japan. Every run draws from the same seeded generator, so the data
 * has the same shape each time (only ids differ). Each resource's rows go in through the store's
 * own insert functions, and the events go into the outbox through the API's own append, numbered
 * 1..N in time order.
 */

/** The contract's fixtures, and two more the README's tour uses: a mission, and an active ad campaign with a daily budget. */
type DemoFixtures = {
  openAbTestId: string
  decidedAbTestId: string
  emailSendId: string
  decisionId: string
  listId: string
  contactEmail: string
  doNotContactEmail: string
  trackedEvent: string
  missionId: string
  campaignId: string
}

export type DemoWorkspace = {
  workspace: { id: string; name: string; plan: string }
  tokens: { live: string; test: string }
  agents: { id: string; name: string; credential: string }[]
  fixtures: DemoFixtures
}

/** The generator's seed: changing it changes every figure of the demo. */
const SEED = 20_24_11

/**
 * A new workspace full of realistic demo data (CONTRACT: `growth admin demo --json`): live and test
 * tokens with every scope, two agents whose permissions show both yes and no, and the fixtures
 * tests and tutorials use. One transaction: if seeding fails, no workspace with live credentials is
 * left behind (and `npm start` seeds again next time).
 */
export function createDemoWorkspace(sql: Db, opts: { name?: string; now?: Date } = {}): Promise<DemoWorkspace> {
  return inTransaction(sql, (tx) => createIn(tx, opts))
}

async function createIn(tx: Tx, opts: { name?: string; now?: Date }): Promise<DemoWorkspace> {
  const workspace = await createWorkspace(tx, { name: opts.name ?? 'Northwind Coffee Roasters', plan: 'growth' })
  const live = await createToken(tx, { workspaceId: workspace.id, scopes: 'all' })
  const test = await createToken(tx, { workspaceId: workspace.id, scopes: 'all', test: true })
  // The first agent may do low-risk ad work but not send email or export contacts.
  const pacer = await createAgent(tx, {
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
  const writer = await createAgent(tx, {
    workspaceId: workspace.id,
    name: 'Lifecycle Writer',
    owner: 'product',
    description: 'Drafts and sends lifecycle email to opted-in contacts.',
    allow: 'email.draft_campaign,email.send_campaign,contacts.tag_contacts',
    ceilings: { amounts: [], amountPercent: 0, recipients: 5_000, records: 5_000 },
  })
  const now = opts.now ?? new Date()
  const agents = [{ id: pacer.id, name: pacer.name }, { id: writer.id, name: writer.name }]
  const fixtures = await seedDemoData(tx, workspace.id, { now, agents })
  return { workspace, tokens: { live: live.token, test: test.token }, agents: [pacer, writer], fixtures }
}

/**
 * The history of one existing workspace, step by step. The steps draw from one generator in turn,
 * so their order is fixed: changing it changes the data.
 */
async function seedDemoData(tx: Tx, workspaceId: string, opts: { now: Date; agents: DemoAgent[] }): Promise<DemoFixtures> {
  const events = new DemoEvents()
  const ctx = demoContext(tx, workspaceId, { now: opts.now, agents: opts.agents, r: new Rng(SEED), events })
  const { connections, googleFailingSince } = await seedConnections(ctx)
  const missions = await seedMissions(ctx)
  const { decisionsOf, fixtureDecision } = await seedDecisions(ctx, missions)
  await seedFindings(ctx)
  await seedOpportunities(ctx)
  const campaigns = await seedCampaigns(ctx, connections)
  const { abTests, sends } = await seedExperiments(ctx, campaigns, decisionsOf)
  await seedSendApprovals(ctx, sends)
  const audience = buildAudience(ctx)
  // The actions tag some contacts, so the contacts are written after them.
  await seedActions(ctx, { connections, campaigns, audience })
  await insertAudience(ctx, audience)
  await seedTracking(ctx, audience.contacts)
  await seedCustomers(ctx, audience)
  const requests = await seedAgentHistory(ctx, { campaigns, audience, googleFailingSince })
  await seedUsage(ctx, requests)
  await events.write(tx, workspaceId, opts.now)
  return {
    openAbTestId: abTests[3].id,
    decidedAbTestId: abTests[2].id,
    emailSendId: sends[5].id,
    decisionId: fixtureDecision.id,
    listId: audience.lists[0].id,
    contactEmail: audience.contacts[0].email,
    doNotContactEmail: audience.doNotContact[0].email_key,
    trackedEvent: TRACKED_EVENT,
    missionId: missions[0]!.id,
    campaignId: campaigns.meta.id,
  }
}
