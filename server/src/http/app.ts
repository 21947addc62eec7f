import { Elysia } from 'elysia'
import { clientAddress } from '../core/client-address.ts'
import { newId } from '../core/ids.ts'
import { operations } from './operations.ts'
import { observed, observedOutside } from './observe.ts'
import { createPipeline, type PipelineDeps } from './pipeline.ts'
import { REFERENCE_PATH, referenceAsset, referencePage } from './reference.ts'

/** The longest URL the API reads: 8 KiB, four times the longest cursor with every filter beside it. */
export const MAX_URL_LENGTH = 8192

type Server = { requestIP(r: Request): { address: string } | null } | null

/**
 * The HTTP application: every declared operation mounted under /api/v1, each answered by the one
 * request pipeline, and the reference page. Bodies are read by the pipeline itself (parse: 'none'),
 * after authentication, so an unauthenticated request never gets a validation error and the 1 MiB
 * cap holds. A path the table knows with a method it does not have is 405 with Allow (Elysia would
 * say 404); any other path is 404.
 */
export function createApp(deps: PipelineDeps) {
  const pipeline = createPipeline(deps)
  const addressOf = (request: Request, server: Server) => clientAddress(server?.requestIP(request)?.address, request.headers.get('x-forwarded-for'), deps.trustedProxies ?? [])

  const methodsOf = new Map<string, string[]>()
  const allow = (path: string, method: string) => methodsOf.set(path, [...(methodsOf.get(path) ?? []), method])
  for (const op of operations) allow(`/api/v1${op.path}`, op.method)
  allow(REFERENCE_PATH, 'GET')

  const app = new Elysia()
    // Before anything else reads it: a URL over the limit is 414 in the envelope. (A whole request
    // head over 16 KiB never gets here: Bun answers it with a bare 431 itself, see docs/operations.md.)
    .onRequest(({ request, server }) =>
      request.url.length > MAX_URL_LENGTH ? observedOutside('unknown_route', request, () => pipeline.uriTooLong(request, addressOf(request, server as Server), MAX_URL_LENGTH)) : undefined,
    )
    .onError(({ code, error, request, server }) => {
    const address = addressOf(request, server as Server)
    if (code !== 'NOT_FOUND') return observedOutside('unknown_route', request, () => pipeline.crash(error, address, request))
    const allowed = methodsOf.get(new URL(request.url).pathname) ?? []
    return observedOutside(allowed.length ? 'method_not_allowed' : 'unknown_route', request, () => pipeline.noRoute(request, address, allowed))
  })
  // The reference page and its files are answers under /api/v1 too: each carries its X-Request-Id.
  const withRequestId = (res: Response) => (res.headers.set('X-Request-Id', newId('request')), res)
  app.get(REFERENCE_PATH, () => withRequestId(referencePage()))
  app.get(`${REFERENCE_PATH}/:asset`, ({ request, params, server }) => {
    const file = referenceAsset(params.asset)
    return file ? withRequestId(file) : pipeline.noRoute(request, addressOf(request, server as Server), [])
  })
  for (const op of operations) {
    // Each request in its server span, counted by operation (observe.ts).
    const answer = (request: Request, server: Server) => () => pipeline.handle(op, request, () => addressOf(request, server as Server))
    app.route(op.method, `/api/v1${op.path}`, ({ request, server }) => observed(op, request, answer(request, server as Server)), { parse: 'none' })
  }
  return app
}
