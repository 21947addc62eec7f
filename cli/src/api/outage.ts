import { ConnectionError, GrowthError } from '@growth-service/sdk'
import { writeErr } from '../output.ts'
import type { Credentials } from './credentials.ts'
import { reasonOf } from './refusal.ts'

/** The first wait after the API stopped answering, and the longest: 1 s doubling to 30 s. */
const FIRST_MS = 1_000
const MOST_MS = 30_000

/**
 * The API is away rather than refusing: no answer at all (the connection refused, dropped or timed
 * out, after the SDK's own retries), or a gateway's or a stopping server's 502, 503 or 504.
 */
function isOutage(err: unknown): boolean {
  return err instanceof ConnectionError || (err instanceof GrowthError && (err.status === 502 || err.status === 503 || err.status === 504))
}

/** What a follower says when the API goes away and when it is back: once each per outage. */
export type OutageNotices = { away(err: unknown, firstMs: number, mostMs: number): void; back(awayMs: number): void }

/**
 * A follower's (`--follow`, `listen`) patience with an API that stops answering, as `stripe listen`
 * has it: once the API has answered, an outage is waited out with capped backoff (1 s doubling to
 * 30 s) and told once when it starts and once when the API answers again; anything else is
 * rethrown, and so is no answer before the first (the address is likelier wrong than the server
 * restarting). The follower keeps its position, so it goes on from there: nothing lost, nothing twice.
 */
export class OutageWatch {
  private reached = false
  private since: number | undefined
  private delay = FIRST_MS

  constructor(private readonly notices?: OutageNotices) {}

  /** A call failed: the wait before the next try if the API is away; otherwise the error is rethrown. */
  failed(err: unknown): number {
    if (!this.reached || !isOutage(err)) throw err
    if (this.since === undefined) {
      this.since = Date.now()
      this.notices?.away(err, FIRST_MS, MOST_MS)
    }
    const wait = this.delay
    this.delay = Math.min(this.delay * 2, MOST_MS)
    return wait
  }

  /** A call was answered: if the API was away, it is back. */
  answered() {
    this.reached = true
    if (this.since === undefined) return
    const awayMs = Date.now() - this.since
    this.since = undefined
    this.delay = FIRST_MS
    this.notices?.back(awayMs)
  }
}

/**
 * The notices on stderr, naming the base URL: "The API at URL is not answering (the connection was
 * refused); retrying every 1 s, doubling to 30 s (Ctrl-C stops)." and "The API at URL is answering
 * again after 12 s; going on from where it stopped." With --json each is one JSON line,
 * `{"notice":{"code":"api_not_answering"|"api_answering","message":...}}`.
 */
export function outageNotices(credentials: Pick<Credentials, 'baseUrl'>, json: boolean): OutageNotices {
  const say = (code: string, message: string) => writeErr(json ? `${JSON.stringify({ notice: { code, message } })}\n` : `${message}\n`)
  return {
    away: (err, firstMs, mostMs) => {
      const why = err instanceof ConnectionError ? reasonOf(err) : `it answered ${(err as GrowthError).status}`
      say('api_not_answering', `The API at ${credentials.baseUrl} is not answering (${why}); retrying every ${firstMs / 1000} s, doubling to ${mostMs / 1000} s (Ctrl-C stops).`)
    },
    back: (awayMs) => say('api_answering', `The API at ${credentials.baseUrl} is answering again after ${Math.max(1, Math.round(awayMs / 1000))} s; going on from where it stopped.`),
  }
}
