import { createHash } from 'node:crypto'
import { decodeClientDataJSON } from '@simplewebauthn/server/helpers'
import type { Db, Tx } from '../core/db.ts'
import { RuleError } from '../core/errors.ts'
import { inTransaction } from '../store/driver/db.ts'
import * as store from '../store/passkeys.ts'

/**
 * The challenges of passkey ceremonies, in the database so that every server process shares them:
 * a challenge is answered once, within 5 minutes, from the page that asked for it (the session for a
 * registration, the sign-in form for a sign-in: `bound` is that page's token, only its SHA-256 kept).
 * Each refusal has a code of its own (RuleError.rule), which the console words.
 */
const CHALLENGE_VALID_MS = 5 * 60_000

const PASSKEY_REFUSALS = {
  /** Not a WebAuthn answer the browser makes (missing, not JSON, cut short). */
  passkey_response: 'The browser did not send a passkey\u2019s answer.',
  /** No such challenge: never given, or its row long gone. */
  passkey_challenge_unknown: 'This passkey answer is to a question the console did not ask.',
  /** The challenge was answered already: a replayed answer. */
  passkey_challenge_used: 'This passkey answer was already used.',
  /** Older than 5 minutes. */
  passkey_challenge_expired: 'The passkey took too long to answer (more than 5 minutes).',
  /** Given to another session or sign-in page. */
  passkey_challenge_elsewhere: 'This passkey answer was asked for by another page or session.',
  /** No such passkey (never registered here, or removed). */
  passkey_unknown: 'This passkey is not registered with the console.',
  /** Its person was removed from the workspace. */
  person_removed: 'This person no longer belongs to the workspace.',
  /** The signature, origin, relying party, user verification or counter did not check out. */
  passkey_not_verified: 'The passkey\u2019s answer did not check out.',
} as const

type PasskeyRefusalCode = keyof typeof PASSKEY_REFUSALS

export const passkeyRefusal = (code: PasskeyRefusalCode, more?: string) =>
  new RuleError(code, more ? `${PASSKEY_REFUSALS[code]} ${more}` : PASSKEY_REFUSALS[code], 'response')

const bindingOf = (token: string) => createHash('sha256').update(token).digest('hex')

/** Keeps a new challenge, bound to the page's token (a session's, or a sign-in form's). */
export async function keepChallenge(
  sql: Db,
  c: { workspaceId: string; challenge: string; purpose: 'register' | 'sign_in'; bound: string; personId: string | null; at: Date },
) {
  await store.insertChallenge(sql, { ...c, boundTo: bindingOf(c.bound), expiresAt: new Date(c.at.getTime() + CHALLENGE_VALID_MS) })
}

/** The answer the browser sent (the form's `response` field, JSON), with the challenge it signed. */
export function readAnswer<T extends { response: { clientDataJSON: string } }>(text: string | null | undefined): { answer: T; challenge: string } {
  if (!text) throw passkeyRefusal('passkey_response', 'Passkeys need JavaScript and a browser that supports them (WebAuthn).')
  try {
    const answer = JSON.parse(text) as T
    const challenge = decodeClientDataJSON(answer.response.clientDataJSON).challenge
    if (typeof challenge !== 'string' || !challenge) throw new Error('no challenge')
    return { answer, challenge }
  } catch {
    throw passkeyRefusal('passkey_response', 'Reload the page and try again.')
  }
}

/**
 * Uses up the challenge an answer signed, in the caller's transaction: refused when unknown, of
 * another purpose or page, already used, or expired. A challenge of another page is left as it is
 * (its own page may still answer it); any other answer uses it up, in a transaction of its own, so
 * that it stays used whether or not the answer then checks out.
 */
export async function takeChallenge(
  sql: Db,
  c: { workspaceId: string; challenge: string; purpose: 'register' | 'sign_in'; bound: string; at: Date },
): Promise<{ personId: string | null }> {
  return inTransaction(sql, (tx) => take(tx, c))
}

async function take(tx: Tx, c: { workspaceId: string; challenge: string; purpose: 'register' | 'sign_in'; bound: string; at: Date }) {
  const row = await store.lockChallenge(tx, c.workspaceId, c.challenge)
  if (!row || row.purpose !== c.purpose) throw passkeyRefusal('passkey_challenge_unknown')
  if (row.bound_to !== bindingOf(c.bound)) throw passkeyRefusal('passkey_challenge_elsewhere')
  if (row.used_at) throw passkeyRefusal('passkey_challenge_used')
  if (row.expires_at.getTime() <= c.at.getTime()) throw passkeyRefusal('passkey_challenge_expired')
  await store.markChallengeUsed(tx, c.workspaceId, c.challenge, c.at)
  return { personId: row.person_id }
}
