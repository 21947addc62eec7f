import type { MonthlyAllowance } from '../core/enums.ts'
import type { RequestInsert } from '../store/agent-requests.ts'
import { insertUsage, selectAllowanceLimits, type UsageInsert } from '../store/allowances.ts'
import type { DemoContext } from './context.ts'

/** The share of each monthly allowance used over a whole month; the month so far uses its part of it. */
const SHARE: Record<MonthlyAllowance, number> = { emails: 0.62, sms: 0.38, trackedEvents: 0.47, agentRequests: 0.04 }

/** Usage for the current month: every allowance part used, none used up; agent requests count the seeded ones too. */
export async function seedUsage(ctx: DemoContext, requests: RequestInsert[]) {
  const now = ctx.now
  const monthStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1))
  const monthEnd = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1))
  const elapsed = Math.max(0.03, (now.getTime() - monthStart.getTime()) / (monthEnd.getTime() - monthStart.getTime()))
  const allowances = await selectAllowanceLimits(ctx.tx, ctx.workspaceId)
  const usage = Object.entries(SHARE).map(([name, s]): UsageInsert => ({
    ...ctx.ws, name, period_start: monthStart.toISOString().slice(0, 10),
    used: Math.round((allowances[name] ?? 10_000) * s * elapsed) + (name === 'agentRequests' ? requests.filter((q) => q.createdAt >= monthStart).length : 0),
  }))
  await insertUsage(ctx.tx, usage)
}
