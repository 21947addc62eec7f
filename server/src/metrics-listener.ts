import { enableMetrics, gaugeSources, registry } from './core/metrics.ts'
import type { Logger } from './core/log.ts'
import type { Sql } from './store/driver/db.ts'
import { poolUse, trackPoolUse } from './store/driver/pool-use.ts'
import { openCircuits, webhookBacklog } from './store/webhook-gauges.ts'

export type MetricsListener = { url: string; stop(): Promise<void> }

/**
 * The Prometheus listener of a process (the server or `growth worker`): GET /metrics on a port of its
 * own (METRICS_PORT, bound to METRICS_HOST, 127.0.0.1 unless told), never on the API's port, so that
 * it need not be exposed where the API is. It turns recording on for the whole process.
 */
export function startMetricsListener(opts: { host: string; port: number; sql: Sql; log: Logger }): MetricsListener {
  enableMetrics()
  trackPoolUse()
  gaugeSources.backlog(() => webhookBacklog(opts.sql))
  gaugeSources.circuitsOpen(() => openCircuits(opts.sql))
  gaugeSources.dbPool(async () => poolUse())
  const server = Bun.serve({
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
  const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host
  return { url: `http://${host}:${server.port}/metrics`, stop: () => server.stop(true) }
}
