import type { Db, Tx } from '../core/db.ts'
import type { Risk } from '../core/enums.ts'

/** The tools agents can be permitted, each with its actions: risk, data used, reversibility. */

export type ToolActionJson = { key: string; name: string; risk: Risk; dataUsed: string[]; reversible: boolean }

export type ToolRow = { key: string; name: string; description: string; created_at: Date; actions: ToolActionJson[] }

/** Tools in the order they were added, keyset-paged on (created_at, key), each with its actions. */
export async function selectTools(sql: Db, workspaceId: string, opts: { after?: { t: string; key: string }; limit?: number } = {}): Promise<ToolRow[]> {
  const after = opts.after ? sql`AND (t.created_at, t.key) > (${opts.after.t}::timestamptz, ${opts.after.key})` : sql``
  const limit = opts.limit === undefined ? sql`` : sql`LIMIT ${opts.limit}`
  return sql<ToolRow[]>`
    SELECT t.key, t.name, t.description, t.created_at,
           COALESCE((SELECT json_agg(json_build_object('key', a.key, 'name', a.name, 'risk', a.risk, 'dataUsed', a.data_used,
                                                       'reversible', a.reversible) ORDER BY a.created_at, a.key)
                     FROM tool_actions a WHERE a.workspace_id = t.workspace_id AND a.tool_key = t.key), '[]') AS actions
    FROM tools t WHERE t.workspace_id = ${workspaceId} ${after}
    ORDER BY t.created_at, t.key
    ${limit}`
}

/** The names of these tools by key, and of their actions by 'tool.action' (rule sentences name them). */
export async function selectToolNames(sql: Db, workspaceId: string, keys: string[]): Promise<Record<string, string>> {
  if (!keys.length) return {}
  const rows = await sql<{ key: string; name: string }[]>`
    SELECT key, name FROM tools WHERE workspace_id = ${workspaceId} AND key = ANY (${keys}::text[])
    UNION ALL
    SELECT tool_key || '.' || key, name FROM tool_actions WHERE workspace_id = ${workspaceId} AND tool_key = ANY (${keys}::text[])`
  return Object.fromEntries(rows.map((r) => [r.key, r.name]))
}

/** The keys of every tool of the workspace (the gateway names them when asked for a tool it has not). */
export async function selectToolKeys(sql: Db, workspaceId: string): Promise<string[]> {
  const rows = await sql<{ key: string }[]>`SELECT key FROM tools WHERE workspace_id = ${workspaceId}`
  return rows.map((r) => r.key)
}

/** Every tool action of the workspace ('tool.action') with the data it uses. */
export async function knownToolActions(sql: Db, workspaceId: string): Promise<Map<string, string[]>> {
  const rows = await sql<{ k: string; data_used: string[] }[]>`
    SELECT tool_key || '.' || key AS k, data_used FROM tool_actions WHERE workspace_id = ${workspaceId}`
  return new Map(rows.map((r) => [r.k, r.data_used]))
}

export type ToolInsert = { key: string; name: string; description: string; actions: ToolActionJson[] }

/** Tools and their actions for a workspace (a new workspace starts with the catalogue). */
export async function insertTools(tx: Tx, workspaceId: string, tools: ToolInsert[]) {
  if (!tools.length) return
  await tx`INSERT INTO tools ${tx(tools.map((t) => ({ workspace_id: workspaceId, key: t.key, name: t.name, description: t.description })))}`
  const actions = tools.flatMap((t) =>
    t.actions.map((a) => ({ workspace_id: workspaceId, tool_key: t.key, key: a.key, name: a.name, risk: a.risk, data_used: a.dataUsed, reversible: a.reversible })),
  )
  if (actions.length) await tx`INSERT INTO tool_actions ${tx(actions)}`
}
