import { Elysia } from 'elysia'
import { agentOf, listAgents } from '../../domain/agents.ts'
import { listRequests } from '../../domain/agent-requests.ts'
import { agentsSwitch, setAgentsStopped } from '../../domain/workspaces.ts'
import { agentPage, agentsPage } from '../pages/agents.ts'
import { pageResponse, redirectTo } from '../responses.ts'
import type { ConsoleDeps, RouteKit } from '../route-kit.ts'
import { mayDecide } from '../session-port.ts'

const AGENT_REQUESTS = 10
const AGENTS_SHOWN = 200

/** The workspace's agents, oldest first: the agents page and the requests filter show the first AGENTS_SHOWN. */
export const agentsOf = async (sql: ConsoleDeps['sql'], workspaceId: string) => (await listAgents(sql, workspaceId, { limit: AGENTS_SHOWN })).map((p) => p.item)

/** The agents: whether they run (stop and resume all), each agent and its recent requests. */
export function agentRoutes({ sql }: ConsoleDeps, kit: RouteKit) {
  const { signedIn, signedInPost, problem, notFound } = kit
  return new Elysia()
    .get('/console/agents', signedIn(async ({ session }) => {
      const [agents, state] = await Promise.all([agentsOf(sql, session.workspace.id), agentsSwitch(sql, session.workspace.id)])
      return pageResponse(agentsPage({ session, agents, state }))
    }))
    .post('/console/agents', signedInPost(async ({ session }, fields) => {
      if (!mayDecide(session.person.role)) {
        return problem(403, 'Not allowed', `You are a viewer of ${session.workspace.name}: you can see whether the agents run, and an owner or approver stops or resumes them.`, session)
      }
      const choice = fields.get('switch')
      const reason = fields.get('reason')?.trim() ?? ''
      const again = async (error: string) => {
        const [agents, state] = await Promise.all([agentsOf(sql, session.workspace.id), agentsSwitch(sql, session.workspace.id)])
        return pageResponse(agentsPage({ session, agents, state, error }), 400)
      }
      if (choice !== 'stop' && choice !== 'resume') return again('Choose Stop all agents or Resume the agents.')
      if (choice === 'stop' && !reason) return again('Stopping the agents needs a reason: say why, for the record.')
      if (reason.length > 500) return again(`The reason is at most 500 characters (got ${reason.length}).`)
      // The same domain function as growth admin agents stop|resume, recorded with the person.
      const { person } = session
      await setAgentsStopped(sql, { workspaceId: session.workspace.id, stopped: choice === 'stop', reason, actor: { kind: 'person', id: person.id, name: person.name } })
      return redirectTo('/console/agents')
    }), { parse: 'none' })
    .get('/console/agents/:id', signedIn(async ({ session, params }) => {
      const agent = await agentOf(sql, session.workspace.id, params.id!)
      if (!agent) return notFound(session)
      const requests = await listRequests(sql, session.workspace.id, { agentId: agent.id, limit: AGENT_REQUESTS + 1 })
      return pageResponse(agentPage({ session, agent, requests: requests.slice(0, AGENT_REQUESTS).map((p) => p.item), more: requests.length > AGENT_REQUESTS }))
    }))
}
