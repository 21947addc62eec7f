import type { OpportunityStatus, SignalStatus } from '../core/enums.ts'
import { newId } from '../core/ids.ts'
import { byCurrency, type Money } from '../core/money.ts'
import { isoOrNull } from '../core/time.ts'
import { insertOpportunities, type OpportunityInsert } from '../store/opportunities.ts'
import { insertSignals, type SignalInsert } from '../store/signals.ts'
import { DAY, type DemoContext, HOUR, money } from './context.ts'

/** Title, detail, status, worth, estimated impact, measured impact (once actioned), created (days ago). */
type Opp = [string, string, OpportunityStatus, number, Money[], Money[] | null, number]
const OPPORTUNITIES: Opp[] = [
  ['Win back 212 lapsed subscribers with a brew-guide series', 'They bought at least twice, then nothing for 90 days; most bought filter roasts.', 'open', 86.5, [money(212_000, 'USD'), money(48_000, 'EUR')], null, 3],
  ['Raise the US free-shipping threshold from $40 to $45', '31% of US orders sit between $40 and $45; a small nudge lifts order value without hurting conversion in similar stores.', 'open', 74.2, [money(186_000, 'USD')], null, 6],
  ['Move Meta budget from broad to lookalike audiences', 'Lookalikes of repeat buyers have cost 22% less per first order for four weeks.', 'open', 69.8, [money(154_000, 'USD')], null, 2],
  ['Bundle V60 starter kits with Ethiopia Guji in the Japan store', 'Japan orders with a brewer have twice the repeat rate; the kit is in stock.', 'open', 52.3, [money(380_000, 'JPY')], null, 8],
  ['Restock Kenya Kiambu AA before the subscriber allocation runs out', '14 days of stock left at the current pace; 380 subscribers have it in rotation.', 'open', 47.9, [money(64_000, 'EUR'), money(156_000, 'USD')], null, 1],
  ['Recover abandoned checkouts over $60', '9% of checkouts over $60 are abandoned at the shipping step.', 'actioned', 81.0, [money(92_000, 'EUR'), money(310_000, 'USD')], [money(71_500, 'EUR'), money(284_200, 'USD')], 70],
  ['Rotate fatigued Instagram Japan creatives', 'Frequency passed 4.8 and cost per order rose 41% in a week.', 'actioned', 58.4, [money(420_000, 'JPY')], [money(365_000, 'JPY')], 41],
  ['Offer gift box pre-orders to EU subscribers', 'EU subscribers opened the gift guide at 58%; pre-orders were US-only.', 'actioned', 66.1, [money(240_000, 'EUR')], [money(268_400, 'EUR')], 112],
  ['Discount decaf to clear slow stock', 'Decaf stock covers 19 weeks at the current pace.', 'dismissed', 21.7, [money(38_000, 'USD')], null, 54],
  ['Open a TikTok Shop storefront', 'Competing roasters report growth there, but fulfilment would need a second warehouse partner.', 'dismissed', 18.2, [money(90_000, 'USD')], null, 80],
  ['Early access to Black Friday for VIP customers', 'VIPs bought 3x the store average last November.', 'expired', 63.5, [money(120_000, 'EUR'), money(540_000, 'JPY'), money(410_000, 'USD')], null, 130],
  ['Bid up Google Shopping EU before the December CPC spike', 'Cost per click rose 35% in the second week of December last year.', 'expired', 39.6, [money(76_000, 'EUR')], null, 95],
]

/** Kind, title, detail, status, the opportunity it points to (index into OPPORTUNITIES), created (days ago). */
type Sig = [string, string, string, SignalStatus, number | null, number]
const SIGNALS: Sig[] = [
  ['repeat_rate_drop', '60-day repeat rate fell to 17.2% for filter buyers', 'Down from 19.8% the month before; espresso buyers are steady.', 'open', 0, 4],
  ['lapsed_customers', '212 subscribers have not ordered in 90 days', 'The largest group since the subscription launch.', 'open', 0, 3.2],
  ['order_value_cluster', '31% of US orders land just under the free-shipping threshold', 'Orders between $40 and $45 rose from 22% to 31% this quarter.', 'open', 1, 6],
  ['audience_performance', 'Lookalike audiences beat broad targeting for four weeks running', 'Cost per first order 22.40 USD against 28.70 USD.', 'open', 2, 2.5],
  ['cross_sell', 'Japan orders with a brewer reorder twice as often', 'Measured over 412 first orders since August.', 'open', 3, 8],
  ['stock_low', 'Kenya Kiambu AA: 14 days of stock left', 'At 26 bags a day; the next lot lands in five weeks.', 'open', 4, 1.2],
  ['cpc_spike', 'Google Shopping EU cost per click up 18% this week', 'Espresso blend keywords only.', 'open', null, 0.6],
  ['checkout_abandonment', 'Checkout abandonment over $60 rose to 9%', 'Drop-off is at the shipping step.', 'resolved', 5, 72],
  ['checkout_abandonment', 'Abandonment at the shipping step is back to 6%', 'After the abandoned-checkout flow started.', 'resolved', 5, 40],
  ['ad_fatigue', 'Instagram Japan: frequency 4.8, cost per order up 41%', 'Same four creatives for six weeks.', 'resolved', 6, 43],
  ['engagement', 'EU subscribers opened the gift guide at 58%', 'US-only pre-orders left them out.', 'resolved', 7, 114],
  ['black_friday', 'VIP customers bought 3x the store average last November', 'From last year\'s order ledger.', 'resolved', 10, 131],
  ['cpc_forecast', 'Google Shopping EU CPCs rose 35% in mid-December last year', 'Seasonal pattern from last year.', 'dismissed', 11, 96],
  ['inventory', 'Decaf stock covers 19 weeks at the current pace', 'Colombia Huila Decaf, 340g and 1kg.', 'dismissed', 8, 55],
  ['competitor', 'Three competing roasters opened TikTok Shop storefronts', 'Seen in the last month.', 'dismissed', 9, 81],
  ['deliverability', 'Gmail spam placement rose to 2.1% on the newsletter', 'After the list import from the pop-up.', 'resolved', null, 60],
  ['connection', 'Google Ads has not delivered data for a day', 'Spend and conversions since yesterday are missing.', 'open', null, 1.05],
  ['list_growth', 'EU sign-ups slowed to 21 a day', 'Down from 34 when the brew-quiz pop-up was paused.', 'dismissed', null, 18],
  ['subscription_churn', 'Subscription cancellations up 12% after the price change', 'Mostly 1kg espresso plans.', 'open', 0, 12],
  ['revenue_spike', 'Japan revenue up 64% week over week', 'Drip-bag orders after the Instagram reels.', 'resolved', 6, 20],
]

/** What the product found worth doing (opportunities) and what it noticed (signals), in every status. */
export async function seedOpportunities(ctx: DemoContext) {
  const { r, ws, agoJitter, events } = ctx
  const now = ctx.now.getTime()
  const opportunities = OPPORTUNITIES.map(([title, detail, status, worth, est, measured, days]): OpportunityInsert => {
    const createdAt = agoJitter(days)
    const expiresAt =
      status === 'expired' ? new Date(createdAt.getTime() + 14 * DAY) : status === 'open' ? new Date(now + r.int(7, 30) * DAY) : null
    return {
      ...ws, id: newId('opportunity', createdAt), title, detail, status, worth,
      estimated_impact: byCurrency(est), measured_impact: measured ? byCurrency(measured) : null, expires_at: expiresAt, created_at: createdAt,
    }
  })
  for (const o of opportunities) {
    events.add('opportunity.created', o.created_at, { opportunity: { id: o.id, title: o.title, status: 'open', worth: o.worth, estimatedImpact: o.estimated_impact } })
  }
  const signals = SIGNALS.map(([kind, title, detail, status, opp, days]): SignalInsert => {
    const createdAt = agoJitter(days, 0.2)
    const resolvedAt = status === 'resolved' ? new Date(Math.min(createdAt.getTime() + r.float(2, 12) * DAY, now - 2 * HOUR)) : null
    return {
      ...ws, id: newId('signal', createdAt), kind, title, detail, status,
      opportunity_id: opp === null ? null : opportunities[opp].id, resolved_at: resolvedAt, created_at: createdAt,
    }
  })
  for (const s of signals) {
    const data = { id: s.id, kind: s.kind, title: s.title, opportunityId: s.opportunity_id }
    events.add('signal.created', s.created_at, { signal: { ...data, status: 'open' } })
    if (s.resolved_at) events.add('signal.resolved', s.resolved_at, { signal: { ...data, status: 'resolved', resolvedAt: isoOrNull(s.resolved_at) } })
  }
  await insertOpportunities(ctx.tx, opportunities)
  await insertSignals(ctx.tx, signals)
}
