import { ConnectionError, GrowthError, TimeoutError } from '@growth-service/sdk'
import { ApiRefusal, CliError, Interrupted, NoAnswer } from '../errors.ts'
import { type CredentialOptions, type Credentials, resolveCredentials, tokenOf } from './credentials.ts'

/**
 * A failure of an API call for handleError: a refusal of the API, exit 1 with its code, message and
 * request id (a refused token says which token, from where); no answer at all, exit 2, one sentence
 * naming the base URL and where it came from. `keyFlag`: the command takes --idempotency-key, and a
 * write that may have been done says to send it again with its key (outcomeUnknown).
 */
export function refusalOf(err: unknown, json: boolean, credentials?: Credentials, opts: { keyFlag?: boolean } = {}): unknown {
  const key = opts.keyFlag ? outcomeUnknown(err) : undefined
  const unknown = key ? { idempotencyKey: key, hint: sendAgainWith(key) } : undefined
  if (err instanceof ConnectionError) return new NoAnswer(noAnswerMessage(err, credentials), json, unknown)
  if (err instanceof GrowthError && err.status !== undefined) {
    const error = { code: String(err.code ?? 'unknown'), message: messageOf(err, credentials), requestId: err.requestId ?? null }
    return new ApiRefusal(key ? { ...error, idempotencyKey: key } : error, err.status, json, undefined, unknown?.hint)
  }
  if (err instanceof CliError && !(err instanceof Interrupted) && json) return new ApiRefusal({ code: 'invalid_request', message: err.message, requestId: null }, undefined, json)
  return err
}

const sendAgainWith = (key: string) =>
  `It may have been done: run the same command with --idempotency-key ${key} within 24 hours to get its answer if it was, or to do it once if it was not.`

/**
 * The Idempotency-Key of a write that may or may not have been done: it was sent, and no answer came
 * (a time-out, a connection closed), or a 5xx; not when the connection was never made (refused, no
 * such host). The SDK's retries used it already; the person can send the command again with it.
 */
function outcomeUnknown(err: unknown): string | undefined {
  if (!(err instanceof GrowthError) || !err.idempotencyKey) return undefined
  if (err instanceof ConnectionError) return !(err instanceof TimeoutError) && NEVER_CONNECTED.test(failureCode(err.cause)) ? undefined : err.idempotencyKey
  return err.status !== undefined && err.status >= 500 ? err.idempotencyKey : undefined
}

/**
 * A command's action that calls the API: its credentials resolved from the flags, the environment or
 * the profile, and whatever the API refuses (or no answer) told as refusalOf tells it.
 */
export function withCredentials<O extends CredentialOptions & { json?: boolean }, A extends unknown[] = []>(
  run: (credentials: Credentials, opts: O, ...args: A) => Promise<void>,
): (...args: unknown[]) => Promise<void> {
  // Commander calls an action with the command's arguments, then its options, then the command.
  return async (...args) => {
    const opts = args[args.length - 2] as O
    const credentials = resolveCredentials(opts)
    try {
      await run(credentials, opts, ...(args.slice(0, -2) as A))
    } catch (err) {
      throw refusalOf(err, Boolean(opts.json), credentials)
    }
  }
}

/** A refused or insufficient token is told with where it came from (a flag, the environment, a profile). */
function messageOf(err: GrowthError, credentials: Credentials | undefined): string {
  if (!credentials) return err.message
  const message = err.message.replace(/\.$/, '')
  if (err.status === 401) return `${tokenOf(credentials)} was refused by the API at ${credentials.baseUrl}: ${message}`
  if (err.status === 403) return `${message} (${tokenOf(credentials)})`
  // A base URL without /api/v1 (the server's root, as a browser address is written) finds no endpoint: say so.
  if (err.status === 404 && !/\/api\/v1\/?$/.test(credentials.baseUrl)) {
    const root = credentials.baseUrl.replace(/\/+$/, '')
    return `${message}: the base URL ${baseUrlShown(credentials)} should end in /api/v1, as ${root}/api/v1`
  }
  return err.message
}

/** Why no answer came, in a few words, from the error under the SDK's (Bun's and Node's codes alike). */
export function reasonOf(err: ConnectionError): string {
  if (err instanceof TimeoutError) return `none came within ${/within (\d+) ms/.exec(err.message)?.[1] ?? '?'} ms`
  return reasonOfFailure(err.cause, err.message)
}

/** Why a fetch of the CLI's own (not through the SDK: growth mcp's scope probes) got no answer, as reasonOf says it. */
export function reasonOfFetch(err: unknown, timeoutMs: number): string {
  if ((err as { name?: unknown } | null)?.name === 'TimeoutError') return `none came within ${timeoutMs} ms`
  return reasonOfFailure(err, err instanceof Error ? err.message : String(err))
}

/** The failure's system code (Bun's and Node's alike), on it or on its cause; '' when it has none. */
function failureCode(cause: unknown): string {
  const failure = cause as { code?: unknown; cause?: { code?: unknown } } | undefined
  return String(failure?.code ?? failure?.cause?.code ?? '')
}
const REFUSED = /^(ECONNREFUSED|ConnectionRefused)$/
const NO_SUCH_HOST = /^(ENOTFOUND|EAI_AGAIN|DNSException)$/
/** The connection was never made: nothing was sent. */
const NEVER_CONNECTED = new RegExp(`${REFUSED.source}|${NO_SUCH_HOST.source}`)

function reasonOfFailure(cause: unknown, fallback: string): string {
  const failure = cause as { message?: unknown } | undefined
  const code = failureCode(cause)
  if (REFUSED.test(code)) return 'the connection was refused'
  if (NO_SUCH_HOST.test(code)) return 'no such host'
  if (/^(ECONNRESET|ConnectionClosed|UND_ERR_SOCKET)$/.test(code)) return 'the connection was closed before an answer'
  if (/^(ETIMEDOUT|EHOSTUNREACH|ENETUNREACH)$/.test(code)) return 'the host cannot be reached'
  const text = typeof failure?.message === 'string' ? failure.message : fallback
  return text.replace(/[\s.:;,?!]+$/, '')
}

/** "no answer from the API at URL (from GROWTH_BASE_URL): the connection was refused; is the server running, and is that its address?" */
export function noAnswerMessage(err: ConnectionError, where?: Pick<Credentials, 'baseUrl' | 'baseUrlSource'>): string {
  const url = where ? baseUrlShown(where) : (/https?:\/\/\S+?(?=:?\s|$)/.exec(err.message)?.[0] ?? 'the base URL')
  return noAnswerSentence(url, reasonOf(err))
}

/** The one sentence of every command that got no answer (`at` names the URL and where it came from). */
export function noAnswerSentence(at: string, reason: string): string {
  return `no answer from the API at ${at}: ${reason}; is the server running, and is that its address?`
}

/** Where the credentials' base URL came from, as the no-answer sentence names it. */
export function baseUrlShown(where: Pick<Credentials, 'baseUrl' | 'baseUrlSource'>): string {
  return `${where.baseUrl} (${where.baseUrlSource === 'the default' ? 'the default; set --base-url' : `from ${where.baseUrlSource}`})`
}
