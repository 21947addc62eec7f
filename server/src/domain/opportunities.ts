import type { Sql } from '../core/db.ts'
import type { OpportunityStatus } from '../core/enums.ts'
import { byCurrency } from '../core/money.ts'
import type { Positioned } from '../core/paging.ts'
import { iso, isoOrNull } from '../core/time.ts'
import type { Opportunity } from '../schemas/opportunities.ts'
import * as store from '../store/opportunities.ts'

const moneyList = (xs: { amountMinor: number; currency: string }[]) => byCurrency(xs.map((m) => ({ amountMinor: m.amountMinor, currency: m.currency })))

/** Opportunities of one status in the order they are worth doing, with expected and measured impact per currency. */
export async function listOpportunities(
  sql: Sql,
  workspaceId: string,
  opts: { status: OpportunityStatus; after?: store.WorthPosition; limit: number },
  now = new Date(),
): Promise<Positioned<Opportunity, store.WorthPosition>[]> {
  // An open opportunity past its expiry is expired: recorded so, then each status is read in order.
  await store.expireDue(sql, workspaceId, now)
  const rows = await store.selectOpportunities(sql, workspaceId, { ...opts, now })
  return rows.map((o) => ({
    position: { w: o.worth_key, id: o.id },
    item: {
      id: o.id,
      title: o.title,
      detail: o.detail,
      status: o.status,
      worth: o.worth,
      estimatedImpact: moneyList(o.estimated_impact),
      measuredImpact: o.measured_impact ? moneyList(o.measured_impact) : null,
      signals: o.signals,
      expiresAt: isoOrNull(o.expires_at),
      createdAt: iso(o.created_at),
    },
  }))
}
