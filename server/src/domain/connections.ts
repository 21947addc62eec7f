import type { Sql } from '../core/db.ts'
import { byCreation, type Positioned, type TimePosition } from '../core/paging.ts'
import { iso, isoOrNull } from '../core/time.ts'
import type { Connection } from '../schemas/connections.ts'
import * as store from '../store/connections.ts'

/** The connected store, ad accounts, email platform and social accounts, oldest first, and whether each delivers. */
export async function listConnections(sql: Sql, workspaceId: string, page: { after?: TimePosition; limit: number }): Promise<Positioned<Connection, TimePosition>[]> {
  return (await store.selectConnections(sql, workspaceId, page)).map((c) => ({
    position: byCreation(c),
    item: {
      id: c.id,
      kind: c.kind,
      provider: c.provider,
      name: c.name,
      delivering: c.delivering,
      failingSince: c.delivering ? null : isoOrNull(c.failing_since),
      lastDeliveredAt: isoOrNull(c.last_delivered_at),
      createdAt: iso(c.created_at),
    },
  }))
}

/** The words of a failed change for a connection that stopped delivering. */
export const notDelivering = (conn: { name: string; failing_since: Date | null }) =>
  `${conn.name} is not delivering${conn.failing_since ? ` (failing since ${conn.failing_since.toISOString()})` : ''}; nothing was changed.`
