import { randomBytes } from 'node:crypto'
import { type Actor, actorLine, actorOfLine } from '../core/actor.ts'
import type { Db } from '../core/db.ts'
import { PLANS, type Plan } from '../core/enums.ts'
import { NotFoundError, RuleError } from '../core/errors.ts'
import { newId } from '../core/ids.ts'
import { secretsKeyring } from '../core/secrets.ts'
import { iso } from '../core/time.ts'
import { inTransaction } from '../store/driver/db.ts'
import { insertTools } from '../store/agent-tools.ts'
import * as store from '../store/workspaces.ts'
import { catalogueTools } from './agent-tools.ts'
import { recordAudit } from './audit.ts'
import { decisionReason } from './deciders.ts'

/**
 * A new workspace on a plan (default growth), with the tool catalogue its agents can be permitted,
 * and its own key for cursors and params digests, stored sealed under the secrets key.
 */
export async function createWorkspace(sql: Db, opts: { name: string; plan?: string }) {
  const name = opts.name.trim()
  if (!name) throw new RuleError('name.given', 'A workspace needs a name.', 'name')
  const plan = opts.plan ?? 'growth'
  if (!PLANS.includes(plan as Plan)) throw new RuleError('plan.known', `plan must be one of ${PLANS.join(', ')} (got ${plan}).`, 'plan')
  const id = newId('workspace')
  await inTransaction(sql, async (tx) => {
    await store.insertWorkspace(tx, { id, name, plan: plan as Plan, secretKey: secretsKeyring().seal(randomBytes(32).toString('base64url')) })
    await insertTools(tx, id, catalogueTools())
  })
  return { id, name, plan: plan as Plan }
}

/**
 * What a flip of the stop switch did: `changed` false when the switch already stood so (nothing
 * recorded); then, for a stop, `reason`, `actor` and `since` are the standing stop's.
 */
/**
 * The workspaces of the database, newest first, for an operator (`growth admin workspace list`): at
 * most `limit`, and whether there are more.
 */
export async function listWorkspaces(sql: Db, limit: number) {
  const rows = await store.selectWorkspaces(sql, limit + 1)
  return {
    workspaces: rows.slice(0, limit).map((w) => ({ id: w.workspace_id, name: w.name, plan: w.plan, agentsStopped: w.agents_stopped, createdAt: iso(w.created_at) })),
    more: rows.length > limit,
  }
}

/** `actor`: who made the change, or, when nothing changed, who made the standing stop (as the audit list writes an actor). */
type SwitchFlipped = { workspaceId: string; agentsStopped: boolean; changed: boolean; reason: string | null; actor: Actor | null; since?: string }

/**
 * The stop switch of a workspace's agents. `actor` says who flipped it, for the record and the
 * audit list: an Actor, or a line such as operator:maya. A stop when stopped, or a resume when
 * running, changes nothing and records nothing (two people pressing Stop at once make one stop, and
 * the first stop's reason stands).
 */
export async function setAgentsStopped(sql: Db, opts: { workspaceId: string; stopped: boolean; reason?: string; actor: string | Actor }): Promise<SwitchFlipped> {
  if (!(await store.workspaceExists(sql, opts.workspaceId))) throw new NotFoundError('workspace', opts.workspaceId, `No workspace ${opts.workspaceId}.`)
  // Checked as a decision's reason is (at most 500 characters, no control characters): an agent is
  // told it, and people read it in terminals.
  const reason = decisionReason(opts.reason)
  if (opts.stopped && !reason) throw new RuleError('reason.given', 'A reason is required to stop the agents: say why, for the record.', 'reason')
  const line = typeof opts.actor === 'string' ? opts.actor.trim() : actorLine(opts.actor)
  if (!line || (typeof opts.actor !== 'string' && !opts.actor.name.trim())) throw new RuleError('actor_named', 'The actor of a stop or resume must be named.', 'by')
  const actor = typeof opts.actor === 'string' ? actorOfLine(line) : opts.actor
  return inTransaction(sql, async (tx): Promise<SwitchFlipped> => {
    const standing = await store.lockWorkspaceGate(tx, opts.workspaceId)
    if (standing?.agents_stopped === opts.stopped) {
      return {
        workspaceId: opts.workspaceId, agentsStopped: opts.stopped, changed: false, reason: standing.stopped_reason,
        actor: standingStopper(standing),
        ...(standing.stopped_at ? { since: iso(standing.stopped_at) } : {}),
      }
    }
    await store.setAgentsStopped(tx, opts.workspaceId, opts.stopped, line, reason)
    await recordAudit(tx, opts.workspaceId, actor, opts.stopped ? 'agents.stopped' : 'agents.resumed', opts.workspaceId, { reason: reason ?? undefined })
    return { workspaceId: opts.workspaceId, agentsStopped: opts.stopped, changed: true, reason, actor }
  })
}

/** Who made the standing stop: the gate names a person by their name, or by the line itself when they are gone. */
function standingStopper(gate: { stopped_actor: string | null; stopped_by: string | null }): Actor | null {
  if (!gate.stopped_actor) return null
  return actorOfLine(gate.stopped_actor, gate.stopped_by === gate.stopped_actor ? null : gate.stopped_by)
}

/** The stop switch as a person reads it (the console): on or off, and when on since when, by whom (a name) and why. */
export type AgentsSwitch = { stopped: false } | { stopped: true; at: Date | null; by: string | null; reason: string | null }

export async function agentsSwitch(sql: Db, workspaceId: string): Promise<AgentsSwitch> {
  const gate = await store.selectWorkspaceGate(sql, workspaceId)
  if (!gate) throw new NotFoundError('workspace', workspaceId, `No workspace ${workspaceId}.`)
  if (!gate.agents_stopped) return { stopped: false }
  const by = standingStopper(gate)?.name ?? null
  return { stopped: true, at: gate.stopped_at, by, reason: gate.stopped_reason }
}
