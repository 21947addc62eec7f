import type { Logger } from './log.ts'

/** While a loop keeps failing, at most one line this often. */
const REPEATED_FAILURE_LOG_MS = 60_000

type Messages = {
  /** The first failure of a run: a warn with the error. */
  failed: string
  /** Once every `everyMs` while the run lasts: a warn with how many failures since it began, and the last error. */
  stillFailing: string
  /** The first success after a run of failures: an info with how many there were and for how long. */
  worksAgain: string
}

/**
 * What a loop says when the same step fails at every turn: the database away fails a worker's claim
 * five times a second, a reaper's pass every second and the request log's writer at every flush. A
 * warn with a stack per turn buried everything else (a ten-minute outage was thousands of lines a
 * loop), so a run of failures is said once, then once every `everyMs` with how many so far, and once
 * when the step works again. `fields` name the loop (a worker's number).
 */
export class RepeatedFailure {
  private run: { since: number; count: number; loggedAt: number } | null = null

  constructor(
    private readonly log: Logger,
    private readonly messages: Messages,
    private readonly fields: Record<string, unknown> = {},
    private readonly everyMs = REPEATED_FAILURE_LOG_MS,
  ) {}

  /** The step failed with `error`: said if it is the run's first failure or `everyMs` passed since the last line. */
  failed(error: unknown) {
    const now = performance.now()
    const run = (this.run ??= { since: now, count: 0, loggedAt: -Infinity })
    run.count++
    if (now - run.loggedAt < this.everyMs) return
    run.loggedAt = now
    this.log.warn(run.count === 1 ? this.messages.failed : this.messages.stillFailing, {
      ...this.fields,
      failures: run.count,
      failingMs: Math.round(now - run.since),
      error,
    })
  }

  /** The step worked: ends a run of failures, if one was going, with a line saying so. */
  worked() {
    const run = this.run
    if (!run) return
    this.run = null
    this.log.info(this.messages.worksAgain, { ...this.fields, failures: run.count, failingMs: Math.round(performance.now() - run.since) })
  }
}
