import { z } from 'zod'
import { newId } from '../ids.ts'
import { SCOPES } from '../routes/operation.ts'
import { inTransaction, type Sql, type Tx } from '../store/db.ts'
import * as store from '../store/admin.ts'
import { mintToken } from './tokens.ts'
import type { Risk } from './tool-catalogue.ts'

/** A refusal of an operator command: the CLI prints its message and exits non-zero. */
export class AdminError extends Error {}

export const PLANS = ['starter', 'growth', 'scale'] as const

export async function createWorkspace(sql: Sql | Tx, opts: { name: string; plan?: string }) {
  const name = opts.name.trim()
  if (!name) throw new AdminError('--name must not be empty.')
  const plan = opts.plan ?? 'growth'
  if (!PLANS.includes(plan as store.Plan)) throw new AdminError(`--plan must be one of ${PLANS.join(', ')} (got ${plan}).`)
  const id = newId('workspace')
  await inTransaction(sql, (tx) => store.insertWorkspace(tx, { id, name, plan: plan as store.Plan }))
  return { id, name, plan }
}

export function parseScopes(input: string | undefined): string[] {
  if (input === undefined || input === 'all') return [...SCOPES]
  const scopes = input.split(',').map((s) => s.trim()).filter(Boolean)
  const unknown = scopes.filter((s) => !(SCOPES as readonly string[]).includes(s))
  if (unknown.length) throw new AdminError(`Unknown scope ${unknown.join(', ')}; scopes are ${SCOPES.join(', ')} or all.`)
  if (!scopes.length) throw new AdminError('--scopes must name at least one scope, or all.')
  return scopes
}

const EXPIRES_AT = z.union([z.iso.date(), z.iso.datetime({ offset: true })])

export async function createToken(
  sql: Sql | Tx,
  opts: { workspaceId: string; test?: boolean; scopes?: string; expiresAt?: string; /** tests only */ allowPast?: boolean },
) {
  if (!(await store.workspaceExists(sql, opts.workspaceId))) throw new AdminError(`No workspace ${opts.workspaceId}.`)
  const scopes = parseScopes(opts.scopes)
  let expiresAt: Date | null = null
  if (opts.expiresAt !== undefined) {
    // A date (midnight UTC) or a date-time with a zone; zod checks the calendar (no 2027-02-30), and
    // no trailing text or zone-less local time slips through as some other instant.
    expiresAt = new Date(opts.expiresAt)
    if (!EXPIRES_AT.safeParse(opts.expiresAt).success || Number.isNaN(expiresAt.getTime())) {
      throw new AdminError(`--expires-at must be an ISO 8601 time, e.g. 2027-01-31T00:00:00Z (got ${opts.expiresAt}).`)
    }
    if (expiresAt.getTime() <= Date.now() && !opts.allowPast) {
      throw new AdminError(`--expires-at ${opts.expiresAt} is in the past; a token must expire in the future.`)
    }
  }
  const mode = opts.test ? 'test' : 'live'
  const minted = mintToken(mode, opts.workspaceId)
  const id = newId('credential')
  await store.insertCredential(sql, { workspaceId: opts.workspaceId, id, kind: mode, hash: minted.hash, hint: minted.hint, scopes, expiresAt })
  return { id, token: minted.token, mode, scopes, expiresAt: expiresAt ? expiresAt.toISOString() : null }
}

export async function revokeToken(sql: Sql, id: string) {
  const r = await store.revokeCredential(sql, id)
  if (!r) throw new AdminError(`No credential ${id}.`)
  return { id, revoked: true, alreadyRevoked: r.alreadyRevoked }
}

export function parseAllow(input: string | undefined): { tool: string; action: string }[] {
  if (!input) return []
  return input
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((pair) => {
      const m = /^([a-z0-9_]+)\.([a-z0-9_]+)$/.exec(pair)
      if (!m) throw new AdminError(`--allow takes tool.action pairs, e.g. ads.pause_campaign (got ${pair}).`)
      return { tool: m[1]!, action: m[2]! }
    })
}

export async function createAgent(
  sql: Sql | Tx,
  opts: {
    workspaceId: string
    name: string
    allow?: string
    owner?: 'product' | 'workspace'
    description?: string
    ceilings?: unknown
    /** The data it may use; by default the data its permitted actions use. */
    dataAccess?: string[]
    /** The highest risk it may take without a person (default medium: high-risk actions wait for one). */
    maxUnattendedRisk?: Risk
  },
) {
  if (!(await store.workspaceExists(sql, opts.workspaceId))) throw new AdminError(`No workspace ${opts.workspaceId}.`)
  const name = opts.name.trim()
  if (!name) throw new AdminError('--name must not be empty.')
  const pairs = parseAllow(opts.allow)
  const known = await store.knownToolActions(sql, opts.workspaceId)
  const unknown = pairs.filter((p) => !known.has(`${p.tool}.${p.action}`))
  if (unknown.length) {
    throw new AdminError(
      `Unknown tool action ${unknown.map((p) => `${p.tool}.${p.action}`).join(', ')}; known: ${[...known.keys()].sort().join(', ')}.`,
    )
  }
  const dataAccess = opts.dataAccess ?? [...new Set(pairs.flatMap((p) => known.get(`${p.tool}.${p.action}`) ?? []))].sort()
  const id = newId('agent')
  const credentialId = newId('credential')
  const minted = mintToken('agent', opts.workspaceId)
  await inTransaction(sql, async (tx) => {
    await store.insertAgent(tx, {
      workspaceId: opts.workspaceId, id, name, owner: opts.owner ?? 'workspace', description: opts.description, ceilings: opts.ceilings,
      dataAccess, maxUnattendedRisk: opts.maxUnattendedRisk ?? 'medium',
    })
    await store.insertPermissions(tx, opts.workspaceId, id, pairs)
    await store.insertCredential(tx, {
      workspaceId: opts.workspaceId,
      id: credentialId,
      kind: 'agent',
      agentId: id,
      hash: minted.hash,
      hint: minted.hint,
      scopes: [],
      expiresAt: null,
    })
  })
  return { id, name, credential: minted.token, credentialId }
}

/** `actor` says who flipped the switch, for the record (e.g. operator:maya). */
export async function setAgentsStopped(sql: Sql | Tx, opts: { workspaceId: string; stopped: boolean; reason?: string; actor: string }) {
  if (!(await store.workspaceExists(sql, opts.workspaceId))) throw new AdminError(`No workspace ${opts.workspaceId}.`)
  const reason = opts.reason?.trim() || null
  if (opts.stopped && !reason) throw new AdminError('--reason is required to stop the agents: say why, for the record.')
  if (!opts.actor.trim()) throw new AdminError('The actor of a stop or resume must be named.')
  await inTransaction(sql, (tx) => store.setAgentsStopped(tx, opts.workspaceId, opts.stopped, opts.actor, reason))
  return { workspaceId: opts.workspaceId, agentsStopped: opts.stopped, reason, actor: opts.actor }
}
