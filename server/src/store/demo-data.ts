import { budgetEffect, campaignSwitchEffect, discountEffect, notDelivering, sendEffect, tagEffect } from '../domain/action-kinds.ts'
import { toAction } from '../domain/actions.ts'
import { toContact } from '../domain/contacts.ts'
import { checkWorkspaceLimits, loadWorkspaceLimits, type LimitFacts } from '../domain/limits.ts'
import { byCurrency, formatCount, formatMoney, type Money } from '../domain/money.ts'
import { isoOrNull as iso } from '../schemas/common.ts'
import type { ActionRow } from './actions.ts'
import type { ContactRow } from './contacts.ts'
import { decide, type DecisionInput } from '../domain/agent-decision.ts'
import { loadWorld, paramsDigest } from '../domain/agent-gateway.ts'
import { ruleSentence, type Facts, type RuleStructure } from '../domain/agent-rules.ts'
import { toProfile } from '../domain/agents.ts'
import { selectAgents } from './agents.ts'
import type { ApprovalRow } from './approvals.ts'
import { toApproval } from '../domain/insights.ts'
import { newId, type IdKind } from '../ids.ts'
import type { Tx } from './db.ts'

/**
 * Demo data for one existing workspace: six months of the history of "Northwind Coffee Roasters",
 * a specialty roaster selling online in the US, Europe and Japan. Every run draws from the same
 * seeded generator, so the data has the same shape each time (only ids differ). Rows go in with a
 * few bulk inserts, and the events outbox is written directly, numbered 1..N in time order.
 */

export type DemoFixtures = {
  openAbTestId: string
  decidedAbTestId: string
  emailSendId: string
  decisionId: string
  listId: string
  contactEmail: string
  doNotContactEmail: string
  trackedEvent: string
}

type Row = Record<string, unknown>
type Ev = { type: string; at: Date; data: Record<string, unknown> }

const DAY = 86_400_000
const HOUR = 3_600_000
const MINUTE = 60_000
const CHUNK = 500
/** Frequent event types keep only this recent stretch in the outbox; rare ones keep all history. */
const FREQUENT_EVENT_DAYS = 30
const FREQUENT_EVENTS = new Set(['decision.recorded', 'decision.measured', 'contact.created', 'contact.updated', 'workflow.started'])

// --- Deterministic randomness ---------------------------------------------------------------------

function mulberry32(seed: number) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) | 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

class Rng {
  private next: () => number
  constructor(seed: number) {
    this.next = mulberry32(seed)
  }
  float(min = 0, max = 1) {
    return min + (max - min) * this.next()
  }
  int(min: number, max: number) {
    return Math.floor(this.float(min, max + 1))
  }
  chance(p: number) {
    return this.next() < p
  }
  pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.next() * xs.length)]
  }
  weighted<T>(xs: readonly (readonly [T, number])[]): T {
    let r = this.float(0, xs.reduce((s, [, w]) => s + w, 0))
    for (const [x, w] of xs) if ((r -= w) < 0) return x
    return xs[xs.length - 1][0]
  }
  round(x: number, dp = 1) {
    const f = 10 ** dp
    return Math.round(x * f) / f
  }
}

// --- Small helpers --------------------------------------------------------------------------------

const money = (amountMinor: number, currency: string): Money => ({ amountMinor, currency })
const plain = (s: string) => s.normalize('NFD').replace(/[\u0300-\u036f]/g, '').replace(/[^A-Za-z]/g, '').toLowerCase()
const digits = (r: Rng, n: number) => Array.from({ length: n }, () => r.int(0, 9)).join('')

async function insertRows(tx: Tx, table: string, rows: Row[]) {
  for (let i = 0; i < rows.length; i += CHUNK) {
    await tx`INSERT INTO ${tx(table)} ${tx(rows.slice(i, i + CHUNK) as never)}`
  }
}

// --- Reference data -------------------------------------------------------------------------------

const PEOPLE = [
  { name: 'Maya Chen', title: 'Head of Growth' },
  { name: 'Daniel Okafor', title: 'Paid Media Lead' },
  { name: 'Sofia Lindqvist', title: 'Lifecycle Marketing' },
  { name: 'Kenji Watanabe', title: 'Japan Market Lead' },
]
const authorName = (p: (typeof PEOPLE)[number]) => `${p.name} (${p.title})`

type Country = 'us' | 'de' | 'fr' | 'nl' | 'es' | 'it' | 'se' | 'jp'
const COUNTRIES: Record<Country, { weight: number; first: string[]; last: string[]; domains: string[]; phone: (r: Rng) => string }> = {
  us: {
    weight: 55,
    first: ['Olivia', 'Liam', 'Emma', 'Noah', 'Ava', 'Ethan', 'Sophia', 'Mason', 'Harper', 'Elijah', 'Charlotte', 'Daniel', 'Grace', 'Samuel', 'Chloe', 'Henry', 'Zoe', 'Jack', 'Nora', 'Caleb', 'Priya', 'Arjun', 'Wei', 'Jasmine', 'Marcus', 'Aaliyah', 'Diego', 'Valeria', 'Tyler', 'Megan', 'Brandon', 'Lauren', 'Kevin', 'Rachel', 'Andre', 'Keisha', 'Connor', 'Hailey', 'Nathan', 'Brooke'],
    last: ['Bennett', 'Carter', 'Nguyen', 'Patel', 'Rodriguez', 'Kim', 'Johnson', 'Brooks', 'Sullivan', 'Hayes', 'Morales', 'Foster', 'Reyes', 'Park', 'Coleman', 'Walsh', 'Greene', 'Howard', 'Ramirez', 'Chen', 'Okafor', 'Washington', 'Jenkins', 'Price', 'Murphy', 'Delgado', 'Fitzgerald', 'Tran', 'Larson', 'Whitaker'],
    domains: ['gmail.com', 'gmail.com', 'gmail.com', 'yahoo.com', 'outlook.com', 'icloud.com', 'hey.com', 'proton.me', 'comcast.net'],
    phone: (r) => `+1 ${r.pick(['503', '206', '415', '512', '617', '303', '718'])}-555-01${digits(r, 2)}`,
  },
  de: {
    weight: 8,
    first: ['Lukas', 'Lena', 'Jonas', 'Marie', 'Felix', 'Hannah', 'Paul', 'Laura', 'Maximilian', 'Clara', 'Tobias', 'Johanna'],
    last: ['Weber', 'Fischer', 'Schneider', 'Becker', 'Hoffmann', 'Wagner', 'Schulz', 'Keller', 'Richter', 'Braun'],
    domains: ['gmx.de', 'web.de', 'posteo.de', 'gmail.com', 't-online.de'],
    phone: (r) => `+49 15${r.int(1, 9)} ${digits(r, 4)} ${digits(r, 4)}`,
  },
  fr: {
    weight: 6,
    first: ['Camille', 'Louis', 'Élise', 'Hugo', 'Manon', 'Théo', 'Chloé', 'Antoine', 'Léa', 'Julien'],
    last: ['Laurent', 'Moreau', 'Dubois', 'Lefèvre', 'Girard', 'Bonnet', 'Fontaine', 'Rousseau', 'Mercier', 'Blanc'],
    domains: ['orange.fr', 'free.fr', 'gmail.com', 'laposte.net'],
    phone: (r) => `+33 6 ${digits(r, 2)} ${digits(r, 2)} ${digits(r, 2)} ${digits(r, 2)}`,
  },
  nl: {
    weight: 4,
    first: ['Daan', 'Sanne', 'Bram', 'Fleur', 'Lars', 'Noor', 'Sem', 'Eva'],
    last: ['de Vries', 'Jansen', 'Bakker', 'Visser', 'Smit', 'Meijer', 'de Boer', 'Mulder'],
    domains: ['ziggo.nl', 'gmail.com', 'kpnmail.nl'],
    phone: (r) => `+31 6 ${digits(r, 4)} ${digits(r, 4)}`,
  },
  es: {
    weight: 4,
    first: ['Lucía', 'Pablo', 'Martina', 'Javier', 'Carmen', 'Álvaro', 'Elena', 'Sergio'],
    last: ['García', 'Fernández', 'López', 'Martínez', 'Sánchez', 'Romero', 'Navarro', 'Torres'],
    domains: ['gmail.com', 'hotmail.es', 'telefonica.net'],
    phone: (r) => `+34 6${digits(r, 2)} ${digits(r, 3)} ${digits(r, 3)}`,
  },
  it: {
    weight: 4,
    first: ['Giulia', 'Matteo', 'Francesca', 'Lorenzo', 'Chiara', 'Alessandro', 'Sara', 'Davide'],
    last: ['Rossi', 'Russo', 'Ferrari', 'Esposito', 'Bianchi', 'Romano', 'Colombo', 'Ricci'],
    domains: ['libero.it', 'gmail.com', 'virgilio.it'],
    phone: (r) => `+39 3${digits(r, 2)} ${digits(r, 3)} ${digits(r, 4)}`,
  },
  se: {
    weight: 3,
    first: ['Astrid', 'Erik', 'Freya', 'Oskar', 'Linnea', 'Axel', 'Maja', 'Nils'],
    last: ['Lindqvist', 'Andersson', 'Johansson', 'Berg', 'Nilsson', 'Holm', 'Sjöberg', 'Ek'],
    domains: ['gmail.com', 'telia.com', 'outlook.com'],
    phone: (r) => `+46 70 ${digits(r, 3)} ${digits(r, 2)} ${digits(r, 2)}`,
  },
  jp: {
    weight: 16,
    first: ['Haruto', 'Yui', 'Ren', 'Aoi', 'Sota', 'Hina', 'Yuto', 'Mio', 'Kenta', 'Sakura', 'Riku', 'Yuna', 'Daiki', 'Emi', 'Takumi', 'Nanami'],
    last: ['Sato', 'Suzuki', 'Takahashi', 'Tanaka', 'Watanabe', 'Ito', 'Yamamoto', 'Nakamura', 'Kobayashi', 'Kato', 'Yoshida', 'Yamada', 'Matsumoto', 'Inoue'],
    domains: ['gmail.com', 'yahoo.co.jp', 'icloud.com', 'docomo.ne.jp'],
    phone: (r) => `+81 90-${digits(r, 4)}-${digits(r, 4)}`,
  },
}
const COMPANIES: Record<'us' | 'eu' | 'jp', string[]> = {
  us: ['Bluebird Café', 'Harbor Office Supply', 'Lantern Bakery', 'Copper Kettle Diner', 'Greenline Coworking', 'Maple & Oak Catering', 'Tidewater Books'],
  eu: ['Fika Haus Berlin', 'Café Lumière', 'Panadería Sol', 'Studio Nord', 'Bar Centrale'],
  jp: ['Kissa Hoshino', 'Komorebi Books', 'Sakura Coworking'],
}
const region = (c: Country): 'us' | 'eu' | 'jp' => (c === 'us' ? 'us' : c === 'jp' ? 'jp' : 'eu')
const CURRENCY = { us: 'USD', eu: 'EUR', jp: 'JPY' } as const

const PRODUCTS: { name: string; price: Record<string, number> }[] = [
  { name: 'Ethiopia Guji Natural 340g', price: { USD: 2200, EUR: 2100, JPY: 3200 } },
  { name: 'House Espresso Blend 1kg', price: { USD: 4800, EUR: 4500, JPY: 6800 } },
  { name: 'Colombia Huila Decaf 340g', price: { USD: 1900, EUR: 1800, JPY: 2800 } },
  { name: 'Drip Bag Sampler (10)', price: { USD: 1600, EUR: 1500, JPY: 2400 } },
  { name: 'Kenya Kiambu AA 250g', price: { USD: 2400, EUR: 2300, JPY: 3600 } },
  { name: 'Guatemala Huehuetenango 340g', price: { USD: 2000, EUR: 1900, JPY: 3000 } },
  { name: 'Hario V60 Starter Kit', price: { USD: 3900, EUR: 3700, JPY: 4800 } },
]
const SHIPPING: Record<string, number> = { USD: 595, EUR: 495, JPY: 600 }
const FREE_SHIPPING: Record<string, number> = { USD: 4500, EUR: 4000, JPY: 6000 }
const ORIGINS = ['Ethiopia Guji', 'Kenya Kiambu AA', 'Guatemala Huehuetenango', 'Colombia Huila', 'Rwanda Nyamasheke', 'Sumatra Aceh']

// --- The seed -------------------------------------------------------------------------------------

export async function seedDemoData(
  tx: Tx,
  workspaceId: string,
  opts: { now: Date; agents: { id: string; name: string }[] },
): Promise<DemoFixtures> {
  const r = new Rng(20_24_11)
  const now = opts.now.getTime()
  const ago = (days: number) => new Date(now - days * DAY)
  const agoJitter = (days: number, spreadDays = 1) => new Date(now - (days + r.float(0, spreadDays)) * DAY)
  const id = (kind: IdKind, at: Date) => newId(kind, at)
  const j = (v: unknown) => tx.json(v as never)
  const ws = { workspace_id: workspaceId }
  const events: Ev[] = []
  const ev = (type: string, at: Date, data: Record<string, unknown>) => events.push({ type, at, data })
  const agents = opts.agents
  const agentAuthors = agents.map((a) => a.name)

  // What the workspace already holds: its plan's allowances.
  const [plan] = await tx<{ allowances: Record<string, number> }[]>`
    SELECT p.allowances FROM workspaces w JOIN plans p ON p.plan = w.plan WHERE w.workspace_id = ${workspaceId}`

  // --- Connections --------------------------------------------------------------------------------
  const googleFailingSince = new Date(now - 26 * HOUR - 17 * MINUTE)
  const connectionSpecs = [
    { kind: 'store', provider: 'shopify', name: 'Northwind Coffee (Shopify)', created: 182 },
    { kind: 'email_platform', provider: 'klaviyo', name: 'Klaviyo – Northwind', created: 181 },
    { kind: 'ad_account', provider: 'meta_ads', name: 'Meta Ads – Northwind US', created: 179 },
    { kind: 'ad_account', provider: 'google_ads', name: 'Google Ads – Northwind EU', created: 121 },
    { kind: 'social_account', provider: 'instagram', name: 'Instagram @northwindcoffee', created: 92 },
  ]
  const connections = connectionSpecs.map((c) => {
    const createdAt = agoJitter(c.created)
    const failing = c.provider === 'google_ads'
    return {
      ...ws,
      id: id('connection', createdAt),
      kind: c.kind,
      provider: c.provider,
      name: c.name,
      delivering: !failing,
      failing_since: failing ? googleFailingSince : null,
      last_delivered_at: failing ? googleFailingSince : new Date(now - r.int(2, 40) * MINUTE),
      created_at: createdAt,
    }
  })
  const connEvent = (c: (typeof connections)[number], failingSince: Date | null) => ({
    connection: { id: c.id, kind: c.kind, provider: c.provider, name: c.name, delivering: failingSince === null, failingSince: iso(failingSince) },
  })
  const insta = connections[4]
  const instaFailed = ago(38.6)
  ev('connection.failing', instaFailed, connEvent(insta, instaFailed))
  ev('connection.restored', new Date(instaFailed.getTime() + 3 * HOUR + 12 * MINUTE), connEvent(insta, null))
  ev('connection.failing', googleFailingSince, connEvent(connections[3], googleFailingSince))

  // --- Missions and automations -------------------------------------------------------------------
  const missionSpecs = [
    {
      key: 'repeat', name: 'Turn first orders into habits', status: 'active',
      objective: 'Lift the share of first-time buyers who order again within 60 days.',
      metric: ['repeat_purchase_rate', 'percent', 18.4, 23.1, 28], started: 178, due: -30, until: 0,
      automations: [['Post-purchase brew guide', 'post_purchase_flow', 'running'], ['Replenishment reminder', 'replenishment_flow', 'running'], ['Lapsed subscriber win-back', 'winback_flow', 'paused']],
    },
    {
      key: 'paid', name: 'Profitable paid acquisition', status: 'active',
      objective: 'Bring the blended cost of a first order down while holding first-order volume.',
      metric: ['cost_per_first_order', 'USD', 2850, 2410, 2200], started: 165, due: -45, until: 0,
      automations: [['Meta budget pacing', 'ad_budget_pacing', 'running'], ['Creative fatigue watch', 'creative_rotation', 'running'], ['Lookalike audience refresh', 'audience_refresh', 'finished']],
    },
    {
      key: 'holiday', name: 'Holiday gift box launch', status: 'completed',
      objective: 'Sell 1,000 three-origin gift boxes across the US, EU and Japan stores.',
      metric: ['gift_box_orders', 'count', 0, 1240, 1000], started: 150, due: 45, until: 45,
      automations: [['Gift guide sequence', 'email_sequence', 'finished'], ['Gift box retargeting', 'retargeting', 'finished']],
    },
    {
      key: 'eu', name: 'Grow the EU newsletter', status: 'paused',
      objective: 'Reach 6,000 newsletter subscribers in the EU store before the spring launch.',
      metric: ['eu_subscribers', 'count', 3200, 4150, 6000], started: 120, due: -20, until: 20,
      automations: [['Brew-quiz pop-up', 'popup_capture', 'paused'], ['Welcome series (DE/FR)', 'welcome_series', 'paused']],
    },
  ] as const
  const missions = missionSpecs.map((m) => {
    const startedAt = agoJitter(m.started, 0.5)
    return {
      ...ws,
      id: id('mission', startedAt),
      name: m.name,
      objective: m.objective,
      status: m.status,
      metric_name: m.metric[0],
      metric_unit: m.metric[1],
      baseline_value: m.metric[2],
      current_value: m.metric[3],
      target_value: m.metric[4],
      measured_at: m.status === 'completed' ? ago(m.until - 1) : new Date(now - r.int(3, 20) * HOUR),
      started_at: startedAt,
      due_at: ago(m.due),
      created_at: startedAt,
    }
  })
  const automations = missionSpecs.flatMap((m, i) =>
    m.automations.map(([name, kind, status], k) => {
      const createdAt = new Date(missions[i].started_at.getTime() + (1 + k * 4 + r.float(0, 3)) * DAY)
      return { ...ws, id: id('automation', createdAt), mission_id: missions[i].id, name, kind, status, created_at: createdAt }
    }),
  )

  // --- Decisions and their outcomes ---------------------------------------------------------------
  type Template = { title: () => string; rationale: string; measure: string; sign: 1 | -1; size: [number, number] }
  const T = (title: string | (() => string), rationale: string, measure: string, sign: 1 | -1, size: [number, number]): Template => ({
    title: typeof title === 'string' ? () => title : title, rationale, measure, sign, size,
  })
  const templates: Record<string, Template[]> = {
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
  const missionWeights: [number, number][] = [[0, 35], [1, 35], [2, 15], [3, 15]]
  const decisions: Row[] = []
  const outcomes: Row[] = []
  const DECISIONS = 320
  for (let n = 0; n < DECISIONS; n++) {
    const mi = r.weighted(missionWeights)
    const spec = missionSpecs[mi]
    const from = spec.started - 1
    const to = Math.max(spec.until, 0.2)
    const createdAt = ago(r.float(to, from))
    const t = r.pick(templates[spec.key])
    const byAgent = agentAuthors.length > 0 && r.chance(0.6)
    const author = byAgent ? r.pick(agentAuthors) : authorName(r.pick(PEOPLE))
    const predicted = t.sign * r.round(r.float(t.size[0], t.size[1]))
    const confidence = r.round(r.float(0.5, 0.95) * 20, 0) / 20
    const measuredAt = new Date(createdAt.getTime() + r.float(14, 35) * DAY)
    const measured = measuredAt.getTime() < now - HOUR && r.chance(0.66)
    const held = measured ? r.chance(confidence - (byAgent ? 0.12 : 0.02)) : null
    const actual = measured ? r.round(predicted * (held ? r.float(0.6, 1.6) : r.float(-0.5, 0.45))) : null
    const d = {
      ...ws,
      id: id('decision', createdAt),
      mission_id: missions[mi].id,
      author,
      author_kind: byAgent ? 'agent' : 'person',
      title: t.title(),
      rationale: t.rationale,
      measure: t.measure,
      predicted_change: predicted,
      confidence: Math.min(0.95, Math.max(0.5, confidence)),
      status: measured ? 'measured' : 'recorded',
      actual_change: actual,
      held,
      measured_at: measured ? measuredAt : null,
      created_at: createdAt,
    }
    decisions.push(d)
    const summary = { id: d.id, missionId: d.mission_id, title: d.title, author: { name: author, kind: d.author_kind } }
    ev('decision.recorded', createdAt, { decision: { ...summary, prediction: { measure: t.measure, change: predicted, confidence: d.confidence } } })
    if (measured) {
      outcomes.push({
        ...ws, id: id('outcome', measuredAt), decision_id: d.id, measure: t.measure, predicted, actual, held, measured_at: measuredAt, created_at: measuredAt,
      })
      ev('decision.measured', measuredAt, { decision: { ...summary, outcome: { change: actual, held, measuredAt: iso(measuredAt) } } })
    }
  }
  decisions.sort((a, b) => (a.created_at as Date).getTime() - (b.created_at as Date).getTime())
  const decisionsOf = (mi: number, before: Date) =>
    decisions.filter((d) => d.mission_id === missions[mi].id && (d.created_at as Date) < before)
  const fixtureDecision = decisionsOf(0, new Date(now + 1)).at(-1)!

  // --- Findings -----------------------------------------------------------------------------------
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
  const findings = findingSpecs.map(([title, status, reason, days]) => {
    const createdAt = agoJitter(days)
    return { ...ws, id: id('finding', createdAt), title, status, rejection_reason: reason, created_at: createdAt }
  })

  // --- Opportunities and signals ------------------------------------------------------------------
  type Opp = [string, string, 'open' | 'actioned' | 'dismissed' | 'expired', number, Money[], Money[] | null, number]
  const oppSpecs: Opp[] = [
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
  const opportunities = oppSpecs.map(([title, detail, status, worth, est, measured, days]) => {
    const createdAt = agoJitter(days)
    const expiresAt =
      status === 'expired' ? new Date(createdAt.getTime() + 14 * DAY) : status === 'open' ? new Date(now + r.int(7, 30) * DAY) : null
    return {
      ...ws, id: id('opportunity', createdAt), title, detail, status, worth,
      estimated_impact: byCurrency(est), measured_impact: measured ? byCurrency(measured) : null, expires_at: expiresAt, created_at: createdAt,
    }
  })
  for (const o of opportunities) {
    ev('opportunity.created', o.created_at, { opportunity: { id: o.id, title: o.title, status: 'open', worth: o.worth, estimatedImpact: o.estimated_impact } })
  }
  type Sig = [string, string, string, 'open' | 'resolved' | 'dismissed', number | null, number]
  const signalSpecs: Sig[] = [
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
  const signals = signalSpecs.map(([kind, title, detail, status, opp, days]) => {
    const createdAt = agoJitter(days, 0.2)
    const resolvedAt = status === 'resolved' ? new Date(Math.min(createdAt.getTime() + r.float(2, 12) * DAY, now - 2 * HOUR)) : null
    return {
      ...ws, id: id('signal', createdAt), kind, title, detail, status,
      opportunity_id: opp === null ? null : opportunities[opp].id, resolved_at: resolvedAt, created_at: createdAt,
    }
  })
  for (const s of signals) {
    const data = { id: s.id, kind: s.kind, title: s.title, opportunityId: s.opportunity_id }
    ev('signal.created', s.created_at, { signal: { ...data, status: 'open' } })
    if (s.resolved_at) ev('signal.resolved', s.resolved_at, { signal: { ...data, status: 'resolved', resolvedAt: iso(s.resolved_at) } })
  }

  // --- Campaigns, A/B tests, email sends, experiments ---------------------------------------------
  // The last figure is the connection (of connectionSpecs) that carries the campaign's changes out.
  const campaignSpecs: [string, string, string, number | null, string | null, number, number][] = [
    ['Monthly newsletter', 'email', 'active', null, null, 176, 1],
    ['Meta prospecting – US', 'ads', 'active', 12_000, 'USD', 170, 2],
    ['Google Shopping – EU', 'ads', 'active', 9_000, 'EUR', 118, 3],
    ['Instagram Japan – drip bags', 'ads', 'paused', 15_000, 'JPY', 90, 2],
    ['Restock alerts', 'sms', 'active', null, null, 75, 1],
    ['Brew-guide reels', 'social', 'finished', null, null, 62, 4],
    ['Ethiopia Guji washed launch', 'email', 'active', null, null, 9, 1],
  ]
  const campaigns = campaignSpecs.map(([name, channel, status, budget, currency, days, conn]) => {
    const createdAt = agoJitter(days)
    return {
      ...ws, id: id('campaign', createdAt), name, channel, status, daily_budget_minor: budget, currency, connection_id: connections[conn].id, created_at: createdAt,
    }
  })
  const [cNewsletter, cMeta, cGoogle, cInstagram, cSms, , cLaunch] = campaigns

  const abSpecs: [string, string, string, number, 'a' | 'b' | 'none' | null, number | null, string][] = [
    ['Newsletter subject: farmer story vs. discount', 'Meet the family behind our Guji', '15% off your next bag this week', 121, 'a', 111, cNewsletter.id],
    ['Gift guide subject: urgency vs. curiosity', 'Order by Dec 15 for holiday delivery', 'Three origins, one box, zero guesswork', 84, 'b', 76, cNewsletter.id],
    ['Brew guide: long read vs. three tips', 'The complete guide to your V60', 'Three tips for a sweeter cup', 44, 'none', 37, cNewsletter.id],
    ['Guji launch: tasting notes vs. farmer story', 'Jasmine, bergamot, peach: our new Guji', 'How the Guji washing station changed our coffee', 6, null, null, cLaunch.id],
    ['Cart reminder: free shipping vs. brew tip', 'Your coffee ships free over $45', 'Still thinking? Here is how to brew it', 2, null, null, cNewsletter.id],
  ]
  const abTests = abSpecs.map(([name, a, b, days, winner, decidedDays, campaignId]) => {
    const createdAt = agoJitter(days, 0.3)
    return {
      ...ws, id: id('abTest', createdAt), campaign_id: campaignId, name, variant_a: a, variant_b: b,
      status: winner ? 'decided' : 'running', winner, decided_at: decidedDays === null ? null : agoJitter(decidedDays, 0.3), created_at: createdAt,
    }
  })

  type SendSpec = [string, string, number, number | null, number | null, number | null, number]
  const sendSpecs: SendSpec[] = [
    // subject, campaign, recipients, sent (days ago), decided (days ago), holdout lift, created (days ago)
    ['Meet the family behind our Guji', cNewsletter.id, 14_820, 140, 126, 6.8, 141],
    ['Holiday gift boxes are here', cNewsletter.id, 18_450, 100, 86, 11.5, 101],
    ['Your brew guide for the new year', cNewsletter.id, 16_900, 70, 56, -0.4, 71],
    ['Spring espresso blend: first taste', cNewsletter.id, 17_120, 30, 16, 3.2, 31],
    ['Back in stock: Kenya Kiambu AA, 48 hours early for you', cSms.id, 3_210, 5, null, null, 5.5],
    ['New: Ethiopia Guji washed, tasting notes inside', cLaunch.id, 17_340, 2, null, null, 2.4],
    ['Last call: free shipping over $45 ends Sunday', cNewsletter.id, 16_880, null, null, null, 0.12],
    ['40% off everything this weekend only', cNewsletter.id, 18_010, null, null, null, 12],
  ]
  const sends = sendSpecs.map(([subject, campaignId, recipients, sent, decided, lift, created]) => {
    const createdAt = agoJitter(created, 0.05)
    return {
      ...ws, id: id('emailSend', createdAt), campaign_id: campaignId, subject, recipients,
      holdout_status: decided === null ? 'open' : 'decided', holdout_lift: lift,
      decided_at: decided === null ? null : agoJitter(decided, 0.2), sent_at: sent === null ? null : agoJitter(sent, 0.02), created_at: createdAt,
    }
  })

  type ExpSpec = [string, 'email_ab_test' | 'email_holdout' | 'sms_holdout', { id: string; created_at: Date; decided_at: Date | null; observed: string | null }, string, number | null]
  const abSubject = (i: number) => ({
    id: abTests[i].id, created_at: abTests[i].created_at, decided_at: abTests[i].decided_at,
    observed: abTests[i].winner === null ? null : ({ a: 'a_better', b: 'b_better', none: 'no_difference' } as const)[abTests[i].winner!],
  })
  const sendSubject = (i: number) => ({
    id: sends[i].id, created_at: sends[i].created_at, decided_at: sends[i].decided_at,
    observed: sends[i].holdout_status === 'decided' ? ((sends[i].holdout_lift ?? 0) > 0 ? 'send_adds' : 'no_difference') : null,
  })
  const experimentSpecs: ExpSpec[] = [
    ['A farmer story in the subject line beats a discount: our list opens for provenance, not coupons.', 'email_ab_test', abSubject(0), 'a_better', 0],
    ['Curiosity beats urgency for the gift guide; people still had weeks to order.', 'email_ab_test', abSubject(1), 'a_better', 2],
    ['Three short tips outperform the long guide on mobile, where 70% of opens happen.', 'email_ab_test', abSubject(2), 'b_better', 0],
    ['Tasting notes sell a new origin better than the farm story for people who already buy from us.', 'email_ab_test', abSubject(3), 'a_better', 0],
    ['The gift-box announcement adds orders beyond what the hold-back group buys anyway.', 'email_holdout', sendSubject(1), 'send_adds', 2],
    ['The new-year brew guide changes nothing measurable; its value is goodwill, not orders.', 'email_holdout', sendSubject(2), 'no_difference', 0],
    ['Early-access restock texts add Kiambu orders over the hold-back within 7 days.', 'sms_holdout', sendSubject(4), 'send_adds', 0],
  ]
  const experiments = experimentSpecs.map(([hypothesis, kind, subject, expectation, mission]) => {
    const end = subject.decided_at ?? new Date(now)
    const createdAt = new Date(subject.created_at.getTime() + r.float(0.1, 0.4) * (end.getTime() - subject.created_at.getTime()))
    const linked = mission === null ? undefined : decisionsOf(mission, createdAt).at(-1)
    const e = {
      ...ws, id: id('experiment', createdAt), hypothesis, kind, subject_id: subject.id, expectation,
      decision_id: (linked?.id as string | undefined) ?? null, created_at: createdAt,
    }
    const data = { id: e.id, kind, subjectId: subject.id, expectation, decisionId: e.decision_id, hypothesis }
    ev('experiment.created', createdAt, { experiment: { ...data, status: 'open', result: null } })
    if (subject.decided_at && subject.observed) {
      ev('experiment.decided', subject.decided_at, {
        experiment: { ...data, status: 'decided', result: { observed: subject.observed, held: subject.observed === expectation, decidedAt: iso(subject.decided_at) } },
      })
    }
    return e
  })

  // --- Approvals of sends -------------------------------------------------------------------------
  const approvals: Row[] = []
  // The same payload the live approval events carry: the Approval as GET /approvals shows it then.
  const approvalEvent = (a: Row, type: string, at: Date) => ev(type, at, { approval: toApproval(a as unknown as ApprovalRow, at) })
  const addApproval = (a: { kind: 'send' | 'agent_request'; status: string; summary: string; subjectId: string; requestedBy: string; decidedBy: string | null; createdAt: Date; decidedAt: Date | null; usedAt: Date | null }) => {
    const row = {
      ...ws, id: id('approval', a.createdAt), kind: a.kind, status: a.status, summary: a.summary, subject_id: a.subjectId,
      requested_by: a.requestedBy, decided_by: a.decidedBy, decided_at: a.decidedAt, expires_at: new Date(a.createdAt.getTime() + DAY),
      used_at: a.usedAt, created_at: a.createdAt,
    }
    approvals.push(row)
    approvalEvent({ ...row, status: 'pending', decided_by: null, decided_at: null, used_at: null }, 'approval.requested', a.createdAt)
    if (a.decidedAt) approvalEvent({ ...row, used_at: null }, a.status === 'approved' ? 'approval.approved' : 'approval.rejected', a.decidedAt)
    return row
  }
  const writerName = agents[1]?.name ?? agents[0]?.name ?? 'API'
  const sendSummary = (s: (typeof sends)[number]) => `Send "${s.subject}" to ${formatCount(s.recipients)} contacts`
  for (const [i, by, decider] of [[2, writerName, 0], [3, writerName, 2], [4, 'Sofia Lindqvist', 0], [5, writerName, 2]] as const) {
    const s = sends[i]
    const sentAt = s.sent_at!
    addApproval({
      kind: 'send', status: 'approved', summary: sendSummary(s), subjectId: s.id, requestedBy: by, decidedBy: PEOPLE[decider].name,
      createdAt: new Date(sentAt.getTime() - r.float(4, 9) * HOUR), decidedAt: new Date(sentAt.getTime() - r.float(0.5, 2) * HOUR), usedAt: sentAt,
    })
  }
  addApproval({
    kind: 'send', status: 'pending', summary: sendSummary(sends[6]), subjectId: sends[6].id, requestedBy: writerName, decidedBy: null,
    createdAt: sends[6].created_at, decidedAt: null, usedAt: null,
  })
  addApproval({
    kind: 'send', status: 'rejected', summary: sendSummary(sends[7]), subjectId: sends[7].id, requestedBy: 'API', decidedBy: 'Maya Chen',
    createdAt: sends[7].created_at, decidedAt: new Date(sends[7].created_at.getTime() + 2.5 * HOUR), usedAt: null,
  })

  // --- Contacts, lists, segments, do-not-contact --------------------------------------------------
  const doNotContact: [string, string, number][] = [
    ['tom.harlow@outlook.com', 'Unsubscribed from every list', 64],
    ['j.whitfield@yahoo.com', 'Hard bounce: mailbox does not exist', 131],
    ['claire.dupont@orange.fr', 'Asked to be forgotten (GDPR erasure)', 47],
    ['orders@copperkettlediner.com', 'Marked the newsletter as spam', 22],
    ['k.yamaguchi@docomo.ne.jp', 'Unsubscribed by replying STOP', 9],
  ]
  const blocked = new Set(doNotContact.map(([e]) => e))
  type Person = { country: Country; first: string; last: string; email: string }
  const taken = new Set<string>(blocked)
  const countryWeights = Object.entries(COUNTRIES).map(([c, v]) => [c as Country, v.weight] as const)
  const makePerson = (): Person => {
    for (;;) {
      const country = r.weighted(countryWeights)
      const pool = COUNTRIES[country]
      const first = r.pick(pool.first)
      const last = r.pick(pool.last)
      const f = plain(first)
      const l = plain(last)
      const local = r.weighted([[`${f}.${l}`, 5], [`${f}${l}`, 2], [`${f[0]}${l}`, 2], [`${f}_${l}`, 1], [`${f}.${l}${r.int(1, 99)}`, 2]] as const)
      let email = `${local}@${r.pick(pool.domains)}`
      if (taken.has(email)) continue
      taken.add(email)
      if (r.chance(0.04)) email = `${local[0].toUpperCase()}${local.slice(1)}`.replace(/\.(\w)/, (_, c: string) => '.' + c.toUpperCase()) + email.slice(email.indexOf('@'))
      return { country, first, last, email }
    }
  }
  const people: Person[] = [{ country: 'us', first: 'Olivia', last: 'Bennett', email: 'olivia.bennett@gmail.com' }]
  taken.add(people[0].email)
  while (people.length < 200) people.push(makePerson())
  const contacts = people.map((p, i) => {
    const createdAt = i === 0 ? ago(150) : agoJitter(r.float(0.3, 180), 0)
    const reg = region(p.country)
    const company = i !== 0 && r.chance(0.12) ? r.pick(COMPANIES[reg]) : null
    const tags: string[] = [reg]
    if (i === 0 || r.chance(0.3)) tags.push('subscriber')
    if (r.chance(0.6)) tags.push(i === 0 ? 'filter' : r.pick(['espresso', 'filter']))
    if (r.chance(0.08)) tags.push('vip')
    if (company) tags.push('wholesale')
    if (r.chance(0.1)) tags.push('gift-buyer')
    const updated = i > 0 && r.chance(0.12)
    const updatedAt = updated ? new Date(createdAt.getTime() + r.float(0.2, 0.9) * (now - createdAt.getTime())) : createdAt
    return {
      ...ws, id: id('contact', createdAt), email: p.email, email_key: p.email.toLowerCase(), name: `${p.first} ${p.last}`,
      first_name: p.first, last_name: p.last, company, phone: i === 0 || r.chance(0.35) ? COUNTRIES[p.country].phone(r) : null,
      tags, created_at: createdAt, updated_at: updatedAt,
    }
  })
  for (const c of contacts) {
    ev('contact.created', c.created_at, { contact: toContact({ ...c, tags: [...c.tags], updated_at: c.created_at } as ContactRow) })
    if (c.updated_at > c.created_at) ev('contact.updated', c.updated_at, { contact: toContact({ ...c, tags: [...c.tags] } as ContactRow) })
  }
  const listSpecs: [string, number, (c: (typeof contacts)[number], i: number) => boolean][] = [
    ['Newsletter', 178, (c, i) => i === 0 || !c.company && r.chance(0.72)],
    ['Coffee subscribers', 150, (c) => c.tags.includes('subscriber')],
    ['Wholesale leads', 95, (c) => c.company !== null],
  ]
  const lists = listSpecs.map(([name, days]) => {
    const createdAt = agoJitter(days)
    return { ...ws, id: id('list', createdAt), name, created_at: createdAt }
  })
  const listMembers = listSpecs.flatMap(([, , member], li) =>
    contacts.filter((c, i) => member(c, i)).map((c) => ({
      workspace_id: workspaceId, list_id: lists[li].id, contact_id: c.id,
      added_at: new Date(Math.max(c.created_at.getTime(), lists[li].created_at.getTime()) + r.int(1, 600) * 1000),
    })),
  )
  const has = (...tags: string[]) => contacts.filter((c) => tags.every((t) => c.tags.includes(t))).length
  const segments = [
    { name: 'VIP buyers', definition: { match: 'all', conditions: [{ field: 'tags', op: 'contains', value: 'vip' }] }, size: has('vip'), days: 140 },
    {
      name: 'Espresso drinkers in Europe',
      definition: { match: 'all', conditions: [{ field: 'tags', op: 'contains', value: 'espresso' }, { field: 'tags', op: 'contains', value: 'eu' }] },
      size: has('espresso', 'eu'), days: 60,
    },
  ].map((s) => {
    const createdAt = agoJitter(s.days)
    return { ...ws, id: id('segment', createdAt), name: s.name, definition: s.definition, size: s.size, created_at: createdAt }
  })
  const dnc = doNotContact.map(([email, reason, days]) => ({ ...ws, email_key: email, reason, created_at: agoJitter(days) }))

  // --- Actions (proposed changes) -----------------------------------------------------------------
  // Planned and worded by the same effect builders and limits check as POST /actions.
  const pacer = agents[0]
  const byAgent = (a: { id: string; name: string } | undefined) => (a ? { kind: 'agent', id: a.id, name: a.name } : { kind: 'api', id: null, name: 'API' })
  const byApi = { kind: 'api', id: null, name: 'API' }
  const limits = await loadWorkspaceLimits(tx, workspaceId)
  const connOf = (c: (typeof campaigns)[number]) => connections.find((x) => x.id === c.connection_id)!
  type Change = { args: Row; effect: Row; facts: LimitFacts }
  const budgetChange = (c: (typeof campaigns)[number], fromMinor: number, pct: number, asAmount = false): Change => {
    const from = money(fromMinor, c.currency!)
    const to = money(Math.round((fromMinor * (100 + pct)) / 100), c.currency!)
    const effect = budgetEffect(c, from, to)
    return {
      args: asAmount ? { campaignId: c.id, dailyBudget: to } : { campaignId: c.id, changePercent: pct },
      effect,
      facts: { budgetChangePercent: effect.changePercent as number },
    }
  }
  const campaignSwitch = (c: (typeof campaigns)[number], verb: 'pause' | 'resume'): Change => ({
    args: { campaignId: c.id },
    effect: campaignSwitchEffect(verb, { id: c.id, name: c.name, dailyBudget: c.daily_budget_minor ? money(c.daily_budget_minor, c.currency!) : null }),
    facts: {},
  })
  const discount = (code: string, pct: number, days: number, from: number): Change => {
    const args = { code, percentOff: pct, expiresAt: new Date(now - from * DAY + days * DAY).toISOString() }
    return { args, effect: discountEffect(args), facts: { discountPercent: pct } }
  }
  const newsletterList = lists[0]
  const newsletterReach = listMembers.filter((m) => m.list_id === newsletterList.id).length
  const send: Change = {
    args: { campaignId: cLaunch.id, listId: newsletterList.id },
    effect: sendEffect(cLaunch, { kind: 'list', id: newsletterList.id, name: newsletterList.name }, newsletterReach, null),
    facts: { recipients: newsletterReach },
  }
  const taggedSegment = segments[1]
  const TAG = 'spring-launch'
  const tagged = contacts.filter((c) => c.tags.includes('espresso') && c.tags.includes('eu'))
  const tagging: Change = {
    args: { tag: TAG, segmentId: taggedSegment.id },
    effect: tagEffect(TAG, { kind: 'segment', id: taggedSegment.id, name: taggedSegment.name }, tagged.length),
    facts: {},
  }
  const applied = (detail: string) => ({ ok: true, detail })
  type ActSpec = { kind: string; change: Change; status: string; by: Row; days: number; decidedBy?: string; decidedAfterH?: number; outcome?: Row }
  const actionSpecs: ActSpec[] = [
    { kind: 'adjust_budget', change: budgetChange(cMeta, 12_000, 15), status: 'proposed', by: byAgent(pacer), days: 0.9 },
    { kind: 'send_campaign', change: send, status: 'proposed', by: byApi, days: 0.1 },
    { kind: 'resume_campaign', change: campaignSwitch(cInstagram, 'resume'), status: 'approved', by: byAgent(pacer), days: 0.4, decidedBy: 'Kenji Watanabe', decidedAfterH: 3 },
    { kind: 'adjust_budget', change: budgetChange(cGoogle, 9_000, 15), status: 'applying', by: byAgent(pacer), days: 0.05, decidedBy: 'Daniel Okafor', decidedAfterH: 0.5 },
    { kind: 'pause_campaign', change: campaignSwitch(cInstagram, 'pause'), status: 'applied', by: byAgent(pacer), days: 41, decidedBy: 'Kenji Watanabe', decidedAfterH: 2, outcome: applied(`Campaign paused on ${connOf(cInstagram).name}.`) },
    { kind: 'adjust_budget', change: budgetChange(cMeta, 10_000, 20, true), status: 'applied', by: byAgent(pacer), days: 26, decidedBy: 'Daniel Okafor', decidedAfterH: 5, outcome: applied(`Daily budget set to ${formatMoney(money(12_000, 'USD'))} on ${connOf(cMeta).name}.`) },
    { kind: 'create_discount', change: discount('WELCOME10', 10, 30, 63), status: 'applied', by: byApi, days: 63, decidedBy: 'Maya Chen', decidedAfterH: 20, outcome: applied(`Discount code WELCOME10 created in ${connections[0].name}.`) },
    {
      kind: 'tag_contacts', change: tagging, status: 'applied', by: byAgent(agents[1] ?? pacer), days: 15, decidedBy: 'Sofia Lindqvist', decidedAfterH: 1,
      outcome: applied(`${tagged.length} contacts of segment "${taggedSegment.name}" tagged "${TAG}".`),
    },
    { kind: 'create_discount', change: discount('SPRING20', 20, 7, 20), status: 'rejected', by: byAgent(agents[1] ?? pacer), days: 20, decidedBy: 'Maya Chen', decidedAfterH: 6 },
    { kind: 'pause_campaign', change: campaignSwitch(cGoogle, 'pause'), status: 'rejected', by: byAgent(pacer), days: 9, decidedBy: 'Daniel Okafor', decidedAfterH: 1 },
    { kind: 'adjust_budget', change: budgetChange(cMeta, 12_000, 60), status: 'refused', by: byAgent(pacer), days: 11 },
    { kind: 'create_discount', change: discount('FLASH40', 40, 2, 12), status: 'refused', by: byApi, days: 12 },
    { kind: 'adjust_budget', change: budgetChange(cInstagram, 15_000, -45, true), status: 'refused', by: byApi, days: 33 },
    {
      kind: 'adjust_budget', change: budgetChange(cGoogle, 9_000, 10), status: 'failed', by: byAgent(pacer), days: 0.85, decidedBy: 'Daniel Okafor', decidedAfterH: 0.4,
      outcome: { ok: false, error: notDelivering(connOf(cGoogle)) },
    },
  ]
  for (const c of tagged) c.tags = [...c.tags, TAG]
  const actions = actionSpecs.map((a) => {
    const createdAt = agoJitter(a.days, 0.02)
    const decidedAt = a.decidedBy ? new Date(Math.min(createdAt.getTime() + (a.decidedAfterH ?? 1) * HOUR, now - MINUTE)) : null
    const doneAt = decidedAt && a.outcome ? new Date(Math.min(decidedAt.getTime() + r.int(1, 20) * 1000, now)) : null
    const verdict = checkWorkspaceLimits(limits, a.change.facts as LimitFacts)
    if (verdict.passed !== (a.status !== 'refused')) throw new Error(`demo action ${a.kind} ${a.status} disagrees with the limits`)
    const row = {
      ...ws, id: id('action', createdAt), kind: a.kind, args: a.change.args, status: a.status, planned_effect: a.change.effect,
      limits_allowed: verdict.passed, refusal_reason: verdict.passed ? null : verdict.reasons.join(' '), proposed_by: a.by, decided_by: a.decidedBy ?? null,
      decided_at: decidedAt, outcome: a.outcome ?? null, applied_at: a.status === 'applied' ? doneAt : null, created_at: createdAt,
    }
    const asOf = (status: string, more: Partial<typeof row> = {}) =>
      ({ action: toAction({ ...row, status, decided_by: null, decided_at: null, outcome: null, applied_at: null, ...more } as unknown as ActionRow) })
    ev(a.status === 'refused' ? 'action.refused' : 'action.proposed', createdAt, asOf(a.status === 'refused' ? 'refused' : 'proposed'))
    if (a.status === 'rejected') ev('action.rejected', decidedAt!, { action: toAction(row as unknown as ActionRow) })
    if (a.status === 'applied' || a.status === 'failed') ev(`action.${a.status}`, doneAt!, { action: toAction(row as unknown as ActionRow) })
    return row
  })
  const taggedAt = actions.find((a) => a.kind === 'tag_contacts')!.applied_at!
  for (const c of tagged) {
    if (c.updated_at < taggedAt) c.updated_at = taggedAt
    ev('contact.updated', taggedAt, { contact: toContact({ ...c, tags: [...c.tags], updated_at: taggedAt } as ContactRow) })
  }

  // --- Workflows and runs -------------------------------------------------------------------------
  const TRACKED_EVENT = 'checkout.abandoned'
  const workflowSpecs: [string, string, 'active' | 'paused', number, number][] = [
    ['Abandoned checkout rescue', TRACKED_EVENT, 'active', 74, 22],
    ['Post-purchase brew guide', 'order.placed', 'active', 170, 14],
    ['Subscription pause win-back', 'subscription.paused', 'paused', 110, 5],
    ['Welcome series', 'newsletter.subscribed', 'active', 176, 9],
  ]
  const workflows = workflowSpecs.map(([name, trigger, status, days]) => {
    const createdAt = agoJitter(days)
    return { ...ws, id: id('workflow', createdAt), name, trigger_event: trigger, status, created_at: createdAt }
  })
  const runs: Row[] = []
  workflowSpecs.forEach(([, trigger, status, days, count], wi) => {
    const wf = workflows[wi]
    for (let k = 0; k < count; k++) {
      const latest = status === 'paused' ? 30 : 0.05
      const createdAt = ago(r.float(latest, Math.min(days - 1, 60)))
      const c = r.pick(contacts)
      const cur = CURRENCY[c.tags[0] as 'us' | 'eu' | 'jp']
      const properties =
        trigger === TRACKED_EVENT ? { cartValueMinor: r.pick(PRODUCTS).price[cur] * r.int(1, 3), currency: cur, items: r.int(1, 3), step: r.pick(['shipping', 'payment']) }
        : trigger === 'order.placed' ? { orderValueMinor: r.pick(PRODUCTS).price[cur] + SHIPPING[cur], currency: cur, firstOrder: r.chance(0.6) }
        : trigger === 'subscription.paused' ? { plan: r.pick(['340g every 2 weeks', '1kg monthly', '250g weekly']), reason: r.pick(['too much coffee', 'travelling', 'price']) }
        : { source: r.pick(['popup', 'checkout', 'brew-quiz']) }
      const age = (now - createdAt.getTime()) / DAY
      const run = {
        ...ws, id: id('run', createdAt), workflow_id: wf.id, contact_id: c.id, event: trigger, properties,
        status: age < 3 ? 'started' : r.weighted([['completed', 8], ['exited', 2]] as const), created_at: createdAt,
      }
      runs.push(run)
      ev('workflow.started', createdAt, { run: { id: run.id, workflowId: wf.id, workflowName: wf.name, contactId: c.id, event: trigger, properties, createdAt: iso(createdAt) } })
    }
  })

  // --- Customers and orders -----------------------------------------------------------------------
  const customers: Row[] = []
  const orders: Row[] = []
  const buyerPeople = contacts.slice(0, 110).map((c) => ({ name: c.name, email: c.email, reg: c.tags[0] as 'us' | 'eu' | 'jp' }))
  while (buyerPeople.length < 150) {
    const p = makePerson()
    buyerPeople.push({ name: `${p.first} ${p.last}`, email: p.email, reg: region(p.country) })
  }
  const stagePlan: ('prospect' | 'first_time' | 'repeat' | 'lapsed')[] = []
  for (let k = 0; k < 150; k++) stagePlan.push(k === 0 ? 'repeat' : r.weighted([['prospect', 14], ['first_time', 24], ['repeat', 86], ['lapsed', 26]] as const))
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
    const customerId = id('customer', createdAt)
    customers.push({
      ...ws, id: customerId, name: p.name, email: p.email, stage,
      first_order_at: placed[0] ?? null, last_order_at: placed.at(-1) ?? null, created_at: createdAt,
    })
    for (const at of placed) {
      orders.push({ ...ws, id: id('order', at), customer_id: customerId, amount_minor: basket(cur), currency: cur, attributed_channel: channelOf(), placed_at: at, created_at: at })
    }
  })

  // --- Rules, agent requests, results -------------------------------------------------------------
  // The seeded requests are decided by the real gateway's decision function, on the agents' own
  // permissions, data, ceilings and risk, the workspace's limits and these rules.
  const world = await loadWorld(tx, workspaceId)
  const profiles = new Map((await selectAgents(tx, workspaceId)).map((row) => [row.id, toProfile(row)]))
  const [{ secret_key: secretKey }] = await tx<{ secret_key: string }[]>`SELECT secret_key FROM workspaces WHERE workspace_id = ${workspaceId}`
  const rulesCreated = [150, 150, 97].map((d) => agoJitter(d))
  const ruleSpecs: { structure: RuleStructure; effect: 'deny' | 'require_approval' }[] = [
    {
      structure: { match: [{ tool: 'ads', action: 'adjust_budget' }], when: [{ fact: 'increase', op: '=', value: true }, { fact: 'amountPercent', op: '>', value: 15 }] },
      effect: 'require_approval',
    },
    { structure: { match: [{ tool: 'email', action: 'send_campaign' }, { tool: 'sms', action: 'send_message' }], when: [{ fact: 'recipients', op: '>', value: 10_000 }] }, effect: 'require_approval' },
    { structure: { match: [{ tool: 'contacts', action: 'export_contacts' }], when: [{ fact: 'records', op: '>', value: 500 }] }, effect: 'deny' },
  ]
  const RULES_VERSION = ruleSpecs.length
  const rules = ruleSpecs.map((s, i) => ({ ...ws, id: id('rule', rulesCreated[i]), structure: s.structure, effect: s.effect, enabled: true, created_at: rulesCreated[i] }))
  const rulesInForce = rules.map((row, i) => ({ id: row.id, ...ruleSpecs[i], sentence: ruleSentence(ruleSpecs[i], world.toolNames) }))
  const permittedOf = (agentId: string) => profiles.get(agentId)?.permissions ?? new Set<string>()
  const judge = (agent: { id: string }, s: Scenario, at: Date, approval: { id: string; name: string; expiresAt: Date } | null) =>
    decide({
      agent: profiles.get(agent.id)!,
      stopped: null,
      tool: s.tool,
      action: s.action,
      tools: world.tools,
      actionDef: world.actions.get(`${s.tool}.${s.action}`) ?? null,
      facts: s.facts,
      rules: rulesInForce,
      rulesVersion: RULES_VERSION,
      limits: world.limits,
      at,
      prior: approval ? { state: 'approved', id: approval.id, decidedBy: approval.name, expiresAt: approval.expiresAt } : null,
    } satisfies DecisionInput)
  const scenarios: [Scenario, number][] = [
    [{ tool: 'ads', action: 'read_performance', resource: cMeta.id, summary: `Read yesterday's spend and first orders for "${cMeta.name}"`, facts: {} }, 3],
    [{ tool: 'ads', action: 'read_performance', resource: cGoogle.id, summary: `Read this week's cost per click for "${cGoogle.name}"`, facts: {} }, 2],
    [{ tool: 'ads', action: 'pause_campaign', resource: cInstagram.id, summary: `Pause "${cInstagram.name}" (frequency 4.8, cost per order up 41%)`, facts: {} }, 1.5],
    [budgetScenario(cMeta, 12_000, 10), 1.5],
    [budgetScenario(cGoogle, 9_000, 12), 1.5],
    [budgetScenario(cInstagram, 15_000, 15), 1],
    [budgetScenario(cMeta, 12_000, 18), 1.5],
    [budgetScenario(cMeta, 12_000, 25), 1],
    [{ tool: 'email', action: 'draft_campaign', resource: cSms.id, summary: 'Draft "Back in stock: Kenya Kiambu AA" for Coffee subscribers', facts: {} }, 2],
    [{ tool: 'email', action: 'draft_campaign', resource: cNewsletter.id, summary: 'Draft the monthly newsletter: spring origins', facts: {} }, 1.5],
    [{ tool: 'email', action: 'send_campaign', resource: lists[1].id, summary: 'Send "Your next bag ships Monday" to Coffee subscribers', facts: { recipients: 3_200 } }, 2],
    [{ tool: 'email', action: 'send_campaign', resource: lists[0].id, summary: 'Send "Spring origins are here" to the Newsletter list', facts: { recipients: 16_900 } }, 1],
    [{ tool: 'contacts', action: 'tag_contacts', resource: segments[0].id, summary: 'Tag 38 repeat buyers as vip', facts: { records: 38 } }, 2],
    [{ tool: 'contacts', action: 'tag_contacts', resource: lists[0].id, summary: 'Tag 112 contacts who bought espresso as espresso', facts: { records: 112 } }, 1],
    [{ tool: 'contacts', action: 'export_contacts', resource: lists[0].id, summary: 'Export the Newsletter list to the ads audience sync', facts: { records: 4_200 } }, 0.6],
    [{ tool: 'discounts', action: 'create_discount', resource: 'shopify', summary: 'Create code BREW10: 10% off for 14 days', facts: { amountPercent: 10 } }, 1],
  ]
  function budgetScenario(c: (typeof campaigns)[number], from: number, pct: number): Scenario {
    const to = Math.round((from * (100 + pct)) / 100)
    return {
      tool: 'ads', action: 'adjust_budget', resource: c.id,
      summary: `Raise "${c.name}" from ${formatMoney(money(from, c.currency!))} to ${formatMoney(money(to, c.currency!))} a day (+${pct}%)`,
      facts: { amountMinor: to, currency: c.currency!, amountPercent: pct, increase: true },
    }
  }
  const requests: Row[] = []
  const results: Row[] = []
  const REQUESTS = 30
  const perAgent = agents.length ? Math.ceil(REQUESTS / agents.length) : 0
  const lastActed = new Map<string, Date>()
  agents.forEach((agent, ai) => {
    const permitted = permittedOf(agent.id)
    const weights = scenarios.map(([s, w]) => [s, permitted.has(`${s.tool}.${s.action}`) ? w : w * 0.12] as const)
    // The agent's latest request waits for a person, if anything it may do can need one.
    const waiting = scenarios.find(([s]) => permitted.has(`${s.tool}.${s.action}`) && judge(agent, s, opts.now, null).decision === 'requires_approval')
    for (let k = 0; k < perAgent; k++) {
      const last = k === perAgent - 1
      const createdAt = last ? ago(r.float(0.1, 0.25) + ai * 0.05) : ago(Math.max(0.3, 28 * (1 - (k + 0.5) / perAgent) + r.float(-0.4, 0.4)))
      const s = last && waiting ? waiting[0] : r.weighted(weights)
      const push = (at: Date, approvedBy: { id: string; name: string; expiresAt: Date } | null) => {
        const verdict = judge(agent, s, at, approvedBy)
        const row = {
          ...ws, id: id('authorization', at), agent_id: agent.id, tool: s.tool, action: s.action, resource: s.resource, summary: s.summary,
          facts: s.facts, params_digest: paramsDigest(secretKey, undefined),
          decision: verdict.decision, reason: verdict.reason, checks: verdict.checks, rules: verdict.rules, rules_version: RULES_VERSION,
          approval_id: null as string | null, expires_at: verdict.decision === 'allowed' ? new Date(at.getTime() + 15 * MINUTE) : null, created_at: at,
        }
        requests.push(row)
        lastActed.set(agent.id, at)
        ev('agent.request.decided', at, {
          request: { authorizationId: row.id, agentId: agent.id, agentName: agent.name, tool: s.tool, action: s.action, decision: row.decision, mayProceed: row.decision === 'allowed', reason: row.reason },
        })
        return row
      }
      const row = push(createdAt, null)
      if (row.decision === 'requires_approval') {
        const age = (now - createdAt.getTime()) / DAY
        const status = age < 0.8 ? 'pending' : r.chance(0.7) ? 'approved' : 'rejected'
        const decider = r.pick(PEOPLE)
        const decidedAt = status === 'pending' ? null : new Date(createdAt.getTime() + r.float(0.2, 5) * HOUR)
        const followUp = status === 'approved' && decidedAt ? new Date(decidedAt.getTime() + r.float(5, 40) * MINUTE) : null
        const approval = addApproval({
          kind: 'agent_request', status, summary: s.summary, subjectId: row.id, requestedBy: agent.name, decidedBy: decidedAt ? decider.name : null,
          createdAt, decidedAt, usedAt: followUp,
        })
        row.approval_id = approval.id as string
        if (followUp) push(followUp, { id: approval.id as string, name: decider.name, expiresAt: approval.expires_at })
      }
    }
  })
  requests.sort((a, b) => (a.created_at as Date).getTime() - (b.created_at as Date).getTime())
  const allowed = requests.filter((q) => q.decision === 'allowed')
  allowed.forEach((q, k) => {
    const at = new Date((q.created_at as Date).getTime() + r.float(1, 9) * MINUTE)
    if (at.getTime() > now || (k % 5 === 4 && q.action !== 'adjust_budget')) return
    const googleDown = q.resource === cGoogle.id && q.action !== 'read_performance' && at.getTime() > googleFailingSince.getTime()
    const provider = q.tool === 'ads' ? (q.resource === cGoogle.id ? 'Google Ads' : 'Meta Ads') : q.tool === 'discounts' ? 'Shopify' : 'Klaviyo'
    const status = googleDown || (k % 7 === 3 && q.action !== 'read_performance') ? 'failed' : k % 9 === 7 ? 'cancelled' : 'completed'
    const error =
      googleDown ? 'Google Ads API: 401 UNAUTHENTICATED (the OAuth grant was revoked).'
      : status === 'failed' ? `${provider} did not answer within 30 seconds; nothing was changed.` : null
    const summary =
      status === 'cancelled' ? (q.tool === 'ads' ? 'Stopped: a person paused the campaign first.' : 'Stopped: the team asked to hold it until Monday.')
      : status === 'failed' ? 'The change did not go through.'
      : q.action === 'read_performance' ? 'Read 7 days of spend, clicks and first orders.'
      : `Done: ${(q.summary as string).charAt(0).toLowerCase()}${(q.summary as string).slice(1)}.`
    const res = {
      ...ws, id: id('result', at), authorization_id: q.id, agent_id: q.agent_id, status, summary,
      error, verified: false, created_at: at,
    }
    results.push(res)
    ev('agent.result.reported', at, { result: { id: res.id, authorizationId: q.id, agentId: q.agent_id, status, summary, error: res.error, verified: false } })
  })

  // --- Usage for the current month ----------------------------------------------------------------
  const monthStart = new Date(Date.UTC(opts.now.getUTCFullYear(), opts.now.getUTCMonth(), 1))
  const monthEnd = new Date(Date.UTC(opts.now.getUTCFullYear(), opts.now.getUTCMonth() + 1, 1))
  const elapsed = Math.max(0.03, (now - monthStart.getTime()) / (monthEnd.getTime() - monthStart.getTime()))
  const allowances = plan?.allowances ?? {}
  const share: Record<string, number> = { emails: 0.62, sms: 0.38, trackedEvents: 0.47, agentRequests: 0.04 }
  const usage = Object.entries(share).map(([name, s]) => ({
    ...ws, name, period_start: monthStart.toISOString().slice(0, 10),
    used: Math.round((allowances[name] ?? 10_000) * s * elapsed) + (name === 'agentRequests' ? requests.filter((q) => (q.created_at as Date) >= monthStart).length : 0),
  }))

  // --- The events outbox --------------------------------------------------------------------------
  const since = now - FREQUENT_EVENT_DAYS * DAY
  const kept = events
    .filter((e) => e.at.getTime() <= now && (!FREQUENT_EVENTS.has(e.type) || e.at.getTime() >= since))
    .map((e, i) => ({ e, i }))
    .sort((a, b) => a.e.at.getTime() - b.e.at.getTime() || a.i - b.i)
  const eventRows = kept.map(({ e }, i) => ({ ...ws, seq: i + 1, id: id('event', e.at), type: e.type, data: e.data, created_at: e.at }))

  // --- Write everything ---------------------------------------------------------------------------
  const jsonCols = (rows: Row[], cols: string[]) => rows.map((x) => ({ ...x, ...Object.fromEntries(cols.map((c) => [c, x[c] === null ? null : j(x[c])])) }))
  await insertRows(tx, 'connections', connections)
  await insertRows(tx, 'missions', missions)
  await insertRows(tx, 'automations', automations)
  await insertRows(tx, 'decisions', decisions)
  await insertRows(tx, 'outcomes', outcomes)
  await insertRows(tx, 'findings', findings)
  await insertRows(tx, 'opportunities', jsonCols(opportunities, ['estimated_impact', 'measured_impact']))
  await insertRows(tx, 'signals', signals)
  await insertRows(tx, 'campaigns', campaigns)
  await insertRows(tx, 'ab_tests', abTests)
  await insertRows(tx, 'email_sends', sends)
  await insertRows(tx, 'experiments', experiments)
  await insertRows(tx, 'approvals', approvals)
  await insertRows(tx, 'actions', jsonCols(actions, ['args', 'planned_effect', 'proposed_by', 'outcome']))
  await insertRows(tx, 'contacts', contacts)
  await insertRows(tx, 'lists', lists)
  await insertRows(tx, 'list_members', listMembers)
  await insertRows(tx, 'segments', jsonCols(segments, ['definition']))
  await insertRows(tx, 'do_not_contact', dnc)
  await insertRows(tx, 'workflows', workflows)
  await insertRows(tx, 'workflow_runs', jsonCols(runs, ['properties']))
  await insertRows(tx, 'customers', customers)
  await insertRows(tx, 'orders', orders)
  await insertRows(tx, 'usage_counters', usage)
  await insertRows(tx, 'rules', jsonCols(rules, ['structure']))
  await insertRows(tx, 'agent_requests', jsonCols(requests, ['facts', 'checks', 'rules']))
  await insertRows(tx, 'agent_results', results)
  await insertRows(tx, 'events', jsonCols(eventRows, ['data']))
  await tx`UPDATE workspaces SET event_seq = ${eventRows.length}, rules_version = ${RULES_VERSION} WHERE workspace_id = ${workspaceId}`
  for (const [agentId, at] of lastActed) {
    await tx`UPDATE agents SET last_acted_at = ${at} WHERE workspace_id = ${workspaceId} AND id = ${agentId}`
  }

  return {
    openAbTestId: abTests[3].id,
    decidedAbTestId: abTests[2].id,
    emailSendId: sends[5].id,
    decisionId: fixtureDecision.id as string,
    listId: lists[0].id,
    contactEmail: contacts[0].email,
    doNotContactEmail: doNotContact[0][0],
    trackedEvent: TRACKED_EVENT,
  }
}

type Scenario = { tool: string; action: string; resource: string; summary: string; facts: Facts }
