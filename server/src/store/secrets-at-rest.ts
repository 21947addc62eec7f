import type { Db, Sql, Tx } from '../core/db.ts'

/**
 * The secrets stored sealed (core/secrets.ts), across every workspace: the workspaces' keys, the
 * webhook endpoints' signing secrets and the console sessions' CSRF secrets. Read and rewritten
 * only at start (sealing a database made before sealing) and by `growth admin secrets rotate-key`, under one advisory lock.
 */

/** One stored secret: where it is and its value as stored. */
type StoredSecret = { kind: 'workspace' | 'webhook' | 'session'; workspace_id: string; endpoint_id: string; id: string; value: string }

// Any fixed number: the lock every process sealing or re-sealing takes, so they take turns.
const SECRETS_LOCK = 7_340_212

export async function lockSecrets(tx: Tx) {
  await tx`SELECT pg_advisory_xact_lock(${SECRETS_LOCK})`
}

const allSecrets = (sql: Db) => sql`
  SELECT 'workspace' AS kind, workspace_id, '' AS endpoint_id, workspace_id AS id, secret_key AS value FROM workspaces
  UNION ALL
  SELECT 'webhook' AS kind, workspace_id, endpoint_id, id, secret AS value FROM webhook_secrets
  UNION ALL
  SELECT 'session' AS kind, workspace_id, '' AS endpoint_id, token_hash AS id, csrf_secret AS value FROM console_sessions`

/** Whether any secret is stored in plaintext (a database made before sealing). */
export async function anyPlaintextSecret(sql: Sql): Promise<boolean> {
  const rows = await sql`SELECT 1 FROM (${allSecrets(sql)}) s WHERE value NOT LIKE 'enc:%' LIMIT 1`
  return rows.length > 0
}

/** The secrets not sealed by the key `keyId`: plaintext ones, and those another key sealed. */
export async function selectSecretsNotSealedBy(tx: Db, keyId: string, opts: { plaintextOnly?: boolean } = {}): Promise<StoredSecret[]> {
  const pattern = opts.plaintextOnly ? 'enc:%' : `enc:v1:${keyId}:%`
  return tx<StoredSecret[]>`SELECT * FROM (${allSecrets(tx)}) s WHERE value NOT LIKE ${pattern}`
}

/** The ids of the keys that sealed the stored secrets, each with one value it sealed. */
export async function selectSealingKeys(sql: Db): Promise<{ key_id: string; sample: string }[]> {
  return sql`
    SELECT split_part(value, ':', 3) AS key_id, min(value) AS sample
    FROM (${allSecrets(sql)}) s WHERE value LIKE 'enc:%' GROUP BY 1`
}

/** Stores a secret's new value (sealed). */
export async function updateSecret(tx: Tx, s: StoredSecret, value: string) {
  if (s.kind === 'workspace') await tx`UPDATE workspaces SET secret_key = ${value} WHERE workspace_id = ${s.workspace_id}`
  else if (s.kind === 'session') await tx`UPDATE console_sessions SET csrf_secret = ${value} WHERE workspace_id = ${s.workspace_id} AND token_hash = ${s.id}`
  else await tx`UPDATE webhook_secrets SET secret = ${value} WHERE workspace_id = ${s.workspace_id} AND endpoint_id = ${s.endpoint_id} AND id = ${s.id}`
}
