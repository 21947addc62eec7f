import type { Logger } from '../core/log.ts'
import { withoutSecrets } from '../core/secret-hint.ts'
import type { Answer } from './answer.ts'
import type { RequestLog } from './request-log.ts'

/** One answered request, as the pipeline saw it. */
export type SeenRequest = {
  requestId: string
  request: Request
  /** The operationId, or unknown_route and the like for what no operation answered. */
  operation: string
  /** The route as declared (`GET /api/v1/decisions/{id}`): the log line's message, never a value of the call. */
  route: string
  /** No operation's route answered (unknown_route, method_not_allowed): the log line names the path asked for. */
  unrouted?: boolean
  answer: Answer
  /** performance.now() when the pipeline got the request. */
  startedAt: number
  /** '' when no credential was established. */
  workspaceId: string
  credentialId: string
}

const MAX_KEY = 255
/** As much of an unrouted path as a log line holds (a 414's URL runs to 8 KB). */
const MAX_LOGGED_PATH = 1024

/** A path segment holding an address (`@` or `%40`): the server log never holds an email address. */
const ADDRESS_SEGMENT = /[^/]*(?:@|%40)[^/]*/gi

/** The path of a URL, without its query string (which can carry a value of the caller's). */
function pathOf(url: string): string {
  const start = url.indexOf('/', url.indexOf('//') + 2)
  if (start < 0) return '/'
  const q = url.indexOf('?', start)
  return url.slice(start, q < 0 ? undefined : q)
}

/**
 * The path an unrouted request asked for, as the server log holds it: without its query string,
 * each secret of ours as its last four (as the request log holds it), a segment with an address
 * in it as `[email]`, at most MAX_LOGGED_PATH characters.
 */
function loggedPath(url: string): string {
  const path = withoutSecrets(pathOf(url)).replace(ADDRESS_SEGMENT, '[email]')
  return path.length > MAX_LOGGED_PATH ? `${path.slice(0, MAX_LOGGED_PATH - 1)}…` : path
}

/** What a key accepted can hold (idempotency.ts): visible ASCII and the space. */
const NOT_PRINTABLE = /[^\x20-\x7e]/g

/**
 * The Idempotency-Key as the request log keeps it. A key accepted is kept as sent; a refused one
 * (non-ASCII, control characters, too long) is kept in a printable form, so the log never holds a
 * caller's raw control or bidi characters: each character outside visible ASCII and the space as
 * its `\uXXXX` escape, as the CLI shows terminal-unsafe text (HTTP carries a header's bytes, which
 * arrive one character per byte: UTF-8 `\u202e` is kept as `\u00e2\u0080\u00ae`), then at most
 * MAX_KEY characters, `…` when cut. A secret of ours in it is its last four, as everywhere in the log.
 */
function keyAsLogged(key: string): string {
  // Escaped first: lastFour's own `…` stays as it is.
  const printable = withoutSecrets(key.replace(NOT_PRINTABLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`))
  if (printable.length <= MAX_KEY) return printable
  // Cut without leaving half an escape at the end.
  return `${printable.slice(0, MAX_KEY - 1).replace(/\\u[0-9a-f]{0,3}$/, '')}…`
}

/** The error's code and message of a refusal's body (the envelope's own, made in answer.ts). */
function errorOf(answer: Answer): { code: string | null; message: string | null } {
  if (answer.status < 400) return { code: null, message: null }
  try {
    const { error } = JSON.parse(answer.body) as { error?: { code?: string; message?: string } }
    return { code: error?.code ?? null, message: error?.message ?? null }
  } catch {
    return { code: null, message: null }
  }
}

/**
 * What every answered request leaves behind besides its answer and its count: one log line (time,
 * level, msg, requestId, traceId, operation, status, code, durationMs, workspaceId, credentialId;
 * nothing of the request's values but, for a request no route answered, the path it asked for) and, for a call of a workspace, an entry of its request log,
 * written in the next batch. `traceId` is the tracing's seam: it names the request's trace when
 * tracing is on (undefined until then, logged as null).
 */
export function requestObserver(deps: { log: Logger; requestLog?: RequestLog; traceId?: () => string | undefined }) {
  return (seen: SeenRequest) => {
    const durationMs = Math.round((performance.now() - seen.startedAt) * 1000) / 1000
    const { code, message } = errorOf(seen.answer)
    const { status } = seen.answer
    const fields = {
      requestId: seen.requestId,
      traceId: deps.traceId?.() ?? null,
      operation: seen.operation,
      status,
      code,
      durationMs,
      workspaceId: seen.workspaceId || null,
      credentialId: seen.credentialId || null,
      // What was asked, when no declared route says it (the message is `GET unknown_route`).
      ...(seen.unrouted ? { path: loggedPath(seen.request.url) } : {}),
    }
    if (status >= 500) deps.log.error(`${seen.route} ${status}`, fields)
    else deps.log.info(`${seen.route} ${status}`, fields)
    if (!deps.requestLog || !seen.workspaceId) return
    const key = seen.request.method === 'POST' ? seen.request.headers.get('idempotency-key') : null
    // What the caller wrote is kept without a credential of ours in it (one pasted in the wrong place).
    deps.requestLog.add({
      workspaceId: seen.workspaceId,
      id: seen.requestId,
      method: seen.request.method,
      path: withoutSecrets(pathOf(seen.request.url)),
      operation: seen.operation,
      status,
      code,
      message: message === null ? null : withoutSecrets(message),
      durationMs,
      credentialId: seen.credentialId,
      idempotencyKey: key === null ? null : keyAsLogged(key),
      replayed: seen.answer.headers?.['Idempotent-Replayed'] === 'true',
      createdAt: new Date(),
    })
  }
}
