import type { Db } from '../core/db.ts'
import { formatCount, formatCountOf } from '../core/money.ts'
import { selectWorkspaceLimits, type WorkspaceLimitsRow } from '../store/limits.ts'

/**
 * The workspace's limits on changes. One module, used by both the action planner (POST /actions)
 * and the agent gateway's `limits` check, so a proposal and an agent's request meet the same limits.
 *
 * - the largest budget change, in percent either way;
 * - the largest discount, in percent off;
 * - the most recipients of one send;
 * - quiet hours (UTC, start inclusive, end exclusive, may wrap midnight): no send starts inside them.
 */
export type WorkspaceLimits = {
  maxBudgetChangePercent: number
  maxDiscountPercent: number
  maxSendRecipients: number
  quietHours: { startHour: number; endHour: number } | null
}

/** What a change would do, in the terms the limits speak. Absent members are not checked. */
export type LimitFacts = {
  /** A budget change in percent (+20 raises by a fifth, -20 lowers by a fifth). */
  budgetChangePercent?: number
  /** A discount in percent off. */
  discountPercent?: number
  /** How many people one send would reach. */
  recipients?: number
  /** When a send would start; checked against quiet hours. */
  sendAt?: Date
}

type LimitVerdict = { passed: boolean; reasons: string[] }

export async function loadWorkspaceLimits(sql: Db, workspaceId: string): Promise<WorkspaceLimits> {
  const row = await selectWorkspaceLimits(sql, workspaceId)
  if (!row) throw new Error(`workspace ${workspaceId} has no limits row`)
  return toWorkspaceLimits(row)
}

export function toWorkspaceLimits(row: WorkspaceLimitsRow): WorkspaceLimits {
  return {
    maxBudgetChangePercent: row.max_budget_change_percent,
    maxDiscountPercent: row.max_discount_percent,
    maxSendRecipients: row.max_send_recipients,
    quietHours:
      row.quiet_hours_start === null || row.quiet_hours_end === null
        ? null
        : { startHour: row.quiet_hours_start, endHour: row.quiet_hours_end },
  }
}

const hh = (h: number) => `${String(h).padStart(2, '0')}:00`

export function inQuietHours(q: { startHour: number; endHour: number }, at: Date): boolean {
  const h = at.getUTCHours()
  if (q.startHour === q.endHour) return false
  return q.startHour < q.endHour ? h >= q.startHour && h < q.endHour : h >= q.startHour || h < q.endHour
}

/**
 * The limits in words, one sentence each, as a person reads what every agent's request and every
 * proposed change must keep within (the console's policy page shows them beside the rules).
 */
export function limitSentences(limits: WorkspaceLimits): string[] {
  return [
    `No budget change of more than ${limits.maxBudgetChangePercent}% either way.`,
    `No discount of more than ${limits.maxDiscountPercent}% off.`,
    `No send to more than ${formatCountOf(limits.maxSendRecipients, 'recipient', 'recipients')}.`,
    limits.quietHours && limits.quietHours.startHour !== limits.quietHours.endHour
      ? `No send starts in the quiet hours, ${hh(limits.quietHours.startHour)} to ${hh(limits.quietHours.endHour)} UTC.`
      : 'No quiet hours: a send may start at any hour.',
  ]
}

/** Every limit the facts meet or break; each reason is a sentence naming the figure and the limit. */
export function checkWorkspaceLimits(limits: WorkspaceLimits, facts: LimitFacts): LimitVerdict {
  const reasons: string[] = []
  const b = facts.budgetChangePercent
  if (b !== undefined && Math.abs(b) > limits.maxBudgetChangePercent) {
    reasons.push(`A budget change of ${b > 0 ? '+' : ''}${b}% is over the workspace limit of ${limits.maxBudgetChangePercent}%.`)
  }
  const d = facts.discountPercent
  if (d !== undefined && d > limits.maxDiscountPercent) {
    reasons.push(`A discount of ${d}% is over the workspace limit of ${limits.maxDiscountPercent}%.`)
  }
  const r = facts.recipients
  if (r !== undefined && r > limits.maxSendRecipients) {
    reasons.push(`${formatCountOf(r, 'recipient', 'recipients')} is over the workspace limit of ${formatCount(limits.maxSendRecipients)} per send.`)
  }
  if (facts.sendAt && limits.quietHours && inQuietHours(limits.quietHours, facts.sendAt)) {
    reasons.push(`No send may start in the workspace's quiet hours, ${hh(limits.quietHours.startHour)} to ${hh(limits.quietHours.endHour)} UTC.`)
  }
  return { passed: reasons.length === 0, reasons }
}
