import type { Db, Tx } from '../core/db.ts'
import { type Allowance, MONTHLY_ALLOWANCES, type MonthlyAllowance } from '../core/enums.ts'
import { AllowanceError } from '../core/errors.ts'
import { formatCount } from '../core/money.ts'
import * as store from '../store/allowances.ts'

/**
 * Plan allowances (CONTRACT: Allowances and plans). Monthly ones (emails, sms, trackedEvents,
 * agentRequests) are counted per calendar month in UTC; `contacts` is standing: how many contacts
 * the workspace may hold. Going over is an AllowanceError naming the allowance and what remains
 * (402 plan_required, never rate_limited).
 */
/** The UTC calendar month holding `at`: [start, end). */
export function periodOf(at: Date): { start: Date; end: Date; startDate: string } {
  const start = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1))
  const end = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1))
  return { start, end, startDate: start.toISOString().slice(0, 10) }
}

/** The refusal of `asked` more of a monthly allowance that has `remaining` left of `limit`. */
export const monthlyAllowanceError = (name: MonthlyAllowance, limit: number, remaining: number, asked: number): AllowanceError =>
  overAllowance(name, limit, remaining, asked, true)

function overAllowance(name: Allowance, limit: number, remaining: number, asked: number, monthly: boolean): AllowanceError {
  const [all, left, needs] = [formatCount(limit), formatCount(Math.max(0, remaining)), formatCount(asked)]
  const message = monthly
    ? `The ${name} allowance of the workspace's plan is ${all} a month; ${left} remain this month and this request needs ${needs}. Upgrade the plan or wait for next month.`
    : `The ${name} allowance of the workspace's plan is ${all}; ${left} remain and this request needs ${needs}. Upgrade the plan or remove contacts.`
  return new AllowanceError(name, message)
}

/**
 * Uses `n` of a monthly allowance inside the caller's transaction, or throws an AllowanceError.
 * Atomic across processes: the counter only moves if the result stays within the allowance. A
 * test-mode write rolls the counter back with everything else.
 */
export async function consumeMonthly(tx: Tx, workspaceId: string, name: MonthlyAllowance, n = 1, at = new Date()): Promise<void> {
  const limits = await store.selectAllowanceLimits(tx, workspaceId)
  const limit = limits[name] ?? 0
  const period = periodOf(at)
  const used = await store.incrementUsageWithin(tx, workspaceId, name, period.startDate, n, limit)
  if (used === undefined) {
    const now = (await store.selectUsage(tx, workspaceId, period.startDate))[name] ?? 0
    throw overAllowance(name, limit, limit - now, n, true)
  }
}

/**
 * Keeps other writers that add contacts to the workspace out until the transaction ends. Take it
 * before counting who would be new, so that two imports cannot both fit; then reserveContacts.
 */
export const holdContactsAllowance = (tx: Tx, workspaceId: string): Promise<void> => store.lockContactsAllowance(tx, workspaceId)

/**
 * Checks that the workspace can hold `adding` more contacts, or throws an AllowanceError. Call it under
 * holdContactsAllowance (taken before the new contacts were counted), or two writers could pass
 * the allowance together.
 */
export async function reserveContacts(tx: Tx, workspaceId: string, adding: number): Promise<void> {
  if (adding <= 0) return
  const limit = (await store.selectAllowanceLimits(tx, workspaceId)).contacts ?? 0
  const held = await store.countContacts(tx, workspaceId)
  if (held + adding > limit) throw overAllowance('contacts', limit, limit - held, adding, false)
}

type UsageEntry = { name: Allowance; limit: number; used: number; remaining: number; periodStart: string | null; periodEnd: string | null }

/** Every allowance as the contract shapes it; the standing contacts allowance has no period. */
export async function usageOf(sql: Db, workspaceId: string, at = new Date()): Promise<UsageEntry[]> {
  const period = periodOf(at)
  const [limits, used, contacts] = await Promise.all([
    store.selectAllowanceLimits(sql, workspaceId),
    store.selectUsage(sql, workspaceId, period.startDate),
    store.countContacts(sql, workspaceId),
  ])
  const monthly = MONTHLY_ALLOWANCES.map((name) => {
    const limit = limits[name] ?? 0
    const u = used[name] ?? 0
    return { name, limit, used: u, remaining: Math.max(0, limit - u), periodStart: period.start.toISOString(), periodEnd: period.end.toISOString() } as UsageEntry
  })
  const cLimit = limits.contacts ?? 0
  return [...monthly, { name: 'contacts', limit: cLimit, used: contacts, remaining: Math.max(0, cLimit - contacts), periodStart: null, periodEnd: null }]
}
