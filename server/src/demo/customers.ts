import type { CustomerStage } from '../core/enums.ts'
import { newId } from '../core/ids.ts'
import { type CustomerInsert, insertCustomers } from '../store/customers.ts'
import { insertOrders, type OrderInsert } from '../store/revenue.ts'
import type { DemoAudience } from './contacts.ts'
import { DAY, type DemoContext } from './context.ts'
import { CURRENCY, FREE_SHIPPING, PRODUCTS, type Region, region, SHIPPING } from './people.ts'

const CUSTOMERS = 150

/**
 * 150 customers in every stage, most of them contacts too, and their orders over six months in
 * USD, EUR and JPY: repeat buyers order every one to three weeks, lapsed ones stopped three months
 * ago; two in five orders are attributed to a marketing channel.
 */
export async function seedCustomers(ctx: DemoContext, audience: Pick<DemoAudience, 'contacts' | 'makePerson'>) {
  const { r, ws, ago } = ctx
  const customers: CustomerInsert[] = []
  const orders: OrderInsert[] = []
  const buyerPeople = audience.contacts.slice(0, 110).map((c) => ({ name: c.name!, email: c.email, reg: c.tags[0] as Region }))
  while (buyerPeople.length < CUSTOMERS) {
    const p = audience.makePerson()
    buyerPeople.push({ name: `${p.first} ${p.last}`, email: p.email, reg: region(p.country) })
  }
  const stagePlan: CustomerStage[] = []
  for (let k = 0; k < CUSTOMERS; k++) stagePlan.push(k === 0 ? 'repeat' : r.weighted([['prospect', 14], ['first_time', 24], ['repeat', 86], ['lapsed', 26]] as const))
  const channelOf = () => (r.chance(0.4) ? r.weighted([['email', 45], ['ads', 30], ['social', 15], ['sms', 10]] as const) : null)
  const basket = (cur: string) => {
    let total = 0
    const lines = r.weighted([[1, 5], [2, 4], [3, 1]] as const)
    for (let k = 0; k < lines; k++) total += r.pick(PRODUCTS).price[cur] * r.weighted([[1, 6], [2, 2]] as const)
    return total < FREE_SHIPPING[cur] ? total + SHIPPING[cur] : total
  }
  buyerPeople.forEach((p, k) => {
    const stage = stagePlan[k]
    const cur = CURRENCY[p.reg]
    const placed: Date[] = []
    if (stage === 'first_time') placed.push(ago(r.float(0.2, 80)))
    else if (stage === 'repeat') {
      let t = r.float(60, 178)
      const every = r.float(8, 21)
      while (t > 0.1) {
        placed.push(ago(t))
        t -= every * r.float(0.7, 1.3)
      }
      if (placed.length < 2) placed.push(ago(r.float(0.1, 20)))
    } else if (stage === 'lapsed') {
      let t = r.float(130, 180)
      const last = r.float(92, 125)
      for (placed.push(ago(t)); (t -= r.float(10, 30)) > last; ) placed.push(ago(t))
      if (placed.length < 2) placed.push(ago(last))
    }
    const createdAt = placed.length ? new Date(placed[0].getTime() - r.float(0.01, 20) * DAY) : ago(r.float(1, 175))
    const customerId = newId('customer', createdAt)
    customers.push({
      ...ws, id: customerId, name: p.name, email: p.email, stage,
      first_order_at: placed[0] ?? null, last_order_at: placed.at(-1) ?? null, created_at: createdAt,
    })
    for (const at of placed) {
      orders.push({ ...ws, id: newId('order', at), customer_id: customerId, amount_minor: basket(cur), currency: cur, attributed_channel: channelOf(), placed_at: at, created_at: at })
    }
  })
  await insertCustomers(ctx.tx, customers)
  await insertOrders(ctx.tx, orders)
}
