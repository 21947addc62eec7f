import type { Db, Tx } from '../core/db.ts'
import type { RuleEffect } from '../core/enums.ts'
import type { TimePosition } from '../core/paging.ts'
import { newerThan } from './keyset.ts'

export type RuleRow = { id: string; structure: unknown; effect: RuleEffect; created_at: Date }

/** The rules in force, oldest first; keyset-paged on (created_at, id) when `limit` is given. */
export async function selectRules(sql: Db, workspaceId: string, opts: { after?: TimePosition; limit?: number } = {}): Promise<RuleRow[]> {
  const limit = opts.limit === undefined ? sql`` : sql`LIMIT ${opts.limit}`
  return sql<RuleRow[]>`
    SELECT id, structure, effect, created_at FROM rules
    WHERE workspace_id = ${workspaceId} AND enabled ${newerThan(sql, opts.after)}
    ORDER BY created_at, id
    ${limit}`
}

/** New rules in force: the workspace's rules version moves on with each. */
export async function insertRules(tx: Tx, workspaceId: string, rules: { id: string; structure: unknown; effect: RuleEffect; createdAt?: Date }[]) {
  if (!rules.length) return
  const rows = rules.map((r) => ({ workspace_id: workspaceId, id: r.id, structure: tx.json(r.structure as never), effect: r.effect, created_at: r.createdAt ?? new Date() }))
  await tx`INSERT INTO rules ${tx(rows as never)}`
  await tx`UPDATE workspaces SET rules_version = rules_version + ${rules.length} WHERE workspace_id = ${workspaceId}`
}
