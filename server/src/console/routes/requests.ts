import { Elysia } from 'elysia'
import { agentOf } from '../../domain/agents.ts'
import { listRequests } from '../../domain/agent-requests.ts'
import { GATEWAY_DECISIONS, type GatewayDecision } from '../../core/enums.ts'
import { parsePosition } from '../pages/inbox.ts'
import { type RequestFilter, requestsPage } from '../pages/requests.ts'
import { pageResponse } from '../responses.ts'
import type { ConsoleDeps, RouteKit } from '../route-kit.ts'
import { agentsOf } from './agents.ts'

const REQUESTS_PAGE = 25

/** The agents' requests through the gateway, filtered by decision and agent. */
export function requestRoutes({ sql }: ConsoleDeps, kit: RouteKit) {
  const { signedIn, problem } = kit
  return new Elysia()
    .get('/console/requests', signedIn(async ({ request, session }) => {
      const q = new URL(request.url).searchParams
      const decision = q.get('decision') || undefined
      const agentId = q.get('agent') || undefined
      const raw = q.get('after')
      const after = raw === null ? undefined : parsePosition(raw)
      if (after === null) return problem(400, 'Not a page of the requests', `after must be a position this console gave (got ${JSON.stringify(raw!.slice(0, 80))}).`, session)
      if (decision !== undefined && !GATEWAY_DECISIONS.includes(decision as GatewayDecision)) {
        return problem(400, 'Not a decision', `decision must be one of ${GATEWAY_DECISIONS.join(', ')} (got ${JSON.stringify(decision.slice(0, 80))}).`, session)
      }
      const agents = await agentsOf(sql, session.workspace.id)
      if (agentId !== undefined && !agents.some((a) => a.id === agentId) && !(await agentOf(sql, session.workspace.id, agentId))) {
        return problem(404, 'Not found', `There is no agent ${JSON.stringify(agentId.slice(0, 80))} in ${session.workspace.name}.`, session)
      }
      const filter: RequestFilter = { decision: decision as GatewayDecision | undefined, agentId }
      const rows = await listRequests(sql, session.workspace.id, { ...filter, after, limit: REQUESTS_PAGE + 1 })
      const shown = rows.slice(0, REQUESTS_PAGE)
      const next = rows.length > REQUESTS_PAGE ? shown.at(-1)!.position : null
      return pageResponse(requestsPage({ session, requests: shown, next, filter, agents: agents.map((a) => ({ id: a.id, name: a.name })) }))
    }))
}
