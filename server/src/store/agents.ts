import type { Db, Tx } from '../core/db.ts'
import type { AgentOwner, Risk } from '../core/enums.ts'
import type { TimePosition } from '../core/paging.ts'
import { newerThan } from './keyset.ts'

/** The workspace's agents, with what each is permitted. Every query is scoped by workspace. */

export type AgentRow = {
  id: string
  name: string
  owner: AgentOwner
  description: string | null
  ceilings: Record<string, unknown>
  data_access: string[]
  max_unattended_risk: Risk
  last_acted_at: Date | null
  created_at: Date
  /** Set when the agent was retired (its credentials revoked; it keeps its history). */
  retired_at: Date | null
  /** Each with the action's name (null when the workspace has no such action), for the permission's sentence. */
  permissions: { tool: string; action: string; name?: string | null }[]
}

const agentColumns = (sql: Db) => sql`
  a.id, a.name, a.owner, a.description, a.ceilings, a.data_access, a.max_unattended_risk, a.last_acted_at, a.created_at, a.retired_at,
  COALESCE((SELECT json_agg(json_build_object('tool', p.tool_key, 'action', p.action_key, 'name', ta.name) ORDER BY p.tool_key, p.action_key)
            FROM agent_permissions p
            LEFT JOIN tool_actions ta ON ta.workspace_id = p.workspace_id AND ta.tool_key = p.tool_key AND ta.key = p.action_key
            WHERE p.workspace_id = a.workspace_id AND p.agent_id = a.id), '[]') AS permissions`

/** Agents oldest first; keyset-paged on (created_at, id) when `limit` is given. */
export async function selectAgents(sql: Db, workspaceId: string, opts: { after?: TimePosition; limit?: number } = {}): Promise<AgentRow[]> {
  const limit = opts.limit === undefined ? sql`` : sql`LIMIT ${opts.limit}`
  return sql<AgentRow[]>`
    SELECT ${agentColumns(sql)} FROM agents a
    WHERE a.workspace_id = ${workspaceId} ${newerThan(sql, opts.after, 'a')}
    ORDER BY a.created_at, a.id
    ${limit}`
}

export async function selectAgent(sql: Db, workspaceId: string, agentId: string): Promise<AgentRow | undefined> {
  const [row] = await sql<AgentRow[]>`
    SELECT ${agentColumns(sql)} FROM agents a WHERE a.workspace_id = ${workspaceId} AND a.id = ${agentId}`
  return row
}

/** The names of these agents of the workspace, by id (an id of no agent is left out). */
export async function selectAgentNames(sql: Db, workspaceId: string, ids: string[]): Promise<Record<string, string>> {
  if (!ids.length) return {}
  const rows = await sql<{ id: string; name: string }[]>`
    SELECT id, name FROM agents WHERE workspace_id = ${workspaceId} AND id = ANY (${ids}::text[])`
  return Object.fromEntries(rows.map((r) => [r.id, r.name]))
}

export async function agentExists(sql: Db, workspaceId: string, agentId: string): Promise<boolean> {
  return (await sql`SELECT 1 FROM agents WHERE workspace_id = ${workspaceId} AND id = ${agentId}`).length > 0
}

type AgentInsert = {
  workspaceId: string; id: string; name: string; owner: AgentOwner; description?: string; ceilings?: unknown
  dataAccess: string[]; maxUnattendedRisk: Risk
}

/**
 * The id of an active agent of the workspace with this name, case aside (undefined: none), read
 * under a lock that registering an agent of the workspace takes till its transaction ends, so two
 * registrations of one name at once cannot both find it free.
 */
export async function activeAgentNamed(tx: Tx, workspaceId: string, name: string): Promise<string | undefined> {
  await tx`SELECT pg_advisory_xact_lock(hashtext(${`agent names/${workspaceId}`}))`
  const [row] = await tx<{ id: string }[]>`
    SELECT id FROM agents WHERE workspace_id = ${workspaceId} AND retired_at IS NULL AND lower(name) = lower(${name}) LIMIT 1`
  return row?.id
}

export async function insertAgent(tx: Tx, a: AgentInsert) {
  await tx`
    INSERT INTO agents (workspace_id, id, name, owner, description, ceilings, data_access, max_unattended_risk)
    VALUES (${a.workspaceId}, ${a.id}, ${a.name}, ${a.owner}, ${a.description ?? null}, ${tx.json((a.ceilings ?? {}) as never)},
            ${a.dataAccess}, ${a.maxUnattendedRisk})`
}

export async function insertPermissions(tx: Tx, workspaceId: string, agentId: string, pairs: { tool: string; action: string }[]) {
  if (!pairs.length) return
  const rows = pairs.map((p) => ({ workspace_id: workspaceId, agent_id: agentId, tool_key: p.tool, action_key: p.action }))
  await tx`INSERT INTO agent_permissions ${tx(rows)} ON CONFLICT DO NOTHING`
}

export async function touchAgent(tx: Tx, workspaceId: string, agentId: string, at: Date) {
  await tx`
    UPDATE agents SET last_acted_at = GREATEST(COALESCE(last_acted_at, ${at}), ${at})
    WHERE workspace_id = ${workspaceId} AND id = ${agentId}`
}


/** Whether the agent is retired, and its name (for the audit list); undefined when the workspace has no such agent. */
export async function agentStanding(sql: Db, workspaceId: string, agentId: string): Promise<{ retired: boolean; name: string } | undefined> {
  const [row] = await sql<{ retired_at: Date | null; name: string }[]>`SELECT retired_at, name FROM agents WHERE workspace_id = ${workspaceId} AND id = ${agentId}`
  return row ? { retired: row.retired_at !== null, name: row.name } : undefined
}

/** Mark the agent retired (once) and revoke its live credentials; the ids revoked. Undefined if it was retired already. */
export async function markRetired(tx: Tx, workspaceId: string, agentId: string): Promise<string[] | undefined> {
  const done = await tx`UPDATE agents SET retired_at = now() WHERE workspace_id = ${workspaceId} AND id = ${agentId} AND retired_at IS NULL RETURNING id`
  if (!done.length) return undefined
  const revoked = await tx<{ id: string }[]>`
    UPDATE credentials SET revoked_at = now()
     WHERE workspace_id = ${workspaceId} AND agent_id = ${agentId} AND revoked_at IS NULL
    RETURNING id`
  return revoked.map((r) => r.id).sort()
}
