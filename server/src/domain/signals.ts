import type { Sql } from '../core/db.ts'
import type { SignalStatus } from '../core/enums.ts'
import { byCreation, type Positioned, type TimePosition } from '../core/paging.ts'
import { iso, isoOrNull } from '../core/time.ts'
import type { Signal } from '../schemas/signals.ts'
import * as store from '../store/signals.ts'

/** Signals of one status, newest first, each with the opportunity it speaks for. */
export async function listSignals(
  sql: Sql,
  workspaceId: string,
  opts: { status: SignalStatus; after?: TimePosition; limit: number },
  now = new Date(),
): Promise<Positioned<Signal, TimePosition>[]> {
  const rows = await store.selectSignals(sql, workspaceId, { ...opts, now })
  return rows.map((s) => ({
    position: byCreation(s),
    item: {
      id: s.id,
      kind: s.kind,
      title: s.title,
      detail: s.detail,
      status: s.status,
      opportunity: s.opportunity,
      resolvedAt: isoOrNull(s.resolved_at),
      createdAt: iso(s.created_at),
    },
  }))
}
