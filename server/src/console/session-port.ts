/**
 * What the console needs of people and sessions, and nothing more: the one interface between the
 * console's pages and the domain of people, sign-in links and sessions. server.ts hands an
 * implementation in when the console is mounted; the console never reads a session table itself.
 */

/** A person's role in their workspace (CONTRACT: People and the console). */
export type ConsoleRole = 'owner' | 'approver' | 'viewer'

/** Who is signed in, in which workspace, and the CSRF token bound to their session. */
export type ConsoleSession = {
  person: { id: string; name: string; role: ConsoleRole; email: string }
  workspace: { id: string; name: string }
  csrf: string
  /** When this session signed in (ISO 8601): adding a passkey needs a recent one. */
  signedInAt: string
}

/** Where a sign-in came from, for the audit list and rate limits. */
export type SignInMeta = { address: string; userAgent: string | null }

/** Why a one-time sign-in link does not sign anyone in. */
export type LinkRefusal = 'used' | 'expired' | 'unknown' | 'rate_limited'

export type ConsoleSessions = {
  /** The live session a `growth_session` cookie names, or null (unknown, ended, idle or too old). */
  sessionOf(token: string): Promise<ConsoleSession | null>
  /** Whether the session still stands (not ended, idle, too old, nor its person removed), without counting as a sight of its person. */
  stillOpen(token: string): Promise<boolean>
  /** Redeems a one-time sign-in link: a new session and its CSRF token, or why not. */
  redeem(linkToken: string, meta: SignInMeta): Promise<{ sessionToken: string; csrf: string } | { refused: LinkRefusal }>
  /** Whether a sign-in link would sign its person in now, without using it (its page says why not at once). */
  peek(linkToken: string, meta: SignInMeta): Promise<{ usable: true } | { refused: LinkRefusal }>
  /** Ends the session (signing out). */
  end(token: string): Promise<void>
  /**
   * Mails a sign-in link to the address when it is a person's, and does nothing otherwise (the page
   * answers alike): `queued` either way, or refused when too many were asked for (by this network
   * address, for this email address or for its person), with when to try again; then nothing is
   * mailed. Absent when mail is not configured: the sign-in page then says to ask for a link.
   */
  mailLink?(email: string, meta: SignInMeta): Promise<{ queued: true } | { refused: 'rate_limited'; retryAt: string }>
  /** A person's passkeys, when this server has them wired; absent: the console offers none. */
  passkeys?: ConsolePasskeys
}

/** A passkey as the console lists it. */
export type ConsolePasskey = { id: string; name: string; createdAt: string; lastUsedAt: string | null }

/** A passkey step refused: why, in words for the person, the status to answer, and when to try again when a limit refused it (429). */
export type PasskeyRefused = { refused: string; status: number; retryAt?: string }
export const isPasskeyRefused = (x: unknown): x is PasskeyRefused => typeof x === 'object' && x !== null && 'refused' in x

/**
 * Passkeys (WebAuthn): options for the browser (JSON, their challenge kept for the page that asked:
 * the session's token, or before sign-in the sign-in form's token), then its answer (the JSON text
 * the page posts) verified.
 */
export type ConsolePasskeys = {
  /** Why passkeys cannot work on this server (its public address is an IP address), or null. */
  unavailable(): string | null
  list(session: ConsoleSession): Promise<ConsolePasskey[]>
  registrationOptions(session: ConsoleSession, sessionToken: string): Promise<unknown | PasskeyRefused>
  register(session: ConsoleSession, sessionToken: string, input: { response: string | null; name: string | null }): Promise<ConsolePasskey | PasskeyRefused>
  /** Removes one of the person's passkeys; false when they have none by that id. */
  remove(session: ConsoleSession, id: string): Promise<boolean>
  signInOptions(formToken: string, meta: SignInMeta): Promise<unknown | PasskeyRefused>
  signIn(formToken: string, response: string | null, meta: SignInMeta): Promise<{ sessionToken: string; csrf: string } | PasskeyRefused>
}


/** Owners and approvers decide what waits (and stop or resume the agents); a viewer reads. */
export const DECIDERS: readonly ConsoleRole[] = ['owner', 'approver']
export const mayDecide = (role: ConsoleRole) => DECIDERS.includes(role)

/** The signed-in person as the audit list records who did something. */
export const personActor = (session: ConsoleSession) => ({ kind: 'person' as const, id: session.person.id, name: session.person.name })
