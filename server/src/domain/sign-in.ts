import { type Actor, SYSTEM_ACTOR } from '../core/actor.ts'
import { consoleTokenWorkspace, hashConsoleToken, mintConsoleToken } from '../core/console-tokens.ts'
import type { Db } from '../core/db.ts'
import { RuleError } from '../core/errors.ts'
import { LINK_VALID_MS } from '../core/session-expiry.ts'
import { iso } from '../core/time.ts'
import { inTransaction } from '../store/driver/db.ts'
import { lockPerson, selectPerson } from '../store/people.ts'
import * as store from '../store/sign-in-links.ts'
import { recordAudit } from './audit.ts'
import { currentPerson, type Person, refuseIfSignedIn, toPerson } from './people.ts'
import { signInSession } from './sessions.ts'
import { checkSignInAttempts, takeSignInAttempt } from './sign-in-limits.ts'

/**
 * Signing in with a one-time link: `${consoleUrl}/signin/${token}`, valid 15 minutes, used once.
 * Each refusal of a link has a code of its own (RuleError.rule) that the console words:
 */
export const LINK_REFUSALS = {
  /** No such link (mistyped, cut short, or of another server). */
  link_unknown: 'This sign-in link is not valid.',
  /** Used already: a link signs in once. */
  link_used: 'This sign-in link was already used.',
  /** Older than 15 minutes. */
  link_expired: 'This sign-in link has expired.',
  /** Its person was removed from the workspace. */
  person_removed: 'This person no longer belongs to the workspace.',
} as const

const refusal = (code: keyof typeof LINK_REFUSALS) => new RuleError(code, LINK_REFUSALS[code], 'token')

/**
 * A new sign-in link for a person not removed. `limited`: counts against the person's links of the
 * hour (the console's "email me a link"); an operator's `growth admin person link` is not limited.
 * `beforeFirstSignIn`: only while the person has never signed in (an owner's new link to an
 * invitation, domain stillInvited), checked again on their row locked in the link's transaction.
 */
export async function signInLink(
  sql: Db,
  opts: { personId: string; consoleUrl: string; by?: Actor; at?: Date; limited?: boolean; beforeFirstSignIn?: boolean },
): Promise<{ url: string; expiresAt: string; person: Person; workspaceId: string }> {
  const person = await currentPerson(sql, opts.personId)
  const at = opts.at ?? new Date()
  if (opts.limited) await takeSignInAttempt(sql, 'linksPerPerson', `${person.workspace_id}/${person.id}`, at)
  const minted = mintConsoleToken('link', person.workspace_id)
  const expiresAt = new Date(at.getTime() + LINK_VALID_MS)
  await inTransaction(sql, async (tx) => {
    if (opts.beforeFirstSignIn) {
      const locked = await lockPerson(tx, person.workspace_id, person.id)
      if (locked) refuseIfSignedIn(locked)
    }
    await store.insertSignInLink(tx, { workspaceId: person.workspace_id, hash: minted.hash, personId: person.id, at, expiresAt })
    await recordAudit(tx, person.workspace_id, opts.by ?? SYSTEM_ACTOR, 'person.link_created', person.id, { name: person.name, expiresAt: iso(expiresAt) }, at)
  })
  return { url: `${opts.consoleUrl.replace(/\/+$/, '')}/signin/${minted.token}`, expiresAt: iso(expiresAt), person: toPerson(person), workspaceId: person.workspace_id }
}

/**
 * Redeems a link: a new session for its person (recorded as their sign-in), and the link used up.
 * Refused with link_unknown, link_used, link_expired or person_removed; from an `address` with 20
 * failures in the hour, a link that fails is refused with sign_in_rate_limited instead.
 */
export async function redeemLink(sql: Db, token: string, opts: { address?: string; at?: Date } = {}) {
  const at = opts.at ?? new Date()
  return refusalsCounted(sql, opts.address, at, () => redeem(sql, token.trim(), opts.address, at))
}

/**
 * `fn`, with a link's refusal counted against the address; past 20 failed links in the hour from it,
 * a refusal is sign_in_rate_limited (it says nothing of the link). A good link always works: the
 * failures of others behind the same address (an office, a NAT, a proxy without TRUSTED_PROXIES)
 * never lock a person out, as a valid API credential is answered whatever else came from its
 * address. A link is 256 random bits, so what the limit guards against is the lookups, not guessing.
 */
async function refusalsCounted<T>(sql: Db, address: string | undefined, at: Date, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn()
  } catch (err) {
    if (address && err instanceof RuleError && err.rule in LINK_REFUSALS) {
      await checkSignInAttempts(sql, 'failedRedeemsPerAddress', address, at)
      await takeSignInAttempt(sql, 'failedRedeemsPerAddress', address, at).catch(() => {})
    }
    throw err
  }
}

async function redeem(sql: Db, token: string, address: string | undefined, at: Date) {
  const workspaceId = consoleTokenWorkspace('link', token)
  if (!workspaceId) throw refusal('link_unknown')
  const hash = hashConsoleToken(token)
  return inTransaction(sql, async (tx) => {
    const person = await usableLinkPerson(tx, workspaceId, await store.lockSignInLink(tx, workspaceId, hash), at)
    await store.markLinkUsed(tx, workspaceId, hash, at)
    const session = await signInSession(tx, person, { via: 'link', address }, at)
    return { ...session, person: toPerson(person), workspace: { id: workspaceId } }
  })
}

/**
 * Whether a link would sign its person in now, without using it: the page a link opens says at once
 * that it was used or has expired, rather than after its button. Refused as `redeemLink` refuses
 * (the same codes, and a refusal counts against the address alike, so looking cannot be used to
 * try links faster than redeeming them).
 */
export async function peekLink(sql: Db, token: string, opts: { address?: string; at?: Date } = {}): Promise<void> {
  const at = opts.at ?? new Date()
  await refusalsCounted(sql, opts.address, at, async () => {
    const workspaceId = consoleTokenWorkspace('link', token.trim())
    if (!workspaceId) throw refusal('link_unknown')
    await usableLinkPerson(sql, workspaceId, await store.selectSignInLink(sql, workspaceId, hashConsoleToken(token.trim())), at)
  })
}

/** The person a link signs in at `at`, or the link's refusal (unknown, person removed, used, expired). */
async function usableLinkPerson(sql: Db, workspaceId: string, link: store.SignInLinkRow | undefined, at: Date) {
  if (!link) throw refusal('link_unknown')
  const person = await selectPerson(sql, workspaceId, link.person_id)
  if (!person || person.removed_at) throw refusal('person_removed')
  if (link.used_at) throw refusal('link_used')
  if (link.expires_at.getTime() <= at.getTime()) throw refusal('link_expired')
  return person
}
