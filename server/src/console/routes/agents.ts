import { Elysia } from 'elysia'
import { RISKS, type Risk } from '../../core/enums.ts'
import { DomainError } from '../../core/errors.ts'
import { ReasonRefused } from '../../domain/deciders.ts'
import { reasonRefusal } from '../reason-words.ts'
import { agentCredentials, agentOf, createAgent, listAgents, retireAgent, rotateAgentCredential } from '../../domain/agents.ts'
import { listRequests } from '../../domain/agent-requests.ts'
import { revokeToken } from '../../domain/credentials.ts'
import { listTools } from '../../domain/agent-tools.ts'
import { agentsSwitch, setAgentsStopped } from '../../domain/workspaces.ts'
import { agentPage, agentsPage, type CredentialShown, credentialShownPage, type RegisterForm } from '../pages/agents.ts'
import { answerAt } from '../pages/layout.ts'
import { pageResponse, redirectTo } from '../responses.ts'
import type { ConsoleDeps, RouteKit } from '../route-kit.ts'
import { type ConsoleSession, DECIDERS, personActor } from '../session-port.ts'

const AGENT_REQUESTS = 10
const AGENTS_SHOWN = 200

/** The workspace's agents, oldest first: the agents page and the requests filter show the first AGENTS_SHOWN. */
export const agentsOf = async (sql: ConsoleDeps['sql'], workspaceId: string) => (await listAgents(sql, workspaceId, { limit: AGENTS_SHOWN })).map((p) => p.item)

const TOOLS_SHOWN = 200
const DONE: Record<string, string> = {
  revoked: 'Credential revoked: it is refused from its very next request.',
  retired: 'Agent retired: its credentials are revoked and the gateway refuses it from its next request. Its requests and audit entries are kept.' }
const ownersOnly = (session: ConsoleSession) =>
  `You are ${session.person.role === 'approver' ? 'an approver' : 'a viewer'} of ${session.workspace.name}: you can read the agents, and an owner registers, rotates credentials and retires them.`

const viewersWatch = (session: ConsoleSession) =>
  `You are a viewer of ${session.workspace.name}: you can see whether the agents run, and an owner or approver stops or resumes them.`

/**
 * The agents: whether they run (stop and resume all), each agent with what it may do, its
 * credentials and recent requests. Every role reads; an owner registers an agent, rotates a
 * credential with an overlap and retires an agent, on the same domain functions as
 * `growth admin agent create|credential|retire`, recorded in the audit list with the person. A
 * credential is shown once, on the POST's own answer.
 */
export function agentRoutes({ sql }: ConsoleDeps, kit: RouteKit) {
  const { signedIn, rolePost, notFound, showOnce, shownPage } = kit
  const listPage = async (session: ConsoleSession, extra: { error?: string; reason?: string; register?: RegisterForm; registerError?: string; notice?: string } = {}, status = 200) => {
    const ws = session.workspace.id
    const [agents, state, tools] = await Promise.all([agentsOf(sql, ws), agentsSwitch(sql, ws), listTools(sql, ws, { limit: TOOLS_SHOWN })])
    return pageResponse(agentsPage({ session, agents, state, tools: tools.map((t) => t.item), ...extra }), status)
  }
  const onePage = async (session: ConsoleSession, id: string, extra: { error?: string; notice?: string } = {}, status = 200) => {
    const ws = session.workspace.id
    const agent = await agentOf(sql, ws, id)
    if (!agent) return notFound(session)
    const [requests, credentials] = await Promise.all([
      listRequests(sql, ws, { agentId: agent.id, limit: AGENT_REQUESTS + 1 }),
      agentCredentials(sql, ws, agent.id),
    ])
    return pageResponse(
      agentPage({ session, agent, credentials, requests: requests.slice(0, AGENT_REQUESTS), more: requests.length > AGENT_REQUESTS, ...extra }),
      status,
    )
  }
  return new Elysia()
    .get(
      '/console/shown/agent',
      shownPage<CredentialShown>('agent', { lost: 'If the credential was not copied, rotate it on the agent\u2019s page: the new one is shown once too.', back: { href: '/console/agents', text: 'Back to the agents' } }, async (session, shown) =>
        pageResponse(credentialShownPage({ session, ...shown })),
      ),
    )
    .get('/console/agents', signedIn(async ({ session, request }) => {
      const done = new URL(request.url).searchParams.get('done')
      return listPage(session, { notice: done && Object.hasOwn(DONE, done) ? DONE[done] : undefined })
    }))
    .post('/console/agents/register', rolePost(['owner'], ownersOnly, async ({ request, session }, fields) => {
      const register: RegisterForm = {
        name: fields.get('name')?.trim() ?? '',
        description: fields.get('description')?.trim() ?? '',
        allow: fields.getAll('allow'),
        risk: fields.get('risk') ?? 'medium',
      }
      const again = (error: string) => listPage(session, { registerError: error, register }, 400)
      if (!register.name) return again('Give the agent a name.')
      if (register.name.length > 100) return again(`The name is at most 100 characters (got ${register.name.length}).`)
      if (register.description.length > 500) return again(`The description is at most 500 characters (got ${register.description.length}).`)
      if (!(RISKS as readonly string[]).includes(register.risk)) return again(`The risk it may take alone is low, medium or high (got ${JSON.stringify(register.risk.slice(0, 40))}).`)
      try {
        const a = await createAgent(sql, {
          workspaceId: session.workspace.id,
          name: register.name,
          description: register.description || undefined,
          allow: register.allow.join(','),
          maxUnattendedRisk: register.risk as Risk,
          by: personActor(session),
        })
        return showOnce(request, session, 'agent', { agentId: a.id, agentName: a.name, credentialId: a.credentialId, credential: a.credential, heading: 'Agent registered' } satisfies CredentialShown)
      } catch (error) {
        if (error instanceof DomainError && error.kind === 'rule') return again(error.message)
        throw error
      }
    }), { parse: 'none' })
    .post('/console/agents', rolePost(DECIDERS, viewersWatch, async ({ session }, fields) => {
      const choice = fields.get('switch')
      const typed = fields.get('reason') ?? ''
      // Refused: the page again with the refusal, and the reason kept as typed.
      const again = (error: string) => listPage(session, { error, reason: typed }, 400)
      if (choice !== 'stop' && choice !== 'resume') return again('Choose Stop all agents or Resume the agents.')
      if (choice === 'stop' && !typed.trim()) return again('Stopping the agents needs a reason: say why, for the record.')
      // The same domain function as growth admin agents stop|resume, recorded with the person.
      const { person } = session
      try {
        await setAgentsStopped(sql, { workspaceId: session.workspace.id, stopped: choice === 'stop', reason: typed, actor: { kind: 'person', id: person.id, name: person.name } })
      } catch (error) {
        if (error instanceof ReasonRefused) return again(reasonRefusal(error, 'The reason'))
        throw error
      }
      return redirectTo(answerAt('/console/agents', 'switch'))
    }), { parse: 'none' })
    .get('/console/agents/:id', signedIn(async ({ session, params, request }) => {
      const done = new URL(request.url).searchParams.get('done')
      return onePage(session, params.id!, { notice: done && Object.hasOwn(DONE, done) ? DONE[done] : undefined })
    }))
    .post('/console/agents/:id/rotate', rolePost(['owner'], ownersOnly, async ({ request, session, params }, fields) => {
      const agent = await agentOf(sql, session.workspace.id, params.id!)
      if (!agent) return notFound(session)
      const overlap = fields.get('overlap')?.trim() ?? ''
      if (!/^\d{1,6}$/.test(overlap)) return onePage(session, agent.id, { error: `The overlap is a whole number of minutes, 0 or more (got ${JSON.stringify(overlap.slice(0, 40))}).` }, 400)
      try {
        const r = await rotateAgentCredential(sql, {
          workspaceId: session.workspace.id, agentId: agent.id, credentialId: fields.get('credential') ?? '', overlapMinutes: Number(overlap), by: personActor(session),
        })
        return showOnce(request, session, 'agent', { agentId: agent.id, agentName: agent.name, credentialId: r.credentialId, credential: r.credential, heading: 'Credential rotated', replaced: { id: r.replaces, endsAt: r.oldEndsAt } } satisfies CredentialShown)
      } catch (error) {
        if (error instanceof DomainError && error.kind === 'rule') return onePage(session, agent.id, { error: error.message }, 400)
        throw error
      }
    }), { parse: 'none' })
    .post('/console/agents/:id/credentials/:credential/revoke', rolePost(['owner'], ownersOnly, async ({ session, params }) => {
      const agent = await agentOf(sql, session.workspace.id, params.id!)
      if (!agent) return notFound(session)
      if (!(await agentCredentials(sql, session.workspace.id, agent.id)).some((c) => c.id === params.credential)) return notFound(session)
      // The same domain function as growth admin agent credential revoke, within this workspace.
      await revokeToken(sql, params.credential!, personActor(session), session.workspace.id)
      return redirectTo(answerAt(`/console/agents/${agent.id}?done=revoked`))
    }), { parse: 'none' })
    .post('/console/agents/:id/retire', rolePost(['owner'], ownersOnly, async ({ session, params }) => {
      const agent = await agentOf(sql, session.workspace.id, params.id!)
      if (!agent) return notFound(session)
      await retireAgent(sql, session.workspace.id, agent.id, personActor(session))
      return redirectTo(answerAt(`/console/agents/${agent.id}?done=retired`))
    }), { parse: 'none' })
}
