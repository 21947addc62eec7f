import type { Db, Tx } from '../core/db.ts'
import type { MissingFacts, RuleEffect } from '../core/enums.ts'
import type { ToolActionJson } from './agent-tools.ts'

/**
 * The writes of `growth admin policy apply`, each scoped by workspace, all in the caller's
 * transaction (domain/agent-policy-apply.ts decides what to write).
 */

/** The workspace row, locked until commit: applies of one workspace take turns. Undefined: no such workspace. */
export async function lockPolicy(tx: Tx, workspaceId: string): Promise<{ rules_version: number; missing_facts: MissingFacts } | undefined> {
  const [row] = await tx<{ rules_version: number; missing_facts: MissingFacts }[]>`
    SELECT rules_version, missing_facts FROM workspaces WHERE workspace_id = ${workspaceId} FOR UPDATE`
  return row
}

/** Retires tool actions ('tool.action'), and tools with all their actions: their rows and the permissions to them go. */
export async function deleteToolActions(tx: Tx, workspaceId: string, actions: { tool: string; action: string }[], tools: string[]) {
  const pairs = tx.json(actions as never)
  const gone = tx`(SELECT x.tool, x.action FROM jsonb_to_recordset(${pairs}::jsonb) AS x(tool text, action text))`
  await tx`
    DELETE FROM agent_permissions p WHERE p.workspace_id = ${workspaceId}
      AND ((p.tool_key, p.action_key) IN ${gone} OR p.tool_key = ANY (${tools}::text[]))`
  await tx`
    DELETE FROM tool_actions a WHERE a.workspace_id = ${workspaceId}
      AND ((a.tool_key, a.key) IN ${gone} OR a.tool_key = ANY (${tools}::text[]))`
  await tx`DELETE FROM tools WHERE workspace_id = ${workspaceId} AND key = ANY (${tools}::text[])`
}

export async function updateTool(tx: Tx, workspaceId: string, t: { key: string; name: string; description: string }) {
  await tx`UPDATE tools SET name = ${t.name}, description = ${t.description} WHERE workspace_id = ${workspaceId} AND key = ${t.key}`
}

export async function insertToolActions(tx: Tx, workspaceId: string, toolKey: string, actions: ToolActionJson[]) {
  if (!actions.length) return
  const rows = actions.map((a) => ({ workspace_id: workspaceId, tool_key: toolKey, key: a.key, name: a.name, risk: a.risk, data_used: a.dataUsed, reversible: a.reversible }))
  await tx`INSERT INTO tool_actions ${tx(rows)}`
}

export async function updateToolAction(tx: Tx, workspaceId: string, toolKey: string, a: ToolActionJson) {
  await tx`
    UPDATE tool_actions SET name = ${a.name}, risk = ${a.risk}, data_used = ${a.dataUsed}, reversible = ${a.reversible}
    WHERE workspace_id = ${workspaceId} AND tool_key = ${toolKey} AND key = ${a.key}`
}

/** What one agent may do, replaced whole: ceilings, data access, risk, and exactly these permissions. */
export async function updateAgentGrant(
  tx: Tx,
  workspaceId: string,
  g: { id: string; ceilings: Record<string, unknown>; data_access: string[]; max_unattended_risk: string; permissions: { tool: string; action: string }[] },
) {
  await tx`
    UPDATE agents SET ceilings = ${tx.json(g.ceilings as never)}, data_access = ${g.data_access}, max_unattended_risk = ${g.max_unattended_risk}
    WHERE workspace_id = ${workspaceId} AND id = ${g.id}`
  const keep = tx.json(g.permissions as never)
  await tx`
    DELETE FROM agent_permissions p WHERE p.workspace_id = ${workspaceId} AND p.agent_id = ${g.id}
      AND (p.tool_key, p.action_key) NOT IN (SELECT x.tool, x.action FROM jsonb_to_recordset(${keep}::jsonb) AS x(tool text, action text))`
  if (g.permissions.length) {
    const rows = g.permissions.map((p) => ({ workspace_id: workspaceId, agent_id: g.id, tool_key: p.tool, action_key: p.action }))
    await tx`INSERT INTO agent_permissions ${tx(rows)} ON CONFLICT DO NOTHING`
  }
}

/** Rules out of force: kept, disabled, so that past decisions that name them still read what they said. */
export async function disableRules(tx: Tx, workspaceId: string, ids: string[]) {
  if (ids.length) await tx`UPDATE rules SET enabled = false WHERE workspace_id = ${workspaceId} AND id = ANY (${ids}::text[]) AND enabled`
}

/** New rules in force, without moving the rules version (the caller moves it once for the whole policy). */
export async function insertPolicyRules(tx: Tx, workspaceId: string, rules: { id: string; structure: unknown; effect: RuleEffect; createdAt: Date }[]) {
  if (!rules.length) return
  const rows = rules.map((r) => ({ workspace_id: workspaceId, id: r.id, structure: tx.json(r.structure as never), effect: r.effect, created_at: r.createdAt }))
  await tx`INSERT INTO rules ${tx(rows as never)}`
}

/** The new rules version (exactly one more) and what a missing fact does. */
export async function setPolicyVersion(tx: Tx, workspaceId: string, missingFacts: MissingFacts): Promise<number> {
  const [row] = await tx<{ rules_version: number }[]>`
    UPDATE workspaces SET rules_version = rules_version + 1, missing_facts = ${missingFacts}
    WHERE workspace_id = ${workspaceId} RETURNING rules_version`
  return row!.rules_version
}

export async function insertPolicyChange(
  tx: Tx,
  workspaceId: string,
  c: { id: string; rulesVersion: number; appliedBy: Record<string, unknown>; changes: unknown[]; at: Date },
) {
  await tx`
    INSERT INTO policy_changes (workspace_id, id, rules_version, applied_by, changes, created_at)
    VALUES (${workspaceId}, ${c.id}, ${c.rulesVersion}, ${tx.json(c.appliedBy as never)}, ${tx.json(c.changes as never)}, ${c.at})`
}

type PolicyChangeRow = { id: string; rules_version: number; applied_by: Record<string, unknown>; changes: unknown[]; created_at: Date }

/** The applied policies of a workspace, newest first. */
export async function selectPolicyChanges(tx: Db, workspaceId: string, limit = 50): Promise<PolicyChangeRow[]> {
  return tx<PolicyChangeRow[]>`
    SELECT id, rules_version, applied_by, changes, created_at FROM policy_changes
    WHERE workspace_id = ${workspaceId} ORDER BY created_at DESC, id DESC LIMIT ${limit}`
}
