import { type Actor, SYSTEM_ACTOR } from '../core/actor.ts'
import type { Db, Sql } from '../core/db.ts'
import type { AgentOwner, Risk } from '../core/enums.ts'
import { NotFoundError, RuleError } from '../core/errors.ts'
import { newId } from '../core/ids.ts'
import { byCurrency, formatCount, formatMoney, isCurrency } from '../core/money.ts'
import { byCreation, type Positioned, type TimePosition } from '../core/paging.ts'
import { iso, isoOrNull } from '../core/time.ts'
import type { Agent, CeilingsView } from '../schemas/agents.ts'
import { knownToolActions } from '../store/agent-tools.ts'
import * as store from '../store/agents.ts'
import { endCredentialAt, insertCredential, lockAgentCredential, selectAgentCredentials } from '../store/credentials.ts'
import { inTransaction } from '../store/driver/db.ts'
import { workspaceExists } from '../store/workspaces.ts'
import type { AgentProfile, Ceilings } from './agent-decision.ts'
import { actionVerb } from './agent-tools.ts'
import { recordAudit } from './audit.ts'
import { mintToken } from './credentials.ts'

/**
 * The workspace's agents: registered by a person (an operator command), listed for the workspace
 * (GET /agents), and the words the gateway and GET /agent/me share: permissions and ceilings as
 * sentences.
 */

const num = (x: unknown) => (typeof x === 'number' && Number.isFinite(x) && x >= 0 ? x : undefined)

/** Ceilings as stored (jsonb), kept to what the gateway understands. */
export function parseCeilings(raw: unknown): Ceilings {
  const c = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>
  const amounts = Array.isArray(c.amounts)
    ? (c.amounts as { amountMinor: unknown; currency: unknown }[])
        .filter((m) => Number.isInteger(m?.amountMinor) && typeof m.currency === 'string' && isCurrency(m.currency))
        .map((m) => ({ amountMinor: m.amountMinor as number, currency: m.currency as string }))
    : []
  return { amounts: byCurrency(amounts), amountPercent: num(c.amountPercent), recipients: num(c.recipients), records: num(c.records) }
}

export function ceilingsView(c: Ceilings): CeilingsView {
  const sentences = [
    ...(c.amounts ?? []).map((m) => (m.amountMinor === 0 ? `No request may spend any ${m.currency}.` : `At most ${formatMoney(m)} in one request.`)),
    ...(c.amounts?.length ? ['No amount in any other currency.'] : ['No amount in any currency.']),
    ...(c.amountPercent !== undefined ? [c.amountPercent === 0 ? 'No request may change a figure by any percent.' : `At most ${c.amountPercent}% in one request.`] : []),
    ...(c.recipients !== undefined ? [c.recipients === 0 ? 'No request may reach a recipient.' : `At most ${formatCount(c.recipients)} ${c.recipients === 1 ? 'recipient' : 'recipients'} in one request.`] : []),
    ...(c.records !== undefined ? [c.records === 0 ? 'No request may touch a record.' : `At most ${formatCount(c.records)} ${c.records === 1 ? 'record' : 'records'} in one request.`] : []),
  ]
  return {
    amounts: c.amounts ?? [],
    amountPercent: c.amountPercent ?? null,
    recipients: c.recipients ?? null,
    records: c.records ?? null,
    sentences,
  }
}

/** Permissions as sentences; `actionNames` ('tool.action' -> name) words the actions a workspace added by their names. */
export function permissionsView(agentName: string, perms: { tool: string; action: string; name?: string | null }[], actionNames: Record<string, string> = {}) {
  return perms.map((p) => ({
    tool: p.tool,
    action: p.action,
    sentence: `${agentName} may ${actionVerb(p.tool, p.action, actionNames[`${p.tool}.${p.action}`] ?? p.name ?? undefined)} (${p.tool}.${p.action}).`,
  }))
}

export function toProfile(row: Pick<store.AgentRow, 'id' | 'name' | 'permissions' | 'data_access' | 'ceilings' | 'max_unattended_risk'>): AgentProfile {
  return {
    id: row.id,
    name: row.name,
    permissions: new Set(row.permissions.map((p) => `${p.tool}.${p.action}`)),
    dataAccess: row.data_access,
    ceilings: parseCeilings(row.ceilings),
    maxUnattendedRisk: row.max_unattended_risk,
  }
}

function toAgent(row: store.AgentRow): Agent {
  return {
    id: row.id,
    name: row.name,
    owner: row.owner,
    description: row.description,
    permissions: permissionsView(row.name, row.permissions),
    dataAccess: row.data_access,
    maxUnattendedRisk: row.max_unattended_risk,
    ceilings: ceilingsView(parseCeilings(row.ceilings)),
    lastActedAt: isoOrNull(row.last_acted_at),
    createdAt: iso(row.created_at),
    retiredAt: isoOrNull(row.retired_at),
  }
}

/** The workspace's agents, oldest first: what each may do, the most it may ask for, when it last acted. */
export async function listAgents(sql: Sql, workspaceId: string, page: { after?: TimePosition; limit: number }): Promise<Positioned<Agent, TimePosition>[]> {
  return (await store.selectAgents(sql, workspaceId, page)).map((a) => ({ position: byCreation(a), item: toAgent(a) }))
}

/** One agent of the workspace, as GET /agents lists it, or null. */
export async function agentOf(sql: Sql, workspaceId: string, agentId: string): Promise<Agent | null> {
  const row = await store.selectAgent(sql, workspaceId, agentId)
  return row ? toAgent(row) : null
}

/** `tool.action` pairs, comma-separated (e.g. ads.pause_campaign,ads.adjust_budget). */
function parseAllow(input: string | undefined): { tool: string; action: string }[] {
  if (!input) return []
  return input
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((pair) => {
      const m = /^([a-z0-9_]+)\.([a-z0-9_]+)$/.exec(pair)
      if (!m) throw new RuleError('allow.pairs', `allow takes tool.action pairs, e.g. ads.pause_campaign (got ${pair}).`, 'allow')
      return { tool: m[1]!, action: m[2]! }
    })
}

/**
 * A person registers an agent and gives it a credential (shown once); its name is its own among the
 * workspace's active agents, case aside (a retired agent's name is free again). It is permitted the `allow`
 * actions, may use the data they use (unless `dataAccess` says otherwise), and takes up to
 * `maxUnattendedRisk` (default medium) without a person.
 */
export async function createAgent(
  sql: Db,
  opts: {
    workspaceId: string
    name: string
    allow?: string
    owner?: AgentOwner
    description?: string
    ceilings?: unknown
    /** The data it may use; by default the data its permitted actions use. */
    dataAccess?: string[]
    /** The highest risk it may take without a person (default medium: high-risk actions wait for one). */
    maxUnattendedRisk?: Risk
    /** Who registers it, for the audit list. */
    by?: Actor
  },
) {
  if (!(await workspaceExists(sql, opts.workspaceId))) throw new NotFoundError('workspace', opts.workspaceId, `No workspace ${opts.workspaceId}.`)
  const name = opts.name.trim()
  if (!name) throw new RuleError('name.given', 'An agent needs a name.', 'name')
  const pairs = parseAllow(opts.allow)
  const known = await knownToolActions(sql, opts.workspaceId)
  const unknown = pairs.filter((p) => !known.has(`${p.tool}.${p.action}`))
  if (unknown.length) {
    throw new RuleError(
      'allow.known',
      `Unknown tool action ${unknown.map((p) => `${p.tool}.${p.action}`).join(', ')}; known: ${[...known.keys()].sort().join(', ')}. ` +
        "An action of the workspace's own is added to its agent policy (its tools) first, and allowed to the agent there.",
      'allow',
    )
  }
  if (opts.dataAccess) {
    const kinds = new Set([...known.values()].flat())
    const unknownData = opts.dataAccess.filter((d) => !kinds.has(d))
    if (unknownData.length) throw new RuleError('data.known', `Unknown data ${unknownData.join(', ')}; known: ${[...kinds].sort().join(', ')}.`, 'dataAccess')
  }
  const dataAccess = opts.dataAccess ?? [...new Set(pairs.flatMap((p) => known.get(`${p.tool}.${p.action}`) ?? []))].sort()
  const id = newId('agent')
  const credentialId = newId('credential')
  const minted = mintToken('agent', opts.workspaceId)
  await inTransaction(sql, async (tx) => {
    // The policy names agents by name (CONTRACT: an agent's id or its name): two active agents of one name would make it name neither.
    const taken = await store.activeAgentNamed(tx, opts.workspaceId, name)
    if (taken) throw new RuleError('name.unique', `An agent named ${JSON.stringify(name)} is already registered (${taken}): give this one another name, or retire that one first.`, 'name')
    await store.insertAgent(tx, {
      workspaceId: opts.workspaceId, id, name, owner: opts.owner ?? 'workspace', description: opts.description, ceilings: opts.ceilings,
      dataAccess, maxUnattendedRisk: opts.maxUnattendedRisk ?? 'medium',
    })
    await store.insertPermissions(tx, opts.workspaceId, id, pairs)
    await insertCredential(tx, { workspaceId: opts.workspaceId, id: credentialId, kind: 'agent', agentId: id, hash: minted.hash, hint: minted.hint, scopes: [], expiresAt: null })
    await recordAudit(tx, opts.workspaceId, opts.by ?? SYSTEM_ACTOR, 'agent.created', id, { name, allow: pairs.map((p) => `${p.tool}.${p.action}`), credentialId })
  })
  return { id, name, credential: minted.token, credentialId }
}

/**
 * Another credential for an existing agent (shown once; only its hash is kept), e.g. to replace one
 * that leaked: issue the new one, give it to the agent, then revoke the old one by its id.
 */
export async function issueAgentCredential(sql: Db, workspaceId: string, agentId: string, by: Actor = SYSTEM_ACTOR) {
  const { agentName: _name, ...issued } = await issueCredential(sql, workspaceId, agentId, by)
  return issued
}

/** issueAgentCredential, with the agent's name (a rotation's audit entry names it too). */
async function issueCredential(sql: Db, workspaceId: string, agentId: string, by: Actor) {
  const standing = await store.agentStanding(sql, workspaceId, agentId)
  if (standing === undefined) throw new NotFoundError('agent', agentId, `No agent ${agentId} in workspace ${workspaceId}.`)
  if (standing.retired) throw new RuleError('agent.retired', `Agent ${agentId} is retired: it gets no new credential. Register a new agent instead.`, 'agent')
  const credentialId = newId('credential')
  const minted = mintToken('agent', workspaceId)
  await inTransaction(sql, async (tx) => {
    await insertCredential(tx, { workspaceId, id: credentialId, kind: 'agent', agentId, hash: minted.hash, hint: minted.hint, scopes: [], expiresAt: null })
    await recordAudit(tx, workspaceId, by, 'agent.credential_issued', agentId, { name: standing.name, credentialId, hint: minted.hint })
  })
  return { agentId, agentName: standing.name, credentialId, credential: minted.token }
}

/** The most overlap a rotation allows: a week, in minutes. */
export const MAX_OVERLAP_MINUTES = 7 * 24 * 60

/**
 * Rotate an agent's credential with an overlap: a new credential (shown once), and the old one
 * ends `overlapMinutes` from now (its expiry set, so both work until then; 0: refused at once), in
 * one transaction with the old one locked. A credential already being replaced is not rotated again.
 */
export async function rotateAgentCredential(
  sql: Sql,
  opts: { workspaceId: string; agentId: string; credentialId: string; overlapMinutes: number; by?: Actor },
) {
  const { workspaceId, agentId, credentialId, overlapMinutes } = opts
  if (!Number.isInteger(overlapMinutes) || overlapMinutes < 0 || overlapMinutes > MAX_OVERLAP_MINUTES) {
    throw new RuleError('overlap.range', `The overlap is a whole number of minutes from 0 to ${MAX_OVERLAP_MINUTES} (a week); got ${overlapMinutes}.`, 'overlap')
  }
  return inTransaction(sql, async (tx) => {
    const old = await lockAgentCredential(tx, workspaceId, agentId, credentialId)
    if (!old) throw new NotFoundError('credential', credentialId, `Agent ${agentId} has no credential ${credentialId}.`)
    if (old.revoked_at || (old.expires_at && new Date(old.expires_at).getTime() <= Date.now())) {
      throw new RuleError('credential.live', `Credential ${credentialId} has already ended; rotate one that is active.`, 'credential')
    }
    // Already being replaced (a second press of Rotate, say): one new credential per rotation, never an unseen second.
    if (old.expires_at) {
      throw new RuleError('credential.ending', `Credential ${credentialId} is already being replaced: it ends at ${iso(old.expires_at)}. Rotate the credential that replaced it, or revoke it now.`, 'credential')
    }
    const { agentName, ...issued } = await issueCredential(tx, workspaceId, agentId, opts.by ?? SYSTEM_ACTOR)
    const endsAt = new Date(Date.now() + overlapMinutes * 60_000)
    await endCredentialAt(tx, workspaceId, credentialId, endsAt, issued.credentialId)
    await recordAudit(tx, workspaceId, opts.by ?? SYSTEM_ACTOR, 'agent.credential_rotated', agentId, {
      name: agentName, credentialId: issued.credentialId, replaces: credentialId, overlapMinutes, oldEndsAt: endsAt.toISOString(),
    })
    return { ...issued, replaces: credentialId, oldEndsAt: endsAt.toISOString() }
  })
}

/**
 * Retire an agent: its credentials are revoked at once (the gateway refuses it from its next
 * request), it is listed apart from the active agents, and its requests and audit entries are kept.
 * Retiring twice is not an error.
 */
export async function retireAgent(sql: Sql, workspaceId: string, agentId: string, by: Actor = SYSTEM_ACTOR) {
  const r = await inTransaction(sql, async (tx) => {
    const standing = await store.agentStanding(tx, workspaceId, agentId)
    if (standing === undefined) return undefined
    const revoked = await store.markRetired(tx, workspaceId, agentId)
    if (revoked) await recordAudit(tx, workspaceId, by, 'agent.retired', agentId, { name: standing.name, revokedCredentials: revoked })
    return { id: agentId, retired: true, alreadyRetired: revoked === undefined, revokedCredentials: revoked ?? [] }
  })
  if (!r) throw new NotFoundError('agent', agentId, `No agent ${agentId} in workspace ${workspaceId}.`)
  return r
}

/** The agent's credentials as the console shows them: last four, created, ends, revoked. */
export async function agentCredentials(sql: Db, workspaceId: string, agentId: string) {
  return (await selectAgentCredentials(sql, workspaceId, agentId)).map((c) => ({
    id: c.id,
    hint: c.token_hint,
    createdAt: iso(c.created_at),
    expiresAt: isoOrNull(c.expires_at),
    revokedAt: isoOrNull(c.revoked_at),
    replacedBy: c.replaced_by,
  }))
}
export type AgentCredential = Awaited<ReturnType<typeof agentCredentials>>[number]

