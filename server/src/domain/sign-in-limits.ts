import { createHash } from 'node:crypto'
import type { Db } from '../core/db.ts'
import { RuleError } from '../core/errors.ts'
import { addAttempts, attemptsIn } from '../store/attempt-counters.ts'

/**
 * How often the console's sign-in may be tried, per hour, counted in the database so that every
 * server process counts together: links mailed to one person, links asked for from one network
 * address, links asked for one email address (whether or not it is a person's, so the limit tells
 * nothing about who has an account), failed redemptions from one address (a guessed or stale link),
 * and passkey sign-ins begun from one address (each keeps a challenge in the database: without a
 * bound, anyone could fill its table; a person needs one or two an hour, an office behind one proxy
 * without TRUSTED_PROXIES a few dozen).
 */
export const SIGN_IN_LIMITS = { linksPerPerson: 5, linkRequestsPerAddress: 20, linkRequestsPerEmail: 5, failedRedeemsPerAddress: 20, passkeySignInsPerAddress: 60 } as const
type SignInLimit = keyof typeof SIGN_IN_LIMITS

const hourOf = (at: Date) => new Date(Math.floor(at.getTime() / 3600_000) * 3600_000)

function counterOf(limit: SignInLimit, key: string): { workspaceId: string; key: string } {
  // A person's counters live in their workspace; an address belongs to none.
  if (limit === 'linksPerPerson') {
    const [workspaceId, personId] = key.split('/') as [string, string]
    return { workspaceId, key: `signin:link:${personId}` }
  }
  // An email address is counted by its digest: the counters table never holds the address.
  if (limit === 'linkRequestsPerEmail') return { workspaceId: '', key: `signin:mail:${createHash('sha256').update(key.trim().toLowerCase()).digest('hex').slice(0, 32)}` }
  const kind = { linkRequestsPerAddress: 'ask', failedRedeemsPerAddress: 'fail', passkeySignInsPerAddress: 'passkey' }[limit]
  return { workspaceId: '', key: `signin:${kind}:${key}` }
}

/** The refusal when a limit is reached: code sign_in_rate_limited, saying when to try again (retryAt). */
export class SignInLimited extends RuleError {
  constructor(
    readonly limit: SignInLimit,
    readonly retryAt: Date,
  ) {
    super('sign_in_rate_limited', `Too many sign-in attempts (at most ${SIGN_IN_LIMITS[limit]} an hour); try again after ${retryAt.toISOString()}.`)
  }
}

const refused = (limit: SignInLimit, at: Date) => new SignInLimited(limit, new Date(hourOf(at).getTime() + 3600_000))

/**
 * Takes one attempt of `limit` for `key` (`<workspace>/<person>` for linksPerPerson, else the
 * address); refused with `sign_in_rate_limited` once the hour's allowance is used.
 */
export async function takeSignInAttempt(sql: Db, limit: SignInLimit, key: string, at = new Date()): Promise<void> {
  const c = counterOf(limit, key)
  const n = await addAttempts(sql, c.workspaceId, c.key, hourOf(at), 1)
  if (n > SIGN_IN_LIMITS[limit]) throw refused(limit, at)
}

/** Refused when the hour's allowance of `limit` is already used, without taking one. */
export async function checkSignInAttempts(sql: Db, limit: SignInLimit, key: string, at = new Date()): Promise<void> {
  const c = counterOf(limit, key)
  if ((await attemptsIn(sql, c.workspaceId, c.key, hourOf(at))) >= SIGN_IN_LIMITS[limit]) throw refused(limit, at)
}
