import { newId } from '../core/ids.ts'
import { type CampaignInsert, type CampaignRow, insertCampaigns } from '../store/campaigns.ts'
import type { ConnectionInsert } from '../store/connections.ts'
import type { DemoContext } from './context.ts'

// The last figure is the connection (of the connections, in order) that carries the campaign's changes out.
const CAMPAIGN_SPECS: [string, CampaignRow['channel'], CampaignRow['status'], number | null, string | null, number, number][] = [
  ['Monthly newsletter', 'email', 'active', null, null, 176, 1],
  ['Meta prospecting – US', 'ads', 'active', 12_000, 'USD', 170, 2],
  ['Google Shopping – EU', 'ads', 'active', 9_000, 'EUR', 118, 3],
  ['Instagram Japan – drip bags', 'ads', 'paused', 15_000, 'JPY', 90, 2],
  ['Restock alerts', 'sms', 'active', null, null, 75, 1],
  ['Brew-guide reels', 'social', 'finished', null, null, 62, 4],
  ['Ethiopia Guji washed launch', 'email', 'active', null, null, 9, 1],
]

/** A daily budget in minor units after a change of `pct` percent. */
export const budgetAfter = (fromMinor: number, pct: number) => Math.round((fromMinor * (100 + pct)) / 100)

/** The campaigns by name, for the steps that act on them. */
export type DemoCampaigns = {
  newsletter: CampaignInsert
  meta: CampaignInsert
  google: CampaignInsert
  instagram: CampaignInsert
  sms: CampaignInsert
  launch: CampaignInsert
}

export async function seedCampaigns(ctx: DemoContext, connections: ConnectionInsert[]): Promise<DemoCampaigns> {
  const campaigns = CAMPAIGN_SPECS.map(([name, channel, status, budget, currency, days, conn]): CampaignInsert => {
    const createdAt = ctx.agoJitter(days)
    return {
      ...ctx.ws, id: newId('campaign', createdAt), name, channel, status, daily_budget_minor: budget, currency, connection_id: connections[conn].id, created_at: createdAt,
    }
  })
  await insertCampaigns(ctx.tx, campaigns)
  const [newsletter, meta, google, instagram, sms, , launch] = campaigns
  return { newsletter, meta, google, instagram, sms, launch }
}
