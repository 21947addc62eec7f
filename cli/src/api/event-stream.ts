import { type Event, type Growth, RateLimitError } from '@growth-service/sdk'
import { type OutageNotices, OutageWatch } from './outage.ts'

const PAGE = 100

type StreamOptions = {
  type?: Event['event']
  /** The position to start after (a meta.nextCursor); undefined: the start of the stream. */
  after?: string
  /** Keep following once caught up (else stop there). */
  follow: boolean
  /** The shortest wait between two polls once caught up, ms. */
  interval: number
  signal: AbortSignal
  /** Told when a 429 makes it wait, with how long. */
  onWait?: (ms: number) => void
  /** Following, told when the API stops answering and when it answers again (OutageWatch). */
  outage?: OutageNotices
}

/**
 * The event stream through the API, page by page from a position, and (following) on as events
 * commit. Each yield is a page's events with the position after them, to resume from. Once caught
 * up it asks again no sooner than `interval`, and no sooner than the calls left in the token's hour
 * allow when spread over the time left, so a follower left running never spends the hourly limit;
 * a 429 is waited out, and so is an API that stops answering (a restart): retried with capped
 * backoff from the same position, so nothing is lost or given twice. Ends when the signal aborts
 * (or, not following, when caught up; not following, an error ends it too).
 */
export async function* eventPages(growth: Growth, opts: StreamOptions): AsyncGenerator<{ events: Event[]; after: string | undefined }> {
  let after = opts.after
  const outage = new OutageWatch(opts.outage)
  while (!opts.signal.aborted) {
    let wait = 0
    try {
      const answer = await growth.events.list({ type: opts.type, limit: PAGE, after }, { signal: opts.signal }).withResponse()
      outage.answered()
      const page = answer.data
      after = page.meta?.nextCursor ?? after
      yield { events: page.data, after }
      if (page.data.length === PAGE) continue
      if (!opts.follow) return
      const limit = answer.rateLimit
      const spread = limit && limit.remaining > 0 ? (limit.resetAt.getTime() - Date.now()) / limit.remaining : 0
      wait = Math.max(opts.interval, spread)
    } catch (err) {
      if (opts.signal.aborted) return
      if (!opts.follow) throw err
      if (err instanceof RateLimitError) {
        wait = Math.max(opts.interval, (err.retryAfter ?? 60) * 1000)
        opts.onWait?.(wait)
      } else wait = outage.failed(err)
    }
    await sleep(wait, opts.signal)
  }
}

/** Stops on Ctrl-C or SIGTERM (the launcher passes them on), for the life of `run`. */
export async function untilInterrupted<T>(run: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const stop = new AbortController()
  const onSignal = () => stop.abort()
  process.once('SIGINT', onSignal)
  process.once('SIGTERM', onSignal)
  try {
    return await run(stop.signal)
  } finally {
    process.off('SIGINT', onSignal)
    process.off('SIGTERM', onSignal)
  }
}

/** Waits `ms`, or less if the signal aborts meanwhile. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve()
    const timer = setTimeout(done, ms)
    function done() {
      clearTimeout(timer)
      signal.removeEventListener('abort', done)
      resolve()
    }
    signal.addEventListener('abort', done, { once: true })
  })
}
