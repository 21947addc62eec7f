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
    this.timesOf(agentId, tool, action).push(at)
  }

  /**
   * The times of an agent's allowed requests of a tool action, oldest first: the list itself, kept
   * (made empty when there is none yet), so a caller that meets the same tool action again may
   * hold it and push to it (`add`) and count in it (`countWithin`) without looking it up again.
   */
  timesOf(agentId: string, tool: string, action: string): number[] {
    let byTool = this.times.get(agentId)
    if (!byTool) this.times.set(agentId, (byTool = new Map()))
    let byAction = byTool.get(tool)
    if (!byAction) byTool.set(tool, (byAction = new Map()))
    let list = byAction.get(action)
    if (!list) byAction.set(action, (list = []))
    return list
  }

  allowedWithin(agentId: string, tool: string, action: string, window: string, at: Date): number {
    const list = this.times.get(agentId)?.get(tool)?.get(action)
    return list ? countWithin(list, window, at.getTime()) : 0
  }
}

/** How many of `times` (sorted, oldest first) fall within `window` before `at`: after at - window, before at. */
export function countWithin(times: number[], window: string, at: number): number {
  const ms = windowMs(window)
  if (ms === undefined || times.length === 0) return 0
  return firstAtOrAfter(times, at) - firstAfter(times, at - ms)
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
