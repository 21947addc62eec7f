import { Elysia } from 'elysia'
import { consoleAsset } from './assets.ts'
import { assetResponse, redirectTo, signInFor } from './responses.ts'
import { type ConsoleDeps, routeKit } from './route-kit.ts'
import { accountRoutes } from './routes/account.ts'
import { agentRoutes } from './routes/agents.ts'
import { inboxRoutes } from './routes/inbox.ts'
import { logRoutes } from './routes/logs.ts'
import { requestRoutes } from './routes/requests.ts'
import { signInRoutes } from './routes/signin.ts'
import { tokenRoutes } from './routes/tokens.ts'
import { webhookRoutes } from './routes/webhooks.ts'
import { auditRoutes } from './routes/audit.ts'
import { policyRoutes } from './routes/policy.ts'
import { peopleRoutes } from './routes/people.ts'

/**
 * The console: a front door beside the API (/console, outside /api/v1 and its OpenAPI document),
 * server-rendered pages over the same domain functions as the operator commands. Only the
 * `growth_session` cookie opens it (an Authorization header is never read here); a GET changes
 * nothing; every POST carries a CSRF token (the session's, or before sign-in the form's own, also
 * in a cookie), compared in constant time. Each page's routes are in routes/*.ts, written with the
 * handler kit of route-kit.ts; they are registered here, one line each, before the catch-all.
 */
export function consoleApp(deps: ConsoleDeps) {
  const kit = routeKit(deps)
  const { handle, problem, notFound } = kit
  return new Elysia({ name: 'console' })
    .get('/console/assets/:name', ({ params }) => {
      const asset = consoleAsset(params.name)
      return asset ? assetResponse(asset.body, asset.type) : problem(404, 'Not found', 'The console has no such file.')
    })
    .use(signInRoutes(deps, kit))
    .use(accountRoutes(deps, kit))
    .use(inboxRoutes(deps, kit))
    .use(agentRoutes(deps, kit))
    .use(requestRoutes(deps, kit))
    .use(tokenRoutes(deps, kit))
    .use(peopleRoutes(deps, kit))
    .use(webhookRoutes(deps, kit))
    .use(auditRoutes(deps, kit))
    .use(logRoutes(deps, kit))
    .use(policyRoutes(deps, kit))
    .all('/console/*', handle(async ({ request, session }) => {
      if (request.method !== 'GET' && request.method !== 'HEAD' && !session) return problem(401, 'Not signed in', 'You are not signed in, so nothing was done.')
      if (!session) return redirectTo(signInFor(request))
      return notFound(session)
    }))
}
