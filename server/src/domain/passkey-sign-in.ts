import { type AuthenticationResponseJSON, generateAuthenticationOptions, verifyAuthenticationResponse } from '@simplewebauthn/server'
import type { Db } from '../core/db.ts'
import type { RelyingParty } from '../core/relying-party.ts'
import { inTransaction } from '../store/driver/db.ts'
import * as store from '../store/passkeys.ts'
import { selectPerson } from '../store/people.ts'
import { keepChallenge, passkeyRefusal, readAnswer, takeChallenge } from './passkey-challenges.ts'
import { toPerson } from './people.ts'
import { signInSession } from './sessions.ts'
import { takeSignInAttempt } from './sign-in-limits.ts'

/**
 * Signing in with a passkey, from the sign-in page, with no address asked: the browser offers the
 * passkeys it holds for this console. The challenge belongs to the sign-in form that asked for it
 * (no workspace yet); the answer names its person by the user handle (`<workspace>/<person>`), then
 * its passkey, whose signature and counter must check out. The session is made as a link's is
 * (signInSession), recorded as a sign-in `via: 'passkey'`.
 */
type Available = Extract<RelyingParty, { id: string }>

/**
 * The options of `navigator.credentials.get` (JSON), their challenge kept for this sign-in form;
 * refused with `sign_in_rate_limited` past the hour's passkey sign-ins from the caller's address.
 */
export async function signInOptions(sql: Db, rp: Available, input: { formToken: string; address?: string }, at = new Date()) {
  if (input.address) await takeSignInAttempt(sql, 'passkeySignInsPerAddress', input.address, at)
  const formToken = input.formToken
  const options = await generateAuthenticationOptions({ rpID: rp.id, userVerification: 'required' })
  await keepChallenge(sql, { workspaceId: '', challenge: options.challenge, purpose: 'sign_in', bound: formToken, personId: null, at })
  return options
}

const HANDLE = /^(ws_[0-9A-Za-z_-]{1,100})\/(per_[0-9A-Za-z_-]{1,100})$/

/** The workspace and person a user handle (base64url) names, or null. */
function ownerOf(userHandle: unknown): { workspaceId: string; personId: string } | null {
  if (typeof userHandle !== 'string' || !userHandle) return null
  const m = HANDLE.exec(Buffer.from(userHandle, 'base64url').toString('utf8'))
  return m ? { workspaceId: m[1]!, personId: m[2]! } : null
}

/**
 * Signs in the person whose passkey answered this sign-in form's challenge. Not limited per address
 * as links are: there is nothing to guess (each answer is a signature over a challenge used once),
 * and a failed answer still uses its challenge up.
 */
export async function signInWithPasskey(sql: Db, rp: Available, input: { formToken: string; responseText: string | null; address?: string }, at = new Date()) {
  const { answer, challenge } = readAnswer<AuthenticationResponseJSON>(input.responseText)
  await takeChallenge(sql, { workspaceId: '', challenge, purpose: 'sign_in', bound: input.formToken, at })
  const owner = ownerOf(answer.response.userHandle)
  if (!owner || typeof answer.id !== 'string') throw passkeyRefusal('passkey_unknown')
  return inTransaction(sql, async (tx) => {
    const passkey = await store.lockPasskey(tx, owner.workspaceId, answer.id)
    if (!passkey || passkey.person_id !== owner.personId) throw passkeyRefusal('passkey_unknown')
    const person = await selectPerson(tx, owner.workspaceId, owner.personId)
    if (!person || person.removed_at) throw passkeyRefusal('person_removed')
    let verified: Awaited<ReturnType<typeof verifyAuthenticationResponse>>
    try {
      verified = await verifyAuthenticationResponse({
        response: answer, expectedChallenge: challenge, expectedOrigin: rp.origin, expectedRPID: rp.id, requireUserVerification: true,
        credential: { id: passkey.credential_id, publicKey: passkey.public_key, counter: passkey.counter, transports: passkey.transports as never },
      })
    } catch (err) {
      throw passkeyRefusal('passkey_not_verified', `(${(err as Error).message})`)
    }
    if (!verified.verified) throw passkeyRefusal('passkey_not_verified')
    await store.markPasskeyUsed(tx, owner.workspaceId, passkey.credential_id, verified.authenticationInfo.newCounter, at)
    const session = await signInSession(tx, person, { via: 'passkey', address: input.address, detail: { passkey: passkey.name } }, at)
    return { ...session, person: toPerson(person), workspace: { id: owner.workspaceId } }
  })
}
