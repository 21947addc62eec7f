import type { EventWatcher, WatchedChange } from '../domain/event-watch.ts'

/**
 * GET /console/live: the server-sent events an open console page listens to (assets/console.js).
 * First an event `ready` (from then on nothing is missed); then each event `change` carries { types, ids } of what was decided or started waiting in the
 * person's workspace; the page then fetches itself again. A comment every 5 seconds keeps the
 * connection open through Bun's idle timeout and proxies, and tells the server a page has gone.
 * What a page costs the server: a stream, a timer and a callback; the polling is shared
 * (domain/event-watch.ts). At most MAX_STREAMS at once per process: past that, 503 and the page
 * stays as it is (reloading works as ever). At most MAX_STREAMS_PER_SESSION of those for one
 * session, so that one signed-in browser (or a script with its cookie) cannot take the process's
 * all: past that, 429, and the same.
 *
 * A stream lives no longer than its session: before a change is sent, and every RECHECK_MS, it asks
 * `stillOpen`; once the session has ended (signed out, the person removed, idle or too old) the
 * stream ends and says nothing more (the page's EventSource reconnects, is answered 401 and stops).
 * When the answer cannot be had (the database away), that change is not sent and the stream stays.
 */
const KEEPALIVE_MS = 5_000
const RECHECK_MS = 30_000
const MAX_STREAMS = 5_000
const MAX_STREAMS_PER_SESSION = 20
/** The streams open in this process per session (the key: its cookie's token; kept while a stream is open, never shown). */
const perSession = new Map<string, number>()
const encoder = new TextEncoder()
const KEEPALIVE = encoder.encode(': still here\n\n')

/** Which events move a console page: what waits for a person, and its decisions. */
export const LIVE_TYPES = (type: string) => type.startsWith('approval.') || type.startsWith('action.') || type === 'agent.request.decided'

export function liveResponse(
  watcher: EventWatcher,
  workspaceId: string,
  signal: AbortSignal,
  headers: Record<string, string>,
  session: { token: string; stillOpen: () => Promise<boolean> },
): Response {
  const { stillOpen } = session
  const refuse = (status: number) => new Response('retry: 60000\n\n', { status, headers: { ...headers, 'Content-Type': 'text/event-stream', 'Retry-After': '60' } })
  if (watcher.watching >= MAX_STREAMS) return refuse(503)
  const held = perSession.get(session.token) ?? 0
  if (held >= MAX_STREAMS_PER_SESSION) return refuse(429)
  perSession.set(session.token, held + 1)
  const release = () => {
    const n = (perSession.get(session.token) ?? 1) - 1
    if (n > 0) perSession.set(session.token, n)
    else perSession.delete(session.token)
  }
  let stop = () => {}
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      const send = (chunk: Uint8Array) => {
        try {
          controller.enqueue(chunk)
        } catch {
          stop()
        }
      }
      let stopped = false
      // One question at a time, shared by the changes that arrive while it is asked. null: no answer.
      let asking: Promise<boolean | null> | null = null
      let askedAt = Date.now()
      const open = () =>
        (asking ??= stillOpen()
          .catch(() => null)
          .then((answer) => {
            asking = null
            askedAt = Date.now()
            if (answer === false) stop()
            return answer
          }))
      const watch = watcher.watch(workspaceId, (c: WatchedChange) => {
        void open().then((answer) => {
          if (answer === true && !stopped) send(encoder.encode(`event: change\ndata: ${JSON.stringify(c)}\n\n`))
        })
      })
      const unwatch = watch.stop
      const timer = setInterval(() => {
        if (Date.now() - askedAt >= RECHECK_MS) void open()
        send(KEEPALIVE)
      }, KEEPALIVE_MS)
      stop = () => {
        if (stopped) return
        stopped = true
        clearInterval(timer)
        unwatch()
        release()
        try {
          controller.close()
        } catch {}
      }
      signal.addEventListener('abort', () => stop(), { once: true })
      // `ready` once the watch knows where the stream stands: nothing committed after it is missed.
      void watch.started.then(() => send(encoder.encode('retry: 2000\nevent: ready\ndata: {}\n\n')))
    },
    cancel() {
      stop()
    },
  })
  return new Response(body, { headers: { ...headers, 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store', 'X-Accel-Buffering': 'no' } })
}
