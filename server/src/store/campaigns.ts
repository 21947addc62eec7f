import type { Tx } from '../core/db.ts'
import { insertRows } from './keyset.ts'

/** Campaigns: what proposed changes pause, resume, re-budget and send. */

export type CampaignRow = {
  id: string
  name: string
  channel: 'email' | 'sms' | 'ads' | 'social'
  status: 'draft' | 'active' | 'paused' | 'finished'
  daily_budget_minor: number | null
  currency: string | null
  connection_id: string | null
}

export async function selectCampaign(tx: Tx, workspaceId: string, id: string, opts: { lock?: boolean } = {}): Promise<CampaignRow | undefined> {
  const lock = opts.lock ? tx`FOR UPDATE` : tx``
  const [row] = await tx<CampaignRow[]>`
    SELECT id, name, channel, status, daily_budget_minor, trim(currency) AS currency, connection_id
    FROM campaigns WHERE workspace_id = ${workspaceId} AND id = ${id} ${lock}`
  return row
}

export async function setCampaignStatus(tx: Tx, workspaceId: string, id: string, status: CampaignRow['status']) {
  await tx`UPDATE campaigns SET status = ${status} WHERE workspace_id = ${workspaceId} AND id = ${id}`
}

export async function setCampaignBudget(tx: Tx, workspaceId: string, id: string, amountMinor: number) {
  await tx`UPDATE campaigns SET daily_budget_minor = ${amountMinor} WHERE workspace_id = ${workspaceId} AND id = ${id}`
}

export type CampaignInsert = CampaignRow & { workspace_id: string; created_at: Date }

export const insertCampaigns = (tx: Tx, rows: CampaignInsert[]) => insertRows(tx, 'campaigns', rows)
