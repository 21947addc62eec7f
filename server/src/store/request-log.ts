import { finished } from 'node:stream/promises'
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

/**
 * Rows a piece of a COPY's data holds (about 50 kB). Sent whole, a second's calls were one string and
 * one buffer (1.4 MB at 7,000 calls a second), copied again into postgres.js's message, and the
 * logged server spent about twice as long in Bun's collector as an unlogged one; in pieces this size
 * the log measured 1 to 3 points cheaper in every paired run (docs/performance.md, "The request
 * log"), and the pieces go out between requests instead of in one write.
 */
const ROWS_PER_CHUNK = 256

/**
 * Many entries in one statement (the request log's batch): `COPY ... FROM STDIN`, which costs both
 * PostgreSQL and this process about half what an INSERT from arrays does (docs/performance.md, "The
 * request log"); the embedded database takes it too (store/driver/embedded-queue.ts). `mayRepeat`:
 * some of them may be written already (a flush given back after its answer was lost): those are
 * skipped, by the key (ON CONFLICT, which COPY has not, so that rare batch is an INSERT).
 * The COPY's data goes in pieces of `rowsPerChunk` rows (ROWS_PER_CHUNK; tests make it small).
 */
export async function insertRequestLog(sql: Sql, entries: LoggedCall[], opts: { mayRepeat?: boolean; rowsPerChunk?: number } = {}): Promise<void> {
  if (!entries.length) return
  if (!opts.mayRepeat) {
    // On a connection of its own: postgres.js would put other statements on a connection with a
    // COPY under way (refused, or sent into the COPY's data).
    const reserved = await sql.reserve()
    try {
      const copy = await reserved`
        COPY request_log (workspace_id, id, method, path, operation, status, code, message, duration_ms,
                          credential_id, idempotency_key, replayed, created_at) FROM STDIN`.writable()
      // Every piece is handed over at once (the stream queues them): the batch is in memory already.
      // A connection closing while pieces still go out once cost the pool that connection for good:
      // a postgres.js bug, patched (patches/postgres+3.4.9.patch, test/faults/driver-reconnect.test.ts).
      const rows = opts.rowsPerChunk ?? ROWS_PER_CHUNK
      for (let from = 0; from < entries.length; from += rows) copy.write(copyRows(entries, from, Math.min(from + rows, entries.length)))
      copy.end()
      return await finished(copy)
    } finally {
      reserved.release()
    }
  }
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
    ON CONFLICT (workspace_id, created_at, id) DO NOTHING`
}

/**
 * COPY's text format: a line an entry, tab between columns, \N for none; backslash, tab, newline and
 * carriage return escaped in every text (the ids too: that they hold none is the pipeline's doing, not
 * this module's, and a stray tab would shift a row's columns and lose its whole batch). The lines of
 * entries[from, to) are joined once: appended one by one, they made a rope of thousands of pieces that
 * doubled the time of every garbage collection (docs/performance.md, "The request log"). Each second's
 * timestamp prefix is formatted once.
 */
function copyRows(entries: LoggedCall[], from: number, to: number): string {
  const lines = new Array<string>(to - from + 1)
  let second = Number.NaN
  let prefix = ''
  for (let i = from; i < to; i++) {
    const e = entries[i]!
    const ms = e.createdAt.getTime()
    const s = Math.floor(ms / 1000)
    if (s !== second) {
      second = s
      prefix = new Date(s * 1000).toISOString().slice(0, 20)
    }
    lines[i - from] =
      `${text(e.workspaceId)}\t${text(e.id)}\t${text(e.method)}\t${text(e.path)}\t${text(e.operation)}\t${e.status}\t${orNone(e.code)}\t${orNone(e.message)}\t` +
      `${e.durationMs}\t${text(e.credentialId)}\t${orNone(e.idempotencyKey)}\t${e.replayed ? 't' : 'f'}\t${prefix}${String(ms - s * 1000).padStart(3, '0')}Z`
  }
  lines[to - from] = ''
  return lines.join('\n')
}

const SPECIAL = /[\\\t\n\r]/
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' }
const text = (s: string) => (SPECIAL.test(s) ? s.replace(/[\\\t\n\r]/g, (c) => ESCAPES[c]!) : s)
const orNone = (s: string | null) => (s === null ? '\\N' : text(s))

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

/**
 * Deletes the calls older than 7 days, a bounded batch at a time; how many went. The table's one
 * index starts with the workspace: the workspaces that have calls are found by skipping through it
 * (one lookup each), and each one's old calls are the start of its range.
 */
export async function purgeRequestLog(sql: Sql, batch = 10_000): Promise<number> {
  let total = 0
  for (;;) {
    const r = await sql`
      DELETE FROM request_log r USING (
        WITH RECURSIVE ws(id) AS (
          SELECT min(workspace_id) FROM request_log
          UNION ALL
          SELECT (SELECT min(l.workspace_id) FROM request_log l WHERE l.workspace_id > ws.id) FROM ws WHERE ws.id IS NOT NULL
        )
        SELECT old.* FROM ws
        CROSS JOIN LATERAL (
          SELECT l.workspace_id, l.created_at, l.id FROM request_log l
          WHERE l.workspace_id = ws.id AND l.created_at <= now() - interval '7 days' ORDER BY l.created_at LIMIT ${batch}
        ) old
        LIMIT ${batch}
      ) old
      WHERE r.workspace_id = old.workspace_id AND r.created_at = old.created_at AND r.id = old.id`
    total += r.count
    if (r.count < batch) return total
  }
}
