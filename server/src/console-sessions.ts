import type { ConsoleSessions, LinkRefusal, SignInMeta } from './console/session-port.ts'
import type { Db } from './core/db.ts'
import { RuleError } from './core/errors.ts'
import { endSession, sessionOf } from './domain/sessions.ts'
import { redeemLink } from './domain/sign-in.ts'
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

/**
 * `mail`: when this process sends mail (SMTP_URL), the console's "mail me a sign-in link" queues
 * one and wakes the sender; without it the sign-in page says to ask an operator for a link.
 */
export function consoleSessions(sql: Db, mail?: { wake(): void }): ConsoleSessions {
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
      return s && { person: s.person, workspace: s.workspace, csrf: s.csrf }
    },
    async redeem(linkToken, meta) {
      try {
        const r = await redeemLink(sql, linkToken, { address: meta.address })
        return { sessionToken: r.token, csrf: r.csrf }
      } catch (err) {
        const refused = err instanceof RuleError ? REFUSED[err.rule] : undefined
        if (refused) return { refused }
        throw err
      }
    },
    async end(token) {
      await endSession(sql, token)
    },
  }
}
