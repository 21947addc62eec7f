import type { ConsolePasskeys, ConsoleSession, ConsoleSessions, LinkRefusal, PasskeyRefused, SignInMeta } from './console/session-port.ts'
import { relyingPartyOf } from './core/relying-party.ts'
import type { Db } from './core/db.ts'
import { RuleError } from './core/errors.ts'
import { signInOptions, signInWithPasskey } from './domain/passkey-sign-in.ts'
import { listPasskeys, registerPasskey, registrationOptions, removePasskey } from './domain/passkeys.ts'
import { endSession, sessionOf } from './domain/sessions.ts'
import { peekLink, redeemLink } from './domain/sign-in.ts'
import { SignInLimited } from './domain/sign-in-limits.ts'
import { mailSignInLink } from './domain/sign-in-mail.ts'

/**
 * The console's sessions (console/session-port.ts) on the domain of people, sign-in links and
 * sessions (domain/sign-in.ts, sessions.ts), kept in the database so every server process shares
 * them. Wired here, at the top, because the console may import only the layers below it.
 */
const REFUSED: Record<string, LinkRefusal> = {
  link_unknown: 'unknown',
  link_used: 'used',
  link_expired: 'expired',
  // A removed person's link is as good as none: the page says it is not valid.
  person_removed: 'unknown',
  sign_in_rate_limited: 'rate_limited',
}

/** What `fn` gives, or the link's refusal in the console's words (any other error is thrown). */
async function linkRefusedOr<T>(fn: () => Promise<T>): Promise<T | { refused: LinkRefusal }> {
  try {
    return await fn()
  } catch (err) {
    const refused = err instanceof RuleError ? REFUSED[err.rule] : undefined
    if (refused) return { refused }
    throw err
  }
}

/**
 * `mail`: when this process sends mail (SMTP_URL), the console's "mail me a sign-in link" queues
 * one and wakes the sender; without it the sign-in page says to ask an operator for a link.
 * `consoleUrl`: the console's public address (CONSOLE_URL, else the server's own), asked when
 * needed because a server on port 0 knows its own only once listening; passkeys belong to its host.
 */
export function consoleSessions(sql: Db, opts: { consoleUrl?: () => string; mail?: { wake(): void } } = {}): ConsoleSessions {
  const mail = opts.mail
  return {
    ...(mail && {
      async mailLink(email: string, meta: SignInMeta) {
        try {
          await mailSignInLink(sql, { email, address: meta.address })
        } catch (err) {
          if (err instanceof SignInLimited) return { refused: 'rate_limited' as const, retryAt: err.retryAt.toISOString() }
          throw err
        }
        mail.wake()
        return { queued: true as const }
      },
    }),
    async sessionOf(token) {
      const s = await sessionOf(sql, token)
      return s && { person: s.person, workspace: s.workspace, csrf: s.csrf, signedInAt: s.session.createdAt }
    },
    async stillOpen(token) {
      return (await sessionOf(sql, token, new Date(), { touch: false })) !== null
    },
    async redeem(linkToken, meta) {
      return linkRefusedOr(async () => {
        const r = await redeemLink(sql, linkToken, { address: meta.address })
        return { sessionToken: r.token, csrf: r.csrf }
      })
    },
    async peek(linkToken, meta) {
      return linkRefusedOr(async () => {
        await peekLink(sql, linkToken, { address: meta.address })
        return { usable: true as const }
      })
    },
    async end(token) {
      await endSession(sql, token)
    },
    ...(opts.consoleUrl ? { passkeys: consolePasskeys(sql, opts.consoleUrl) } : {}),
  }
}

/** Refusals of passkeys by code, with the page's status; any other RuleError (a name too long) is 400. */
const PASSKEY_STATUS: Record<string, number> = {
  passkey_unknown: 401,
  person_removed: 401,
  passkey_not_verified: 401,
  passkey_sign_in_stale: 403,
}

async function refusedOr<T>(fn: () => Promise<T>): Promise<T | PasskeyRefused> {
  try {
    return await fn()
  } catch (err) {
    if (err instanceof SignInLimited) return { refused: err.message, status: 429, retryAt: err.retryAt.toISOString() }
    if (err instanceof RuleError) return { refused: err.message, status: PASSKEY_STATUS[err.rule] ?? 400 }
    throw err
  }
}

function consolePasskeys(sql: Db, consoleUrl: () => string): ConsolePasskeys {
  const rp = () => {
    const found = relyingPartyOf(consoleUrl())
    if ('unavailable' in found) throw new RuleError('passkeys_unavailable', found.unavailable)
    return found
  }
  const who = (s: ConsoleSession, sessionToken: string) => ({ workspaceId: s.workspace.id, personId: s.person.id, sessionToken, signedInAt: new Date(s.signedInAt) })
  return {
    unavailable() {
      const found = relyingPartyOf(consoleUrl())
      return 'unavailable' in found ? found.unavailable : null
    },
    list: (s) => listPasskeys(sql, s.workspace.id, s.person.id),
    registrationOptions: (s, token) => refusedOr(() => registrationOptions(sql, rp(), { ...who(s, token), email: s.person.email, name: s.person.name })),
    register: (s, token, input) => refusedOr(() => registerPasskey(sql, rp(), who(s, token), { responseText: input.response, name: input.name })),
    remove: (s, id) => removePasskey(sql, { workspaceId: s.workspace.id, personId: s.person.id }, id),
    signInOptions: (formToken, meta) => refusedOr(() => signInOptions(sql, rp(), { formToken, address: meta.address })),
    signIn: (formToken, response, meta) =>
      refusedOr(async () => {
        const r = await signInWithPasskey(sql, rp(), { formToken, responseText: response, address: meta.address })
        return { sessionToken: r.token, csrf: r.csrf }
      }),
  }
}
