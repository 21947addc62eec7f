import type { Actor } from '../core/actor.ts'
import type { Db, Tx } from '../core/db.ts'
import { NotFoundError, RuleError } from '../core/errors.ts'
import { newId } from '../core/ids.ts'
import type { TimePosition } from '../core/paging.ts'
import { iso } from '../core/time.ts'
import * as store from '../store/audit.ts'
import { workspaceExists } from '../store/workspaces.ts'

/**
 * The audit list of a workspace (`growth admin audit`): sign-ins, decisions, stops and resumes,
 * policy, tokens, agents, webhook endpoints and people changes, each recorded in the transaction
 * of the change it tells, so that there is never one without the other.
 */
export type AuditEntry = { at: string; actor: Actor; action: string; subject: string; detail: Record<string, unknown> }

/** Every action the list records: whatever tells them in words (the console's audit page) must name each one. */
export const AUDIT_ACTIONS = [
  'approval.approved', 'approval.rejected', 'action.approved', 'action.rejected',
  'agents.stopped', 'agents.resumed',
  'agent.created', 'agent.credential_issued', 'agent.credential_rotated', 'agent.retired',
  'policy.applied',
  'token.created', 'token.revoked',
  'webhook.created', 'webhook.disabled', 'webhook.enabled', 'webhook.secret_rotated',
  'person.added', 'person.removed', 'person.role_changed', 'person.link_created',
  'person.signed_in', 'person.signed_out', 'person.passkey_added', 'person.passkey_removed',
] as const
export type AuditAction = (typeof AUDIT_ACTIONS)[number]

export async function recordAudit(tx: Tx | Db, workspaceId: string, actor: Actor, action: AuditAction, subject: string, detail: Record<string, unknown> = {}, at = new Date()) {
  // Only what was given: no undefined members in the stored detail.
  const clean = Object.fromEntries(Object.entries(detail).filter(([, v]) => v !== undefined))
  await store.insertAuditEntry(tx, { workspaceId, id: newId('auditEntry', at), at, actor, action, subject, detail: clean })
}

const AUDIT_LIMIT_MAX = 1000

/**
 * The newest `limit` entries (1 to 1000), newest first; with `before` (a page's last entry, as
 * `next` gives it), the entries older than it. `next` is set when there are older entries.
 */
export async function listAudit(sql: Db, workspaceId: string, limit = 50, before?: TimePosition): Promise<{ entries: AuditEntry[]; next: TimePosition | null }> {
  if (!Number.isInteger(limit) || limit < 1 || limit > AUDIT_LIMIT_MAX) {
    throw new RuleError('limit', `limit must be a whole number from 1 to ${AUDIT_LIMIT_MAX} (got ${limit}).`, 'limit')
  }
  if (!(await workspaceExists(sql, workspaceId))) throw new NotFoundError('workspace', workspaceId, `No workspace ${workspaceId}.`)
  const rows = await store.selectAuditEntries(sql, workspaceId, limit + 1, before && { at: new Date(before.t), id: before.id })
  const shown = rows.slice(0, limit)
  const last = shown.at(-1)
  return {
    entries: shown.map((r) => ({ at: iso(r.at), actor: r.actor, action: r.action, subject: r.subject, detail: r.detail })),
    next: rows.length > limit && last ? { t: last.at.toISOString(), id: last.id } : null,
  }
}
