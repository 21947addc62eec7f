import { newId } from '../core/ids.ts'
import { isoOrNull } from '../core/time.ts'
import { type DecisionInsert, insertDecisions } from '../store/decisions.ts'
import type { MissionInsert } from '../store/missions.ts'
import { type FindingInsert, insertFindings, insertMeasurements, type MeasurementInsert } from '../store/outcomes.ts'
import { DAY, type DemoContext, HOUR } from './context.ts'
import { MISSION_SPECS, type MissionKey } from './missions.ts'
import { authorName, ORIGINS, PEOPLE } from './people.ts'
import type { Rng } from './random.ts'

/** What a decision of a mission can be: its title (some drawn), why, what it moves, which way and by how much. */
type Template = { title: () => string; rationale: string; measure: string; sign: 1 | -1; size: [number, number] }
const T = (title: string | (() => string), rationale: string, measure: string, sign: 1 | -1, size: [number, number]): Template => ({
  title: typeof title === 'string' ? () => title : title, rationale, measure, sign, size,
})

function templates(r: Rng): Record<MissionKey, Template[]> {
  return {
    repeat: [
      T(() => `Send the brew-guide email ${r.pick([5, 6, 8, 10, 12])} days after first delivery`, 'Buyers who open a brew guide reorder sooner; the guide should land before most have finished their first bag.', 'repeat_purchase_rate', 1, [2, 8]),
      T(() => `Offer ${r.pick([10, 12, 15])}% off the second bag to first-time buyers`, 'A second order within 30 days is the strongest predictor of a subscription; a modest discount should pull it forward.', 'repeat_purchase_rate', 1, [3, 12]),
      T('Add a "pick your grind" step to the subscription checkout', 'Support tickets show a fifth of cancellations are about the wrong grind for the brewer.', 'subscription_signups', 1, [2, 7]),
      T('Move the subscription upsell to the order confirmation page', 'The cart upsell competes with free-shipping nudges; after payment there is nothing else to decide.', 'subscription_signups', 1, [3, 9]),
      T('Include a tasting-notes card with every first order', 'Reviews mention not knowing what to taste for; a card makes the second choice easier.', 'second_order_rate', 1, [1.5, 5]),
      T(() => `Trigger the replenishment reminder at day ${r.pick([18, 21, 24, 28])}`, 'A 340g bag lasts about three weeks at two cups a day; reminders after day 30 arrive when people have already bought elsewhere.', 'repeat_purchase_rate', 1, [2, 6]),
      T(() => `Feature ${r.pick(ORIGINS)} in the post-purchase flow`, 'It is the origin second-order buyers pick most after the house blend.', 'second_order_rate', 1, [1.5, 6]),
      T('Split the win-back flow by roast preference', 'Espresso and filter buyers lapse for different reasons; one message for both underperforms.', 'repeat_purchase_rate', 1, [2, 7]),
    ],
    paid: [
      T(() => `Shift ${r.pick([15, 20, 25, 30])}% of Meta budget from broad to lookalike audiences`, 'Lookalikes of repeat buyers convert at a lower cost per first order than broad targeting over the last 30 days.', 'cost_per_first_order', -1, [3, 12]),
      T(() => `Raise the Google Shopping EU bid cap on espresso blends by ${r.pick([8, 10, 12])}%`, 'Impression share on espresso blends is capped by rank, not budget, and their margin carries a higher bid.', 'roas', 1, [2, 9]),
      T(() => `Pause Meta creatives with frequency above ${r.pick([3.5, 4, 4.5])}`, 'Click-through falls by half once frequency passes four, while spend keeps going to the same people.', 'cost_per_first_order', -1, [2, 8]),
      T('Test UGC brewing videos against studio shots in Meta prospecting', 'Customer videos drove the best organic reach on Instagram this quarter.', 'click_through_rate', 1, [4, 15]),
      T('Exclude current subscribers from prospecting audiences', 'About 6% of prospecting spend reaches people who already subscribe.', 'cost_per_first_order', -1, [2, 6]),
      T(() => `Raise the Meta US daily budget by ${r.pick([10, 15, 20])}%`, 'The campaign has spent its full budget by 3pm Pacific for nine days running at a steady cost per order.', 'first_orders', 1, [4, 14]),
      T(() => `Cut Google Shopping spend on decaf by ${r.pick([20, 30, 40])}%`, 'Decaf clicks convert at half the store average and rarely come back for a second order.', 'roas', 1, [2, 8]),
      T('Stop Meta delivery between 1am and 6am Pacific', 'Night-time impressions cost the same and convert at a third of the daytime rate.', 'cost_per_first_order', -1, [1.5, 5]),
    ],
    holiday: [
      T(() => `Open gift box pre-orders ${r.pick([10, 14, 21])} days before Black Friday`, 'Last year a third of gift orders were placed in the week before the sale, when nothing was on offer yet.', 'gift_box_orders', 1, [5, 18]),
      T('Offer free gift wrapping on boxes over $60', 'Gift wrapping was the most-asked question in holiday support chats.', 'average_order_value', 1, [3, 10]),
      T('Send the gift guide to lapsed buyers as well as subscribers', 'Lapsed buyers who received last year\'s guide came back at twice the usual win-back rate.', 'gift_box_orders', 1, [4, 12]),
      T('Add a corporate gifting form for orders of 10+ boxes', 'Four offices asked by email for bulk gift boxes in the first week.', 'gift_box_orders', 1, [3, 9]),
      T(() => `Price the three-origin gift box at ${r.pick(['$54', '$58', '$62'])}`, 'Comparable roasters price their boxes between $55 and $65; the margin holds at this point.', 'average_order_value', 1, [2, 7]),
      T('Promote the gift box in the Japan store with a furoshiki wrap', 'Wrapping matters more for gifts in Japan, and the cloth wrap costs less than a branded box.', 'gift_box_orders', 1, [4, 15]),
    ],
    eu: [
      T('Replace the EU newsletter pop-up with a brew quiz', 'Quizzes converted at twice the rate of the discount pop-up in the US test.', 'eu_subscribers', 1, [5, 15]),
      T('Translate the welcome series into German and French', 'Two-thirds of EU sign-ups come from Germany and France, and open rates on the English series are low there.', 'eu_subscribers', 1, [3, 10]),
      T('Offer a free sample sachet for EU newsletter sign-ups', 'Sachets cost 0.40 EUR shipped with the next order and make the sign-up worth something.', 'eu_subscribers', 1, [4, 12]),
      T(() => `Delay the EU pop-up to ${r.pick([8, 12, 20])} seconds on product pages`, 'Immediate pop-ups on product pages raise the bounce rate without adding sign-ups.', 'popup_conversion_rate', 1, [2, 8]),
      T('Add an unticked newsletter checkbox to the EU checkout', 'Checkout is where intent is highest, and an unticked box keeps consent explicit.', 'eu_subscribers', 1, [3, 9]),
    ],
  }
}

const DECISIONS = 320
/** Decisions by mission (index into MISSION_SPECS): the two active missions hold most of them. */
const missionWeights: [number, number][] = [[0, 35], [1, 35], [2, 15], [3, 15]]

export type DemoDecisions = {
  /** The decisions of a mission (by MISSION_SPECS index) made before `before`, oldest first. */
  decisionsOf: (mi: number, before: Date) => DecisionInsert[]
  /** The latest decision of the first mission (a fixture). */
  fixtureDecision: DecisionInsert
}

/**
 * The decision ledger: decisions by people and agents with their predictions, and, for two-thirds
 * of those old enough, what was measured. Agents' predictions hold a little less often.
 */
export async function seedDecisions(ctx: DemoContext, missions: MissionInsert[]): Promise<DemoDecisions> {
  const { r, ws, ago, events } = ctx
  const now = ctx.now.getTime()
  const agentAuthors = ctx.agents.map((a) => a.name)
  const byMission = templates(r)
  const decisions: DecisionInsert[] = []
  const measurements: MeasurementInsert[] = []
  for (let n = 0; n < DECISIONS; n++) {
    const mi = r.weighted(missionWeights)
    const spec = MISSION_SPECS[mi]
    const from = spec.started - 1
    const to = Math.max(spec.until, 0.2)
    const createdAt = ago(r.float(to, from))
    const t = r.pick(byMission[spec.key])
    const byAgent = agentAuthors.length > 0 && r.chance(0.6)
    const author = byAgent ? r.pick(agentAuthors) : authorName(r.pick(PEOPLE))
    const predicted = t.sign * r.round(r.float(t.size[0], t.size[1]))
    const confidence = r.round(r.float(0.5, 0.95) * 20, 0) / 20
    const measuredAt = new Date(createdAt.getTime() + r.float(14, 35) * DAY)
    const measured = measuredAt.getTime() < now - HOUR && r.chance(0.66)
    let result: { held: boolean; actual: number } | null = null
    if (measured) {
      const held = r.chance(confidence - (byAgent ? 0.12 : 0.02))
      result = { held, actual: r.round(predicted * (held ? r.float(0.6, 1.6) : r.float(-0.5, 0.45))) }
    }
    const d: DecisionInsert = {
      ...ws,
      id: newId('decision', createdAt),
      mission_id: missions[mi].id,
      author,
      author_kind: byAgent ? 'agent' : 'person',
      title: t.title(),
      rationale: t.rationale,
      measure: t.measure,
      predicted_change: predicted,
      confidence: Math.min(0.95, Math.max(0.5, confidence)),
      status: result ? 'measured' : 'recorded',
      actual_change: result?.actual ?? null,
      held: result?.held ?? null,
      measured_at: result ? measuredAt : null,
      created_at: createdAt,
    }
    decisions.push(d)
    const summary = { id: d.id, missionId: d.mission_id, title: d.title, author: { name: author, kind: d.author_kind } }
    events.add('decision.recorded', createdAt, { decision: { ...summary, prediction: { measure: t.measure, change: predicted, confidence: d.confidence } } })
    if (result) {
      const { actual, held } = result
      measurements.push({
        ...ws, id: newId('outcome', measuredAt), decision_id: d.id, measure: t.measure, predicted, actual, held, measured_at: measuredAt, created_at: measuredAt,
      })
      events.add('decision.measured', measuredAt, { decision: { ...summary, outcome: { change: actual, held, measuredAt: isoOrNull(measuredAt) } } })
    }
  }
  decisions.sort((a, b) => a.created_at.getTime() - b.created_at.getTime())
  await insertDecisions(ctx.tx, decisions)
  await insertMeasurements(ctx.tx, measurements)
  const decisionsOf = (mi: number, before: Date) => decisions.filter((d) => d.mission_id === missions[mi].id && d.created_at < before)
  return { decisionsOf, fixtureDecision: decisionsOf(0, new Date(now + 1)).at(-1)! }
}

/** Findings: two accepted, four turned down with the reason given, two still open. */
export async function seedFindings(ctx: DemoContext) {
  const findingSpecs: [string, 'open' | 'accepted' | 'rejected', string | null, number][] = [
    ['Brew-guide emails lift 60-day repeat purchase by 3.1 points', 'accepted', null, 120],
    ['Lookalike audiences of repeat buyers cost 22% less per first order than broad targeting', 'accepted', null, 96],
    ['The free-shipping banner caused the March revenue jump', 'rejected', 'Seasonal effect, not the campaign', 88],
    ['SMS restock alerts take revenue from the email that follows them', 'rejected', 'Sample too small: 41 orders over two weeks', 64],
    ['Customers in Japan prefer darker roasts', 'rejected', 'Confounded by the drip-bag launch in the same week', 51],
    ['Decaf buyers cancel subscriptions faster', 'rejected', 'Measured before the subscription price change; not comparable', 33],
    ['Orders over ¥6,000 in Japan doubled after the Instagram reels', 'open', null, 9],
    ['Subscribers who choose their grind cancel 18% less often', 'open', null, 4],
  ]
  const findings = findingSpecs.map(([title, status, reason, days]): FindingInsert => {
    const createdAt = ctx.agoJitter(days)
    return { ...ctx.ws, id: newId('finding', createdAt), title, status, rejection_reason: reason, created_at: createdAt }
  })
  await insertFindings(ctx.tx, findings)
}
