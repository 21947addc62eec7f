/**
 * OpenTelemetry, when the application has it: a call made while the caller has an active span is a
 * client span of its own (`METHOD /route`) and sends its W3C `traceparent`, so the server's spans
 * join the caller's trace. The SDK imports nothing for it: it reads what `@opentelemetry/api` (1.x)
 * registers on globalThis when an application sets OpenTelemetry up (its context manager and tracer
 * provider, under `Symbol.for('opentelemetry.js.api.1')`, the API's own cross-copy registry). Without
 * OpenTelemetry, or with no active span, the SDK sends nothing more and works unchanged.
 */

type SpanContext = { traceId: string; spanId: string; traceFlags: number }
type Span = {
  spanContext(): SpanContext
  setAttribute(key: string, value: string | number): unknown
  setStatus(status: { code: number }): unknown
  end(): void
}
type Context = { getValue(key: symbol): unknown }
type Registered = {
  version?: string
  context?: { active(): Context }
  trace?: { getTracer(name: string): { startSpan(name: string, options: { kind: number; attributes: Record<string, string> }, context: Context): Span } }
}

const API_KEY = Symbol.for('opentelemetry.js.api.1')
/** The API's key of the active span in a context (its createContextKey is Symbol.for of this). */
const SPAN_KEY = Symbol.for('OpenTelemetry Context Key SPAN')
const SPAN_KIND_CLIENT = 2
const STATUS_ERROR = 2

/** The span of one call, or undefined when the caller has no active span (or no OpenTelemetry). */
export type CallSpan = { traceparent: string; end(status: number | undefined): void }

export function callSpan(method: string, route: string, url: string): CallSpan | undefined {
  const api = (globalThis as { [API_KEY]?: Registered })[API_KEY]
  if (!api?.context || !api.trace) return undefined
  const active = api.context.active()
  if (!(active?.getValue(SPAN_KEY) as Span | undefined)?.spanContext) return undefined
  const span = api.trace.getTracer('@growth-service/sdk').startSpan(
    `${method} ${route}`,
    { kind: SPAN_KIND_CLIENT, attributes: { 'http.request.method': method, 'url.full': url.split('?')[0]!, 'url.template': route } },
    active,
  )
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
