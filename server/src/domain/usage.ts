import type { Sql } from '../core/db.ts'
import type { Usage } from '../schemas/usage.ts'
import { countCalls } from '../store/call-counts.ts'
import { periodOf, usageOf } from './allowances.ts'

/** Calls have been counted since this day (spec: Errors, rule 3); nothing earlier is reconstructed. */
const COUNTING_BEGAN_AT = '2026-09-11T00:00:00.000Z'

/** GET /usage: each allowance as the contract shapes it, and the API calls counted this month. */
export async function getUsage(sql: Sql, workspaceId: string, now = new Date()): Promise<Usage> {
  const period = periodOf(now)
  const began = new Date(COUNTING_BEGAN_AT)
  const since = period.start > began ? period.start : began
  const [allowances, count] = await Promise.all([usageOf(sql, workspaceId, now), countCalls(sql, workspaceId, since.toISOString().slice(0, 10))])
  return {
    allowances,
    apiCalls: { count, periodStart: period.start.toISOString(), periodEnd: period.end.toISOString(), countingBeganAt: COUNTING_BEGAN_AT },
  }
}
