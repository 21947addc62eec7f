import type { AllowedCounts } from './agent-policy-views.ts'
import { windowMs } from './agent-rules.ts'

/**
 * How often each agent was allowed each tool action, from the recorded history: a count condition
 * (`{ count: allowed, window: 24h }`) judged in memory, for the backtest and `policy test`. The
 * requests counted are those recorded as allowed strictly before the asked time and within the
 * window before it (created_at > at - window, created_at < at): the gateway's count at the moment
 * the request arrived, which did not yet hold the request itself.
 *
 * Times are added oldest first (the history is read in that order), so each list stays sorted and
 * a count is two binary searches.
 */
export class HistoryCounts implements AllowedCounts {
  /** agent -> tool -> action -> times: no key string built per request. */
  private readonly times = new Map<string, Map<string, Map<string, number[]>>>()

  /** One allowed request, no older than any added before it. */
  add(agentId: string, tool: string, action: string, at: number) {
    let byTool = this.times.get(agentId)
    if (!byTool) this.times.set(agentId, (byTool = new Map()))
    let byAction = byTool.get(tool)
    if (!byAction) byTool.set(tool, (byAction = new Map()))
    const list = byAction.get(action)
    if (list) list.push(at)
    else byAction.set(action, [at])
  }

  allowedWithin(agentId: string, tool: string, action: string, window: string, at: Date): number {
    const list = this.times.get(agentId)?.get(tool)?.get(action)
    const ms = windowMs(window)
    if (!list || ms === undefined) return 0
    const end = at.getTime()
    return firstAtOrAfter(list, end) - firstAfter(list, end - ms)
  }
}

/** The index of the first time >= t. */
function firstAtOrAfter(xs: number[], t: number): number {
  let lo = 0
  let hi = xs.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (xs[mid]! < t) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** The index of the first time > t. */
function firstAfter(xs: number[], t: number): number {
  let lo = 0
  let hi = xs.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (xs[mid]! <= t) lo = mid + 1
    else hi = mid
  }
  return lo
}
