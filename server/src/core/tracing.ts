import { type Attributes, context, type Link, propagation, ROOT_CONTEXT, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api'

/**
 * The spans the service makes (CONTRACT: Observability), through the OpenTelemetry API alone: until
 * the SDK is started (server/src/tracing-setup.ts, OTEL_EXPORTER_OTLP_ENDPOINT set) every function
 * here returns at its first line, so the hot path pays nothing when tracing is off. Bun.serve and
 * postgres.js have no automatic instrumentation: the spans are made at the pipeline's steps
 * (serverSpan), around the gateway's decision (inSpan) and around each statement (store/driver/sql-spans.ts).
 */
let on = false
let tracer = trace.getTracer('growth-service')

/** Turns the spans on; called once the SDK's provider is registered (its tracer is kept from then on). */
export function enableTracing(): void {
  on = true
  tracer = trace.getTracer('growth-service')
}

export function tracingEnabled(): boolean {
  return on
}

const headerGetter = {
  get: (carrier: Headers, key: string) => carrier.get(key) ?? undefined,
  keys: (carrier: Headers) => [...carrier.keys()],
}

/** The `traceparent` (W3C trace context, version 00) of a span: what the propagator writes, without its carrier. */
function traceparentOf(span: Span): string | null {
  const c = span.spanContext()
  if (!trace.isSpanContextValid(c)) return null
  return `00-${c.traceId}-${c.spanId}-${c.traceFlags & 1 ? '01' : '00'}`
}

/** The URL's parts a server span carries, read from the URL's text (no URL object per request). */
function urlAttributes(request: Request): Attributes {
  const url = request.url
  const scheme = url.indexOf('://')
  const hostStart = scheme + 3
  let pathStart = url.indexOf('/', hostStart)
  if (pathStart < 0) pathStart = url.length
  const query = url.indexOf('?', pathStart)
  const host = url.slice(hostStart, pathStart)
  // An IPv6 literal is bracketed; its port, if any, follows the bracket.
  const portAt = host.lastIndexOf(':')
  const hasPort = portAt > host.lastIndexOf(']')
  const attributes: Attributes = {
    'url.path': url.slice(pathStart, query < 0 ? undefined : query) || '/',
    'url.scheme': url.slice(0, scheme),
    'server.address': (hasPort ? host.slice(0, portAt) : host).replace(/^\[|\]$/g, ''),
  }
  if (hasPort) attributes['server.port'] = Number(host.slice(portAt + 1))
  const agent = request.headers.get('user-agent')
  if (agent) attributes['user_agent.original'] = agent
  return attributes
}

/**
 * Runs one API request (`answer`) in its server span `METHOD /api/v1/route`, continuing the caller's
 * trace when the request carries a `traceparent`; the answer carries this span's `traceparent`.
 * The sampler sees the route's attributes; a span it did not sample (not recording) gets nothing
 * more: no URL read, no attribute set, only its context, which the answer's `traceparent` names.
 */
export async function serverSpan(request: Request, route: { method: string; path: string; operationId: string }, answer: () => Promise<Response>): Promise<Response> {
  if (!on) return answer()
  const { parent, span } = startServerSpan(request, `${route.method} ${route.path}`, { 'http.request.method': route.method, 'http.route': route.path, 'growth.operation': route.operationId })
  return endedAfter(span, async () => answered(span, await context.with(trace.setSpan(parent, span), answer)))
}

/** The methods a span may be named by; any other is `HTTP` (the HTTP conventions' bound on span names). */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'CONNECT', 'OPTIONS', 'TRACE', 'PATCH'])

/**
 * An answer given outside any operation (no endpoint at the path, a method the path has not, a URL
 * too long): its server span is named by the method alone, as the HTTP conventions name a request
 * with no route, continues the caller's trace, and its `traceparent` is on the answer, as on every other.
 */
export async function outsideSpan(request: Request, operation: string, answer: () => Response | Promise<Response>): Promise<Response> {
  if (!on) return answer()
  const method = METHODS.has(request.method) ? request.method : 'HTTP'
  const { parent, span } = startServerSpan(request, method, { 'http.request.method': METHODS.has(request.method) ? method : '_OTHER', 'growth.operation': operation })
  return endedAfter(span, async () => answered(span, await context.with(trace.setSpan(parent, span), answer)))
}

/** A request's server span, a child of the caller's `traceparent` when it sent one; the sampler sees `attributes`. */
function startServerSpan(request: Request, name: string, attributes: Attributes) {
  const parent = request.headers.has('traceparent') ? propagation.extract(ROOT_CONTEXT, request.headers, headerGetter) : ROOT_CONTEXT
  const span = tracer.startSpan(name, { kind: SpanKind.SERVER, attributes }, parent)
  if (span.isRecording()) span.setAttributes(urlAttributes(request))
  return { parent, span }
}

/** The answer's status and request id on its server span, and the span's `traceparent` on the answer. */
function answered(span: Span, response: Response): Response {
  if (span.isRecording()) {
    span.setAttribute('http.response.status_code', response.status)
    const requestId = response.headers.get('X-Request-Id')
    if (requestId) span.setAttribute('growth.request_id', requestId)
    if (response.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR })
  }
  const traceparent = traceparentOf(span)
  if (traceparent) response.headers.set('traceparent', traceparent)
  return response
}

/** Awaits `work`; what it throws is recorded on `span` (an error status) and thrown on; the span ends either way. */
async function endedAfter<T>(span: Span, work: () => Promise<T>): Promise<T> {
  try {
    return await work()
  } catch (err) {
    throw failedOn(span, err)
  } finally {
    span.end()
  }
}

/** `err` recorded on `span` (an error status), and given back to be thrown on. */
function failedOn(span: Span, err: unknown): unknown {
  span.recordException(err as Error)
  span.setStatus({ code: SpanStatusCode.ERROR })
  return err
}

/** Sets attributes on the span of the work under way (the request's workspace once it is known). */
export function noteOnSpan(attributes: Attributes): void {
  if (!on) return
  const span = trace.getActiveSpan()
  if (span?.isRecording()) span.setAttributes(attributes)
}

/** Runs `fn` in a span `name` (internal unless told), a child of the one active (a trace of its own with `root`); `fn` may add attributes to it. */
export async function inSpan<T>(
  name: string,
  fn: (span: Span | undefined) => Promise<T>,
  opts: { attributes?: Attributes; links?: Link[]; kind?: SpanKind; root?: boolean; parent?: string } = {},
): Promise<T> {
  if (!on) return fn(undefined)
  const span = { attributes: opts.attributes, links: opts.links, kind: opts.kind ?? SpanKind.INTERNAL, root: opts.root }
  // A `traceparent` given (a tool call's, from its MCP _meta) is the parent; else the span active now.
  const parent = opts.parent ? propagation.extract(ROOT_CONTEXT, { traceparent: opts.parent }) : context.active()
  return tracer.startActiveSpan(name, span, parent, (span) => endedAfter(span, () => fn(span)))
}

/** A span started now and ended by the caller (a statement, whose end is a callback). */
export function startSpan(name: string, attributes: Attributes, kind: SpanKind = SpanKind.INTERNAL): Span | undefined {
  if (!on) return undefined
  return tracer.startSpan(name, { kind, attributes })
}

/** The id of the trace of the work under way (a request's, for its log line); undefined when none or tracing is off. */
export function activeTraceId(): string | undefined {
  return on ? trace.getActiveSpan()?.spanContext().traceId : undefined
}

/** The `traceparent` of the span active now, to keep with what it causes (an event); null when none or tracing is off. */
export function activeTraceparent(): string | null {
  if (!on) return null
  const carrier: Record<string, string> = {}
  propagation.inject(context.active(), carrier)
  return carrier.traceparent ?? null
}

/** A link to the span a kept `traceparent` names (the request that caused a delivery), when it is one. */
export function linkTo(traceparent: string | null | undefined): Link[] {
  if (!on || !traceparent) return []
  const span = trace.getSpanContext(propagation.extract(ROOT_CONTEXT, { traceparent }))
  return span && trace.isSpanContextValid(span) ? [{ context: span }] : []
}

export { SpanKind, SpanStatusCode }
