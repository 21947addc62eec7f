import type { Db, Sql, Tx } from '../core/db.ts'
import type { MissingFacts, Plan } from '../core/enums.ts'
import { newId } from '../core/ids.ts'

/** A new workspace with its own secret key (cursors, digests; sealed by the domain) and its limits row at the defaults. */
export async function insertWorkspace(tx: Tx, w: { id: string; name: string; plan: Plan; secretKey: string; createdAt?: Date }) {
  await tx`
    INSERT INTO workspaces (workspace_id, name, plan, secret_key, created_at)
    VALUES (${w.id}, ${w.name}, ${w.plan}, ${w.secretKey}, ${w.createdAt ?? new Date()})`
  await tx`INSERT INTO workspace_limits (workspace_id) VALUES (${w.id})`
}

export async function workspaceExists(sql: Db, id: string): Promise<boolean> {
  return (await sql`SELECT 1 FROM workspaces WHERE workspace_id = ${id}`).length > 0
}

export async function anyWorkspace(sql: Sql): Promise<boolean> {
  return (await sql`SELECT 1 FROM workspaces LIMIT 1`).length > 0
}

/** The stop switch of the workspace's agents, with a line in its log saying who flipped it and why. */
type WorkspaceRow = { workspace_id: string; name: string; plan: Plan; agents_stopped: boolean; created_at: Date }

/** The newest `limit` workspaces of the database, newest first. */
export async function selectWorkspaces(sql: Db, limit: number): Promise<WorkspaceRow[]> {
  return sql<WorkspaceRow[]>`
    SELECT workspace_id, name, plan, agents_stopped, created_at FROM workspaces ORDER BY created_at DESC, workspace_id DESC LIMIT ${limit}`
}

export async function setAgentsStopped(tx: Tx, workspaceId: string, stopped: boolean, actor: string, reason: string | null) {
  await tx`UPDATE workspaces SET agents_stopped = ${stopped} WHERE workspace_id = ${workspaceId}`
  await tx`
    INSERT INTO agent_switch_log (workspace_id, id, action, actor, reason)
    VALUES (${workspaceId}, ${newId('switch')}, ${stopped ? 'stop' : 'resume'}, ${actor}, ${reason})`
}

export type WorkspaceGate = {
  agents_stopped: boolean
  rules_version: number
  stopped_at: Date | null
  stopped_by: string | null
  stopped_reason: string | null
}

/** The stop switch (with its latest stop: who, when, why) and the rules version. */
export async function selectWorkspaceGate(sql: Db, workspaceId: string): Promise<StopSwitch | undefined> {
  return gateOf(sql, workspaceId, false)
}

/** The gate, and the line recorded for who made the standing stop (`person:<id>`, `operator:<login>`). */
type StopSwitch = WorkspaceGate & { stopped_actor: string | null }

/** The same, the workspace's row locked until the transaction ends (a flip of the switch reads, then writes). */
export async function lockWorkspaceGate(tx: Tx, workspaceId: string): Promise<StopSwitch | undefined> {
  return gateOf(tx, workspaceId, true)
}

async function gateOf(sql: Db, workspaceId: string, lock: boolean): Promise<StopSwitch | undefined> {
  // stopped_by: a person who stopped them (`person:<id>`) by their name, anyone else by the line
  // recorded (`operator:<login>`, `system:<name>`); selectGatewayView reads it the same way.
  const [row] = await sql<StopSwitch[]>`
    SELECT w.agents_stopped, w.rules_version, s.created_at AS stopped_at, s.actor AS stopped_actor,
           COALESCE((SELECT p.name FROM people p WHERE s.actor LIKE 'person:%' AND p.workspace_id = w.workspace_id AND p.id = substr(s.actor, 8)), s.actor) AS stopped_by, s.reason AS stopped_reason
    FROM workspaces w
    LEFT JOIN LATERAL (
      SELECT created_at, actor, reason FROM agent_switch_log l
      WHERE l.workspace_id = w.workspace_id AND l.action = 'stop' ORDER BY created_at DESC, id DESC LIMIT 1
    ) s ON w.agents_stopped
    WHERE w.workspace_id = ${workspaceId}
    ${lock ? sql`FOR UPDATE OF w` : sql``}`
  return row
}

/** The workspace's own secret key (it signs cursors and keys params digests), as stored: sealed; never sent anywhere. */
export async function selectSecretKey(sql: Db, workspaceId: string): Promise<string | undefined> {
  const [row] = await sql<{ secret_key: string }[]>`SELECT secret_key FROM workspaces WHERE workspace_id = ${workspaceId}`
  return row?.secret_key
}

/** What the workspace's agent policy does with a fact a request did not state (undefined: no such workspace). */
export async function selectMissingFacts(sql: Db, workspaceId: string): Promise<MissingFacts | undefined> {
  const [row] = await sql<{ missing_facts: MissingFacts }[]>`SELECT missing_facts FROM workspaces WHERE workspace_id = ${workspaceId}`
  return row?.missing_facts
}
