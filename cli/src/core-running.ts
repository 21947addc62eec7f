/**
 * What the CLI's long-running worker (growth worker) takes from the server beside
 * core.ts: the delivery workers, the metrics listener and OpenTelemetry's set-up. Apart from core.ts
 * so that an operator command, which runs for a moment, does not load prom-client and the
 * OpenTelemetry SDK (cli/src/index.ts loads each command group only when it is asked for).
 */
export { metricsHostResolves, startMetricsListener } from '../../server/src/metrics-listener.ts'
export { startTracing } from '../../server/src/tracing-setup.ts'
export { startDeliveryWorkers } from '../../server/src/workers/webhooks.ts'
