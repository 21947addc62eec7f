import { newId } from '../core/ids.ts'
import { isoOrNull } from '../core/time.ts'
import type { ContactInsert } from '../store/contacts.ts'
import { insertRunHistory, insertWorkflows, type RunInsert, type WorkflowInsert } from '../store/tracking.ts'
import { DAY, type DemoContext } from './context.ts'
import { CURRENCY, PRODUCTS, type Region, SHIPPING } from './people.ts'

/** The tracked event the fixtures name: it starts the abandoned-checkout workflow. */
export const TRACKED_EVENT = 'checkout.abandoned'

/** Name, trigger event, status, created (days ago), runs. */
const WORKFLOW_SPECS: [string, string, WorkflowInsert['status'], number, number][] = [
  ['Abandoned checkout rescue', TRACKED_EVENT, 'active', 74, 22],
  ['Post-purchase brew guide', 'order.placed', 'active', 170, 14],
  ['Subscription pause win-back', 'subscription.paused', 'paused', 110, 5],
  ['Welcome series', 'newsletter.subscribed', 'active', 176, 9],
]

/** Workflows and their runs over the last two months (none lately for the paused one); recent runs are still going. */
export async function seedTracking(ctx: DemoContext, contacts: ContactInsert[]) {
  const { r, ws, ago, agoJitter, events } = ctx
  const now = ctx.now.getTime()
  const workflows = WORKFLOW_SPECS.map(([name, trigger, status, days]): WorkflowInsert => {
    const createdAt = agoJitter(days)
    return { ...ws, id: newId('workflow', createdAt), name, trigger_event: trigger, status, created_at: createdAt }
  })
  const runs: RunInsert[] = []
  WORKFLOW_SPECS.forEach(([, trigger, status, days, count], wi) => {
    const wf = workflows[wi]
    for (let k = 0; k < count; k++) {
      const latest = status === 'paused' ? 30 : 0.05
      const createdAt = ago(r.float(latest, Math.min(days - 1, 60)))
      const c = r.pick(contacts)
      const cur = CURRENCY[c.tags[0] as Region]
      const properties =
        trigger === TRACKED_EVENT ? { cartValueMinor: r.pick(PRODUCTS).price[cur] * r.int(1, 3), currency: cur, items: r.int(1, 3), step: r.pick(['shipping', 'payment']) }
        : trigger === 'order.placed' ? { orderValueMinor: r.pick(PRODUCTS).price[cur] + SHIPPING[cur], currency: cur, firstOrder: r.chance(0.6) }
        : trigger === 'subscription.paused' ? { plan: r.pick(['340g every 2 weeks', '1kg monthly', '250g weekly']), reason: r.pick(['too much coffee', 'travelling', 'price']) }
        : { source: r.pick(['popup', 'checkout', 'brew-quiz']) }
      const age = (now - createdAt.getTime()) / DAY
      const run: RunInsert = {
        ...ws, id: newId('run', createdAt), workflow_id: wf.id, contact_id: c.id, event: trigger, properties,
        status: age < 3 ? 'started' : r.weighted([['completed', 8], ['exited', 2]] as const), created_at: createdAt,
      }
      runs.push(run)
      events.add('workflow.started', createdAt, { run: { id: run.id, workflowId: wf.id, workflowName: wf.name, contactId: c.id, event: trigger, properties, createdAt: isoOrNull(createdAt) } })
    }
  })
  await insertWorkflows(ctx.tx, workflows)
  await insertRunHistory(ctx.tx, runs)
}
