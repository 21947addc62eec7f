import { Elysia } from 'elysia'
import { SIGN_IN_LIMITS } from '../../domain/sign-in-limits.ts'
import { SIGNIN_COOKIE, newFormToken } from '../csrf.ts'
import { messagePage } from '../pages/layout.ts'
import { linkMailedPage, linkNotMailedPage, redeemPage, refusalMessage, signInPage, signOutPage } from '../pages/signin.ts'
import { cookieOf, endFormCookie, endNextCookie, endSessionCookie, formCookie, jsonResponse, NEXT_COOKIE, nextCookie, pageResponse, passkeyRefusedJson, redirectTo, retryAfterSeconds, safeNext, sessionCookie } from '../responses.ts'
import type { ConsoleDeps, RouteKit } from '../route-kit.ts'
import { isPasskeyRefused, type LinkRefusal } from '../session-port.ts'

/** Signing in (a mailed link, a one-time link, a passkey) and out. */
export function signInRoutes({ sessions }: ConsoleDeps, kit: RouteKit) {
  const { handle, problem, signedIn, signInPost, signedInPost, withFormToken, metaOf, secureCookies } = kit
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
    return pageResponse(page, status, [formCookie(SIGNIN_COOKIE, token, secureCookies(request))])
  }

  /** Signed in: on to the page they were going to (the next cookie), else the inbox; the sign-in's cookies ended. */
  const signedInTo = (request: Request, sessionToken: string) => {
    const secure = secureCookies(request)
    const raw = cookieOf(request, NEXT_COOKIE)
    let next: string | null = null
    try {
      next = safeNext(raw ? decodeURIComponent(raw) : null)
    } catch {
      // not one this console wrote
    }
    return redirectTo(next ?? '/console/', [sessionCookie(sessionToken, secure), endFormCookie(SIGNIN_COOKIE, secure), ...(raw ? [endNextCookie(secure)] : [])])
  }

  /** The page of a link that signs no one in: why, and the way to the sign-in page. */
  const linkRefused = (why: LinkRefusal, cookies: string[]) => {
    const status = why === 'rate_limited' ? 429 : why === 'unknown' ? 404 : 410
    return pageResponse(messagePage({ title: 'Not signed in', message: refusalMessage(why, Boolean(sessions.mailLink)), next: { href: '/console/signin', text: 'Go to the sign-in page' } }), status, cookies)
  }

  return new Elysia()
    .get('/console/signin', handle(async ({ request, session }) => {
      const query = new URL(request.url).searchParams
      const next = safeNext(query.get('next'))
      if (session) return redirectTo(next ?? '/console/')
      const signedOut = query.get('done') === 'signed-out'
      const page = withFormToken(request, (formToken) => signInPage({ mail: Boolean(sessions.mailLink), formToken, passkeys: passkeyState(), goingOn: next !== null, signedOut }))
      // Where to go on to once signed in; a visit without one forgets an older one.
      const secure = secureCookies(request)
      page.headers.append('Set-Cookie', next ? nextCookie(next, secure) : endNextCookie(secure))
      return page
    }))
    // Signing in with a passkey: the options for this sign-in form (JSON), then the browser's answer.
    .post('/console/signin/passkey/options', signInPost(async (ctx) => {
      const no = noPasskeys()
      if (no) return no
      const options = await passkeys!.signInOptions(cookieOf(ctx.request, SIGNIN_COOKIE)!, metaOf(ctx))
      if (isPasskeyRefused(options)) {
        // The hour's limit, in a person's words: when, as a wait (the page shows it as it comes), and the way that still works.
        if (!options.retryAt) return passkeyRefusedJson(options)
        const minutes = Math.max(1, Math.ceil((Date.parse(options.retryAt) - Date.now()) / 60_000))
        const refused = `Too many passkey sign-ins from this network this hour (at most ${SIGN_IN_LIMITS.passkeySignInsPerAddress}): try again in ${minutes} ${minutes === 1 ? 'minute' : 'minutes'}, or sign in with a link.`
        return passkeyRefusedJson({ ...options, refused })
      }
      return jsonResponse({ options })
    }), { parse: 'none' })
    .post('/console/signin/passkey', signInPost(async (ctx, fields) => {
      if (!passkeys) return problem(404, 'Not found', 'This server has no passkeys: sign in with a link.')
      const why = passkeys.unavailable()
      if (why) return signInAgain(ctx.request, 409, why)
      const answer = await passkeys.signIn(cookieOf(ctx.request, SIGNIN_COOKIE)!, fields.get('response'), metaOf(ctx))
      if ('refused' in answer) return signInAgain(ctx.request, answer.status, `Not signed in. ${answer.refused} Try again, or sign in with a link.`)
      return signedInTo(ctx.request, answer.sessionToken)
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
        refused.headers.set('Retry-After', retryAfterSeconds(mailed.retryAt))
        return refused
      }
      return pageResponse(linkMailedPage())
    }), { parse: 'none' })
    // Opening a link signs no one in (a mail scanner may open it): one button posts back. A link
    // that would not sign in (used, expired, unknown) says so at once, without the button.
    .get('/console/signin/:token', handle(async (ctx) => {
      const peeked = await sessions.peek(ctx.params.token!, metaOf(ctx))
      if ('refused' in peeked) return linkRefused(peeked.refused, [])
      return withFormToken(ctx.request, (formToken) => redeemPage({ token: ctx.params.token!, formToken }))
    }))
    .post('/console/signin/:token', signInPost(async (ctx) => {
      const redeemed = await sessions.redeem(ctx.params.token!, metaOf(ctx))
      const secure = secureCookies(ctx.request)
      if ('refused' in redeemed) return linkRefused(redeemed.refused, [endFormCookie(SIGNIN_COOKIE, secure)])
      return signedInTo(ctx.request, redeemed.sessionToken)
    }), { parse: 'none' })
    // The stable path answers a GET too: a page whose one button signs out (without a session, the sign-in page).
    .get('/console/signout', signedIn(async ({ session }) => pageResponse(signOutPage(session))))
    .post('/console/signout', signedInPost(async ({ request, sessionToken }, fields) => {
      await sessions.end(sessionToken)
      // A sign-out on the way to signing in again (to add a passkey) goes on to that page after.
      const next = safeNext(fields.get('next'))
      return redirectTo(next ? `/console/signin?${new URLSearchParams({ next })}` : '/console/signin?done=signed-out', [endSessionCookie(secureCookies(request))])
    }), { parse: 'none' })
}
