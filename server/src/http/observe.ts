import { metricsEnabled, observeRequest } from '../core/metrics.ts'
import { outsideSpan, serverSpan, tracingEnabled } from '../core/tracing.ts'
import type { Operation } from '../routes/operation.ts'

/**
 * The one hook of metrics and traces on the API (docs/operations.md): `answer` (the pipeline's
 * handling of one request) runs in the request's server span, and its status and time are counted
 * by operationId. Costs nothing when both are off.
 */
export async function observed(op: Pick<Operation, 'method' | 'path' | 'operationId'>, request: Request, answer: () => Promise<Response>): Promise<Response> {
  if (!metricsEnabled() && !tracingEnabled()) return answer()
  const started = performance.now()
  const response = await serverSpan(request, { method: op.method, path: `/api/v1${op.path}`, operationId: op.operationId }, answer)
  observeRequest(op.operationId, response.status, (performance.now() - started) / 1000)
  return response
}

/** An answer given outside any operation (no route, a URL too long, a crash): in a server span of its own, counted under its own name (no latency: nothing ran). */
export async function observedOutside(operation: 'unknown_route' | 'method_not_allowed', request: Request, answer: () => Response | Promise<Response>): Promise<Response> {
  const response = await outsideSpan(request, operation, answer)
  observeRequest(operation, response.status)
  return response
}
