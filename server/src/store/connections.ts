import type { Db, Sql, Tx } from '../core/db.ts'
import type { ConnectionKind } from '../core/enums.ts'
import type { TimePosition } from '../core/paging.ts'
import { insertRows, newerThan } from './keyset.ts'

type ConnectionRow = {
  id: string; kind: ConnectionKind; provider: string; name: string
  delivering: boolean; failing_since: Date | null; last_delivered_at: Date | null; created_at: Date
}

const columns = (sql: Db) => sql`id, kind, provider, name, delivering, failing_since, last_delivered_at, created_at`

/** Connections oldest first, keyset-paged on (created_at, id). */
export async function selectConnections(sql: Sql, workspaceId: string, opts: { after?: TimePosition; limit: number }): Promise<ConnectionRow[]> {
  return sql<ConnectionRow[]>`
    SELECT ${columns(sql)} FROM connections
    WHERE workspace_id = ${workspaceId} ${newerThan(sql, opts.after)}
    ORDER BY created_at, id
    LIMIT ${opts.limit}`
}

export async function selectConnection(tx: Tx, workspaceId: string, id: string): Promise<ConnectionRow | undefined> {
  const [row] = await tx<ConnectionRow[]>`SELECT ${columns(tx)} FROM connections WHERE workspace_id = ${workspaceId} AND id = ${id}`
  return row
}

/** The workspace's store connection, a delivering one first. */
export async function selectStoreConnection(tx: Tx, workspaceId: string): Promise<ConnectionRow | undefined> {
  const [row] = await tx<ConnectionRow[]>`
    SELECT ${columns(tx)} FROM connections
    WHERE workspace_id = ${workspaceId} AND kind = 'store'
    ORDER BY delivering DESC, created_at, id LIMIT 1`
  return row
}

export type ConnectionInsert = ConnectionRow & { workspace_id: string }

export const insertConnections = (tx: Tx, rows: ConnectionInsert[]) => insertRows(tx, 'connections', rows)
