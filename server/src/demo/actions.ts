import { newId } from '../core/ids.ts'
import { formatMoney } from '../core/money.ts'
import { budgetEffect, campaignSwitchEffect, discountEffect, type PlannedEffect, sendEffect, tagEffect } from '../domain/action-effects.ts'
import { type Proposer, toAction } from '../domain/actions.ts'
import { notDelivering } from '../domain/connections.ts'
import { toContact } from '../domain/contacts.ts'
import { checkWorkspaceLimits, type LimitFacts, loadWorkspaceLimits } from '../domain/limits.ts'
import { type ActionRow, insertActions } from '../store/actions.ts'
import type { CampaignInsert } from '../store/campaigns.ts'
import type { ConnectionInsert } from '../store/connections.ts'
import { budgetAfter, type DemoCampaigns } from './campaigns.ts'
import type { DemoAudience } from './contacts.ts'
import { DAY, type DemoContext, HOUR, MINUTE, money } from './context.ts'
import { operatorDecision } from './people.ts'

type Change = { args: Record<string, unknown>; effect: PlannedEffect; facts: LimitFacts }
type ActSpec = {
  kind: string; change: Change; status: ActionRow['status']; by: Proposer; days: number
  decidedBy?: string; note?: string; reason?: string; decidedAfterH?: number; outcome?: ActionRow['outcome']
}

/**
 * Proposed changes in every status, planned and worded by the same effect builders and limits
 * check as POST /actions. The applied tagging tags the contacts of its segment (before they are
 * written).
 */
export async function seedActions(ctx: DemoContext, deps: { connections: ConnectionInsert[]; campaigns: DemoCampaigns; audience: DemoAudience }) {
  const { r, ws, agoJitter, events, agents } = ctx
  const now = ctx.now.getTime()
  const { connections, audience } = deps
  const { meta: cMeta, google: cGoogle, instagram: cInstagram, launch: cLaunch } = deps.campaigns
  const pacer = agents[0]
  const byAgent = (a: { id: string; name: string } | undefined): Proposer => (a ? { kind: 'agent', id: a.id, name: a.name } : { kind: 'api', id: null, name: 'API' })
  const byApi: Proposer = { kind: 'api', id: null, name: 'API' }
  const limits = await loadWorkspaceLimits(ctx.tx, ctx.workspaceId)
  const connOf = (c: CampaignInsert) => connections.find((x) => x.id === c.connection_id)!
  const budgetChange = (c: CampaignInsert, fromMinor: number, pct: number, asAmount = false): Change => {
    const from = money(fromMinor, c.currency!)
    const to = money(budgetAfter(fromMinor, pct), c.currency!)
    const effect = budgetEffect(c, from, to)
    return {
      args: asAmount ? { campaignId: c.id, dailyBudget: to } : { campaignId: c.id, changePercent: pct },
      effect,
      facts: { budgetChangePercent: effect.changePercent as number },
    }
  }
  const campaignSwitch = (c: CampaignInsert, verb: 'pause' | 'resume'): Change => ({
    args: { campaignId: c.id },
    effect: campaignSwitchEffect(verb, { id: c.id, name: c.name, dailyBudget: c.daily_budget_minor ? money(c.daily_budget_minor, c.currency!) : null }),
    facts: {},
  })
  const discount = (code: string, pct: number, days: number, from: number): Change => {
    const args = { code, percentOff: pct, expiresAt: new Date(now - from * DAY + days * DAY).toISOString() }
    return { args, effect: discountEffect(args), facts: { discountPercent: pct } }
  }
  const newsletterList = audience.lists[0]
  const newsletterReach = audience.listMembers.filter((m) => m.list_id === newsletterList.id).length
  const send: Change = {
    args: { campaignId: cLaunch.id, listId: newsletterList.id },
    effect: sendEffect(cLaunch, { kind: 'list', id: newsletterList.id, name: newsletterList.name }, newsletterReach, null),
    facts: { recipients: newsletterReach },
  }
  const taggedSegment = audience.segments[1]
  const TAG = 'spring-launch'
  const tagged = audience.contacts.filter((c) => c.tags.includes('espresso') && c.tags.includes('eu'))
  const tagging: Change = {
    args: { tag: TAG, segmentId: taggedSegment.id },
    effect: tagEffect(TAG, { kind: 'segment', id: taggedSegment.id, name: taggedSegment.name }, tagged.length),
    facts: {},
  }
  const applied = (detail: string) => ({ ok: true, detail })
  const actionSpecs: ActSpec[] = [
    { kind: 'adjust_budget', change: budgetChange(cMeta, 12_000, 15), status: 'proposed', by: byAgent(pacer), days: 0.9 },
    { kind: 'send_campaign', change: send, status: 'proposed', by: byApi, days: 0.1 },
    { kind: 'resume_campaign', change: campaignSwitch(cInstagram, 'resume'), status: 'approved', by: byAgent(pacer), days: 0.4, decidedBy: 'Kenji Watanabe', note: 'Tokyo launch, agreed with Maya', decidedAfterH: 3 },
    { kind: 'adjust_budget', change: budgetChange(cGoogle, 9_000, 15), status: 'applying', by: byAgent(pacer), days: 0.05, decidedBy: 'Daniel Okafor', decidedAfterH: 0.5 },
    { kind: 'pause_campaign', change: campaignSwitch(cInstagram, 'pause'), status: 'applied', by: byAgent(pacer), days: 41, decidedBy: 'Kenji Watanabe', decidedAfterH: 2, outcome: applied(`Campaign paused on ${connOf(cInstagram).name}.`) },
    { kind: 'adjust_budget', change: budgetChange(cMeta, 10_000, 20, true), status: 'applied', by: byAgent(pacer), days: 26, decidedBy: 'Daniel Okafor', decidedAfterH: 5, outcome: applied(`Daily budget set to ${formatMoney(money(12_000, 'USD'))} on ${connOf(cMeta).name}.`) },
    { kind: 'create_discount', change: discount('WELCOME10', 10, 30, 63), status: 'applied', by: byApi, days: 63, decidedBy: 'Maya Chen', decidedAfterH: 20, outcome: applied(`Discount code WELCOME10 created in ${connections[0].name}.`) },
    {
      kind: 'tag_contacts', change: tagging, status: 'applied', by: byAgent(agents[1] ?? pacer), days: 15, decidedBy: 'Sofia Lindqvist', decidedAfterH: 1,
      outcome: applied(`${tagged.length} contacts of segment "${taggedSegment.name}" tagged "${TAG}".`),
    },
    { kind: 'create_discount', change: discount('SPRING20', 20, 7, 20), status: 'rejected', by: byAgent(agents[1] ?? pacer), days: 20, decidedBy: 'Maya Chen', decidedAfterH: 6,
      reason: 'Too deep so soon after WELCOME10; keep spring at 10% at most.' },
    { kind: 'pause_campaign', change: campaignSwitch(cGoogle, 'pause'), status: 'rejected', by: byAgent(pacer), days: 9, decidedBy: 'Daniel Okafor', decidedAfterH: 1,
      reason: 'Google Ads is our best return in the EU; fix delivery instead of pausing.' },
    { kind: 'adjust_budget', change: budgetChange(cMeta, 12_000, 60), status: 'refused', by: byAgent(pacer), days: 11 },
    { kind: 'create_discount', change: discount('FLASH40', 40, 2, 12), status: 'refused', by: byApi, days: 12 },
    { kind: 'adjust_budget', change: budgetChange(cInstagram, 15_000, -45, true), status: 'refused', by: byApi, days: 33 },
    {
      kind: 'adjust_budget', change: budgetChange(cGoogle, 9_000, 10), status: 'failed', by: byAgent(pacer), days: 0.85, decidedBy: 'Daniel Okafor', decidedAfterH: 0.4,
      outcome: { ok: false, error: notDelivering(connOf(cGoogle)) },
    },
  ]
  for (const c of tagged) c.tags = [...c.tags, TAG]
  const actions = actionSpecs.map((a): ActionRow => {
    const createdAt = agoJitter(a.days, 0.02)
    const decidedAt = a.decidedBy ? new Date(Math.min(createdAt.getTime() + (a.decidedAfterH ?? 1) * HOUR, now - MINUTE)) : null
    const doneAt = decidedAt && a.outcome ? new Date(Math.min(decidedAt.getTime() + r.int(1, 20) * 1000, now)) : null
    const verdict = checkWorkspaceLimits(limits, a.change.facts)
    if (verdict.passed !== (a.status !== 'refused')) throw new Error(`demo action ${a.kind} ${a.status} disagrees with the limits`)
    const row: ActionRow = {
      ...ws, id: newId('action', createdAt), kind: a.kind, args: a.change.args, status: a.status, planned_effect: a.change.effect,
      limits_allowed: verdict.passed, refusal_reason: verdict.passed ? null : verdict.reasons.join(' '), proposed_by: a.by, decided_by: a.decidedBy ? operatorDecision(a.decidedBy, a.note) : null,
      decided_at: decidedAt, decision_reason: a.reason ?? null, outcome: a.outcome ?? null, applied_at: a.status === 'applied' ? doneAt : null, created_at: createdAt,
    }
    // As it was when proposed (or refused), before any person decided.
    const asProposed = toAction({ ...row, status: a.status === 'refused' ? 'refused' : 'proposed', decided_by: null, decided_at: null, decision_reason: null, outcome: null, applied_at: null })
    events.add(a.status === 'refused' ? 'action.refused' : 'action.proposed', createdAt, { action: asProposed })
    if (a.status === 'rejected') events.add('action.rejected', decidedAt!, { action: toAction(row) })
    if (a.status === 'applied' || a.status === 'failed') events.add(a.status === 'applied' ? 'action.applied' : 'action.failed', doneAt!, { action: toAction(row) })
    return row
  })
  const taggedAt = actions.find((a) => a.kind === 'tag_contacts')!.applied_at!
  for (const c of tagged) {
    if (c.updated_at < taggedAt) c.updated_at = taggedAt
    events.add('contact.updated', taggedAt, { contact: toContact({ ...c, tags: [...c.tags], updated_at: taggedAt }) })
  }
  await insertActions(ctx.tx, actions)
}
