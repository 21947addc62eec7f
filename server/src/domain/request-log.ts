import type { Sql } from '../core/db.ts'
import { NotFoundError } from '../core/errors.ts'
import { byCreation, type Positioned, type TimePosition } from '../core/paging.ts'
import type { RequestLogEntry } from '../schemas/request-log.ts'
import { credentialExists } from '../store/credentials.ts'
import { type RequestLogRow, selectRequestLog } from '../store/request-log.ts'

/** The request log as the workspace reads it (GET /logs): its calls of the last 7 days, newest first. */

/** `4xx` as the statuses it stands for; `429` as itself. */
function statusRange(status: string): [number, number] {
  if (status.endsWith('xx')) {
    const hundred = Number(status[0]) * 100
    return [hundred, hundred + 99]
  }
  return [Number(status), Number(status)]
}

function toEntry(r: RequestLogRow): RequestLogEntry {
  return {
    id: r.id,
    method: r.method,
    path: r.path,
    operation: r.operation,
    status: r.status,
    code: r.code as RequestLogEntry['code'],
    message: r.message,
    durationMs: Number(r.duration_ms),
    credential: { id: r.credential_id, kind: r.credential_kind as RequestLogEntry['credential']['kind'], last4: r.credential_hint },
    idempotencyKey: r.idempotency_key,
    replayed: r.replayed,
    createdAt: r.created_at.toISOString(),
  }
}

export async function listRequestLog(
  sql: Sql,
  workspaceId: string,
  opts: { status?: string; operation?: string; credentialId?: string; after?: TimePosition; limit: number },
): Promise<Positioned<RequestLogEntry, TimePosition>[]> {
  const rows = await selectRequestLog(sql, workspaceId, { ...opts, status: opts.status ? statusRange(opts.status) : undefined })
  // A credential of no call is asked about: one that is not the workspace's is 404, as any id.
  if (rows.length === 0 && opts.credentialId && !(await credentialExists(sql, workspaceId, opts.credentialId))) throw new NotFoundError('credential', opts.credentialId)
  return rows.map((r) => ({ position: byCreation(r), item: toEntry(r) }))
}
