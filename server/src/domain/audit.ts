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
  'token.created', 'token.rotated', 'token.revoked',
  'webhook.created', 'webhook.updated', 'webhook.disabled', 'webhook.enabled', 'webhook.secret_rotated',
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

/** The kinds of entry a reader filters the list by, each with the actions it holds (by their prefix). */
export const AUDIT_KINDS = {
  decisions: ['approval.', 'action.'],
  'stop-switch': ['agents.'],
  agents: ['agent.'],
  policy: ['policy.'],
  tokens: ['token.'],
  webhooks: ['webhook.'],
  people: ['person.'],
} as const satisfies Record<string, readonly string[]>
export type AuditKind = keyof typeof AUDIT_KINDS

/**
 * What a reader narrows the list to: one kind of entry; who acted (a person's id, or `operator` for
 * the CLI's operators, `system` for the service); what the entry is about (an id: an agent, a token,
 * an endpoint, a person, an approval).
 */
export type AuditFilter = { kind?: string; who?: string; subject?: string }

/** The actions of a kind of entry. */
const actionsOfKind = (kind: AuditKind): AuditAction[] => AUDIT_ACTIONS.filter((a) => AUDIT_KINDS[kind].some((prefix) => a.startsWith(prefix)))

function storeFilter(f: AuditFilter): store.AuditWhere {
  if (f.kind !== undefined && !Object.hasOwn(AUDIT_KINDS, f.kind)) {
    throw new RuleError('kind', `kind must be one of ${Object.keys(AUDIT_KINDS).join(', ')} (got ${JSON.stringify(f.kind.slice(0, 40))}).`, 'kind')
  }
  if (f.who !== undefined && !/^(operator|system|per_[A-Za-z0-9_-]{1,80})$/.test(f.who)) {
    throw new RuleError('who', `who must be a person's id (per_...), operator or system (got ${JSON.stringify(f.who.slice(0, 40))}).`, 'who')
  }
  if (f.subject !== undefined && (f.subject.length === 0 || f.subject.length > 200 || /\s/.test(f.subject))) {
    throw new RuleError('subject', `subject must be one id, e.g. agt_... (got ${JSON.stringify(f.subject.slice(0, 40))}).`, 'subject')
  }
  return {
    ...(f.kind !== undefined ? { actions: actionsOfKind(f.kind as AuditKind) } : {}),
    ...(f.who === 'operator' || f.who === 'system' ? { actorKind: f.who } : f.who !== undefined ? { actorKind: 'person' as const, actorId: f.who } : {}),
    ...(f.subject !== undefined ? { subject: f.subject } : {}),
  }
}

/**
 * The newest `limit` entries (1 to 1000), newest first; with `before` (a page's last entry, as
 * `next` gives it), the entries older than it. `next` is set when there are older entries. With a
 * filter, only the entries it names (a filter that names nothing known is refused, naming it).
 */
export async function listAudit(sql: Db, workspaceId: string, limit = 50, before?: TimePosition, filter: AuditFilter = {}): Promise<{ entries: AuditEntry[]; next: TimePosition | null }> {
  if (!Number.isInteger(limit) || limit < 1 || limit > AUDIT_LIMIT_MAX) {
    throw new RuleError('limit', `limit must be a whole number from 1 to ${AUDIT_LIMIT_MAX} (got ${limit}).`, 'limit')
  }
  const where = storeFilter(filter)
  if (!(await workspaceExists(sql, workspaceId))) throw new NotFoundError('workspace', workspaceId, `No workspace ${workspaceId}.`)
  const rows = await store.selectAuditEntries(sql, workspaceId, limit + 1, before && { at: new Date(before.t), id: before.id }, where)
  const shown = rows.slice(0, limit)
  const last = shown.at(-1)
  return {
    entries: shown.map((r) => ({ at: iso(r.at), actor: r.actor, action: r.action, subject: r.subject, detail: r.detail })),
    next: rows.length > limit && last ? { t: last.at.toISOString(), id: last.id } : null,
  }
}
