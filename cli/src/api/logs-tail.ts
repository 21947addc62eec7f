import type { Command } from 'commander'
import { Growth, RateLimitError, type RequestLogEntry } from '@growth-service/sdk'
import { CliError } from '../errors.ts'
import { limitOption } from '../limit-option.ts'
import { oneLine, writeErr, writeOut } from '../output.ts'
import { addCredentialOptions, type CredentialOptions, type Credentials } from './credentials.ts'
import { sleep, untilInterrupted } from './event-stream.ts'
import { withCredentials } from './refusal.ts'
import { OutageWatch, outageNotices } from './outage.ts'

type TailOptions = CredentialOptions & { status?: string; operation?: string; credentialId?: string; limit: string; follow?: boolean; interval: string; json?: boolean }

/** How far back each poll looks behind the newest call printed: calls reach the log in batches (CALL_COUNT_FLUSH_MS, 1 s by default). */
const LOOKBACK_MS = 5_000
/** At most this many pages a poll, should more calls have come since the last one. */
const MOST_PAGES = 10
/** Below this share of its hourly calls left, the token's remaining calls are spread over the hour. */
const RESERVE = 0.25

/**
 * growth logs tail [--status S] [--operation O] [--credential-id C] [--follow]: the workspace's latest calls from its
 * request log, oldest first, one readable line each (time, status, method and path, operation, the
 * error's code and message, duration, the credential's last four, the request id); with --follow it
 * keeps printing calls as they come, asking every --interval while the token has more than a
 * quarter of its hourly calls left, then spreading the rest over the hour (a 429 is waited out).
 * Its own calls to the log are not printed. Ctrl-C stops it.
 */
export function registerLogsTail(logs: Command) {
  addCredentialOptions(logs.command('tail'))
    .description("print the workspace's latest calls from its request log, and with --follow keep printing calls as they come (Ctrl-C stops)")
    .option('--status <status>', 'only calls answered with this status: 2xx, 4xx, 5xx or one status such as 429')
    .option('--operation <operationId>', 'only calls of this operation, e.g. createExperiment')
    .option('--credential-id <id>', 'only calls made with this credential (cred_...), e.g. a token suspected of leaking')
    .option('--limit <n>', 'how many of the latest calls to print first (1 to 100)', '20')
    .option('--follow', 'keep printing calls as they come')
    .option('--interval <ms>', 'the shortest wait between two polls when following', '1000')
    .option('--json', 'one JSON line per call on stdout (the API entry as it is)')
    .addHelpText('after', '\nGET /api/v1/logs (listRequestLogs), scope read:logs. Polling spends the token\'s hourly calls: a token of its own (growth admin token create --scopes read:logs) keeps the pace without taking them from the integration it watches.\n')
    .action(withCredentials((credentials, opts: TailOptions) => tail(opts, credentials)))
}

const later = (a: RequestLogEntry, b: RequestLogEntry) => a.createdAt > b.createdAt || (a.createdAt === b.createdAt && a.id > b.id)

async function tail(opts: TailOptions, credentials: Credentials) {
  const interval = Number(opts.interval)
  if (!/^[0-9]+$/.test(opts.interval) || interval < 250) throw new CliError(`--interval must be whole milliseconds >= 250; got ${JSON.stringify(opts.interval)}`)
  const limit = limitOption(opts.limit, 100)
  const growth = new Growth({ token: credentials.token, baseUrl: credentials.baseUrl })
  const filter = { status: opts.status, operation: opts.operation, credentialId: opts.credentialId }
  const json = Boolean(opts.json)
  /** This tail's own calls to the log: not printed. */
  const own = new Set<string>()
  /** What was printed within the look-back, by id, to print each call once. */
  const printed = new Map<string, number>()
  let newest: RequestLogEntry | undefined

  /** The calls since the last poll (and within the look-back before it), oldest first. */
  async function poll(signal: AbortSignal, first: boolean): Promise<{ entries: RequestLogEntry[]; rateLimit?: { remaining: number; limit: number; resetAt: Date }; before?: string }> {
    const since = newest ? Date.parse(newest.createdAt) - LOOKBACK_MS : undefined
    const found: RequestLogEntry[] = []
    let before: string | undefined
    let rateLimit
    for (let page = 0; page < MOST_PAGES; page++) {
      const answer = await growth.logs.list({ ...filter, limit: first ? limit : 100, before }, { signal }).withResponse()
      if (answer.requestId) own.add(answer.requestId)
      rateLimit = answer.rateLimit
      found.push(...answer.data.data)
      before = answer.data.meta?.nextBefore
      const oldest = answer.data.data.at(-1)
      if (first || !before || !oldest || since === undefined || Date.parse(oldest.createdAt) < since) break
    }
    const fresh = found.filter((e) => !own.has(e.id) && !printed.has(e.id) && (since === undefined || Date.parse(e.createdAt) >= since))
    return { entries: fresh.reverse(), rateLimit, before }
  }

  /**
   * Following, the calls just older than the first page that --limit left out, within the look-back
   * of the newest printed: marked as printed, so the next poll's look-back does not print them late,
   * out of order, as if they were new.
   */
  async function skipLeftOut(signal: AbortSignal, before: string | undefined) {
    const since = Date.parse(newest!.createdAt) - LOOKBACK_MS
    for (let page = 0; before && page < MOST_PAGES; page++) {
      const answer = await growth.logs.list({ ...filter, limit: 100, before }, { signal }).withResponse()
      if (answer.requestId) own.add(answer.requestId)
      for (const e of answer.data.data) printed.set(e.id, Date.parse(e.createdAt))
      before = answer.data.meta?.nextBefore
      const oldest = answer.data.data.at(-1)
      if (!oldest || Date.parse(oldest.createdAt) < since) break
    }
  }

  const outage = new OutageWatch(outageNotices(credentials, json))
  await untilInterrupted(async (signal) => {
    let first = true
    while (!signal.aborted) {
      let wait = interval
      try {
        const { entries, rateLimit, before } = await poll(signal, first)
        outage.answered()
        for (const e of entries) {
          print(e, json)
          printed.set(e.id, Date.parse(e.createdAt))
          if (!newest || later(e, newest)) newest = e
        }
        if (first && opts.follow && newest) await skipLeftOut(signal, before)
        if (newest) for (const [id, at] of printed) if (at < Date.parse(newest.createdAt) - LOOKBACK_MS) printed.delete(id)
        if (!opts.follow) return
        if (first && !json) writeErr('Following; Ctrl-C stops.\n')
        first = false
        if (rateLimit && rateLimit.remaining < rateLimit.limit * RESERVE) {
          const spread = rateLimit.remaining > 0 ? (rateLimit.resetAt.getTime() - Date.now()) / rateLimit.remaining : rateLimit.resetAt.getTime() - Date.now()
          wait = Math.max(interval, spread)
        }
      } catch (err) {
        if (signal.aborted) return
        if (!opts.follow) throw err
        if (err instanceof RateLimitError) {
          wait = Math.max(interval, (err.retryAfter ?? 60) * 1000)
          if (!json) writeErr(`Rate limited: waiting ${Math.round(wait / 1000)} s.\n`)
        } else wait = outage.failed(err)
      }
      await sleep(wait, signal)
    }
  })
}

/** The local time with seconds and milliseconds: calls come closer together than a minute. */
function clock(iso: string): string {
  const d = new Date(iso)
  const p = (n: number, w = 2) => String(n).padStart(w, '0')
  return `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}.${p(d.getMilliseconds(), 3)}`
}

function print(e: RequestLogEntry, json: boolean) {
  if (json) return writeOut(`${JSON.stringify(e)}\n`)
  const who = e.credential.last4 ? `${e.credential.kind} …${e.credential.last4}` : e.credential.id
  const refusal = e.code ? `  ${e.code}: ${e.message ?? ''}` : ''
  const replay = e.replayed ? '  (replayed)' : ''
  const line = `${clock(e.createdAt)}  ${e.status}  ${`${e.method} ${e.path}`.padEnd(28)}  ${e.operation.padEnd(20)}  ${`${e.durationMs.toFixed(1)} ms`.padStart(9)}  ${who}  ${e.id}${replay}${refusal}`
  writeOut(`${oneLine(line)}\n`)
}
