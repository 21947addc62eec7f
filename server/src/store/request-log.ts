import type { Db, Sql } from '../core/db.ts'
import type { TimePosition } from '../core/paging.ts'
import { olderThan } from './keyset.ts'

/** One call as the request log keeps it (migration 0021). */
export type LoggedCall = {
  workspaceId: string
  id: string
  method: string
  path: string
  operation: string
  status: number
  code: string | null
  message: string | null
  durationMs: number
  credentialId: string
  idempotencyKey: string | null
  replayed: boolean
  createdAt: Date
}

export type RequestLogRow = {
  id: string
  method: string
  path: string
  operation: string
  status: number
  code: string | null
  message: string | null
  duration_ms: string
  credential_id: string
  credential_kind: string | null
  credential_hint: string | null
  idempotency_key: string | null
  replayed: boolean
  created_at: Date
}

/** Which calls: a status or a range of them ([from, to], inclusive), an operation, a credential. */
type RequestLogFilter = { status?: [number, number]; operation?: string; credentialId?: string }

/** Many entries in one statement (the request log's batch). */
export async function insertRequestLog(sql: Sql, entries: LoggedCall[]): Promise<void> {
  if (!entries.length) return
  const col = <K extends keyof LoggedCall>(k: K) => entries.map((e) => e[k])
  // postgres.js sends no boolean[]: the replays go as text and are read back as booleans.
  await sql`
    INSERT INTO request_log (workspace_id, id, method, path, operation, status, code, message, duration_ms,
                             credential_id, idempotency_key, replayed, created_at)
    SELECT w, i, m, p, o, s, c, msg, d, cr, k, r::boolean, t
      FROM unnest(${col('workspaceId') as string[]}::text[], ${col('id') as string[]}::text[], ${col('method') as string[]}::text[],
                  ${col('path') as string[]}::text[], ${col('operation') as string[]}::text[], ${col('status') as number[]}::int[],
                  ${col('code') as string[]}::text[], ${col('message') as string[]}::text[], ${col('durationMs') as number[]}::numeric[],
                  ${col('credentialId') as string[]}::text[], ${col('idempotencyKey') as string[]}::text[],
                  ${entries.map((e) => (e.replayed ? 'true' : 'false'))}::text[], ${entries.map((e) => e.createdAt.toISOString())}::timestamptz[])
           AS u(w, i, m, p, o, s, c, msg, d, cr, k, r, t)
    ON CONFLICT (workspace_id, id) DO NOTHING`
}

/** A workspace's calls, newest first, after `after` in that order, with the credential's kind and last four. */
export function selectRequestLog(
  sql: Db,
  workspaceId: string,
  opts: RequestLogFilter & { after?: TimePosition; limit: number },
): Promise<RequestLogRow[]> {
  return sql<RequestLogRow[]>`
    SELECT r.id, r.method, r.path, r.operation, r.status, r.code, r.message, r.duration_ms::text AS duration_ms,
           r.credential_id, c.kind AS credential_kind, c.token_hint AS credential_hint, r.idempotency_key, r.replayed, r.created_at
      FROM request_log r
      LEFT JOIN credentials c ON c.workspace_id = r.workspace_id AND c.id = r.credential_id
     WHERE r.workspace_id = ${workspaceId}
       AND r.created_at > now() - interval '7 days'
       ${opts.status ? sql`AND r.status BETWEEN ${opts.status[0]} AND ${opts.status[1]}` : sql``}
       ${opts.operation ? sql`AND r.operation = ${opts.operation}` : sql``}
       ${opts.credentialId ? sql`AND r.credential_id = ${opts.credentialId}` : sql``}
       ${olderThan(sql, opts.after, 'r')}
     ORDER BY r.created_at DESC, r.id DESC
     LIMIT ${opts.limit}`
}

/** Deletes the calls older than 7 days, a bounded batch at a time; how many went. */
export async function purgeRequestLog(sql: Sql, batch = 10_000): Promise<number> {
  let total = 0
  for (;;) {
    const r = await sql`
      DELETE FROM request_log WHERE (workspace_id, id) IN (
        SELECT workspace_id, id FROM request_log WHERE created_at <= now() - interval '7 days' LIMIT ${batch})`
    total += r.count
    if (r.count < batch) return total
  }
}
