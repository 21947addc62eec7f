import type { Db } from '../core/db.ts'
import type { Decider } from '../core/decider.ts'
import { NotFoundError } from '../core/errors.ts'
import { iso } from '../core/time.ts'
import { selectPolicyChanges } from '../store/agent-policy.ts'
import { workspaceExists } from '../store/workspaces.ts'
import type { PolicyChange } from './agent-policy-changes.ts'

/** One applied policy: who applied it, when, the rules version it made, and its changes in sentences. */
type AppliedPolicy = { id: string; rulesVersion: number; appliedBy: Decider; appliedAt: string; changes: PolicyChange[] }

/** `growth admin policy history`: the policies applied to a workspace, newest first (policy_changes). */
export async function policyHistory(db: Db, workspaceId: string, limit: number): Promise<{ workspaceId: string; applied: AppliedPolicy[] }> {
  if (!(await workspaceExists(db, workspaceId))) throw new NotFoundError('workspace', workspaceId, `No workspace ${workspaceId}.`)
  const applied = (await selectPolicyChanges(db, workspaceId, limit)).map((r) => ({
    id: r.id,
    rulesVersion: r.rules_version,
    appliedBy: r.applied_by as Decider,
    appliedAt: iso(r.created_at),
    changes: r.changes as PolicyChange[],
  }))
  return { workspaceId, applied }
}
