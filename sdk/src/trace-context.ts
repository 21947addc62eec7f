/**
 * OpenTelemetry, when the caller has it: a call made while the caller has an active span is a
 * client span of its own (`METHOD /route`) and sends its W3C `traceparent`, so the server's spans
 * join the caller's trace. `@opentelemetry/api` is loaded once, optionally: without it installed
 * (or with no active span) the SDK sends nothing more and works unchanged. Its name is not written
 * as a literal import, so that bundlers of the SDK neither need nor pull it.
 */

type SpanContext = { traceId: string; spanId: string; traceFlags: number }
type Span = {
  spanContext(): SpanContext
  setAttribute(key: string, value: string | number): unknown
  setStatus(status: { code: number }): unknown
  end(): void
}
type OtelApi = {
  trace: {
    getActiveSpan(): Span | undefined
    getTracer(name: string, version?: string): { startSpan(name: string, options: { kind: number; attributes: Record<string, string> }): Span }
  }
}

const API_PACKAGE = '@opentelemetry/api'
const SPAN_KIND_CLIENT = 2
const STATUS_ERROR = 2
let api: Promise<OtelApi | null> | undefined

function otel(): Promise<OtelApi | null> {
  api ??= import(/* @vite-ignore */ /* webpackIgnore: true */ API_PACKAGE as string).then(
    (m: { trace?: OtelApi['trace']; default?: OtelApi }) => (m.trace ? (m as OtelApi) : (m.default ?? null)),
    () => null,
  )
  return api
}

/** The span of one call, or undefined when the caller has no active span (or no OpenTelemetry). */
export type CallSpan = { traceparent: string; end(status: number | undefined): void }

export async function callSpan(method: string, route: string, url: string): Promise<CallSpan | undefined> {
  const o = await otel()
  if (!o?.trace.getActiveSpan()) return undefined
  const span = o.trace.getTracer('@growth-service/sdk').startSpan(`${method} ${route}`, {
    kind: SPAN_KIND_CLIENT,
    attributes: { 'http.request.method': method, 'url.full': url.split('?')[0]!, 'url.template': route },
  })
  const c = span.spanContext()
  return {
    traceparent: `00-${c.traceId}-${c.spanId}-${(c.traceFlags & 0xff).toString(16).padStart(2, '0')}`,
    end(status) {
      if (status !== undefined) span.setAttribute('http.response.status_code', status)
      if (status === undefined || status >= 500) span.setStatus({ code: STATUS_ERROR })
      span.end()
    },
  }
}
