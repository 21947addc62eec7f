import { randomBytes } from 'node:crypto'
import { TOOL_CATALOGUE } from '../domain/tool-catalogue.ts'
import { newId } from '../ids.ts'
import type { Sql, Tx } from './db.ts'
import type { Risk } from '../domain/tool-catalogue.ts'

export type Plan = 'starter' | 'growth' | 'scale'

export async function insertWorkspace(tx: Tx, w: { id: string; name: string; plan: Plan; createdAt?: Date }) {
  await tx`
    INSERT INTO workspaces (workspace_id, name, plan, secret_key, created_at)
    VALUES (${w.id}, ${w.name}, ${w.plan}, ${randomBytes(32).toString('base64url')}, ${w.createdAt ?? new Date()})`
  await tx`INSERT INTO workspace_limits (workspace_id) VALUES (${w.id})`
  const tools = TOOL_CATALOGUE.map((t) => ({ workspace_id: w.id, key: t.key, name: t.name, description: t.description }))
  await tx`INSERT INTO tools ${tx(tools)}`
  const actions = TOOL_CATALOGUE.flatMap((t) =>
    t.actions.map((a) => ({
      workspace_id: w.id,
      tool_key: t.key,
      key: a.key,
      name: a.name,
      risk: a.risk,
      data_used: a.dataUsed,
      reversible: a.reversible,
    })),
  )
  await tx`INSERT INTO tool_actions ${tx(actions)}`
}

export async function workspaceExists(sql: Sql | Tx, id: string): Promise<boolean> {
  return (await sql`SELECT 1 FROM workspaces WHERE workspace_id = ${id}`).length > 0
}

export async function insertCredential(
  tx: Sql | Tx,
  c: { workspaceId: string; id: string; kind: 'live' | 'test' | 'agent'; agentId?: string; hash: string; hint: string; scopes: string[]; expiresAt: Date | null },
) {
  await tx`
    INSERT INTO credentials (workspace_id, id, kind, agent_id, token_hash, token_hint, scopes, expires_at)
    VALUES (${c.workspaceId}, ${c.id}, ${c.kind}, ${c.agentId ?? null}, ${c.hash}, ${c.hint}, ${c.scopes}, ${c.expiresAt})`
}

/** Revoke a credential by id, in whichever workspace holds it. Returns false if there is none. */
export async function revokeCredential(sql: Sql, id: string): Promise<{ workspaceId: string; alreadyRevoked: boolean } | undefined> {
  const [row] = await sql<{ workspace_id: string; revoked_at: Date | null }[]>`
    SELECT workspace_id, revoked_at FROM credentials WHERE id = ${id}`
  if (!row) return undefined
  if (!row.revoked_at) {
    await sql`UPDATE credentials SET revoked_at = now() WHERE workspace_id = ${row.workspace_id} AND id = ${id} AND revoked_at IS NULL`
  }
  return { workspaceId: row.workspace_id, alreadyRevoked: row.revoked_at !== null }
}

export async function insertAgent(
  tx: Tx,
  a: {
    workspaceId: string; id: string; name: string; owner: 'product' | 'workspace'; description?: string; ceilings?: unknown
    dataAccess: string[]; maxUnattendedRisk: Risk
  },
) {
  await tx`
    INSERT INTO agents (workspace_id, id, name, owner, description, ceilings, data_access, max_unattended_risk)
    VALUES (${a.workspaceId}, ${a.id}, ${a.name}, ${a.owner}, ${a.description ?? null}, ${tx.json((a.ceilings ?? {}) as never)},
            ${a.dataAccess}, ${a.maxUnattendedRisk})`
}

/** Every tool action of the workspace ('tool.action') with the data it uses. */
export async function knownToolActions(sql: Sql | Tx, workspaceId: string): Promise<Map<string, string[]>> {
  const rows = await sql<{ k: string; data_used: string[] }[]>`
    SELECT tool_key || '.' || key AS k, data_used FROM tool_actions WHERE workspace_id = ${workspaceId}`
  return new Map(rows.map((r) => [r.k, r.data_used]))
}

export async function insertPermissions(tx: Tx, workspaceId: string, agentId: string, pairs: { tool: string; action: string }[]) {
  if (!pairs.length) return
  const rows = pairs.map((p) => ({ workspace_id: workspaceId, agent_id: agentId, tool_key: p.tool, action_key: p.action }))
  await tx`INSERT INTO agent_permissions ${tx(rows)} ON CONFLICT DO NOTHING`
}

export async function setAgentsStopped(tx: Tx, workspaceId: string, stopped: boolean, actor: string, reason: string | null) {
  await tx`UPDATE workspaces SET agents_stopped = ${stopped} WHERE workspace_id = ${workspaceId}`
  await tx`
    INSERT INTO agent_switch_log (workspace_id, id, action, actor, reason)
    VALUES (${workspaceId}, ${newId('switch')}, ${stopped ? 'stop' : 'resume'}, ${actor}, ${reason})`
}

export async function anyWorkspace(sql: Sql): Promise<boolean> {
  return (await sql`SELECT 1 FROM workspaces LIMIT 1`).length > 0
}
