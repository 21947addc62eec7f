/**
 * Rate-limit policy and headers (spec: Limits). Credentialed calls are counted in PostgreSQL
 * (store/credentials.ts) so the limit is exact across server processes; this file holds the
 * policy, the headers every answer carries, and a small in-process limiter for calls that carry no
 * valid credential (public endpoints, unknown routes, and failed authentication per address).
 */
export const WINDOW_MS = 60 * 60 * 1000

export const LIMITS = { workspace: 600, agent: 1200 } as const

type RateState = { limit: number; used: number; resetAt: number }

export function windowStart(now = Date.now(), windowMs = WINDOW_MS): number {
  return now - (now % windowMs)
}

/** The four headers every answer carries; Retry-After is 0 until the limit is passed. */
export function rateHeaders(state: RateState, now = Date.now()): Record<string, string> {
  const remaining = Math.max(0, state.limit - state.used)
  const untilReset = Math.max(1, Math.ceil((state.resetAt - now) / 1000))
  return {
    'X-RateLimit-Limit': String(state.limit),
    'X-RateLimit-Remaining': String(remaining),
    'X-RateLimit-Reset': String(Math.ceil(state.resetAt / 1000)),
    'Retry-After': String(state.used > state.limit ? untilReset : 0),
  }
}

export function isOver(state: RateState): boolean {
  return state.used > state.limit
}

/** Fixed-window counter per key, in this process's memory, with old windows swept. */
export class MemoryLimiter {
  private windows = new Map<string, { start: number; used: number }>()

  constructor(
    readonly limit: number,
    readonly windowMs: number,
  ) {}

  /** Count one hit for `key` and return the state after it. */
  hit(key: string, now = Date.now()): RateState {
    const w = this.entry(key, now)
    w.used++
    return { limit: this.limit, used: w.used, resetAt: w.start + this.windowMs }
  }

  /** The state for `key` without counting. */
  peek(key: string, now = Date.now()): RateState {
    const w = this.entry(key, now)
    return { limit: this.limit, used: w.used, resetAt: w.start + this.windowMs }
  }

  private entry(key: string, now: number) {
    const start = windowStart(now, this.windowMs)
    let w = this.windows.get(key)
    if (!w || w.start !== start) {
      if (this.windows.size > 50_000) this.sweep(start)
      w = { start, used: 0 }
      this.windows.set(key, w)
    }
    return w
  }

  private sweep(currentStart: number) {
    for (const [k, w] of this.windows) if (w.start !== currentStart) this.windows.delete(k)
  }
}
