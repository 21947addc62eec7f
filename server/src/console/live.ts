import type { EventWatcher, WatchedChange } from '../domain/event-watch.ts'

/**
 * GET /console/live: the server-sent events an open console page listens to (assets/console.js).
 * First an event `ready` (from then on nothing is missed); then each event `change` carries { types, ids } of what was decided or started waiting in the
 * person's workspace; the page then fetches itself again. A comment every 5 seconds keeps the
 * connection open through Bun's idle timeout and proxies, and tells the server a page has gone.
 * What a page costs the server: a stream, a timer and a callback; the polling is shared
 * (domain/event-watch.ts). At most MAX_STREAMS at once per process: past that, 503 and the page
 * stays as it is (reloading works as ever).
 */
const KEEPALIVE_MS = 5_000
const MAX_STREAMS = 5_000
const encoder = new TextEncoder()
const KEEPALIVE = encoder.encode(': still here\n\n')

/** Which events move a console page: what waits for a person, and its decisions. */
export const LIVE_TYPES = (type: string) => type.startsWith('approval.') || type.startsWith('action.') || type === 'agent.request.decided'

export function liveResponse(watcher: EventWatcher, workspaceId: string, signal: AbortSignal, headers: Record<string, string>): Response {
  if (watcher.watching >= MAX_STREAMS) {
    return new Response('retry: 60000\n\n', { status: 503, headers: { ...headers, 'Content-Type': 'text/event-stream', 'Retry-After': '60' } })
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
      const watch = watcher.watch(workspaceId, (c: WatchedChange) => send(encoder.encode(`event: change\ndata: ${JSON.stringify(c)}\n\n`)))
      const unwatch = watch.stop
      const timer = setInterval(() => send(KEEPALIVE), KEEPALIVE_MS)
      let stopped = false
      stop = () => {
        if (stopped) return
        stopped = true
        clearInterval(timer)
        unwatch()
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
