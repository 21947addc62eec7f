import type { Sql } from '../core/db.ts'
import type { CustomerStage } from '../core/enums.ts'
import { byCurrency } from '../core/money.ts'
import { byCreation, type Positioned, type TimePosition } from '../core/paging.ts'
import { iso, isoOrNull } from '../core/time.ts'
import type { Customer } from '../schemas/customers.ts'
import * as store from '../store/customers.ts'

/** Buyers newest first, of one stage or every stage, with order count and spend per currency. */
export async function listCustomers(
  sql: Sql,
  workspaceId: string,
  opts: { stage?: CustomerStage; after?: TimePosition; limit: number },
): Promise<Positioned<Customer, TimePosition>[]> {
  return (await store.selectCustomers(sql, workspaceId, opts)).map((c) => ({
    position: byCreation(c),
    item: {
      id: c.id,
      name: c.name,
      email: c.email,
      stage: c.stage,
      orders: c.orders,
      spend: byCurrency(c.spend),
      firstOrderAt: isoOrNull(c.first_order_at),
      lastOrderAt: isoOrNull(c.last_order_at),
      createdAt: iso(c.created_at),
    },
  }))
}
