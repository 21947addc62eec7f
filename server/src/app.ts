import { Elysia } from 'elysia'
import { createPipeline, type PipelineDeps } from './http/pipeline.ts'
import { operations } from './routes/index.ts'

/**
 * The HTTP application: every declared operation mounted under /api/v1, each answered by the one
 * request pipeline. Bodies are read by the pipeline itself (parse: 'none'), after authentication,
 * so an unauthenticated request never gets a validation error and the 1 MiB cap holds.
 */
export function createApp(deps: PipelineDeps) {
  const pipeline = createPipeline(deps)
  const addressOf = (request: Request, server: { requestIP(r: Request): { address: string } | null } | null) =>
    server?.requestIP(request)?.address ?? 'unknown'

  const app = new Elysia()
    .onError(({ code, error, request, server }) => {
      const address = addressOf(request, server as never)
      return code === 'NOT_FOUND' ? pipeline.notFound(request, address) : pipeline.crash(error, address)
    })
  for (const op of operations) {
    app.route(op.method, `/api/v1${op.path}`, ({ request, server }) => pipeline.handle(op, request, addressOf(request, server as never)), {
      parse: 'none',
    })
  }
  return app
}
