import type { Tx } from '../core/db.ts'
import type { EventType } from '../core/event-types.ts'
import { ConflictError, NotFoundError, RuleError } from '../core/errors.ts'
import { formatCount, formatMoney, type Money } from '../core/money.ts'
import { inStoredYears } from '../core/time.ts'
import type { ActionArgs, ActionKind } from '../schemas/actions.ts'
import { countAudience, tagAudience } from '../store/audiences.ts'
import * as campaigns from '../store/campaigns.ts'
import { selectConnection, selectStoreConnection } from '../store/connections.ts'
import { audienceWords, budgetEffect, campaignSwitchEffect, discountEffect, type PlannedEffect, sendEffect, tagEffect } from './action-effects.ts'
import { consumeMonthly, holdContactsAllowance } from './allowances.ts'
import { audienceName, audienceOf } from './audiences.ts'
import { notDelivering } from './connections.ts'
import { toContact } from './contacts.ts'
import { checkWorkspaceLimits, type LimitFacts, loadWorkspaceLimits } from './limits.ts'

/**
 * The registry of proposed-change kinds. Each kind's args are declared in schemas/actions.ts (and so
 * in the OpenAPI document); here each says how to plan it (what it would do, in words and figures,
 * and the facts the workspace limits judge), and how the stand-in executor carries it out once a
 * person approves it.
 */

type ActionPlan = { effect: PlannedEffect; facts: LimitFacts }
export type Outcome = { ok: true; detail: string } | { ok: false; error: string }
export type EventSpec = { type: EventType; data: Record<string, unknown> }
export type KindContext = {
  tx: Tx
  workspaceId: string
  now: Date
  /** The executor's changes to this service's own records are events too (e.g. contact.updated). */
  emit?: (events: EventSpec[]) => void
}

type Kind<A> = {
  plan(ctx: KindContext, args: A): Promise<ActionPlan>
  execute(ctx: KindContext, args: A, effect: PlannedEffect): Promise<Outcome>
}

// --- What the args name (404 when not in this workspace) ------------------------------------------

async function campaignOf(ctx: KindContext, id: string) {
  const c = await campaigns.selectCampaign(ctx.tx, ctx.workspaceId, id)
  if (!c) throw new NotFoundError('campaign', id)
  return c
}

const budgetOf = (c: campaigns.CampaignRow): Money | null =>
  c.daily_budget_minor !== null && c.currency ? { amountMinor: c.daily_budget_minor, currency: c.currency } : null

/** The campaign is no longer in the state the plan was made for. */
const movedOn = (c: campaigns.CampaignRow, planned: string, verb = 'changed') =>
  `Campaign "${c.name}" is ${c.status} now, not ${planned} as planned; nothing was ${verb}.`

// --- The stand-in executor's reach: the connection that would carry the change out -----------------

async function connectionOf(ctx: KindContext, c: campaigns.CampaignRow): Promise<{ name: string } | { error: string }> {
  if (!c.connection_id) return { error: `Campaign "${c.name}" has no connected account to carry out the change; nothing was changed.` }
  const conn = await selectConnection(ctx.tx, ctx.workspaceId, c.connection_id)
  if (!conn) return { error: `The connection of campaign "${c.name}" no longer exists; nothing was changed.` }
  if (!conn.delivering) return { error: notDelivering(conn) }
  return { name: conn.name }
}

/** Shared by the campaign kinds: the campaign as it is now, locked, and its delivering connection. */
async function reachCampaign(ctx: KindContext, id: string): Promise<{ c: campaigns.CampaignRow; via: string } | Outcome> {
  const c = await campaigns.selectCampaign(ctx.tx, ctx.workspaceId, id, { lock: true })
  if (!c) return { ok: false, error: `Campaign ${id} no longer exists; nothing was changed.` }
  const conn = await connectionOf(ctx, c)
  if ('error' in conn) return { ok: false, error: conn.error }
  return { c, via: conn.name }
}

// --- The kinds -------------------------------------------------------------------------------------

function switchKind(verb: 'pause' | 'resume'): Kind<ActionArgs['pause_campaign']> {
  const from = verb === 'pause' ? 'active' : 'paused'
  const to = verb === 'pause' ? 'paused' : 'active'
  return {
    async plan(ctx, args) {
      const c = await campaignOf(ctx, args.campaignId)
      if (c.status !== from) throw new ConflictError(`Campaign ${c.id} ("${c.name}") is ${c.status}; only ${from === 'active' ? 'an active' : 'a paused'} campaign can be ${verb}d.`)
      return { effect: campaignSwitchEffect(verb, { id: c.id, name: c.name, dailyBudget: budgetOf(c) }), facts: {} }
    },
    async execute(ctx, args) {
      const reached = await reachCampaign(ctx, args.campaignId)
      if ('ok' in reached) return reached
      if (reached.c.status === to) return { ok: true, detail: `Campaign was already ${to} on ${reached.via}; nothing to change.` }
      if (reached.c.status !== from) return { ok: false, error: movedOn(reached.c, from) }
      await campaigns.setCampaignStatus(ctx.tx, ctx.workspaceId, reached.c.id, to)
      return { ok: true, detail: `Campaign ${to === 'paused' ? 'paused' : 'resumed'} on ${reached.via}.` }
    },
  }
}

const adjustBudget: Kind<ActionArgs['adjust_budget']> = {
  async plan(ctx, args) {
    const c = await campaignOf(ctx, args.campaignId)
    const from = budgetOf(c)
    if (!from) throw new RuleError('budget.has_budget', `Campaign ${c.id} ("${c.name}") has no daily budget to adjust (a ${c.channel} campaign).`, 'args.campaignId')
    if (from.amountMinor === 0) {
      throw new RuleError(
        'budget.not_zero',
        `Campaign ${c.id} ("${c.name}") has a daily budget of ${formatMoney(from)}; a change from zero cannot be judged against the workspace's percentage limit.`,
        'args.campaignId',
      )
    }
    if (c.status === 'finished') throw new ConflictError(`Campaign ${c.id} ("${c.name}") is finished; its budget cannot change.`)
    let to: Money
    if (args.dailyBudget) {
      if (args.dailyBudget.currency !== from.currency) {
        throw new RuleError(
          'budget.same_currency',
          `args.dailyBudget is in ${args.dailyBudget.currency} but campaign ${c.id} spends in ${from.currency}; budgets are never converted between currencies.`,
          'args.dailyBudget.currency',
        )
      }
      to = args.dailyBudget
    } else {
      to = { amountMinor: Math.round((from.amountMinor * (100 + args.changePercent!)) / 100), currency: from.currency }
      if (to.amountMinor <= 0) throw new RuleError('budget.left', `args.changePercent of ${args.changePercent}% would leave no daily budget.`, 'args.changePercent')
    }
    if (to.amountMinor === from.amountMinor) {
      throw new RuleError('budget.changes', `The daily budget of campaign ${c.id} is already ${formatMoney(from)}; nothing would change.`, 'args')
    }
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
    await campaigns.setCampaignBudget(ctx.tx, ctx.workspaceId, reached.c.id, planned.to.amountMinor)
    return { ok: true, detail: `Daily budget set to ${formatMoney(planned.to)} on ${reached.via}.` }
  },
}

const sendCampaign: Kind<ActionArgs['send_campaign']> = {
  async plan(ctx, args) {
    const c = await campaignOf(ctx, args.campaignId)
    if (c.channel !== 'email' && c.channel !== 'sms') {
      throw new RuleError('send.channel', `Campaign ${c.id} ("${c.name}") is an ${c.channel} campaign; only email and SMS campaigns are sent.`, 'args.campaignId')
    }
    if (c.status === 'finished') throw new ConflictError(`Campaign ${c.id} ("${c.name}") is finished; it cannot be sent.`)
    const sendAt = args.sendAt === undefined ? null : new Date(args.sendAt)
    if (sendAt && sendAt.getTime() < ctx.now.getTime()) throw new RuleError('send.future', `args.sendAt ${args.sendAt} is in the past.`, 'args.sendAt')
    if (sendAt && !inStoredYears(sendAt)) throw new RuleError('time.years', `args.sendAt ${args.sendAt} is after 9999-12-31T23:59:59Z.`, 'args.sendAt')
    const audience = await audienceOf(ctx.tx, ctx.workspaceId, args)
    const recipients = await countAudience(ctx.tx, ctx.workspaceId, audience.query, { reachable: true })
    if (recipients === 0) throw new RuleError('send.reaches', `${audienceName(audience.ref)} has no one who can be contacted; the send would reach no one.`, 'args')
    return { effect: sendEffect(c, audience.ref, recipients, sendAt), facts: { recipients, sendAt: sendAt ?? ctx.now } }
  },
  async execute(ctx, args, effect) {
    const reached = await reachCampaign(ctx, args.campaignId)
    if ('ok' in reached) return reached
    if (reached.c.status === 'finished') return { ok: false, error: movedOn(reached.c, 'active or paused', 'sent') }
    const e = effect as unknown as { recipients: number; audience: Parameters<typeof audienceWords>[0]; sendAt: string | null }
    // A send planned for "once approved" starts now: quiet hours are judged now, not at the plan.
    if (e.sendAt === null) {
      const verdict = checkWorkspaceLimits(await loadWorkspaceLimits(ctx.tx, ctx.workspaceId), { sendAt: ctx.now })
      if (!verdict.passed) return { ok: false, error: `${verdict.reasons.join(' ')} Nothing was sent; propose the send again with a sendAt outside them.` }
    }
    // The messages handed over use the plan's monthly allowance (running out fails the change, naming it).
    await consumeMonthly(ctx.tx, ctx.workspaceId, reached.c.channel === 'sms' ? 'sms' : 'emails', e.recipients, ctx.now)
    return { ok: true, detail: `Send to ${formatCount(e.recipients)} contacts of ${audienceWords(e.audience)} handed to ${reached.via}.` }
  },
}

const createDiscount: Kind<ActionArgs['create_discount']> = {
  async plan(ctx, args) {
    const expiresAt = new Date(args.expiresAt)
    if (expiresAt.getTime() <= ctx.now.getTime()) {
      throw new RuleError('discount.future', `args.expiresAt ${args.expiresAt} is not in the future.`, 'args.expiresAt')
    }
    if (!inStoredYears(expiresAt)) throw new RuleError('time.years', `args.expiresAt ${args.expiresAt} is after 9999-12-31T23:59:59Z.`, 'args.expiresAt')
    return { effect: discountEffect(args), facts: { discountPercent: args.percentOff } }
  },
  async execute(ctx, args) {
    const storeConn = await selectStoreConnection(ctx.tx, ctx.workspaceId)
    if (!storeConn) return { ok: false, error: 'No store is connected to create the discount in; nothing was changed.' }
    if (!storeConn.delivering) return { ok: false, error: notDelivering(storeConn) }
    return { ok: true, detail: `Discount code ${args.code} created in ${storeConn.name}.` }
  },
}

const tagContacts: Kind<ActionArgs['tag_contacts']> = {
  async plan(ctx, args) {
    const audience = await audienceOf(ctx.tx, ctx.workspaceId, args)
    const contacts = await countAudience(ctx.tx, ctx.workspaceId, audience.query, { reachable: false })
    if (contacts === 0) throw new RuleError('tag.has_contacts', `${audienceName(audience.ref)} holds no contacts to tag.`, 'args')
    return { effect: tagEffect(args.tag, audience.ref, contacts), facts: {} }
  },
  async execute(ctx, args) {
    const audience = await audienceOf(ctx.tx, ctx.workspaceId, args)
    // Take the lock contact imports take before touching contact rows, in the same order as they
    // do, so an import and a tagging of the same contacts wait for each other instead of deadlocking.
    await holdContactsAllowance(ctx.tx, ctx.workspaceId)
    const changed = await tagAudience(ctx.tx, ctx.workspaceId, audience.query, args.tag)
    ctx.emit?.(changed.map((c) => ({ type: 'contact.updated', data: { contact: toContact(c) } })))
    return { ok: true, detail: `${formatCount(changed.length)} contacts of ${audienceWords(audience.ref)} tagged "${args.tag}".` }
  },
}

const ACTION_KIND_RULES: { [K in ActionKind]: Kind<ActionArgs[K]> } = {
  pause_campaign: switchKind('pause'),
  resume_campaign: switchKind('resume'),
  adjust_budget: adjustBudget,
  send_campaign: sendCampaign,
  create_discount: createDiscount,
  tag_contacts: tagContacts,
}

/** The kind's planner and executor, for args of that kind (stored args are read back as they were checked). */
export function kindOf<K extends ActionKind>(kind: K): Kind<ActionArgs[K]> {
  return ACTION_KIND_RULES[kind]
}
