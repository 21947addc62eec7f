import type { Db } from '../core/db.ts'

export type PasskeyRow = {
  workspace_id: string
  credential_id: string
  person_id: string
  name: string
  public_key: Uint8Array<ArrayBuffer>
  counter: number
  transports: string[]
  created_at: Date
  last_used_at: Date | null
}

type PasskeyInsert = { workspaceId: string; credentialId: string; personId: string; name: string; publicKey: Uint8Array; counter: number; transports: string[]; at: Date }

/** A new passkey; false when the workspace already has one with this credential id. */
export async function insertPasskey(tx: Db, p: PasskeyInsert): Promise<boolean> {
  const r = await tx`
    INSERT INTO passkeys (workspace_id, credential_id, person_id, name, public_key, counter, transports, created_at)
    VALUES (${p.workspaceId}, ${p.credentialId}, ${p.personId}, ${p.name}, ${Buffer.from(p.publicKey)}, ${p.counter}, ${tx.json(p.transports)}, ${p.at})
    ON CONFLICT (workspace_id, credential_id) DO NOTHING`
  return r.count > 0
}

const row = (r: PasskeyRow): PasskeyRow => ({ ...r, counter: Number(r.counter), public_key: new Uint8Array(r.public_key) })

/** The person's passkeys, oldest first. */
export async function selectPasskeysOf(sql: Db, workspaceId: string, personId: string): Promise<PasskeyRow[]> {
  const rows = await sql<PasskeyRow[]>`
    SELECT * FROM passkeys WHERE workspace_id = ${workspaceId} AND person_id = ${personId} ORDER BY created_at, credential_id`
  return rows.map(row)
}

/** The passkey with this credential id, locked until the transaction ends (two sign-ins at once: one after the other). */
export async function lockPasskey(tx: Db, workspaceId: string, credentialId: string): Promise<PasskeyRow | undefined> {
  const [r] = await tx<PasskeyRow[]>`SELECT * FROM passkeys WHERE workspace_id = ${workspaceId} AND credential_id = ${credentialId} FOR UPDATE`
  return r && row(r)
}

export async function markPasskeyUsed(tx: Db, workspaceId: string, credentialId: string, counter: number, at: Date) {
  await tx`UPDATE passkeys SET counter = ${counter}, last_used_at = ${at} WHERE workspace_id = ${workspaceId} AND credential_id = ${credentialId}`
}

/** Removes one passkey of the person; its name, or undefined when the person has none by that id. */
export async function deletePasskey(tx: Db, workspaceId: string, personId: string, credentialId: string): Promise<string | undefined> {
  const [r] = await tx<{ name: string }[]>`
    DELETE FROM passkeys WHERE workspace_id = ${workspaceId} AND person_id = ${personId} AND credential_id = ${credentialId} RETURNING name`
  return r?.name
}

type ChallengeRow = {
  workspace_id: string
  challenge: string
  purpose: 'register' | 'sign_in'
  bound_to: string
  person_id: string | null
  expires_at: Date
  used_at: Date | null
}

/** A new challenge; the workspace's expired ones (or, for '', every expired sign-in challenge) are deleted with it. */
export async function insertChallenge(tx: Db, c: { workspaceId: string; challenge: string; purpose: 'register' | 'sign_in'; boundTo: string; personId: string | null; at: Date; expiresAt: Date }) {
  await tx`DELETE FROM passkey_challenges WHERE workspace_id = ${c.workspaceId} AND expires_at < ${c.at}`
  await tx`
    INSERT INTO passkey_challenges (workspace_id, challenge, purpose, bound_to, person_id, created_at, expires_at)
    VALUES (${c.workspaceId}, ${c.challenge}, ${c.purpose}, ${c.boundTo}, ${c.personId}, ${c.at}, ${c.expiresAt})`
}

/** The challenge, locked until the transaction ends (two answers to it at once: one is first). */
export async function lockChallenge(tx: Db, workspaceId: string, challenge: string): Promise<ChallengeRow | undefined> {
  const [r] = await tx<ChallengeRow[]>`SELECT * FROM passkey_challenges WHERE workspace_id = ${workspaceId} AND challenge = ${challenge} FOR UPDATE`
  return r
}

export async function markChallengeUsed(tx: Db, workspaceId: string, challenge: string, at: Date) {
  await tx`UPDATE passkey_challenges SET used_at = ${at} WHERE workspace_id = ${workspaceId} AND challenge = ${challenge}`
}
