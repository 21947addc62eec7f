import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http'
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto'
import { resourceFromAttributes } from '@opentelemetry/resources'
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node'
import type { Config } from './config.ts'
import { enableTracing } from './core/tracing.ts'
import { traceStatements } from './store/driver/sql-spans.ts'

/**
 * Starts the OpenTelemetry SDK for this process when the config has tracing (an OTLP endpoint set):
 * spans batched to the endpoint over OTLP/HTTP (protobuf or JSON), the W3C trace context as the
 * propagator, AsyncLocalStorage as the context manager, the sampler from OTEL_TRACES_SAMPLER.
 * Returns what flushes and stops it (at shutdown), or null when tracing is off.
 */
export function startTracing(tracing: Config['tracing']): { shutdown(): Promise<void> } | null {
  if (!tracing) return null
  // Each exporter reads OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT and _HEADERS itself, as the specification says.
  const exporter = tracing.protocol === 'http/json' ? new JsonExporter() : new ProtobufExporter()
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': tracing.serviceName }),
    spanProcessors: [new BatchSpanProcessor(exporter, { scheduledDelayMillis: 1000 })],
  })
  provider.register()
  enableTracing()
  traceStatements()
  return { shutdown: () => provider.shutdown() }
}
