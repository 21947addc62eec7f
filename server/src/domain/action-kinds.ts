import { z } from 'zod'
import { conflict, invalidRequest, notFound } from '../errors.ts'
import { idOf } from '../schemas/common.ts'
import type { Tx } from '../store/db.ts'
import * as store from '../store/actions.ts'
import { selectList } from '../store/contacts.ts'
import { consumeMonthly, holdContactsAllowance } from './allowances.ts'
import { toContact } from './contacts.ts'
import { checkWorkspaceLimits, loadWorkspaceLimits, type LimitFacts } from './limits.ts'
import { formatCount, formatMoney, isCurrency, type Money } from './money.ts'

/**
 * The registry of proposed-change kinds. Each declares its args (a strict zod schema), how to plan
 * it (what it would do, in words and figures, and the facts the workspace limits judge), and how
 * the stand-in executor carries it out once a person approves it.
 *
 * The effect builders are plain functions, so the demo seed describes its actions exactly as the
 * planner does.
 */

export type PlannedEffect = { summary: string } & Record<string, unknown>
export type Plan = { effect: PlannedEffect; facts: LimitFacts }
export type Outcome = { ok: true; detail: string } | { ok: false; error: string }
export type EventSpec = { type: string; data: Record<string, unknown> }
export type KindContext = {
  tx: Tx
  workspaceId: string
  now: Date
  /** The executor's changes to this service's own records are events too (e.g. contact.updated). */
  emit?: (events: EventSpec[]) => void
}

type Kind<S extends z.ZodType> = {
  description: string
  args: S
  plan(ctx: KindContext, args: z.output<S>): Promise<Plan>
  execute(ctx: KindContext, args: z.output<S>, effect: PlannedEffect): Promise<Outcome>
}
const defineKind = <S extends z.ZodType>(k: Kind<S>) => k as unknown as Kind<z.ZodType<Record<string, unknown>>>

// --- Effects in words and figures (pure) ------------------------------------------------------------

type CampaignRef = { id: string; name: string }
export type AudienceRef = { kind: 'list' | 'segment'; id: string; name: string }

const round2 = (x: number) => Math.round(x * 100) / 100
const audienceWords = (a: AudienceRef) => `${a.kind} "${a.name}"`

export function campaignSwitchEffect(verb: 'pause' | 'resume', c: CampaignRef & { dailyBudget: Money | null }): PlannedEffect {
  const budget = c.dailyBudget ? ` (daily budget ${formatMoney(c.dailyBudget)})` : ''
  return {
    summary: `${verb === 'pause' ? 'Pause' : 'Resume'} "${c.name}"${budget}`,
    campaign: { id: c.id, name: c.name },
    statusBefore: verb === 'pause' ? 'active' : 'paused',
    statusAfter: verb === 'pause' ? 'paused' : 'active',
    dailyBudget: c.dailyBudget,
  }
}

const changePercentOf = (from: number, to: number) => round2(((to - from) / from) * 100)

export function budgetEffect(c: CampaignRef, from: Money, to: Money): PlannedEffect {
  const pct = changePercentOf(from.amountMinor, to.amountMinor)
  return {
    summary: `Daily budget of "${c.name}": ${formatMoney(from)} -> ${formatMoney(to)} (${pct >= 0 ? '+' : ''}${pct}%)`,
    campaign: { id: c.id, name: c.name },
    from,
    to,
    changePercent: pct,
  }
}

export function sendEffect(c: CampaignRef, audience: AudienceRef, recipients: number, sendAt: Date | null): PlannedEffect {
  return {
    summary: `Send "${c.name}" to ${formatCount(recipients)} contacts of ${audienceWords(audience)}${sendAt ? ` at ${sendAt.toISOString()}` : ' once approved'}`,
    campaign: { id: c.id, name: c.name },
    audience,
    recipients,
    sendAt: sendAt ? sendAt.toISOString() : null,
  }
}

export function discountEffect(d: { code: string; percentOff: number; expiresAt: string }): PlannedEffect {
  return {
    summary: `Create discount code ${d.code}: ${d.percentOff}% off until ${d.expiresAt}`,
    code: d.code,
    percentOff: d.percentOff,
    expiresAt: d.expiresAt,
  }
}

export function tagEffect(tag: string, audience: AudienceRef, contacts: number): PlannedEffect {
  return {
    summary: `Tag ${formatCount(contacts)} contacts of ${audienceWords(audience)} with "${tag}"`,
    tag,
    audience,
    contacts,
  }
}

// --- Args ------------------------------------------------------------------------------------------

const campaignId = idOf('cmp', 'a campaign').describe('The campaign (cmp_...).')
const listId = idOf('lst', 'a list').optional().describe('A list (lst_...); give listId or segmentId.')
const segmentId = idOf('seg', 'a segment').optional().describe('A segment (seg_...); give listId or segmentId.')
const future = z.iso.datetime({ offset: true })
const MoneyArg = z.strictObject({
  amountMinor: z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
  currency: z.string().refine(isCurrency, { message: 'must be an ISO 4217 currency code in capitals' }),
})
const oneAudience = (a: { listId?: string; segmentId?: string }) => (a.listId === undefined) !== (a.segmentId === undefined)
const ONE_AUDIENCE = { message: 'give exactly one of listId or segmentId' }

// --- Loading what the args name (404 when not in this workspace) ----------------------------------

async function campaignOf(ctx: KindContext, id: string, opts: { lock?: boolean } = {}) {
  const c = await store.selectCampaign(ctx.tx, ctx.workspaceId, id, opts)
  if (!c) throw notFound('campaign', id)
  return c
}

const budgetOf = (c: store.CampaignRow): Money | null =>
  c.daily_budget_minor !== null && c.currency ? { amountMinor: c.daily_budget_minor, currency: c.currency } : null

type Audience = { ref: AudienceRef; query: store.AudienceQuery }

async function audienceOf(ctx: KindContext, a: { listId?: string; segmentId?: string }): Promise<Audience> {
  if (a.listId !== undefined) {
    const list = await selectList(ctx.tx, ctx.workspaceId, a.listId)
    if (!list) throw notFound('list', a.listId)
    return { ref: { kind: 'list', id: list.id, name: list.name }, query: { kind: 'list', id: list.id } }
  }
  const seg = await store.selectSegment(ctx.tx, ctx.workspaceId, a.segmentId!)
  if (!seg) throw notFound('segment', a.segmentId!)
  const query = segmentQuery(seg.definition)
  if (!query) throw invalidRequest(`Segment ${seg.id} ("${seg.name}") has a definition this service cannot evaluate; use a list.`)
  return { ref: { kind: 'segment', id: seg.id, name: seg.name }, query }
}

/** Segments this service can evaluate: conditions on tags (all or any of them). */
function segmentQuery(definition: unknown): store.AudienceQuery | null {
  const d = definition as { match?: string; conditions?: { field?: string; op?: string; value?: unknown }[] } | null
  const conditions = d?.conditions
  if (!Array.isArray(conditions) || !conditions.length) return null
  if (!conditions.every((c) => c.field === 'tags' && c.op === 'contains' && typeof c.value === 'string')) return null
  return { kind: 'segment', match: d?.match === 'any' ? 'any' : 'all', tags: conditions.map((c) => c.value as string) }
}

/** The campaign is no longer in the state the plan was made for. */
const movedOn = (c: store.CampaignRow, planned: string, verb = 'changed') =>
  `Campaign "${c.name}" is ${c.status} now, not ${planned} as planned; nothing was ${verb}.`

export const notDelivering = (conn: { name: string; failing_since: Date | null }) =>
  `${conn.name} is not delivering${conn.failing_since ? ` (failing since ${conn.failing_since.toISOString()})` : ''}; nothing was changed.`

// --- The stand-in executor's reach: the connection that would carry the change out -----------------

async function connectionOf(ctx: KindContext, c: store.CampaignRow): Promise<{ name: string } | { error: string }> {
  if (!c.connection_id) return { error: `Campaign "${c.name}" has no connected account to carry out the change; nothing was changed.` }
  const conn = await store.selectConnection(ctx.tx, ctx.workspaceId, c.connection_id)
  if (!conn) return { error: `The connection of campaign "${c.name}" no longer exists; nothing was changed.` }
  if (!conn.delivering) {
    return { error: notDelivering(conn) }
  }
  return { name: conn.name }
}

/** Shared by the campaign kinds: the campaign as it is now, locked, and its delivering connection. */
async function reachCampaign(ctx: KindContext, id: string): Promise<{ c: store.CampaignRow; via: string } | Outcome> {
  const c = await store.selectCampaign(ctx.tx, ctx.workspaceId, id, { lock: true })
  if (!c) return { ok: false, error: `Campaign ${id} no longer exists; nothing was changed.` }
  const conn = await connectionOf(ctx, c)
  if ('error' in conn) return { ok: false, error: conn.error }
  return { c, via: conn.name }
}

function switchKind(verb: 'pause' | 'resume') {
  const from = verb === 'pause' ? 'active' : 'paused'
  const to = verb === 'pause' ? 'paused' : 'active'
  return defineKind({
    description: `${verb === 'pause' ? 'Pause an active' : 'Resume a paused'} campaign. args: { campaignId }.`,
    args: z.strictObject({ campaignId }),
    async plan(ctx, args) {
      const c = await campaignOf(ctx, args.campaignId)
      if (c.status !== from) throw conflict(`Campaign ${c.id} ("${c.name}") is ${c.status}; only ${from === 'active' ? 'an active' : 'a paused'} campaign can be ${verb}d.`)
      return { effect: campaignSwitchEffect(verb, { id: c.id, name: c.name, dailyBudget: budgetOf(c) }), facts: {} }
    },
    async execute(ctx, args) {
      const reached = await reachCampaign(ctx, args.campaignId)
      if ('ok' in reached) return reached
      if (reached.c.status === to) return { ok: true, detail: `Campaign was already ${to} on ${reached.via}; nothing to change.` }
      if (reached.c.status !== from) return { ok: false, error: movedOn(reached.c, from) }
      await store.setCampaignStatus(ctx.tx, ctx.workspaceId, reached.c.id, to)
      return { ok: true, detail: `Campaign ${to === 'paused' ? 'paused' : 'resumed'} on ${reached.via}.` }
    },
  })
}

export const ACTION_KINDS = {
  pause_campaign: switchKind('pause'),
  resume_campaign: switchKind('resume'),

  adjust_budget: defineKind({
    description:
      "Change a campaign's daily budget. args: { campaignId, dailyBudget: { amountMinor, currency } } in the campaign's own currency, or { campaignId, changePercent } (e.g. 15 or -20).",
    args: z
      .strictObject({
        campaignId,
        dailyBudget: MoneyArg.optional().describe("The new daily budget, in the campaign's currency."),
        changePercent: z.number().gt(-100).max(10_000).optional().describe('The change in percent: 15 raises by 15%, -20 lowers by 20%.'),
      })
      .refine((a) => (a.dailyBudget === undefined) !== (a.changePercent === undefined), { message: 'give exactly one of dailyBudget or changePercent' }),
    async plan(ctx, args) {
      const c = await campaignOf(ctx, args.campaignId)
      const from = budgetOf(c)
      if (!from) throw invalidRequest(`Campaign ${c.id} ("${c.name}") has no daily budget to adjust (a ${c.channel} campaign).`)
      if (from.amountMinor === 0) {
        throw invalidRequest(
          `Campaign ${c.id} ("${c.name}") has a daily budget of ${formatMoney(from)}; a change from zero cannot be judged against the workspace's percentage limit.`,
        )
      }
      if (c.status === 'finished') throw conflict(`Campaign ${c.id} ("${c.name}") is finished; its budget cannot change.`)
      let to: Money
      if (args.dailyBudget) {
        if (args.dailyBudget.currency !== from.currency) {
          throw invalidRequest(
            `args.dailyBudget is in ${args.dailyBudget.currency} but campaign ${c.id} spends in ${from.currency}; budgets are never converted between currencies.`,
          )
        }
        to = args.dailyBudget
      } else {
        to = { amountMinor: Math.round((from.amountMinor * (100 + args.changePercent!)) / 100), currency: from.currency }
        if (to.amountMinor <= 0) throw invalidRequest(`args.changePercent of ${args.changePercent}% would leave no daily budget.`)
      }
      if (to.amountMinor === from.amountMinor) throw invalidRequest(`The daily budget of campaign ${c.id} is already ${formatMoney(from)}; nothing would change.`)
      const effect = budgetEffect(c, from, to)
      return { effect, facts: { budgetChangePercent: effect.changePercent as number } }
    },
    async execute(ctx, args, effect) {
      const reached = await reachCampaign(ctx, args.campaignId)
      if ('ok' in reached) return reached
      if (reached.c.status === 'finished') return { ok: false, error: movedOn(reached.c, 'active or paused') }
      const planned = effect as unknown as { from: Money; to: Money }
      const now = budgetOf(reached.c)
      if (!now || now.currency !== planned.from.currency || now.amountMinor !== planned.from.amountMinor) {
        return { ok: false, error: `The daily budget changed since this was planned (planned from ${formatMoney(planned.from)}, now ${now ? formatMoney(now) : 'none'}); nothing was changed.` }
      }
      await store.setCampaignBudget(ctx.tx, ctx.workspaceId, reached.c.id, planned.to.amountMinor)
      return { ok: true, detail: `Daily budget set to ${formatMoney(planned.to)} on ${reached.via}.` }
    },
  }),

  send_campaign: defineKind({
    description:
      'Send an email or SMS campaign to a list or a segment. args: { campaignId, listId | segmentId, sendAt? } (sendAt: ISO 8601 time; without it, the send goes once approved). Addresses on the do-not-contact list are not counted or sent to.',
    args: z.strictObject({ campaignId, listId, segmentId, sendAt: future.optional().describe('When the send starts (ISO 8601); checked against quiet hours.') }).refine(oneAudience, ONE_AUDIENCE),
    async plan(ctx, args) {
      const c = await campaignOf(ctx, args.campaignId)
      if (c.channel !== 'email' && c.channel !== 'sms') throw invalidRequest(`Campaign ${c.id} ("${c.name}") is an ${c.channel} campaign; only email and SMS campaigns are sent.`)
      if (c.status === 'finished') throw conflict(`Campaign ${c.id} ("${c.name}") is finished; it cannot be sent.`)
      const sendAt = args.sendAt === undefined ? null : new Date(args.sendAt)
      if (sendAt && sendAt.getTime() < ctx.now.getTime()) throw invalidRequest(`args.sendAt ${args.sendAt} is in the past.`)
      const audience = await audienceOf(ctx, args)
      const recipients = await store.countAudience(ctx.tx, ctx.workspaceId, audience.query, { reachable: true })
      if (recipients === 0) throw invalidRequest(`${audience.ref.kind === 'list' ? 'List' : 'Segment'} ${audience.ref.id} has no one who can be contacted; the send would reach no one.`)
      return { effect: sendEffect(c, audience.ref, recipients, sendAt), facts: { recipients, sendAt: sendAt ?? ctx.now } }
    },
    async execute(ctx, args, effect) {
      const reached = await reachCampaign(ctx, args.campaignId)
      if ('ok' in reached) return reached
      if (reached.c.status === 'finished') return { ok: false, error: movedOn(reached.c, 'active or paused', 'sent') }
      const e = effect as unknown as { recipients: number; audience: AudienceRef; sendAt: string | null }
      // A send planned for "once approved" starts now: quiet hours are judged now, not at the plan.
      if (e.sendAt === null) {
        const verdict = checkWorkspaceLimits(await loadWorkspaceLimits(ctx.tx, ctx.workspaceId), { sendAt: ctx.now })
        if (!verdict.passed) return { ok: false, error: `${verdict.reasons.join(' ')} Nothing was sent; propose the send again with a sendAt outside them.` }
      }
      // The messages handed over use the plan's monthly allowance (a 402 here fails the change, naming it).
      await consumeMonthly(ctx.tx, ctx.workspaceId, reached.c.channel === 'sms' ? 'sms' : 'emails', e.recipients, ctx.now)
      return { ok: true, detail: `Send to ${formatCount(e.recipients)} contacts of ${audienceWords(e.audience)} handed to ${reached.via}.` }
    },
  }),

  create_discount: defineKind({
    description: 'Create a discount code in the store. args: { code (3 to 32 letters, digits, dashes, underscores; stored in capitals), percentOff (above 0, at most 100), expiresAt (ISO 8601, in the future) }.',
    args: z.strictObject({
      code: z
        .string()
        .regex(/^[A-Za-z0-9_-]{3,32}$/, { message: 'must be 3 to 32 letters, digits, dashes or underscores' })
        .transform((s) => s.toUpperCase()),
      percentOff: z.number().gt(0).max(100),
      expiresAt: future.transform((s) => new Date(s).toISOString()),
    }),
    async plan(ctx, args) {
      if (new Date(args.expiresAt).getTime() <= ctx.now.getTime()) throw invalidRequest(`args.expiresAt ${args.expiresAt} is not in the future.`)
      return { effect: discountEffect(args), facts: { discountPercent: args.percentOff } }
    },
    async execute(ctx, args) {
      const storeConn = await store.selectStoreConnection(ctx.tx, ctx.workspaceId)
      if (!storeConn) return { ok: false, error: 'No store is connected to create the discount in; nothing was changed.' }
      if (!storeConn.delivering) return { ok: false, error: notDelivering(storeConn) }
      return { ok: true, detail: `Discount code ${args.code} created in ${storeConn.name}.` }
    },
  }),

  tag_contacts: defineKind({
    description: 'Add a tag to every contact of a list or a segment. args: { tag (1 to 64 characters), listId | segmentId }.',
    args: z.strictObject({ tag: z.string().trim().min(1).max(64), listId, segmentId }).refine(oneAudience, ONE_AUDIENCE),
    async plan(ctx, args) {
      const audience = await audienceOf(ctx, args)
      const contacts = await store.countAudience(ctx.tx, ctx.workspaceId, audience.query, { reachable: false })
      if (contacts === 0) throw invalidRequest(`${audience.ref.kind === 'list' ? 'List' : 'Segment'} ${audience.ref.id} holds no contacts to tag.`)
      return { effect: tagEffect(args.tag, audience.ref, contacts), facts: {} }
    },
    async execute(ctx, args) {
      const audience = await audienceOf(ctx, args)
      // Take the lock contact imports take before touching contact rows, in the same order as they
      // do, so an import and a tagging of the same contacts wait for each other instead of deadlocking.
      await holdContactsAllowance(ctx.tx, ctx.workspaceId)
      const changed = await store.tagAudience(ctx.tx, ctx.workspaceId, audience.query, args.tag)
      ctx.emit?.(changed.map((c) => ({ type: 'contact.updated', data: { contact: toContact(c) } })))
      return { ok: true, detail: `${formatCount(changed.length)} contacts of ${audienceWords(audience.ref)} tagged "${args.tag}".` }
    },
  }),
}

export type ActionKindName = keyof typeof ACTION_KINDS
export const ACTION_KIND_NAMES = Object.keys(ACTION_KINDS) as [ActionKindName, ...ActionKindName[]]
