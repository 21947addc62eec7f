import { isSealed, SecretsKeyError, secretsKeyring } from '../core/secrets.ts'
import { cookieOf } from './responses.ts'
import type { ConsoleSession } from './session-port.ts'

/**
 * A secret shown once, after the POST that made it (Post/Redirect/Get). The POST seals what its page
 * shows (the new credential, token, signing secret or sign-in link) with the secrets key into a
 * cookie that only GET /console/shown/<page> receives, for 5 minutes, and answers 303 there; that GET
 * shows it and ends the cookie. So the page with the secret is a GET: reloading it, or coming back
 * to it, shows "shown once" and makes nothing, where reloading the POST's own answer made a second
 * agent, token or endpoint. The cookie is bound to the person who made it (a browser shared after a
 * sign-out shows nothing), and the server keeps nothing.
 */

export const SHOWN_PATH = '/console/shown'
const SHOWN_COOKIE = 'growth_shown'
/** Long enough to follow the redirect, short enough that a cookie left behind soon goes. */
const SHOWN_MAX_AGE_S = 300

/** The pages that show a secret once: each its own path under SHOWN_PATH. */
export type ShownPage = 'agent' | 'token' | 'webhook' | 'webhook-secret' | 'person'

type Sealed = { page: ShownPage; personId: string; workspaceId: string; data: unknown }

function cookie(value: string, maxAge: number, secure: boolean): string {
  return `${SHOWN_COOKIE}=${value}; Path=${SHOWN_PATH}; HttpOnly; SameSite=Strict; Max-Age=${maxAge}${secure ? '; Secure' : ''}`
}

/** The Set-Cookie that carries `data` to GET SHOWN_PATH/`page`, sealed, for this person only. */
export function shownCookie(session: ConsoleSession, page: ShownPage, data: unknown, secure: boolean): string {
  const sealed: Sealed = { page, personId: session.person.id, workspaceId: session.workspace.id, data }
  return cookie(secretsKeyring().seal(JSON.stringify(sealed)), SHOWN_MAX_AGE_S, secure)
}

/** The Set-Cookie that ends it (the answer that showed it, or found nothing to show). */
export const endShownCookie = (secure: boolean) => cookie('', 0, secure)

/**
 * What the POST sealed for `page`, when the request carries it for this person of this workspace;
 * null otherwise (shown already, expired, another page's, another person's, or not one we sealed).
 */
export function openShown(request: Request, session: ConsoleSession, page: ShownPage): unknown {
  const value = cookieOf(request, SHOWN_COOKIE)
  // Only what this server sealed (the keyring takes a plaintext value as its own plain value).
  if (!value || !isSealed(value)) return null
  let sealed: Sealed
  try {
    sealed = JSON.parse(secretsKeyring().open(value)) as Sealed
  } catch (error) {
    if (error instanceof SecretsKeyError || error instanceof SyntaxError) return null
    throw error
  }
  const ours = sealed.page === page && sealed.personId === session.person.id && sealed.workspaceId === session.workspace.id
  return ours ? sealed.data : null
}
