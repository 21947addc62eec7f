import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http'
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto'
import { type ExportResult, ExportResultCode } from '@opentelemetry/core'
import { resourceFromAttributes } from '@opentelemetry/resources'
import { BatchSpanProcessor, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace-base'
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node'
import type { Config } from './config.ts'
import type { Logger } from './core/log.ts'
import { shownUrl } from './core/shown-url.ts'
import { enableTracing } from './core/tracing.ts'
import { traceStatements } from './store/driver/sql-spans.ts'

/** Where a process tells of its exports: the server's and the worker's log; `growth mcp guard`'s stderr (its stdout is the protocol). */
type ExportLog = Pick<Logger, 'warn' | 'info'>

/**
 * The exporter, telling the process's log whether its spans reach the collector. The SDK reports a
 * failed export only to its diagnostic logger, silent unless set up: a wrong endpoint or a collector
 * that is down lost every span without a word. Now the first failure is one warning (the endpoint and
 * the error), the failures after it say nothing more, and the first export that works again is one
 * line: a log that says so once, not once a second.
 */
export class ReportingExporter implements SpanExporter {
  private failing = false

  constructor(
    private readonly inner: SpanExporter,
    private readonly endpoint: string,
    private readonly log: ExportLog,
  ) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.inner.export(spans, (result) => {
      if (result.code === ExportResultCode.SUCCESS) {
        if (this.failing) this.log.info('traces reach the collector again', { endpoint: this.endpoint })
        this.failing = false
      } else if (!this.failing) {
        this.failing = true
        this.log.warn('traces could not be sent; spans are dropped until the collector answers (said once)', {
          endpoint: this.endpoint,
          reason: result.error?.message ?? 'export failed',
          spans: spans.length,
        })
      }
      done(result)
    })
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown()
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve()
  }
}

/**
 * Starts the OpenTelemetry SDK for this process when the config has tracing (an OTLP endpoint set):
 * spans batched to the endpoint over OTLP/HTTP (protobuf or JSON), the W3C trace context as the
 * propagator, AsyncLocalStorage as the context manager, the sampler from OTEL_TRACES_SAMPLER; a
 * failed export is told to `log` once (ReportingExporter).
 * Returns what flushes and stops it (at shutdown), or null when tracing is off.
 */
export function startTracing(tracing: Config['tracing'], log?: ExportLog): { shutdown(): Promise<void> } | null {
  if (!tracing) return null
  // Each exporter reads OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT and _HEADERS itself, as the specification says.
  const otlp = tracing.protocol === 'http/json' ? new JsonExporter() : new ProtobufExporter()
  const exporter = log ? new ReportingExporter(otlp, shownUrl(tracing.endpoint), log) : otlp
  const provider = new NodeTracerProvider({
    // OTEL_RESOURCE_ATTRIBUTES as the standard says (a resource given here replaces the SDK's own, which read it).
    resource: resourceFromAttributes({ ...tracing.resource, 'service.name': tracing.serviceName }),
    spanProcessors: [new BatchSpanProcessor(exporter, { scheduledDelayMillis: 1000 })],
  })
  provider.register()
  enableTracing()
  traceStatements()
  return { shutdown: () => provider.shutdown() }
}
