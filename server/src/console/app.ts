import { Elysia } from 'elysia'
import type { Sql } from '../core/db.ts'
import { DomainError } from '../core/errors.ts'
import type { Logger } from '../core/log.ts'
import { personDecider } from '../domain/deciders.ts'
import { decideAction } from '../domain/actions.ts'
import { decideApproval } from '../domain/approvals.ts'
import { agentOf, listAgents } from '../domain/agents.ts'
import { listRequests } from '../domain/agent-requests.ts'
import { EventWatcher } from '../domain/event-watch.ts'
import { agentsSwitch, setAgentsStopped } from '../domain/workspaces.ts'
import { GATEWAY_DECISIONS, type GatewayDecision } from '../core/enums.ts'
import { actionIn, approvalIn, listInbox } from '../domain/inbox.ts'
import { consoleAsset } from './assets.ts'
import { LIVE_TYPES, liveResponse } from './live.ts'
import { agentPage, agentsPage } from './pages/agents.ts'
import { type RequestFilter, requestsPage } from './pages/requests.ts'
import { newFormToken, sameToken, SIGNIN_COOKIE } from './csrf.ts'
import { readForm } from './forms.ts'
import type { Html } from './html.ts'
import { inboxPage, parsePosition } from './pages/inbox.ts'
import { actionPage, approvalPage } from './pages/item.ts'
import { messagePage } from './pages/layout.ts'
import { linkMailedPage, linkNotMailedPage, redeemPage, refusalMessage, signInPage } from './pages/signin.ts'
import { accountPage } from './pages/account.ts'
import { policyRoutes } from './routes/policy.ts'
import {
  assetResponse, cookieOf, endFormCookie, endSessionCookie, formCookie, jsonResponse, overHttps, pageResponse, redirectTo, SESSION_COOKIE, securityHeaders, sessionCookie,
} from './responses.ts'
import { type ConsoleSession, type ConsoleSessions, mayDecide, type SignInMeta } from './session-port.ts'

/**
 * The console: a front door beside the API (/console, outside /api/v1 and its OpenAPI document),
 * server-rendered pages over the same domain functions as the operator commands. Only the
 * `growth_session` cookie opens it (an Authorization header is never read here); a GET changes
 * nothing; every POST carries a CSRF token (the session's, or before sign-in the form's own, also
 * in a cookie), compared in constant time.
 */
type ConsoleDeps = { sql: Sql; sessions: ConsoleSessions; log: Logger; watcher?: EventWatcher }

const INBOX_PAGE = 25
const REQUESTS_PAGE = 25
const AGENT_REQUESTS = 10
const AGENTS_SHOWN = 200
/** How often an open live page's workspace is looked at for new events (one query per workspace, shared by its pages). */
const LIVE_POLL_MS = 500

type Server = { requestIP(r: Request): { address: string } | null } | null
type Ctx = { request: Request; params: Record<string, string>; server: Server; session: ConsoleSession | null; sessionToken: string | null }

export function consoleApp(deps: ConsoleDeps) {
  const { sql, sessions, log } = deps
  const watcher = deps.watcher ?? new EventWatcher(sql, { everyMs: LIVE_POLL_MS, types: LIVE_TYPES, onError: (error) => log.warn('console live updates could not read events', { error }) })
  /** The workspace's agents, oldest first: the agents page and the requests filter show the first AGENTS_SHOWN. */
  const agentsOf = async (workspaceId: string) => (await listAgents(sql, workspaceId, { limit: AGENTS_SHOWN })).map((p) => p.item)

  const metaOf = (ctx: Ctx): SignInMeta => ({ address: ctx.server?.requestIP(ctx.request)?.address ?? 'unknown', userAgent: ctx.request.headers.get('user-agent') })
  const problem = (status: number, title: string, message: string, session: ConsoleSession | null = null) =>
    pageResponse(messagePage({ title, message, session }), status)

  /** Every handler: its session read from the cookie, and whatever it throws turned into a page, never a stack trace. */
  const handle =
    (fn: (ctx: Ctx) => Promise<Response>) =>
    async ({ request, params, server }: { request: Request; params: Record<string, string>; server: unknown }) => {
      let session: ConsoleSession | null = null
      try {
        const sessionToken = cookieOf(request, SESSION_COOKIE)
        session = sessionToken ? await sessions.sessionOf(sessionToken) : null
        return await fn({ request, params: params ?? {}, server: server as Server, session, sessionToken })
      } catch (error) {
        if (error instanceof DomainError) {
          const status = { not_found: 404, rule: 400, conflict: 409, allowance: 409 }[error.kind]
          return problem(status, status === 404 ? 'Not found' : 'Not done', error.message, session)
        }
        // A sign-in link's path is its one-time token: logged as the route, never the token.
        log.error('console request failed', { error, path: new URL(request.url).pathname.replace(/^\/console\/signin\/[^/]+/, '/console/signin/{token}') })
        return problem(500, 'Something went wrong', 'The console could not answer this time; nothing was changed by this page. Try again in a moment.', session)
      }
    }

  /** A page that needs a signed-in person: without a session, the sign-in page. */
  const signedIn = (fn: (ctx: Ctx & { session: ConsoleSession }) => Promise<Response>) =>
    handle(async (ctx) => (ctx.session ? fn(ctx as Ctx & { session: ConsoleSession }) : redirectTo('/console/signin')))

  /**
   * A POST of a signed-in person: 401 without a session, 403 without the session's CSRF token, then
   * the form's fields.
   */
  const signedInPost = (fn: (ctx: Ctx & { session: ConsoleSession; sessionToken: string }, fields: URLSearchParams) => Promise<Response>, maxBytes?: number) =>
    handle(async (ctx) => {
      if (!ctx.session || !ctx.sessionToken) {
        return problem(401, 'Not signed in', 'You are not signed in (or your session ended), so nothing was done. Sign in and try again.')
      }
      const form = await readForm(ctx.request, maxBytes)
      if ('refused' in form) return problem(form.status, 'Not done', form.refused, ctx.session)
      if (!sameToken(form.fields.get('csrf'), ctx.session.csrf)) return csrfRefused(ctx.session)
      return fn(ctx as Ctx & { session: ConsoleSession; sessionToken: string }, form.fields)
    })

  const csrfRefused = (session: ConsoleSession | null) =>
    problem(403, 'Form expired', 'This form was missing its security token or carried a wrong one (a form from an old page or another site), so nothing was done. Go back, reload the page and try again.', session)

  /** A sign-in form's POST: the form's token must match its cookie (double submit), or nothing is done. */
  const signInPost = (fn: (ctx: Ctx, fields: URLSearchParams) => Promise<Response>) =>
    handle(async (ctx) => {
      const form = await readForm(ctx.request)
      if ('refused' in form) return problem(form.status, 'Not done', form.refused)
      if (!sameToken(form.fields.get('csrf'), cookieOf(ctx.request, SIGNIN_COOKIE))) return csrfRefused(null)
      return fn(ctx, form.fields)
    })

  /** A page with a sign-in form: a fresh form token, in the form and in its cookie. */
  const withFormToken = (request: Request, page: (token: string) => Html) => {
    const token = newFormToken()
    return pageResponse(page(token), 200, [formCookie(SIGNIN_COOKIE, token, overHttps(request))])
  }

  const decideWith = (kind: 'approval' | 'action') =>
    signedInPost(async ({ session, params }, fields) => {
      const id = params.id!
      if (!mayDecide(session.person.role)) {
        return problem(403, 'Not allowed', `You are a viewer of ${session.workspace.name}: you can read what waits, and an owner or approver decides it.`, session)
      }
      const choice = fields.get('decision')
      const reason = fields.get('reason')?.trim() ?? ''
      const again = async (status: number, error: string) => {
        if (kind === 'approval') {
          const item = await approvalIn(sql, session.workspace.id, id)
          return item ? pageResponse(approvalPage({ session, item, now: new Date(), error }), status) : notFound(session)
        }
        const action = await actionIn(sql, session.workspace.id, id)
        return action ? pageResponse(actionPage({ session, action, error }), status) : notFound(session)
      }
      if (choice !== 'approve' && choice !== 'reject') return again(400, 'Choose Approve or Reject.')
      if (choice === 'reject' && !reason) return again(400, 'A rejection needs a reason: the requester sees it.')
      const decider = personDecider(session.person)
      // The same domain functions the operator commands call, limited to the person's workspace.
      if (kind === 'approval') {
        await decideApproval(sql, { id, approve: choice === 'approve', decider, reason, workspaceId: session.workspace.id })
      } else {
        await decideAction(sql, { actionId: id, decision: choice, decider, reason, workspaceId: session.workspace.id })
      }
      return redirectTo(`/console/${kind === 'approval' ? 'approvals' : 'actions'}/${encodeURIComponent(id)}`)
    })

  const { passkeys } = sessions
  /** Passkeys' state for a page: absent when not wired, else why they cannot work (null: they do). */
  const passkeyState = () => (passkeys ? { unavailable: passkeys.unavailable() } : undefined)
  /** Why a passkey's options cannot be given (as JSON for the script), or null. */
  const noPasskeys = () => {
    if (!passkeys) return jsonResponse({ message: 'This server has no passkeys.' }, 404)
    const why = passkeys.unavailable()
    return why ? jsonResponse({ message: why }, 409) : null
  }
  const signInAgain = (request: Request, status: number, error: string) => {
    const token = newFormToken()
    const page = signInPage({ mail: Boolean(sessions.mailLink), formToken: token, passkeys: passkeyState(), error })
    return pageResponse(page, status, [formCookie(SIGNIN_COOKIE, token, overHttps(request))])
  }
  const DONE: Record<string, string> = { added: 'Passkey added: next time, sign in with it from the sign-in page.', removed: 'Passkey removed: it signs no one in any more.' }
  const account = async (session: ConsoleSession, extra: { notice?: string; error?: string } = {}) =>
    accountPage({
      session,
      passkeys: passkeys ? await passkeys.list(session) : [],
      unavailable: passkeys ? passkeys.unavailable() : 'Passkeys are not set up on this server.',
      ...extra,
    })

  const notFound = (session: ConsoleSession | null) => problem(404, 'Not found', 'There is no such page in the console, or nothing by that id in your workspace.', session)

  return new Elysia({ name: 'console' })
    .get('/console/assets/:name', ({ params }) => {
      const asset = consoleAsset(params.name)
      return asset ? assetResponse(asset.body, asset.type) : problem(404, 'Not found', 'The console has no such file.')
    })
    .get('/console/signin', handle(async ({ request, session }) => {
      if (session) return redirectTo('/console/')
      return withFormToken(request, (formToken) => signInPage({ mail: Boolean(sessions.mailLink), formToken, passkeys: passkeyState() }))
    }))
    // Signing in with a passkey: the options for this sign-in form (JSON), then the browser's answer.
    .post('/console/signin/passkey/options', signInPost(async ({ request }) => {
      const no = noPasskeys()
      if (no) return no
      return jsonResponse({ options: await passkeys!.signInOptions(cookieOf(request, SIGNIN_COOKIE)!) })
    }), { parse: 'none' })
    .post('/console/signin/passkey', signInPost(async (ctx, fields) => {
      if (!passkeys) return problem(404, 'Not found', 'This server has no passkeys: sign in with a link.')
      const why = passkeys.unavailable()
      if (why) return signInAgain(ctx.request, 409, why)
      const secure = overHttps(ctx.request)
      const signedIn = await passkeys.signIn(cookieOf(ctx.request, SIGNIN_COOKIE)!, fields.get('response'), metaOf(ctx))
      if ('refused' in signedIn) return signInAgain(ctx.request, signedIn.status, `Not signed in. ${signedIn.refused} Try again, or sign in with a link.`)
      return redirectTo('/console/', [sessionCookie(signedIn.sessionToken, secure), endFormCookie(SIGNIN_COOKIE, secure)])
    }), { parse: 'none' })
    .post('/console/signin', signInPost(async (ctx, fields) => {
      if (!sessions.mailLink) return problem(404, 'Not found', 'Sign-in links are not mailed here: ask your workspace\u2019s owner or operator for one.')
      const email = fields.get('email')?.trim() ?? ''
      if (!/^[^\s@]+@[^\s@]+$/.test(email) || email.length > 320) {
        return problem(400, 'Not an email address', `Enter the email address you were added with (got ${JSON.stringify(email.slice(0, 80))}).`)
      }
      const mailed = await sessions.mailLink(email, metaOf(ctx))
      if ('refused' in mailed) {
        const refused = pageResponse(linkNotMailedPage(mailed.retryAt), 429)
        refused.headers.set('Retry-After', String(Math.max(1, Math.ceil((Date.parse(mailed.retryAt) - Date.now()) / 1000))))
        return refused
      }
      return pageResponse(linkMailedPage())
    }), { parse: 'none' })
    .get('/console/signin/:token', handle(async ({ request, params }) => withFormToken(request, (formToken) => redeemPage({ token: params.token!, formToken }))))
    .post('/console/signin/:token', signInPost(async (ctx) => {
      const redeemed = await sessions.redeem(ctx.params.token!, metaOf(ctx))
      const secure = overHttps(ctx.request)
      if ('refused' in redeemed) {
        const status = redeemed.refused === 'rate_limited' ? 429 : redeemed.refused === 'unknown' ? 404 : 410
        return pageResponse(messagePage({ title: 'Not signed in', message: refusalMessage(redeemed.refused) }), status, [endFormCookie(SIGNIN_COOKIE, secure)])
      }
      return redirectTo('/console/', [sessionCookie(redeemed.sessionToken, secure), endFormCookie(SIGNIN_COOKIE, secure)])
    }), { parse: 'none' })
    .post('/console/signout', signedInPost(async ({ request, sessionToken }) => {
      await sessions.end(sessionToken)
      return redirectTo('/console/signin', [endSessionCookie(overHttps(request))])
    }), { parse: 'none' })
    // The person's own page: their passkeys, added and removed with the session's CSRF token.
    .get('/console/account', signedIn(async ({ request, session }) => {
      const done = new URL(request.url).searchParams.get('done')
      return pageResponse(await account(session, { notice: done && Object.hasOwn(DONE, done) ? DONE[done] : undefined }))
    }))
    .post('/console/account/passkeys/options', signedInPost(async ({ session, sessionToken }) => {
      const no = noPasskeys()
      if (no) return no
      return jsonResponse({ options: await passkeys!.registrationOptions(session, sessionToken) })
    }), { parse: 'none' })
    .post('/console/account/passkeys', signedInPost(async ({ session, sessionToken }, fields) => {
      if (!passkeys || passkeys.unavailable()) return pageResponse(await account(session), 409)
      const added = await passkeys.register(session, sessionToken, { response: fields.get('response'), name: fields.get('name') })
      if ('refused' in added) return pageResponse(await account(session, { error: `The passkey was not added. ${added.refused}` }), added.status)
      return redirectTo('/console/account?done=added')
    }), { parse: 'none' })
    .post('/console/account/passkeys/:id/remove', signedInPost(async ({ session, params }) => {
      if (!passkeys || !(await passkeys.remove(session, params.id!))) return notFound(session)
      return redirectTo('/console/account?done=removed')
    }), { parse: 'none' })
    .get('/console/', signedIn(async ({ request, session }) => {
      const raw = new URL(request.url).searchParams.get('after')
      const after = raw === null ? undefined : parsePosition(raw)
      if (after === null) return problem(400, 'Not a page of the inbox', `after must be a position this console gave (got ${JSON.stringify(raw!.slice(0, 80))}).`, session)
      const now = new Date()
      const page = await listInbox(sql, session.workspace.id, { after, limit: INBOX_PAGE, now })
      return pageResponse(inboxPage({ session, items: page.items.map((p) => p.item), next: page.next, now }))
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
    .get('/console/live', handle(async ({ request, session }) =>
      session ? liveResponse(watcher, session.workspace.id, request.signal, securityHeaders()) : problem(401, 'Not signed in', 'Live updates need a signed-in session.'),
    ))
    .get('/console/agents', signedIn(async ({ session }) => {
      const [agents, state] = await Promise.all([agentsOf(session.workspace.id), agentsSwitch(sql, session.workspace.id)])
      return pageResponse(agentsPage({ session, agents, state }))
    }))
    .post('/console/agents', signedInPost(async ({ session }, fields) => {
      if (!mayDecide(session.person.role)) {
        return problem(403, 'Not allowed', `You are a viewer of ${session.workspace.name}: you can see whether the agents run, and an owner or approver stops or resumes them.`, session)
      }
      const choice = fields.get('switch')
      const reason = fields.get('reason')?.trim() ?? ''
      const again = async (error: string) => {
        const [agents, state] = await Promise.all([agentsOf(session.workspace.id), agentsSwitch(sql, session.workspace.id)])
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
      const agents = await agentsOf(session.workspace.id)
      if (agentId !== undefined && !agents.some((a) => a.id === agentId) && !(await agentOf(sql, session.workspace.id, agentId))) {
        return problem(404, 'Not found', `There is no agent ${JSON.stringify(agentId.slice(0, 80))} in ${session.workspace.name}.`, session)
      }
      const filter: RequestFilter = { decision: decision as GatewayDecision | undefined, agentId }
      const rows = await listRequests(sql, session.workspace.id, { ...filter, after, limit: REQUESTS_PAGE + 1 })
      const shown = rows.slice(0, REQUESTS_PAGE)
      const next = rows.length > REQUESTS_PAGE ? shown.at(-1)!.position : null
      return pageResponse(requestsPage({ session, requests: shown.map((p) => p.item), next, filter, agents: agents.map((a) => ({ id: a.id, name: a.name })) }))
    }))
    .use(policyRoutes({ sql, signedIn, signedInPost, problem }))
    .all('/console/*', handle(async ({ request, session }) => {
      if (request.method !== 'GET' && request.method !== 'HEAD' && !session) return problem(401, 'Not signed in', 'You are not signed in, so nothing was done.')
      if (!session) return redirectTo('/console/signin')
      return notFound(session)
    }))
}
