import type { Db, Tx } from '../core/db.ts'
import { actorOfDecider } from '../core/actor.ts'
import type { Decider } from '../core/decider.ts'
import { NotFoundError, RuleError } from '../core/errors.ts'
import { newId } from '../core/ids.ts'
import * as store from '../store/agent-policy.ts'
import { insertTools } from '../store/agent-tools.ts'
import { inTransaction } from '../store/driver/db.ts'
import { appendEvents } from '../store/events.ts'
import { grantDiffers, type PolicyChange, planIdOf, policyChanges, ruleKept } from './agent-policy-changes.ts'
import { policyInForce, type ResolvedPolicy } from './agent-policy-model.ts'
import { plannedPolicy } from './agent-policy-plan.ts'
import { recordAudit } from './audit.ts'

/**
 * `growth admin policy apply`: a planned policy written in one transaction with one new rules
 * version, only if the policy in force is still the one the plan was made against (its id, a
 * digest of both, agent-policy-changes.ts planIdOf), so that two people cannot overwrite each other
 * unseen. The workspace row is locked first, so applies of one workspace take turns and the check
 * and the writes see the same policy. Recorded (who, when, the changes in sentences) and announced
 * as `agent.policy.changed`. A document equal to the policy in force changes nothing: no new rules
 * version, no record, no event.
 */

export type Applied = { rulesVersion: number; changes: PolicyChange[] }

const PLAN_ID = /^plan_[0-9a-f]{64}$/

export async function applyPolicy(
  db: Db,
  workspaceId: string,
  text: string,
  opts: { source: string; planId: string; appliedBy: Decider; now?: Date },
): Promise<Applied> {
  if (!PLAN_ID.test(opts.planId)) throw new RuleError('plan.id', `plan must be a plan id as growth admin policy plan prints it (plan_ and 64 hex digits; got ${opts.planId}).`, 'plan')
  return inTransaction(db, async (tx) => {
    const row = await store.lockPolicy(tx, workspaceId)
    if (!row) throw new NotFoundError('workspace', workspaceId, `No workspace ${workspaceId}.`)
    const current = await policyInForce(tx, workspaceId, row.missing_facts)
    const planned = plannedPolicy(text, opts.source, current)
    if (planIdOf(current, row.rules_version, planned) !== opts.planId) {
      throw new RuleError(
        'stale_plan',
        `the policy changed since this plan (or ${opts.source} did): the workspace is at rules version ${row.rules_version}; run growth admin policy plan again and review what it says. Nothing was applied.`,
        'plan',
      )
    }
    const changes = policyChanges(current, planned)
    if (!changes.length) return { rulesVersion: row.rules_version, changes }
    const at = opts.now ?? new Date()
    await writeTools(tx, workspaceId, current, planned)
    for (const a of planned.agents) {
      const was = current.agents.find((x) => x.id === a.id)
      if (was && grantDiffers(was, a)) await store.updateAgentGrant(tx, workspaceId, a)
    }
    const ruleIds = await writeRules(tx, workspaceId, current, planned, at)
    const rulesVersion = await store.setPolicyVersion(tx, workspaceId, planned.missingFacts)
    // A rule added is named by the id it now has.
    const recorded = changes.map((c) => (c.kind === 'rule' && c.op === 'add' ? { ...c, key: ruleIds.get(c.key) ?? c.key } : c))
    const changeId = newId('policyChange', at)
    await store.insertPolicyChange(tx, workspaceId, { id: changeId, rulesVersion, appliedBy: opts.appliedBy, changes: recorded, at })
    await recordAudit(tx, workspaceId, actorOfDecider(opts.appliedBy), 'policy.applied', changeId, { rulesVersion, changes: recorded.length, source: opts.source }, at)
    await appendEvents(tx, workspaceId, [{ type: 'agent.policy.changed', data: { rulesVersion, changes: recorded } }])
    return { rulesVersion, changes: recorded }
  })
}



/** Tools and actions: retired ones deleted (with the permissions to them), new ones inserted, changed ones updated. */
async function writeTools(tx: Tx, ws: string, current: ResolvedPolicy, planned: ResolvedPolicy) {
  const retiredTools = current.tools.filter((t) => !planned.tools.some((p) => p.key === t.key)).map((t) => t.key)
  const retiredActions = current.tools.flatMap((t) => {
    const p = planned.tools.find((x) => x.key === t.key)
    return p ? t.actions.filter((a) => !p.actions.some((x) => x.key === a.key)).map((a) => ({ tool: t.key, action: a.key })) : []
  })
  if (retiredTools.length || retiredActions.length) await store.deleteToolActions(tx, ws, retiredActions, retiredTools)
  await insertTools(tx, ws, planned.tools.filter((t) => !current.tools.some((c) => c.key === t.key)))
  for (const t of planned.tools) {
    const was = current.tools.find((c) => c.key === t.key)
    if (!was) continue
    if (was.name !== t.name || was.description !== t.description) await store.updateTool(tx, ws, t)
    await store.insertToolActions(tx, ws, t.key, t.actions.filter((a) => !was.actions.some((x) => x.key === a.key)))
    for (const a of t.actions) {
      const old = was.actions.find((x) => x.key === a.key)
      if (old && JSON.stringify(old) !== JSON.stringify({ ...old, ...a })) await store.updateToolAction(tx, ws, t.key, a)
    }
  }
}

/** Rules no longer in force are disabled, new ones inserted in the document's order; returns each new rule's id by its change key (`rules[i]`). */
async function writeRules(tx: Tx, ws: string, current: ResolvedPolicy, planned: ResolvedPolicy, at: Date): Promise<Map<string, string>> {
  const kept = planned.rules.filter((r) => ruleKept(current, r))
  await store.disableRules(tx, ws, current.rules.filter((r) => !kept.some((k) => k.id === r.id)).map((r) => r.id!))
  const ids = new Map<string, string>()
  const added = planned.rules.flatMap((r, i) => (kept.includes(r) ? [] : [{ i, r }]))
  // A millisecond apart, so that they are listed (created_at, id) in the document's order.
  const rows = added.map(({ i, r }, k) => {
    const createdAt = new Date(at.getTime() + k)
    const id = newId('rule', createdAt)
    ids.set(`rules[${i}]`, id)
    return { id, structure: r.structure, effect: r.effect, createdAt }
  })
  await store.insertPolicyRules(tx, ws, rows)
  return ids
}
