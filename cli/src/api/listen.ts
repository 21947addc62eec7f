import type { Command } from 'commander'
import { Growth } from '@growth-service/sdk'
import { lastFour } from '../../../server/src/core/secret-hint.ts'
import { sampleType } from '../../../server/src/domain/event-samples.ts'
import { CliError } from '../errors.ts'
import { writeErr, writeOut } from '../output.ts'
import { forward, forwardTarget, type ListenOptions, readState, statePath, writeState } from './listen-forward.ts'
import { trigger } from './listen-trigger.ts'
import { refusalOf } from './refusal.ts'
import { eventPages, untilInterrupted } from './event-stream.ts'
import { addCredentialOptions, type Credentials, resolveCredentials } from './credentials.ts'
import { outageNotices } from './outage.ts'

/**
 * growth listen --forward-to URL: local webhook development without a public address, as
 * `stripe listen` does. It follows the workspace's event stream through the API and posts each new
 * event to the local URL exactly as a delivery is made (the same body, X-Service-Signature over it
 * with a local whsec_ secret, X-Service-Event-Id, X-Service-Delivery-Id, and the Standard Webhooks
 * headers webhook-id, webhook-timestamp, webhook-signature), so the receiver's own
 * Webhooks.verify code runs. One status line per event; no retries (run it again to resend from a
 * position with --after). The secret and the stream's position are kept in the config folder, per
 * base URL and token, so a restart forwards only what is new.
 *
 * The secret is printed in full the run it is made, and by --print-secret (as `stripe listen
 * --print-secret`); other runs print its last four and where it is: their output is often a log.
 */
export function registerListen(program: Command) {
  addCredentialOptions(program.command('listen'))
    .description('forward the workspace’s events, signed as deliveries are, to a local URL (local webhook development)')
    .option('--forward-to <url>', 'where to post each event, e.g. http://127.0.0.1:3000/webhooks (required, but with --print-secret)')
    .option('--events <types>', 'only these event types, comma-separated, e.g. contact.created,action.applied')
    .option('--secret <whsec>', 'sign with this secret (default: one made for this machine and kept in the config folder)')
    .option('--print-secret', 'print this machine’s signing secret (made if there is none yet) and exit')
    .option('--trigger <type>', 'post one sample of this event type (its example in the OpenAPI document) to --forward-to, signed the same way, and exit, as stripe trigger does')
    .option('--interval <ms>', 'the shortest wait between two polls of the stream', '1000')
    .option('--json', 'one JSON line per forwarded event on stdout')
    .action(async (opts: ListenOptions) => {
      if (opts.printSecret) return printSecret(Boolean(opts.json))
      if (opts.trigger !== undefined) return trigger(opts)
      const credentials = resolveCredentials(opts)
      try {
        await listen(opts, credentials)
      } catch (err) {
        throw refusalOf(err, Boolean(opts.json), credentials)
      }
    })
}

/** growth listen --print-secret: the machine's secret on stdout (kept first if it was made now), as `stripe listen --print-secret`. */
function printSecret(json: boolean) {
  const { state, secretMade } = readState()
  if (secretMade) writeState(state)
  writeOut(json ? `${JSON.stringify({ secret: state.secret })}\n` : `${state.secret}\n`)
}

/** How the Ready line names the secret, and the line that says where it is. */
function describeSecret(secret: string, given: boolean, made: boolean): { shown: string; where?: string } {
  if (given) return { shown: `the --secret given (${lastFour(secret)})` }
  if (made) return { shown: secret, where: `This machine's signing secret was made now and kept in ${statePath()}; later runs print its last four only (growth listen --print-secret prints it).` }
  return { shown: lastFour(secret), where: `This machine's signing secret is kept in ${statePath()} (growth listen --print-secret prints it).` }
}

async function listen(opts: ListenOptions, credentials: Credentials) {
  const target = forwardTarget(opts)
  const interval = Number(opts.interval)
  if (!Number.isInteger(interval) || interval < 100) throw new CliError(`--interval must be whole milliseconds >= 100; got ${JSON.stringify(opts.interval)}`)
  const types = opts.events ? opts.events.split(',').map((t) => t.trim()).filter(Boolean) : undefined
  // A misspelt type would match nothing and forward nothing, without a word: refuse it, naming the types.
  for (const type of types ?? []) {
    try {
      sampleType(type)
    } catch (err) {
      throw new CliError(`--events: ${(err as Error).message}`)
    }
  }
  const { token, baseUrl } = credentials
  const growth = new Growth({ token, baseUrl })
  const { state, secretMade } = readState()
  const secret = opts.secret ?? state.secret
  const described = describeSecret(secret, opts.secret !== undefined, secretMade)
  const where = `${baseUrl} ${token.slice(-12)}`
  let after: string | undefined = state.positions[where]

  await untilInterrupted(async (signal) => {
    // Catch up with what is already there, forwarding none of it: listen forwards what is new.
    if (!after) {
      if (!opts.json) writeErr('Finding the end of the event stream...\n')
      for await (const page of eventPages(growth, { after, follow: false, interval, signal })) after = page.after
    }
    state.positions[where] = after ?? ''
    writeState(state)
    if (signal.aborted) return
    const filter = types ? ` (${types.join(', ')})` : ''
    writeErr(`Ready. Forwarding events${filter} to ${target.href}, signed with ${described.shown} (Ctrl-C stops)\n`)
    if (described.where) writeErr(`${described.where}\n`)
    // The whole stream, filtered here: a position is bound to its filter, and the one kept is the whole stream's.
    const pages = eventPages(growth, { after: after || undefined, follow: true, interval, signal, outage: outageNotices(credentials, Boolean(opts.json)) })
    for await (const page of pages) {
      for (const event of page.events) {
        if (types && !types.includes(event.event)) continue
        await forward(event, target, secret, Boolean(opts.json))
      }
      // The position is kept after each page: a restart forwards only what came after it.
      if (page.after && page.after !== after) {
        after = page.after
        state.positions[where] = after
        writeState(state)
      }
    }
  })
}

