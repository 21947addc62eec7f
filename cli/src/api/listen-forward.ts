import { randomBytes } from 'node:crypto'
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { type Event, Webhooks } from '@growth-service/sdk'
import { CliError } from '../errors.ts'
import { writeOut } from '../output.ts'
import type { CredentialOptions } from './credentials.ts'
import { configDir } from './profiles.ts'
import { reasonOfFetch } from './refusal.ts'
import { formatTime } from './render.ts'

/*
 * What `growth listen` (listen.ts) and `growth listen --trigger` (listen-trigger.ts) share: the
 * options, the secret and stream positions kept in the config folder (listen.json), the target
 * checked, and one event posted exactly as a delivery is made.
 */

export type ListenOptions = CredentialOptions & { forwardTo?: string; events?: string; secret?: string; printSecret?: boolean; trigger?: string; interval: string; json?: boolean }

/** The contract's time-out for a delivery: a receiver that does not answer in 15 s has failed it. */
const FORWARD_TIMEOUT_MS = 15_000

type State = { secret: string; positions: Record<string, string> }

export function statePath() {
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
  if (opts.secret !== undefined && !/^whsec_[A-Za-z0-9+/_-]{8,}={0,2}$/.test(opts.secret)) {
    const rest = opts.secret.startsWith('whsec_') ? opts.secret.slice(6).replace(/=+$/, '') : undefined
    const got = rest === undefined ? 'it does not start with whsec_' : /^[A-Za-z0-9+/_-]*$/.test(rest) ? `got ${rest.length}` : 'what follows whsec_ is not base64'
    throw new CliError(`--secret must be a whsec_... secret: whsec_ and then at least 8 characters of base64 (${got}), as the Standard Webhooks headers are keyed with the bytes it spells; growth listen --print-secret prints one`)
  }
  return target
}

export async function forward(event: Event, target: URL, secret: string, json: boolean): Promise<{ status: number | undefined; answer: string }> {
  const body = JSON.stringify(event)
  const deliveryId = `dlv_local_${randomBytes(8).toString('hex')}`
  const started = performance.now()
  let status: number | undefined
  let error: string | undefined
  let answer = ''
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
    const text = await res.text().catch(() => '')
    if (status < 200 || status > 299) answer = answerLine(text)
  } catch (err) {
    error = (err as Error).name === 'TimeoutError' ? `no answer within ${FORWARD_TIMEOUT_MS / 1000} s` : reasonOfFetch(err, FORWARD_TIMEOUT_MS)
    if (error === 'the connection was refused') error += `; is the receiver running at ${target.host}?`
  }
  const ms = Math.round(performance.now() - started)
  if (json) writeOut(`${JSON.stringify({ eventId: event.id, event: event.event, deliveryId, status: status ?? null, error: error ?? null, durationMs: ms })}\n`)
  else writeOut(`${formatTime(event.createdAt)}  ${event.event.padEnd(22)}  ${event.id}  -> ${status === undefined ? `failed: ${error}` : `${status}${answer ? ` ${answer}` : ''}`} (${ms} ms)\n`)
  return { status, answer }
}

/**
 * The first line of a refusing receiver's answer, short, as a person reads it beside the status: a
 * receiver built on the SDK answers its WebhookVerificationError's reason (no_matching_signature,
 * timestamp_too_old, ...), which says what to fix. Control characters are dropped: it is printed to
 * a terminal.
 */
function answerLine(text: string): string {
  const line = (text.split('\n').find((l) => l.trim() !== '') ?? '').replace(/[\u0000-\u001f\u007f-\u009f]/g, '').trim()
  return line.length > 120 ? `${line.slice(0, 119)}…` : line
}
