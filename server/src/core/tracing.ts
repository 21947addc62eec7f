import { type Attributes, context, type Link, propagation, ROOT_CONTEXT, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api'

/**
 * The spans the service makes (CONTRACT: Observability), through the OpenTelemetry API alone: until
 * the SDK is started (server/src/tracing-setup.ts, OTEL_EXPORTER_OTLP_ENDPOINT set) every function
 * here returns at its first line, so the hot path pays nothing when tracing is off. Bun.serve and
 * postgres.js have no automatic instrumentation: the spans are made at the pipeline's steps
 * (serverSpan), around the gateway's decision (inSpan) and around each statement (store/driver/sql-spans.ts).
 */
let on = false
const tracer = () => trace.getTracer('growth-service')

export function enableTracing(): void {
  on = true
}

export function tracingEnabled(): boolean {
  return on
}

const headerGetter = {
  get: (carrier: Headers, key: string) => carrier.get(key) ?? undefined,
  keys: (carrier: Headers) => [...carrier.keys()],
}

/**
 * Runs one API request (`answer`) in its server span `METHOD /api/v1/route`, continuing the caller's
 * trace when the request carries a `traceparent`; the answer carries this span's `traceparent`.
 */
export async function serverSpan(request: Request, route: { method: string; path: string; operationId: string }, answer: () => Promise<Response>): Promise<Response> {
  if (!on) return answer()
  const parent = propagation.extract(ROOT_CONTEXT, request.headers, headerGetter)
  const url = new URL(request.url)
  const span = tracer().startSpan(
    `${route.method} ${route.path}`,
    {
      kind: SpanKind.SERVER,
      attributes: {
        'http.request.method': route.method,
        'http.route': route.path,
        'url.path': url.pathname,
        'url.scheme': url.protocol.replace(':', ''),
        'server.address': url.hostname,
        ...(url.port ? { 'server.port': Number(url.port) } : {}),
        ...(request.headers.get('user-agent') ? { 'user_agent.original': request.headers.get('user-agent')! } : {}),
        'growth.operation': route.operationId,
      },
    },
    parent,
  )
  const ctx = trace.setSpan(parent, span)
  try {
    const response = await context.with(ctx, answer)
    span.setAttribute('http.response.status_code', response.status)
    const requestId = response.headers.get('X-Request-Id')
    if (requestId) span.setAttribute('growth.request_id', requestId)
    if (response.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR })
    const carrier: Record<string, string> = {}
    propagation.inject(ctx, carrier)
    if (carrier.traceparent) response.headers.set('traceparent', carrier.traceparent)
    return response
  } catch (err) {
    span.recordException(err as Error)
    span.setStatus({ code: SpanStatusCode.ERROR })
    throw err
  } finally {
    span.end()
  }
}

/** Sets attributes on the span of the work under way (the request's workspace once it is known). */
export function noteOnSpan(attributes: Attributes): void {
  if (on) trace.getActiveSpan()?.setAttributes(attributes)
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
  return tracer().startActiveSpan(name, span, parent, async (span) => {
    try {
      return await fn(span)
    } catch (err) {
      span.recordException(err as Error)
      span.setStatus({ code: SpanStatusCode.ERROR })
      throw err
    } finally {
      span.end()
    }
  })
}

/** A span started now and ended by the caller (a statement, whose end is a callback). */
export function startSpan(name: string, attributes: Attributes, kind: SpanKind = SpanKind.INTERNAL): Span | undefined {
  if (!on) return undefined
  return tracer().startSpan(name, { kind, attributes })
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
