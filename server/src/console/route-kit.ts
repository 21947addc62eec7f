import type { Sql } from '../core/db.ts'
import { clientAddress, type TrustedProxies } from '../core/client-address.ts'
import { DomainError } from '../core/errors.ts'
import type { Logger } from '../core/log.ts'
import type { EventWatcher } from '../domain/event-watch.ts'
import type { AddressPolicy, Resolver } from '../domain/webhook-addresses.ts'
import { newFormToken, sameToken, SIGNIN_COOKIE } from './csrf.ts'
import { readForm } from './forms.ts'
import type { Html } from './html.ts'
import { answerAt, messagePage } from './pages/layout.ts'
import { cookieOf, formCookie, overHttps, pageResponse, redirectTo, SESSION_COOKIE, signInFor, STRICT_TRANSPORT } from './responses.ts'
import type { ConsoleRole, ConsoleSession, ConsoleSessions, SignInMeta } from './session-port.ts'
import { endShownCookie, openShown, SHOWN_PATH, type ShownPage, shownCookie } from './shown.ts'

/**
 * The handler kit every console route is written with: the session read from its cookie, errors
 * turned into pages, the signed-in guard, the CSRF checks (the session's token, or before sign-in
 * the form's double-submitted one) and the role check. Each page's routes (routes/*.ts) take it.
 */
export type ConsoleDeps = {
  sql: Sql
  sessions: ConsoleSessions
  log: Logger
  watcher?: EventWatcher
  /** The webhook address guard of this server's settings: an endpoint added in the console is checked as the API checks one. */
  webhooks: { addresses: AddressPolicy; resolve?: Resolver }
  /** The console's public address (CONSOLE_URL, else the server's own, known once it listens): the base of the sign-in links it makes. */
  consoleUrl: () => string
  /** When this process sends mail (SMTP_URL): wakes the sender after mail is queued. Absent: no mail, links are shown instead. */
  mail?: { wake(): void }
  /** The reverse proxies whose X-Forwarded-For names the client's address (TRUSTED_PROXIES); absent: the peer's. */
  trustedProxies?: TrustedProxies
  /** The API's operationIds, which the request log's page filters by (absent: not checked). */
  operationIds?: () => readonly string[]
}

type Server = { requestIP(r: Request): { address: string } | null } | null
export type Ctx = { request: Request; params: Record<string, string>; server: Server; session: ConsoleSession | null; sessionToken: string | null }
type SignedInCtx = Ctx & { session: ConsoleSession; sessionToken: string }

export type RouteKit = ReturnType<typeof routeKit>

export function routeKit(deps: ConsoleDeps) {
  const { sessions, log } = deps
  /** Whether this request's cookies are Secure (responses.ts overHttps, with the console's public address). */
  const secureCookies = (request: Request) => overHttps(request, deps.consoleUrl())

  const metaOf = (ctx: Ctx): SignInMeta => ({
    address: clientAddress(ctx.server?.requestIP(ctx.request)?.address, ctx.request.headers.get('x-forwarded-for'), deps.trustedProxies ?? []),
    userAgent: ctx.request.headers.get('user-agent'),
  })
  const problem = (status: number, title: string, message: string, session: ConsoleSession | null = null) =>
    pageResponse(messagePage({ title, message, session }), status)
  const notFound = (session: ConsoleSession | null) => problem(404, 'Not found', 'There is no such page in the console, or nothing by that id in your workspace.', session)

  /**
   * Every handler: its session read from the cookie, and whatever it throws turned into a page, never
   * a stack trace. Over https (the console's public address says so), every answer tells the browser
   * to use https alone for a year (responses.ts STRICT_TRANSPORT).
   */
  const handle =
    (fn: (ctx: Ctx) => Promise<Response>) =>
    async (ctx: { request: Request; params: Record<string, string>; server: unknown }) => {
      const response = await answer(fn, ctx)
      if (secureCookies(ctx.request)) response.headers.set(...STRICT_TRANSPORT)
      return response
    }

  const answer = async (fn: (ctx: Ctx) => Promise<Response>, { request, params, server }: { request: Request; params: Record<string, string>; server: unknown }) => {
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
    handle(async (ctx) => (ctx.session ? fn(ctx as Ctx & { session: ConsoleSession }) : redirectTo(signInFor(ctx.request))))

  const csrfRefused = (session: ConsoleSession | null) =>
    problem(403, 'Form expired', 'This form was missing its security token or carried a wrong one (a form from an old page or another site), so nothing was done. Go back, reload the page and try again.', session)

  /**
   * A POST of a signed-in person: 401 without a session, 403 without the session's CSRF token, then
   * the form's fields (at most `maxBytes`: the forms' 16 KiB unless a page's form carries a document).
   */
  const signedInPost = (fn: (ctx: SignedInCtx, fields: URLSearchParams) => Promise<Response>, maxBytes?: number) =>
    handle(async (ctx) => {
      if (!ctx.session || !ctx.sessionToken) {
        return problem(401, 'Not signed in', 'You are not signed in (or your session ended), so nothing was done. Sign in and try again.')
      }
      const form = await readForm(ctx.request, maxBytes)
      if ('refused' in form) return problem(form.status, 'Not done', form.refused, ctx.session)
      if (!sameToken(form.fields.get('csrf'), ctx.session.csrf)) return csrfRefused(ctx.session)
      return fn(ctx as SignedInCtx, form.fields)
    })

  /**
   * A signed-in POST only the given roles may make: anyone else gets 403 and `why` (what their
   * role lets them do instead), and nothing is done. Checked after the CSRF token.
   */
  const rolePost = (roles: readonly ConsoleRole[], why: (session: ConsoleSession) => string, fn: (ctx: SignedInCtx, fields: URLSearchParams) => Promise<Response>) =>
    signedInPost(async (ctx, fields) => (roles.includes(ctx.session.person.role) ? fn(ctx, fields) : problem(403, 'Not allowed', why(ctx.session), ctx.session)))

  /** A signed-in page only the given roles may read: anyone else gets 403 and `why`. */
  const rolePage = (roles: readonly ConsoleRole[], why: (session: ConsoleSession) => string, fn: (ctx: Ctx & { session: ConsoleSession }) => Promise<Response>) =>
    signedIn(async (ctx) => (roles.includes(ctx.session.person.role) ? fn(ctx) : problem(403, 'Not allowed', why(ctx.session), ctx.session)))

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
    return pageResponse(page(token), 200, [formCookie(SIGNIN_COOKIE, token, secureCookies(request))])
  }

  /** The answer to a POST that made a secret: 303 to the GET that shows it once (shown.ts). */
  const showOnce = (request: Request, session: ConsoleSession, page: ShownPage, data: unknown) =>
    redirectTo(answerAt(`${SHOWN_PATH}/${page}`), [shownCookie(session, page, data, secureCookies(request))])

  /**
   * GET /console/shown/<page>: what the POST sealed, rendered by `render`, once (this answer ends the
   * cookie); without it (reloaded, come back to, expired), a page saying it was shown once and
   * `lost` (what to do if it was not copied), with a way on to `back`.
   */
  const shownPage = <T>(page: ShownPage, opts: { lost: string; back: { href: string; text: string } }, render: (session: ConsoleSession, data: T) => Promise<Response>) =>
    signedIn(async ({ request, session }) => {
      const data = openShown(request, session, page)
      const end = endShownCookie(secureCookies(request))
      if (data === null) {
        const message = `It was shown once, on the page right after it was made; reloading that page or coming back to it shows it no more, and made nothing new. ${opts.lost}`
        return pageResponse(messagePage({ title: 'Shown once', tone: 'notice', message, session, next: opts.back }), 200, [end])
      }
      const answer = await render(session, data as T)
      answer.headers.append('Set-Cookie', end)
      return answer
    })

  return { secureCookies, metaOf, problem, notFound, handle, signedIn, signedInPost, rolePost, rolePage, signInPost, withFormToken, csrfRefused, showOnce, shownPage }
}
