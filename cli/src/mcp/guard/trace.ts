import { activeTraceparent, inSpan, SpanKind } from '../../../../server/src/core/tracing.ts'

type Params = { name: string; _meta?: Record<string, unknown> } & Record<string, unknown>

/**
 * A guarded tool call in the trace of the client that made it, when tracing is on
 * (OTEL_EXPORTER_OTLP_ENDPOINT): a span continuing the `traceparent` the client put in the call's
 * `_meta` (the MCP convention), in which the gateway is asked (the SDK sends the trace on) and the
 * upstream called, its `_meta.traceparent` now this span's. Without tracing, the call as it came.
 */
export function tracedToolCall<T>(params: Params, call: (params: Params) => Promise<T>): Promise<T> {
  const parent = typeof params._meta?.traceparent === 'string' ? params._meta.traceparent : undefined
  return inSpan(
    `tools/call ${params.name}`,
    async (span) => {
      if (!span) return call(params)
      const traceparent = activeTraceparent()
      return call(traceparent ? { ...params, _meta: { ...params._meta, traceparent } } : params)
    },
    { kind: SpanKind.SERVER, parent, attributes: { 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': params.name } },
  )
}
