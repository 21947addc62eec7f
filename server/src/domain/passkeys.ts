import { generateRegistrationOptions, type RegistrationResponseJSON, verifyRegistrationResponse } from '@simplewebauthn/server'
import type { Db } from '../core/db.ts'
import { RuleError } from '../core/errors.ts'
import type { RelyingParty } from '../core/relying-party.ts'
import { FRESH_SIGN_IN_MS, signedInRecently } from '../core/session-expiry.ts'
import { iso } from '../core/time.ts'
import { inTransaction } from '../store/driver/db.ts'
import * as store from '../store/passkeys.ts'
import { selectPerson } from '../store/people.ts'
import { recordAudit } from './audit.ts'
import { keepChallenge, passkeyRefusal, readAnswer, takeChallenge } from './passkey-challenges.ts'
import { personActor } from './sessions.ts'

/**
 * A signed-in person's passkeys (WebAuthn): registered from the console with the session that asks
 * (its token binds the challenge), listed and removed there. The passkey's user handle is
 * `<workspace>/<person>`, so a sign-in finds its workspace before it finds the passkey.
 */
export type Passkey = { id: string; name: string; createdAt: string; lastUsedAt: string | null }

/** Who registers: the signed-in person, the token of their session and when it signed in. */
type Registrant = { workspaceId: string; personId: string; sessionToken: string; signedInAt: Date }

/** A passkey is added within FRESH_SIGN_IN_MS of signing in (core/session-expiry.ts says why). */
function requireRecentSignIn(who: Registrant, at: Date): void {
  if (!signedInRecently(who.signedInAt, at)) {
    throw new RuleError('passkey_sign_in_stale', `A passkey is added within ${FRESH_SIGN_IN_MS / 60_000} minutes of signing in, and this session signed in longer ago: sign out, sign in again and add it then.`, 'session')
  }
}

type Available = Extract<RelyingParty, { id: string }>

const userHandleOf = (workspaceId: string, personId: string) => new TextEncoder().encode(`${workspaceId}/${personId}`)

const NAME_MAX = 60
// Control characters have no place in a name a page shows.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/

function passkeyName(input: string | null | undefined, at: Date): string {
  const name = (input ?? '').trim()
  if (!name) return `Passkey added ${iso(at).slice(0, 10)}`
  if ([...name].length > NAME_MAX || CONTROL.test(name)) {
    throw new RuleError('passkey_name', `A passkey's name is at most ${NAME_MAX} characters, without control characters.`, 'name')
  }
  return name
}

const toPasskey = (r: store.PasskeyRow): Passkey => ({ id: r.credential_id, name: r.name, createdAt: iso(r.created_at), lastUsedAt: r.last_used_at && iso(r.last_used_at) })

export async function listPasskeys(sql: Db, workspaceId: string, personId: string): Promise<Passkey[]> {
  return (await store.selectPasskeysOf(sql, workspaceId, personId)).map(toPasskey)
}

/** The options the browser's `navigator.credentials.create` takes (JSON), their challenge kept for this session. */
export async function registrationOptions(sql: Db, rp: Available, who: Registrant & { email: string; name: string }, at = new Date()) {
  requireRecentSignIn(who, at)
  const existing = await store.selectPasskeysOf(sql, who.workspaceId, who.personId)
  const options = await generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.id,
    userName: who.email,
    userDisplayName: who.name,
    userID: userHandleOf(who.workspaceId, who.personId),
    attestationType: 'none',
    // A passkey: kept on the authenticator (so the sign-in page needs no address), the person verified.
    authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
    excludeCredentials: existing.map((p) => ({ id: p.credential_id, transports: p.transports as never })),
  })
  await keepChallenge(sql, { workspaceId: who.workspaceId, challenge: options.challenge, purpose: 'register', bound: who.sessionToken, personId: who.personId, at })
  return options
}

/**
 * Registers the passkey the browser made (`responseText`: its answer, JSON) for the person of the
 * session that asked for its challenge; recorded in the audit list. Refused with a code of
 * PASSKEY_REFUSALS (or passkey_name, passkey_exists).
 */
export async function registerPasskey(sql: Db, rp: Available, who: Registrant, input: { responseText: string | null; name?: string | null }, at = new Date()): Promise<Passkey> {
  requireRecentSignIn(who, at)
  const name = passkeyName(input.name, at)
  const { answer, challenge } = readAnswer<RegistrationResponseJSON>(input.responseText)
  const taken = await takeChallenge(sql, { workspaceId: who.workspaceId, challenge, purpose: 'register', bound: who.sessionToken, at })
  if (taken.personId !== who.personId) throw passkeyRefusal('passkey_challenge_elsewhere')
  let verified: Awaited<ReturnType<typeof verifyRegistrationResponse>>
  try {
    verified = await verifyRegistrationResponse({ response: answer, expectedChallenge: challenge, expectedOrigin: rp.origin, expectedRPID: rp.id, requireUserVerification: true })
  } catch (err) {
    throw passkeyRefusal('passkey_not_verified', `(${(err as Error).message})`)
  }
  if (!verified.verified || !verified.registrationInfo) throw passkeyRefusal('passkey_not_verified')
  const credential = verified.registrationInfo.credential
  return inTransaction(sql, async (tx) => {
    const person = await selectPerson(tx, who.workspaceId, who.personId)
    if (!person || person.removed_at) throw passkeyRefusal('person_removed')
    const added = await store.insertPasskey(tx, {
      workspaceId: who.workspaceId, credentialId: credential.id, personId: who.personId, name, publicKey: credential.publicKey,
      counter: credential.counter, transports: credential.transports ?? [], at,
    })
    if (!added) throw new RuleError('passkey_exists', 'This passkey is already registered.', 'response')
    await recordAudit(tx, who.workspaceId, personActor(person), 'person.passkey_added', person.id, { passkey: credential.id, name }, at)
    return { id: credential.id, name, createdAt: iso(at), lastUsedAt: null }
  })
}

/** Removes one of the person's passkeys (recorded in the audit list); false when they have none by that id. */
export async function removePasskey(sql: Db, who: { workspaceId: string; personId: string }, credentialId: string, at = new Date()): Promise<boolean> {
  return inTransaction(sql, async (tx) => {
    const person = await selectPerson(tx, who.workspaceId, who.personId)
    if (!person) return false
    const name = await store.deletePasskey(tx, who.workspaceId, who.personId, credentialId)
    if (name === undefined) return false
    await recordAudit(tx, who.workspaceId, personActor(person), 'person.passkey_removed', person.id, { passkey: credentialId, name }, at)
    return true
  })
}
