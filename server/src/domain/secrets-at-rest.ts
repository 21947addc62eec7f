import type { Sql } from '../core/db.ts'
import { FIX, SecretsKeyError, type SecretsKeyring } from '../core/secrets.ts'
import { inTransaction } from '../store/driver/db.ts'
import * as store from '../store/secrets-at-rest.ts'

/**
 * Secrets at rest, as a process starting and an operator rotating the key see them (core/secrets.ts
 * seals and opens; docs/operations.md, "Rotating the secrets key").
 */

/**
 * At start, after the migrations: refuse (SecretsKeyError, one line naming the fix) when the
 * database holds secrets sealed by a key this process does not have, or that its key does not open;
 * then seal any secret still in plaintext (a database made before sealing). Several processes
 * starting at once seal each secret once: they take turns under one lock and re-read.
 */
export async function prepareSecretsAtRest(sql: Sql, keyring: SecretsKeyring): Promise<{ sealed: number }> {
  for (const { key_id, sample } of await store.selectSealingKeys(sql)) {
    if (!keyring.has(key_id)) {
      throw new SecretsKeyError(`The secrets in this database were sealed with secrets key ${key_id}, and this process has key ${keyring.keyId} (from ${keyring.source}). ${FIX}`)
    }
    keyring.open(sample)
  }
  if (!(await store.anyPlaintextSecret(sql))) return { sealed: 0 }
  return { sealed: await reseal(sql, keyring, { plaintextOnly: true }) }
}

/**
 * What a start that sealed an older database's plaintext secrets says: from now on that database
 * opens only with this key, which is in no dump, so the operator must keep it with the backups.
 * Undefined when nothing was sealed.
 */
export function sealedNotice(sealed: number, keyring: SecretsKeyring): string | undefined {
  if (sealed === 0) return undefined
  return (
    `Sealed ${sealed} ${sealed === 1 ? 'secret' : 'secrets'} an older version kept in plaintext (webhook signing secrets, workspace keys) ` +
    `with secrets key ${keyring.keyId} (from ${keyring.source}): this database opens only with that key from now on, and no dump holds it; ` +
    'back it up beside the database (docs/operations.md, "Backups and restoring").'
  )
}

/**
 * `growth admin secrets rotate-key`: every secret not sealed by the current key (sealed by a
 * previous one, or plaintext) is opened and sealed again under the current key. After it, the
 * previous keys open nothing in the database and may be dropped.
 */
export async function resealSecrets(sql: Sql, keyring: SecretsKeyring): Promise<{ resealed: number; keyId: string }> {
  await prepareSecretsAtRest(sql, keyring)
  return { resealed: await reseal(sql, keyring, { plaintextOnly: false }), keyId: keyring.keyId }
}

async function reseal(sql: Sql, keyring: SecretsKeyring, opts: { plaintextOnly: boolean }): Promise<number> {
  return inTransaction(sql, async (tx) => {
    await store.lockSecrets(tx)
    const rows = await store.selectSecretsNotSealedBy(tx, keyring.keyId, opts)
    for (const row of rows) await store.updateSecret(tx, row, keyring.seal(keyring.open(row.value)))
    return rows.length
  })
}
