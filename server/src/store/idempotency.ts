import type { Sql, Tx } from '../core/db.ts'

type StoredAnswer = { requestHash: string; status: number; body: string }

/**
 * Take the transaction-scoped advisory lock for an idempotency key. False when another
 * transaction holds it (the first request is still being answered). The lock goes with the
 * transaction, so a process that dies mid-request frees its keys as its connection closes.
 */
export async function tryLockKey(tx: Tx, workspaceId: string, scope: string, key: string): Promise<boolean> {
  const [row] = await tx<{ locked: boolean }[]>`
    SELECT pg_try_advisory_xact_lock(hashtextextended(${`${workspaceId}\u0001${scope}\u0001${key}`}, 0)) AS locked`
  return row!.locked
}

export async function findAnswer(tx: Tx, workspaceId: string, scope: string, key: string): Promise<StoredAnswer | undefined> {
  const [row] = await tx<{ request_hash: string; status_code: number; response_body: string }[]>`
    SELECT request_hash, status_code, response_body FROM idempotency_keys
    WHERE workspace_id = ${workspaceId} AND scope = ${scope} AND key = ${key} AND expires_at > now()`
  return row && { requestHash: row.request_hash, status: row.status_code, body: row.response_body }
}

export async function saveAnswer(
  tx: Tx,
  workspaceId: string,
  scope: string,
  key: string,
  answer: StoredAnswer,
  ttlHours: number,
): Promise<void> {
  // An expired record under the same key is replaced: the key is free again after its window.
  await tx`
    INSERT INTO idempotency_keys AS k (workspace_id, scope, key, request_hash, status_code, response_body, expires_at)
    VALUES (${workspaceId}, ${scope}, ${key}, ${answer.requestHash}, ${answer.status}, ${answer.body},
            now() + make_interval(hours => ${ttlHours}))
    ON CONFLICT (workspace_id, scope, key) DO UPDATE
      SET request_hash = excluded.request_hash, status_code = excluded.status_code,
          response_body = excluded.response_body, created_at = now(), expires_at = excluded.expires_at
      WHERE k.expires_at <= now()`
}

export async function purgeExpiredKeys(sql: Sql): Promise<number> {
  const r = await sql`DELETE FROM idempotency_keys WHERE expires_at <= now()`
  return r.count
}
