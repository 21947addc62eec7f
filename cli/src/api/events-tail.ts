import type { Command } from 'commander'
import { type Event, Growth } from '@growth-service/sdk'
import { CliError } from '../errors.ts'
import { writeErr, writeOut } from '../output.ts'
import { withCredentials } from './refusal.ts'
import { eventPages, untilInterrupted } from './event-stream.ts'
import { addCredentialOptions, type CredentialOptions, type Credentials } from './credentials.ts'
import { formatTime } from './render.ts'
import { outageNotices } from './outage.ts'

type TailOptions = CredentialOptions & { type?: string; after?: string; follow?: boolean; interval: string; json?: boolean }


/**
 * growth events tail [--type T] [--after CURSOR] [--follow]: prints the event stream from a position
 * (the start, or --after), page by page; with --follow it then keeps asking for what commits next,
 * paced to the token's rate limit (it spreads the calls left in the hour over the time left, and
 * waits out a 429). Ctrl-C stops it cleanly, printing the position to resume from with --after.
 */
export function registerEventsTail(events: Command) {
  addCredentialOptions(events.command('tail'))
    .description('print the event stream from a position, and with --follow keep printing events as they commit (Ctrl-C stops; resume with --after)')
    .option('--type <type>', 'only events of this type, e.g. action.applied')
    .option('--after <cursor>', 'start after this position (printed when tail stops); default: the start of the stream')
    .option('--follow', 'keep following the stream after catching up')
    .option('--interval <ms>', 'the shortest wait between two polls once caught up', '2000')
    .option('--json', 'one JSON line per event on stdout; the position to resume from as JSON on stderr')
    .action(withCredentials((credentials, opts: TailOptions) => tail(opts, credentials)))
}

async function tail(opts: TailOptions, credentials: Credentials) {
  const interval = Number(opts.interval)
  if (!Number.isInteger(interval) || interval < 100) throw new CliError(`--interval must be whole milliseconds >= 100; got ${JSON.stringify(opts.interval)}`)
  const { token, baseUrl } = credentials
  const growth = new Growth({ token, baseUrl })
  let after = opts.after
  await untilInterrupted(async (signal) => {
    try {
      const pages = eventPages(growth, {
        type: opts.type as Event['event'] | undefined,
        after,
        follow: Boolean(opts.follow),
        interval,
        signal,
        onWait: (ms) => opts.json || writeErr(`Rate limited: waiting ${Math.round(ms / 1000)} s.\n`),
        outage: outageNotices(credentials, Boolean(opts.json)),
      })
      for await (const page of pages) {
        for (const event of page.events) print(event, Boolean(opts.json))
        after = page.after
      }
    } finally {
      if (after) {
        if (opts.json) writeErr(`${JSON.stringify({ resume: { after } })}\n`)
        else writeErr(`Resume from here with: growth events tail${opts.type ? ` --type ${opts.type}` : ''} --after ${after}${opts.follow ? ' --follow' : ''}\n`)
      }
    }
  })
}

function print(event: Event, json: boolean) {
  if (json) writeOut(`${JSON.stringify(event)}\n`)
  else writeOut(`${formatTime(event.createdAt)}  ${event.event.padEnd(22)}  ${event.id}\n`)
}
