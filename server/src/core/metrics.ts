import client from 'prom-client'

/**
 * The process's Prometheus metrics (CONTRACT: Observability; docs/operations.md lists each with what
 * to alert on). Every layer records through the small functions below; they cost nothing until
 * `enableMetrics()` (METRICS_PORT set), and the registry is served by the metrics listener
 * (server/src/metrics-listener.ts). Labels are bounded: an operation is its operationId, never a path.
 */
export const registry = new client.Registry()
let on = false

const SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

const requests = new client.Counter({
  name: 'growth_http_requests_total', help: 'API requests answered, by operationId and status.', labelNames: ['operation', 'status'], registers: [registry],
})
const requestSeconds = new client.Histogram({
  name: 'growth_http_request_duration_seconds', help: 'Time from a request read to its answer, by operationId.', labelNames: ['operation'], buckets: SECONDS, registers: [registry],
})
const rateLimited = new client.Counter({
  name: 'growth_http_rate_limited_total', help: 'Requests refused 429 by a rate limit, by operationId.', labelNames: ['operation'], registers: [registry],
})
const idempotency = new client.Counter({
  name: 'growth_idempotency_total',
  help: 'Writes under an Idempotency-Key that were not run: replayed (a kept answer sent again), in_progress (409, the same key still being answered), key_reused (422).',
  labelNames: ['outcome'], registers: [registry],
})
const decisions = new client.Counter({
  name: 'growth_agent_decisions_total', help: "The agent gateway's decisions, by decision.", labelNames: ['decision'], registers: [registry],
})
const refusals = new client.Counter({
  name: 'growth_agent_check_refusals_total', help: "The gateway's checks that did not pass (denied or asked a person), by check and decision.", labelNames: ['check', 'decision'], registers: [registry],
})
const deliveries = new client.Counter({
  name: 'growth_webhook_deliveries_total',
  help: 'Webhook delivery attempts, by outcome: delivered, retrying (failed, another attempt is scheduled), failed (failed, no attempt left), gone (410: the endpoint is disabled).',
  labelNames: ['outcome'], registers: [registry],
})
const deliverySeconds = new client.Histogram({
  name: 'growth_webhook_delivery_seconds', help: 'From the commit of an event to the answer of the endpoint that took it (delivered attempts only).',
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 7200], registers: [registry],
})

/** A gauge read when scraped: `read` gives its value (or values by label). */
function scraped(name: string, help: string, labelNames: string[] = []) {
  let read: (() => Promise<number | Record<string, number>>) | undefined
  new client.Gauge({
    name, help, labelNames, registers: [registry],
    async collect() {
      if (!read) return
      // A database that does not answer now leaves the last value: the scrape itself still answers.
      const v = await read().catch(() => undefined)
      if (v === undefined) return
      if (typeof v === 'number') this.set(v)
      else for (const [label, n] of Object.entries(v)) this.set({ [labelNames[0]!]: label }, n)
    },
  })
  return (fn: typeof read) => void (read = fn)
}

/** Sources of the gauges read at each scrape, given by whoever holds them (the entry point). */
export const gaugeSources = {
  // First: a scrape reads the gauges in this order, and the three below send statements of their own.
  dbPool: scraped('growth_db_pool_connections', "The database pools' connections in_use (running statements, in a transaction, or opening), and statements waiting for one.", ['state']),
  backlog: scraped('growth_webhook_backlog', 'Webhook deliveries waiting to be sent (pending), across every workspace; read from the database, so every process reports the same: aggregate with max, not sum.'),
  databaseUp: scraped('growth_database_up', "Whether the process's database answered a statement at this scrape (1) or not within 2 s (0: refused, failed or too slow)."),
  circuitsOpen: scraped('growth_webhook_circuits_open', 'Webhook endpoints whose circuit breaker is open or half open; read from the database, so every process reports the same: aggregate with max, not sum.'),
}

/** What only a process answering the API records: a worker's registry leaves them out. */
const API_METRICS = ['growth_http_requests_total', 'growth_http_request_duration_seconds', 'growth_http_rate_limited_total', 'growth_idempotency_total', 'growth_agent_decisions_total', 'growth_agent_check_refusals_total']

/**
 * Turns recording on, with the process's default metrics (once; METRICS_PORT set). `api: false` (a
 * `growth worker`, which answers no request) serves only the deliveries, the gauges and the process.
 */
export function enableMetrics(opts: { api: boolean } = { api: true }): void {
  if (on) return
  on = true
  client.collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 10 })
  // Gauges whose names end in _total, which promtool refuses (a _total is a counter's).
  for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total']) registry.removeSingleMetric(name)
  // Every outcome from zero, so that a rate over them is defined before the first of each.
  for (const outcome of ['delivered', 'retrying', 'failed', 'gone']) deliveries.inc({ outcome }, 0)
  if (!opts.api) {
    for (const name of API_METRICS) registry.removeSingleMetric(name)
    return
  }
  for (const decision of ['allowed', 'denied', 'requires_approval']) decisions.inc({ decision }, 0)
  for (const outcome of ['replayed', 'in_progress', 'key_reused']) idempotency.inc({ outcome }, 0)
}

export function metricsEnabled(): boolean {
  return on
}

/** One API request answered. */
export function observeRequest(operation: string, status: number, seconds?: number): void {
  if (!on) return
  requests.inc({ operation, status })
  if (seconds !== undefined) requestSeconds.observe({ operation }, seconds)
  if (status === 429) rateLimited.inc({ operation })
}

export function observeIdempotency(outcome: 'replayed' | 'in_progress' | 'key_reused'): void {
  if (on) idempotency.inc({ outcome })
}

export function observeDecision(decision: string, checks: { name: string; passed: boolean }[]): void {
  if (!on) return
  decisions.inc({ decision })
  for (const c of checks) if (!c.passed) refusals.inc({ check: c.name, decision })
}

type DeliveryOutcome = 'delivered' | 'retrying' | 'failed' | 'gone'

/** One delivery attempt answered (or failed); `sinceCommit`: seconds from the event's commit, for a delivered one. */
export function observeDelivery(outcome: DeliveryOutcome, sinceCommitSeconds?: number): void {
  if (!on) return
  deliveries.inc({ outcome })
  if (outcome === 'delivered' && sinceCommitSeconds !== undefined) deliverySeconds.observe(Math.max(0, sinceCommitSeconds))
}
