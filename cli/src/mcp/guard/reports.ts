import { randomUUID } from 'node:crypto'
import { GrowthError, type Growth, type ReportAgentResultRequest } from '@growth-service/sdk'

/**
 * The results the guard owes the gateway, sent after the answer went back to the client so a call
 * waits for one authorize round trip, not two. Each report keeps one Idempotency-Key across its
 * attempts (a report whose answer was lost is answered again, never recorded twice) and is tried
 * again, with a capped backoff, until it is recorded, refused for good (a 4xx other than 408/429:
 * e.g. the authorization expired), or the authorization it belongs to has expired. `flush()` waits
 * for every pending report: the guard calls it before it exits.
 */
type ReportQueue = {
  add(report: ReportAgentResultRequest, expiresAt: string | null): void
  /** Resolves when nothing is pending, or after `ms` (what is still pending is then named on stderr). */
  flush(ms: number): Promise<void>
  readonly pending: number
}

export function reportQueue(agent: Growth['agent'], log: (line: string) => void): ReportQueue {
  const pending = new Set<Promise<void>>()
  const stop = new AbortController()

  async function send(report: ReportAgentResultRequest, expiresAt: string | null) {
    const idempotencyKey = randomUUID()
    const deadline = (expiresAt && Date.parse(expiresAt)) || Date.now() + 15 * 60_000
    for (let attempt = 0; ; attempt++) {
      try {
        await agent.result(report, { idempotencyKey, signal: stop.signal })
        return
      } catch (err) {
        const status = err instanceof GrowthError ? err.status : undefined
        const lasting = status !== undefined && status < 500 && status !== 408 && status !== 429
        if (lasting || stop.signal.aborted || Date.now() >= deadline) {
          log(`the ${report.status} result of ${report.authorizationId} could not be recorded: ${(err as Error).message}`)
          return
        }
        const wait = Math.min(30_000, 500 * 2 ** attempt)
        await new Promise((r) => setTimeout(r, Math.min(wait, Math.max(0, deadline - Date.now()))))
      }
    }
  }

  return {
    add(report, expiresAt) {
      const p = send(report, expiresAt).finally(() => pending.delete(p))
      pending.add(p)
    },
    async flush(ms) {
      if (!pending.size) return
      let timer: ReturnType<typeof setTimeout> | undefined
      const late = new Promise<'late'>((r) => (timer = setTimeout(() => r('late'), ms)))
      const outcome = await Promise.race([Promise.all([...pending]).then(() => 'done' as const), late])
      clearTimeout(timer)
      if (outcome === 'late') {
        log(`${pending.size} result report(s) not recorded within ${ms} ms of shutting down; giving up on them`)
        stop.abort()
        await Promise.all([...pending])
      }
    },
    get pending() {
      return pending.size
    },
  }
}
