import { expect } from 'bun:test'
import { addPerson } from '../../server/src/domain/people.ts'
import { signInLink } from '../../server/src/domain/sign-in.ts'
import { getHarness } from '../harness.ts'

/**
 * The console as a browser uses it, over HTTP (cookies and forms, redirects not followed), and a
 * person of a workspace signed in through a one-time link: their session cookie and CSRF token.
 */
/** A page as fetched; after a redirect to a shown-once page, also the POST's own answer and the cookie it set. */
type Visit = { res: Response; text: string; posted?: Response; shownCookie?: string }

/**
 * A fetcher of the console at `base` (the harness's server, or a server process of a test's own):
 * GET, or POST of a form, never following redirects, but for the one a browser always follows at
 * once: a form that made a secret answers 303 to the page that shows it once, with a cookie for that
 * page alone (server/src/console/shown.ts).
 */
export function consoleAt(base: string) {
  const at = async (path: string, init: { cookie?: string; form?: Record<string, string> | URLSearchParams } = {}): Promise<Visit> => {
    const body = init.form instanceof URLSearchParams ? init.form : init.form ? new URLSearchParams(init.form) : undefined
    const res = await fetch(`${base}${path}`, {
      method: body ? 'POST' : 'GET',
      redirect: 'manual',
      headers: { ...(init.cookie ? { Cookie: init.cookie } : {}), ...(body ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {}) },
      body: body?.toString(),
    })
    const location = res.headers.get('location')
    if (body && res.status === 303 && location?.startsWith('/console/shown/')) {
      const shown = res.headers.getSetCookie().find((c) => c.startsWith('growth_shown='))!
      const page = await at(location, { cookie: [init.cookie, shown.split(';')[0]].filter(Boolean).join('; ') })
      return { ...page, posted: res, shownCookie: shown }
    }
    return { res, text: await res.text() }
  }
  return at
}

/** The harness server's console (consoleAt). */
export async function fetchConsole(path: string, init: { cookie?: string; form?: Record<string, string> | URLSearchParams } = {}) {
  const { url } = await getHarness()
  return consoleAt(url)(path, init)
}

export const csrfOf = (html: string) => /name="csrf" value="([^"]+)"/.exec(html)?.[1]

/** A new person of the workspace and the path of a fresh sign-in link of theirs on the harness's console. */
export async function freshLink(workspaceId: string, role: 'owner' | 'approver' | 'viewer', name: string) {
  const { sql, url } = await getHarness()
  const person = await addPerson(sql, { workspaceId, email: `${role}-${crypto.randomUUID().slice(0, 8)}@example.com`, name, role })
  const link = await signInLink(sql, { personId: person.id, consoleUrl: `${url}/console` })
  return { person, path: new URL(link.url).pathname }
}

export async function signInAs(workspaceId: string, role: 'owner' | 'approver' | 'viewer', name: string) {
  const { person, path } = await freshLink(workspaceId, role, name)
  const page = await fetchConsole(path)
  const form = page.res.headers.getSetCookie().find((c) => c.startsWith('growth_signin='))!.split(';')[0]!
  const redeemed = await fetchConsole(path, { cookie: form, form: { csrf: csrfOf(page.text)! } })
  expect(redeemed.res.status).toBe(303)
  const cookie = redeemed.res.headers.getSetCookie().find((c) => c.startsWith('growth_session='))!.split(';')[0]!
  const csrf = csrfOf((await fetchConsole('/console/', { cookie })).text)!
  return { person, cookie, csrf, token: cookie.slice('growth_session='.length) }
}
