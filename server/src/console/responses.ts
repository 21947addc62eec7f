import type { Html } from './html.ts'

/**
 * What every console response carries: a strict Content-Security-Policy (nothing inline, nothing
 * from elsewhere, no framing), X-Frame-Options, Referrer-Policy and nosniff; pages are never stored.
 * And the cookies: the session's (HttpOnly, SameSite=Lax, Path=/console, Secure over https).
 */

const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ')

export const SESSION_COOKIE = 'growth_session'
/** A session lasts at most 7 days (CONTRACT); the cookie no longer. */
const SESSION_MAX_AGE_S = 7 * 24 * 3600
/** A sign-in form is good for as long as a link is: 15 minutes. */
const FORM_MAX_AGE_S = 15 * 60

/** The headers every console response carries (pages, files, the live stream). */
export function securityHeaders(): Record<string, string> {
  return {
    'Content-Security-Policy': CONSOLE_CSP,
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'same-origin',
    'X-Content-Type-Options': 'nosniff',
  }
}

/** A page: HTML, never cached. `cookies` are Set-Cookie values. */
export function pageResponse(body: Html, status = 200, cookies: string[] = []): Response {
  const headers = new Headers({ ...securityHeaders(), 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' })
  for (const c of cookies) headers.append('Set-Cookie', c)
  return new Response(`<!doctype html>\n${body.text}`, { status, headers })
}

/** JSON for the console's own scripts (a passkey's options, or why not: `{ message }`), never cached. */
export function jsonResponse(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { ...securityHeaders(), 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' } })
}

/**
 * The JSON a page's script reads when its passkey step was refused: `{ message }` with the status,
 * and Retry-After (seconds) when a limit refused it until `retryAt`.
 */
export function passkeyRefusedJson(refused: { refused: string; status: number; retryAt?: string }): Response {
  const res = jsonResponse({ message: refused.refused }, refused.status)
  if (refused.retryAt) res.headers.set('Retry-After', retryAfterSeconds(refused.retryAt))
  return res
}

/** Retry-After for a limit refused until `retryAt` (ISO): whole seconds from now, at least 1. */
export function retryAfterSeconds(retryAt: string): string {
  return String(Math.max(1, Math.ceil((Date.parse(retryAt) - Date.now()) / 1000)))
}

/** 303 See Other to a path of the console (after a POST, or to the sign-in page). */
export function redirectTo(location: string, cookies: string[] = []): Response {
  const headers = new Headers({ ...securityHeaders(), Location: location, 'Cache-Control': 'no-store' })
  for (const c of cookies) headers.append('Set-Cookie', c)
  return new Response(null, { status: 303, headers })
}

/** A static file of the console (its stylesheet, htmx). */
export function assetResponse(body: Uint8Array<ArrayBuffer>, type: string): Response {
  return new Response(body, { headers: { ...securityHeaders(), 'Content-Type': type, 'Cache-Control': 'public, max-age=3600' } })
}

/**
 * Strict-Transport-Security for a console served over https: a browser that saw it once goes to
 * https alone for a year, so no first request of a later visit travels in plain http where the
 * session cookie could be asked for by a downgrade. Not includeSubDomains: the console's host may
 * share its domain with sites the operator does not serve over https; not preload, which only the
 * domain's owner can ask for. A TLS-ending proxy may send its own; this one says it when it does not.
 */
export const STRICT_TRANSPORT = ['Strict-Transport-Security', 'max-age=31536000'] as const

/**
 * Whether cookies must be Secure: the console is served over https when the request's own URL says
 * so, or when its public address (CONSOLE_URL) is https, as it is behind a proxy that ends TLS and
 * passes plain http on (the server trusts no proxy's headers; the operator's setting says it).
 */
export const overHttps = (request: Request, publicUrl: string) => new URL(request.url).protocol === 'https:' || /^https:/i.test(publicUrl)

function cookie(name: string, value: string, path: string, sameSite: 'Lax' | 'Strict', maxAge: number, secure: boolean): string {
  return `${name}=${value}; Path=${path}; HttpOnly; SameSite=${sameSite}; Max-Age=${maxAge}${secure ? '; Secure' : ''}`
}

export const sessionCookie = (token: string, secure: boolean) => cookie(SESSION_COOKIE, token, '/console', 'Lax', SESSION_MAX_AGE_S, secure)
export const endSessionCookie = (secure: boolean) => cookie(SESSION_COOKIE, '', '/console', 'Lax', 0, secure)
/**
 * Where a person was going when the console sent them to sign in (a notice's link to an approval,
 * say): kept for the sign-in page's 15 minutes in a cookie only the sign-in paths see, and gone to
 * once they are signed in, by a link or a passkey, in this browser.
 */
export const NEXT_COOKIE = 'growth_next'
export const nextCookie = (path: string, secure: boolean) => cookie(NEXT_COOKIE, encodeURIComponent(path), '/console/signin', 'Lax', FORM_MAX_AGE_S, secure)
export const endNextCookie = (secure: boolean) => cookie(NEXT_COOKIE, '', '/console/signin', 'Lax', 0, secure)

/**
 * A console page to go on to after signing in, or null: a path of this console only (never another
 * site: no scheme, no `//`, no backslash), at most 500 characters, and not a sign-in, sign-out,
 * stream, asset or shown-once path.
 */
export function safeNext(raw: string | null | undefined): string | null {
  if (!raw || raw.length > 500 || !/^\/console\/[A-Za-z0-9\-._~/?=&%:+,]*$/.test(raw) || raw.includes('//')) return null
  if (/^\/console\/(signin|signout|live|assets|shown)(\/|\?|$)/.test(raw) || /(^|\/)\.\.?(\/|\?|$)/.test(raw)) return null
  return raw
}

/** The sign-in page, saying where to go on to after (a GET of a console page without a session). */
export function signInFor(request: Request): string {
  const url = new URL(request.url)
  const next = request.method === 'GET' && url.pathname !== '/console/' ? safeNext(url.pathname + url.search) : null
  return next ? `/console/signin?${new URLSearchParams({ next })}` : '/console/signin'
}

export const formCookie = (name: string, token: string, secure: boolean) => cookie(name, token, '/console/signin', 'Strict', FORM_MAX_AGE_S, secure)
export const endFormCookie = (name: string, secure: boolean) => cookie(name, '', '/console/signin', 'Strict', 0, secure)

/** The value of one cookie of the request, or null. */
export function cookieOf(request: Request, name: string): string | null {
  for (const part of (request.headers.get('cookie') ?? '').split(';')) {
    const eq = part.indexOf('=')
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim() || null
  }
  return null
}
