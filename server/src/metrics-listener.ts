import { hostResolves } from './core/host-lookup.ts'
import { enableMetrics, gaugeSources, registry } from './core/metrics.ts'
import type { Logger } from './core/log.ts'
import type { Sql } from './store/driver/db.ts'
import { databaseUp } from './store/database-up.ts'
import { poolUse } from './store/driver/pool-use.ts'
import { openCircuits, webhookBacklog } from './store/webhook-gauges.ts'

export type MetricsListener = { url: string; stop(): Promise<void> }

/**
 * The Prometheus listener of a process (the server or `growth worker`): GET /metrics on a port of its
 * own (METRICS_PORT, bound to METRICS_HOST, 127.0.0.1 unless told), never on the API's port, so that
 * it need not be exposed where the API is. It turns recording on for the whole process (`api: false`
 * for `growth worker`: no API metrics, since it answers no request).
 */
export function startMetricsListener(opts: { host: string; port: number; sql: Sql; log: Logger; api?: boolean }): MetricsListener {
  let server: ReturnType<typeof Bun.serve>
  try {
    server = serve(opts)
  } catch (err) {
    throw metricsListenError(opts, err)
  }
  enableMetrics({ api: opts.api ?? true })
  // Read once now: a postgres.js left unpatched stops the start here, not every scrape quietly.
  poolUse()
  gaugeSources.backlog(() => webhookBacklog(opts.sql))
  gaugeSources.circuitsOpen(() => openCircuits(opts.sql))
  gaugeSources.databaseUp(() => databaseUp(opts.sql))
  gaugeSources.dbPool(async () => poolUse())
  const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host
  return { url: `http://${host}:${server.port}/metrics`, stop: () => server.stop(true) }
}

function serve(opts: { host: string; port: number; log: Logger }) {
  return Bun.serve({
    hostname: opts.host,
    port: opts.port,
    reusePort: false,
    async fetch(request) {
      const path = new URL(request.url).pathname
      if (path !== '/metrics') return new Response('Not found: the metrics are at GET /metrics.\n', { status: 404, headers: { 'Content-Type': 'text/plain; charset=utf-8' } })
      if (request.method !== 'GET' && request.method !== 'HEAD') return new Response('GET /metrics only.\n', { status: 405, headers: { Allow: 'GET, HEAD', 'Content-Type': 'text/plain; charset=utf-8' } })
      try {
        return new Response(await registry.metrics(), { headers: { 'Content-Type': registry.contentType } })
      } catch (error) {
        opts.log.error('metrics scrape failed', { error })
        return new Response('The metrics could not be collected; see the process log.\n', { status: 500, headers: { 'Content-Type': 'text/plain; charset=utf-8' } })
      }
    },
  })
}

/**
 * METRICS_HOST is looked up before anything listens, as HOST is: a name that does not resolve is
 * said as such (Bun's own refusal, "Failed to listen at ..." or EINVAL, names neither the setting
 * nor the cause).
 */
export async function metricsHostResolves(at: { host: string; port: number }): Promise<void> {
  await hostResolves(at.host).catch((err) => Promise.reject(metricsListenError(at, err)))
}

/** The metrics listener could not listen (or was given the API's own port, `SAME_AS_PORT`): said as one line naming the setting to change. */
export function metricsListenError(at: { host: string; port: number }, err: unknown): Error {
  return new MetricsListenError(at, err)
}

class MetricsListenError extends Error {
  readonly code = 'METRICS_LISTEN'
  constructor(at: { host: string; port: number }, err: unknown) {
    const code = (err as { code?: string }).code
    super(
      code === 'SAME_AS_PORT'
        ? `METRICS_PORT is the API's PORT (${at.port}): the metrics are served on a port of their own. Set METRICS_PORT to another free port.`
        : code === 'EADDRINUSE'
        ? `Port ${at.port} on ${at.host} (METRICS_PORT) is already in use. Stop that process, or set METRICS_PORT to a free port.`
        : code === 'HOST_UNRESOLVED'
        ? `METRICS_HOST ${at.host} does not resolve. Set METRICS_HOST to an address of this machine, e.g. 127.0.0.1 (or 0.0.0.0 for every one).`
        : code === 'EADDRNOTAVAIL'
          ? `METRICS_HOST ${at.host} is not an address of this machine. Set it to one of its addresses, e.g. 127.0.0.1.`
          : `The metrics listener cannot listen on ${at.host}:${at.port} (METRICS_HOST, METRICS_PORT): ${(err as Error).message ?? err}.`,
    )
  }
}
