import { Elysia } from 'elysia'
import { decideAction } from '../../domain/actions.ts'
import { listAgents } from '../../domain/agents.ts'
import { decideApproval } from '../../domain/approvals.ts'
import { personDecider, ReasonRefused } from '../../domain/deciders.ts'
import { EventWatcher } from '../../domain/event-watch.ts'
import { actionIn, approvalIn, listInbox } from '../../domain/inbox.ts'
import { LIVE_TYPES, liveResponse } from '../live.ts'
import { inboxPage, parsePosition } from '../pages/inbox.ts'
import { actionPage, approvalPage, type DecisionRefused } from '../pages/item.ts'
import { answerAt } from '../pages/layout.ts'
import { pageResponse, redirectTo, securityHeaders } from '../responses.ts'
import type { ConsoleDeps, RouteKit } from '../route-kit.ts'
import { reasonRefusal } from '../reason-words.ts'
import { type ConsoleSession, DECIDERS } from '../session-port.ts'

const INBOX_PAGE = 25
/** How often an open live page's workspace is looked at for new events (one query per workspace, shared by its pages). */
const LIVE_POLL_MS = 500

const viewersRead = (session: ConsoleSession) => `You are a viewer of ${session.workspace.name}: you can read what waits, and an owner or approver decides it.`

/** The inbox, one approval or action and its decision, and the live updates of open pages. */
export function inboxRoutes(deps: ConsoleDeps, kit: RouteKit) {
  const { sql, log } = deps
  const { handle, signedIn, rolePost, problem, notFound } = kit
  const watcher = deps.watcher ?? new EventWatcher(sql, { everyMs: LIVE_POLL_MS, types: LIVE_TYPES, onError: (error) => log.warn('console live updates could not read events', { error }) })

  const decideWith = (kind: 'approval' | 'action') =>
    rolePost(DECIDERS, viewersRead, async ({ session, params }, fields) => {
      const id = params.id!
      const choice = fields.get('decision')
      const typed = fields.get('reason') ?? ''
      const reason = typed.trim()
      const decision = choice === 'approve' || choice === 'reject' ? choice : null
      // Refused: the page again, the refusal beside the form it came from and the text kept as typed.
      const again = async (status: number, error: string) => {
        const refused: DecisionRefused = { error, decision, reason: typed }
        if (kind === 'approval') {
          const item = await approvalIn(sql, session.workspace.id, id)
          return item ? pageResponse(approvalPage({ session, item, now: new Date(), refused }), status) : notFound(session)
        }
        const action = await actionIn(sql, session.workspace.id, id)
        return action ? pageResponse(actionPage({ session, action, refused }), status) : notFound(session)
      }
      if (!decision) return again(400, 'Choose Approve or Reject.')
      if (decision === 'reject' && !reason) return again(400, 'A rejection needs a reason: the requester sees it.')
      const decider = personDecider(session.person)
      // The same domain functions the operator commands call, limited to the person's workspace.
      try {
        if (kind === 'approval') {
          await decideApproval(sql, { id, approve: decision === 'approve', decider, reason, workspaceId: session.workspace.id })
        } else {
          await decideAction(sql, { actionId: id, decision, decider, reason, workspaceId: session.workspace.id })
        }
      } catch (error) {
        if (error instanceof ReasonRefused) return again(400, reasonRefusal(error, decision === 'approve' ? 'The note' : 'The reason'))
        throw error
      }
      return redirectTo(answerAt(`/console/${kind === 'approval' ? 'approvals' : 'actions'}/${encodeURIComponent(id)}`))
    })

  return new Elysia()
    .get('/console/', signedIn(async ({ request, session }) => {
      const raw = new URL(request.url).searchParams.get('after')
      const after = raw === null ? undefined : parsePosition(raw)
      if (after === null) return problem(400, 'Not a page of the inbox', `after must be a position this console gave (got ${JSON.stringify(raw!.slice(0, 80))}).`, session)
      const now = new Date()
      const page = await listInbox(sql, session.workspace.id, { after, limit: INBOX_PAGE, now })
      const noAgents = page.items.length === 0 && (await listAgents(sql, session.workspace.id, { limit: 1 })).length === 0
      return pageResponse(inboxPage({ session, items: page.items.map((p) => p.item), next: page.next, now, noAgents }))
    }))
    .get('/console/approvals/:id', signedIn(async ({ session, params }) => {
      const item = await approvalIn(sql, session.workspace.id, params.id!)
      return item ? pageResponse(approvalPage({ session, item, now: new Date() })) : notFound(session)
    }))
    .post('/console/approvals/:id', decideWith('approval'), { parse: 'none' })
    .get('/console/actions/:id', signedIn(async ({ session, params }) => {
      const action = await actionIn(sql, session.workspace.id, params.id!)
      return action ? pageResponse(actionPage({ session, action })) : notFound(session)
    }))
    .post('/console/actions/:id', decideWith('action'), { parse: 'none' })
    // Without a session, 401 (not the sign-in page): an EventSource stops on it instead of reconnecting.
    // The stream lasts only as long as its session: signed out, removed or expired, it ends.
    .get('/console/live', handle(async ({ request, session, sessionToken }) =>
      session && sessionToken
        ? liveResponse(watcher, session.workspace.id, request.signal, securityHeaders(), { token: sessionToken, stillOpen: () => deps.sessions.stillOpen(sessionToken) })
        : problem(401, 'Not signed in', 'Live updates need a signed-in session.'),
    ))
}
