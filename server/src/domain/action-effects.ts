import { formatCount, formatMoney, type Money } from '../core/money.ts'

/**
 * What a proposed change would do, in words and figures: the planned effect every action records.
 * Plain functions of plain values, so the planner (action-kinds.ts) and the demo describe their
 * actions alike.
 */

export type PlannedEffect = { summary: string } & Record<string, unknown>

type CampaignRef = { id: string; name: string }
export type AudienceRef = { kind: 'list' | 'segment'; id: string; name: string }

const round2 = (x: number) => Math.round(x * 100) / 100
export const audienceWords = (a: AudienceRef) => `${a.kind} "${a.name}"`

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
