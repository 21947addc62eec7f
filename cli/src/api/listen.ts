import { randomBytes } from 'node:crypto'
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Command } from 'commander'
import { type Event, Growth, Webhooks } from '@growth-service/sdk'
import { lastFour } from '../../../server/src/core/secret-hint.ts'
import { CliError } from '../errors.ts'
import { writeErr, writeOut } from '../output.ts'
import { trigger } from './listen-trigger.ts'
import { refusalOf } from './refusal.ts'
import { eventPages, untilInterrupted } from './event-stream.ts'
import { addCredentialOptions, type CredentialOptions, type Credentials, resolveCredentials } from './credentials.ts'
import { configDir } from './profiles.ts'
import { formatTime } from './render.ts'

export type ListenOptions = CredentialOptions & { forwardTo?: string; events?: string; secret?: string; printSecret?: boolean; trigger?: string; interval: string; json?: boolean }

/** The contract's time-out for a delivery: a receiver that does not answer in 15 s has failed it. */
const FORWARD_TIMEOUT_MS = 15_000

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

type State = { secret: string; positions: Record<string, string> }

function statePath() {
  return join(configDir(), 'listen.json')
}

/** The kept state, and whether its secret was made just now (no state yet): then it is shown in full. */
export function readState(): { state: State; secretMade: boolean } {
  const path = statePath()
  if (!existsSync(path)) return { state: { secret: `whsec_${randomBytes(32).toString('base64')}`, positions: {} }, secretMade: true }
  try {
    return { state: JSON.parse(readFileSync(path, 'utf8')) as State, secretMade: false }
  } catch (err) {
    throw new CliError(`cannot read ${path}: ${(err as Error).message}; remove it to start afresh`)
  }
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

export function writeState(state: State) {
  mkdirSync(configDir(), { recursive: true, mode: 0o700 })
  const path = statePath()
  const temporary = `${path}.${process.pid}.tmp`
  writeFileSync(temporary, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 })
  chmodSync(temporary, 0o600)
  renameSync(temporary, path)
}

/** --forward-to as a URL, and --secret checked when given: what both forwarding and --trigger need. */
export function forwardTarget(opts: ListenOptions): URL {
  if (opts.forwardTo === undefined) throw new CliError('--forward-to is required: where to post each event, e.g. http://127.0.0.1:3000/webhooks (or --print-secret to print the signing secret)')
  let target: URL
  try {
    target = new URL(opts.forwardTo)
    if (!/^https?:$/.test(target.protocol)) throw new Error('not http(s)')
  } catch {
    throw new CliError(`--forward-to must be an http(s) URL such as http://127.0.0.1:3000/webhooks; got ${JSON.stringify(opts.forwardTo)}`)
  }
  if (opts.secret !== undefined && !/^whsec_[A-Za-z0-9+/_-]{8,}={0,2}$/.test(opts.secret))
    throw new CliError('--secret must be a whsec_... secret: whsec_ and then base64 (the Standard Webhooks headers are keyed with the bytes it spells)')
  return target
}

async function listen(opts: ListenOptions, credentials: Credentials) {
  const target = forwardTarget(opts)
  const interval = Number(opts.interval)
  if (!Number.isInteger(interval) || interval < 100) throw new CliError(`--interval must be whole milliseconds >= 100; got ${JSON.stringify(opts.interval)}`)
  const types = opts.events ? opts.events.split(',').map((t) => t.trim()).filter(Boolean) : undefined
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
    const pages = eventPages(growth, { after: after || undefined, follow: true, interval, signal })
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

export async function forward(event: Event, target: URL, secret: string, json: boolean): Promise<number | undefined> {
  const body = JSON.stringify(event)
  const deliveryId = `dlv_local_${randomBytes(8).toString('hex')}`
  const started = performance.now()
  let status: number | undefined
  let error: string | undefined
  try {
    const res = await fetch(target, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'User-Agent': 'growth-cli-listen',
        'X-Service-Signature': Webhooks.sign(body, secret),
        'X-Service-Event-Id': event.id,
        'X-Service-Delivery-Id': deliveryId,
        ...Webhooks.signStandard(body, secret, { id: event.id }),
      },
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
    })
    status = res.status
    await res.arrayBuffer().catch(() => undefined)
  } catch (err) {
    error = (err as Error).name === 'TimeoutError' ? `no answer within ${FORWARD_TIMEOUT_MS / 1000} s` : ((err as { cause?: Error }).cause?.message ?? (err as Error).message)
  }
  const ms = Math.round(performance.now() - started)
  if (json) writeOut(`${JSON.stringify({ eventId: event.id, event: event.event, deliveryId, status: status ?? null, error: error ?? null, durationMs: ms })}\n`)
  else writeOut(`${formatTime(event.createdAt)}  ${event.event.padEnd(22)}  ${event.id}  -> ${status ?? `failed: ${error}`} (${ms} ms)\n`)
  return status
}
