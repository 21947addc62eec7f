import { newId } from '../ids.ts'
import type { Tx } from './db.ts'

/**
 * The outbox: every change writes its events in its own transaction. The sequence number comes
 * from the workspace row, updated under its row lock, so within a workspace events are numbered in
 * commit order and a poller reading by seq never skips one that commits later.
 */
export async function appendEvent(tx: Tx, workspaceId: string, type: string, data: Record<string, unknown>): Promise<string> {
  const id = newId('event')
  await tx`
    WITH s AS (UPDATE workspaces SET event_seq = event_seq + 1 WHERE workspace_id = ${workspaceId} RETURNING event_seq)
    INSERT INTO events (workspace_id, seq, id, type, data)
    SELECT ${workspaceId}, s.event_seq, ${id}, ${type}, ${tx.json(data as never)} FROM s`
  return id
}
