import { createHash, randomBytes } from 'node:crypto'
import { z } from 'zod'
import { type Actor, SYSTEM_ACTOR } from '../core/actor.ts'
import { SCOPES, type Scope } from '../core/caller.ts'
import type { Db, Sql } from '../core/db.ts'
import { NotFoundError, RuleError } from '../core/errors.ts'
import { newId } from '../core/ids.ts'
import * as store from '../store/credentials.ts'
import { inTransaction } from '../store/driver/db.ts'
import { workspaceExists } from '../store/workspaces.ts'
import { recordAudit } from './audit.ts'
import { closestField } from './document-fields.ts'

/**
 * Credentials: workspace tokens (live and test, with scopes) and agent credentials.
 *
 * Format: `svc_<kind>_<workspace ulid>_<48 hex>`, kind live | test | agt. The workspace part lets
 * the server find the credential by (workspace_id, hash), so every index starts with workspace_id;
 * it is not secret (ids never are). Only a SHA-256 hash of the whole token is stored: tokens carry
 * 192 random bits, so a fast hash is the right tool (as GitHub does).
 */
type TokenKind = 'live' | 'test' | 'agent'

const PREFIX: Record<TokenKind, string> = { live: 'svc_live_', test: 'svc_test_', agent: 'svc_agt_' }
const TOKEN_SHAPE = /^svc_(live|test|agt)_([0-9a-z]{26})_([0-9a-f]{48})$/

export function mintToken(kind: TokenKind, workspaceId: string) {
  const wsBody = workspaceId.replace(/^ws_/, '')
  const token = `${PREFIX[kind]}${wsBody}_${randomBytes(24).toString('hex')}`
  return { token, hash: hashToken(token), hint: token.slice(-4) }
}

const recentHashes = new Map<string, string>()

/** SHA-256 of the token, hex. Recent results are kept (bounded) so a busy token is hashed once. */
export function hashToken(token: string): string {
  let hash = recentHashes.get(token)
  if (hash === undefined) {
    hash = createHash('sha256').update(token).digest('hex')
    if (recentHashes.size >= 10_000) recentHashes.clear()
    recentHashes.set(token, hash)
  }
  return hash
}

export function parseToken(token: string): { kind: TokenKind; workspaceId: string } | null {
  const m = TOKEN_SHAPE.exec(token)
  if (!m) return null
  return { kind: m[1] === 'agt' ? 'agent' : (m[1] as TokenKind), workspaceId: `ws_${m[2]}` }
}

/** A comma-separated list of scopes, or `all` (also when none is given). */
function parseScopes(input: string | undefined): Scope[] {
  if (input === undefined || input === 'all') return [...SCOPES]
  const scopes = input.split(',').map((s) => s.trim()).filter(Boolean)
  const unknown = scopes.filter((s) => !(SCOPES as readonly string[]).includes(s))
  if (unknown.length) {
    // A scope a letter or two off is named with the one meant (read:logz: read:logs).
    const named = unknown.map((u) => {
      const meant = closestField(u, SCOPES)
      return meant ? `${u} (did you mean ${meant}?)` : u
    })
    throw new RuleError('scopes.known', `Unknown scope ${named.join(', ')}; scopes are ${SCOPES.join(', ')} or all.`, 'scopes')
  }
  if (!scopes.length) throw new RuleError('scopes.some', 'A token needs at least one scope, or all.', 'scopes')
  return scopes as Scope[]
}

const EXPIRES_AT = z.iso.datetime({ offset: true })

/**
 * A new workspace token, shown once (only its hash is kept). `expiresAt` is an ISO 8601 date-time
 * with a time zone (`2027-06-30T00:00:00Z`): a bare date or a local time names no one instant.
 */
export async function createToken(
  sql: Db,
  opts: { workspaceId: string; test?: boolean; scopes?: string; expiresAt?: string; by?: Actor; /** tests only */ allowPast?: boolean },
) {
  if (!(await workspaceExists(sql, opts.workspaceId))) throw new NotFoundError('workspace', opts.workspaceId, `No workspace ${opts.workspaceId}.`)
  const scopes = parseScopes(opts.scopes)
  let expiresAt: Date | null = null
  if (opts.expiresAt !== undefined) {
    // zod checks the calendar (no 2027-02-30) and that a zone is given; nothing else slips through as some other instant.
    expiresAt = new Date(opts.expiresAt)
    if (!EXPIRES_AT.safeParse(opts.expiresAt).success || Number.isNaN(expiresAt.getTime())) {
      throw new RuleError(
        'expires_at.instant',
        `expiresAt must be an ISO 8601 date-time with a time zone, e.g. 2027-01-31T00:00:00Z (got ${opts.expiresAt}).`,
        'expiresAt',
      )
    }
    if (expiresAt.getTime() <= Date.now() && !opts.allowPast) {
      throw new RuleError('expires_at.future', `expiresAt ${opts.expiresAt} is in the past; a token must expire in the future.`, 'expiresAt')
    }
  }
  const mode = opts.test ? 'test' : 'live'
  const minted = mintToken(mode, opts.workspaceId)
  const id = newId('credential')
  await inTransaction(sql, async (tx) => {
    await store.insertCredential(tx, { workspaceId: opts.workspaceId, id, kind: mode, hash: minted.hash, hint: minted.hint, scopes, expiresAt })
    await recordAudit(tx, opts.workspaceId, opts.by ?? SYSTEM_ACTOR, 'token.created', id, { mode, scopes, expiresAt: expiresAt?.toISOString(), hint: minted.hint })
  })
  return { id, token: minted.token, mode, scopes, expiresAt: expiresAt ? expiresAt.toISOString() : null }
}

/** The most overlap a token's rotation allows: a week (as an agent credential's). */
export const MAX_TOKEN_OVERLAP_MS = 7 * 24 * 60 * 60 * 1000

/** Whether a token ends within the longest overlap anyway (being replaced, or expiring): it is not rotated. */
export function endsWithinOverlap(expiresAt: Date | string | null, now = Date.now()): boolean {
  return expiresAt !== null && new Date(expiresAt).getTime() <= now + MAX_TOKEN_OVERLAP_MS
}

/**
 * Rotate a workspace token with an overlap, as Stripe rolls a key: a new token of the same mode,
 * scopes and expiry (shown once), and the old one ends `overlapMs` from now (0: at once), both in
 * force until then, in one transaction with the old one locked. A token that already ends within
 * the longest overlap (a week) is not rotated: it is being replaced (a second rotation would make an
 * unseen second token) or ends anyway. With `workspaceId` (the console), only that workspace's.
 */
export async function rotateToken(sql: Sql, id: string, overlapMs: number, opts: { by?: Actor; workspaceId?: string } = {}) {
  if (!Number.isInteger(overlapMs) || overlapMs < 0 || overlapMs > MAX_TOKEN_OVERLAP_MS) {
    throw new RuleError('overlap.range', `The overlap is from 0 to a week (7d, ${MAX_TOKEN_OVERLAP_MS / 60_000} minutes); got ${overlapMs / 60_000} minutes.`, 'overlap')
  }
  const token = parseToken(id)
  if (token) await refuseTokenForId(sql, id, token, opts.workspaceId, 'rotate')
  return inTransaction(sql, async (tx) => {
    const old = await store.lockToken(tx, id)
    if (!old || (opts.workspaceId !== undefined && old.workspace_id !== opts.workspaceId)) throw new NotFoundError('credential', id, `No credential ${id}.`)
    if (old.kind === 'agent') {
      throw new RuleError('credential.token', `${id} is an agent's credential: rotate it on the agent's console page, or give the agent a new one (growth admin agent credential create) and revoke this one.`, 'id')
    }
    const now = Date.now()
    if (old.revoked_at || (old.expires_at && old.expires_at.getTime() <= now)) {
      throw new RuleError('credential.live', `Token ${id} has already ended (${old.revoked_at ? 'revoked' : 'expired'}); rotate one that is in force.`, 'id')
    }
    if (old.expires_at && endsWithinOverlap(old.expires_at, now)) {
      throw new RuleError(
        'credential.ending',
        `Token ${id} already ends at ${old.expires_at.toISOString()}, within a week: it is being replaced, or ends anyway. Rotate the token that replaced it, or make a new one (growth admin token create).`,
        'id',
      )
    }
    const minted = mintToken(old.kind, old.workspace_id)
    const credentialId = newId('credential')
    await store.insertCredential(tx, { workspaceId: old.workspace_id, id: credentialId, kind: old.kind, hash: minted.hash, hint: minted.hint, scopes: old.scopes, expiresAt: old.expires_at })
    const oldEndsAt = new Date(now + overlapMs)
    await store.endCredentialAt(tx, old.workspace_id, id, oldEndsAt, credentialId)
    await recordAudit(tx, old.workspace_id, opts.by ?? SYSTEM_ACTOR, 'token.rotated', id, {
      credentialId: credentialId, mode: old.kind, hint: minted.hint, overlapSeconds: overlapMs / 1000, oldEndsAt: oldEndsAt.toISOString(),
    })
    return {
      id: credentialId, token: minted.token, mode: old.kind, scopes: old.scopes, expiresAt: old.expires_at ? old.expires_at.toISOString() : null,
      replaces: id, oldEndsAt: oldEndsAt.toISOString(),
    }
  })
}

/**
 * Revoke a token or an agent credential by its id (cred_...). Revoking twice is not an error. With
 * `workspaceId` (the console), only that workspace's: another's is not found, as any id.
 */
export async function revokeToken(sql: Sql, id: string, by: Actor = SYSTEM_ACTOR, workspaceId?: string) {
  const token = parseToken(id)
  if (token) await refuseTokenForId(sql, id, token, workspaceId)
  const r = await inTransaction(sql, async (tx) => {
    const r = await store.revokeCredential(tx, id, workspaceId)
    if (r && !r.alreadyRevoked) await recordAudit(tx, r.workspaceId, by, 'token.revoked', id)
    return r
  })
  if (!r) throw new NotFoundError('credential', id, `No credential ${id}.`)
  return { id, revoked: true, alreadyRevoked: r.alreadyRevoked }
}

/**
 * A token given where its id belongs (what an operator holds when one leaks): refused with the id
 * and the command to run, the token shown by its last four only (an error lands in terminals and
 * logs, and this one is perhaps still in force).
 */
async function refuseTokenForId(sql: Sql, token: string, parsed: { kind: TokenKind; workspaceId: string }, workspaceId?: string, verb: 'revoke' | 'rotate' = 'revoke'): Promise<never> {
  const found = workspaceId === undefined || workspaceId === parsed.workspaceId ? await store.credentialIdByHash(sql, parsed.workspaceId, hashToken(token)) : undefined
  const shown = `${token.slice(0, token.indexOf('_', 4) + 1)}…${token.slice(-4)}`
  // An agent's credential is rotated on its console page: no command to name then.
  const command = parsed.kind !== 'agent' ? `growth admin token ${verb}` : verb === 'revoke' ? 'growth admin agent credential revoke' : undefined
  if (!found) throw new NotFoundError('credential', shown, `${shown} is a token, not its id, and no credential of this database is that token.`)
  throw new RuleError('credential.id', `${shown} is a token, not its id: ${verb} takes the credential id, here ${found}${command ? `: ${command} ${found}` : ''}.`, 'id')
}

/**
 * The id of the workspace's credential whose token hashes to `hash`, asked for a token the gateway
 * refused: then it is one revoked or expired (an unknown token is none of the workspace's).
 */
export function endedCredentialId(sql: Db, workspaceId: string, hash: string): Promise<string | undefined> {
  return store.credentialIdByHash(sql, workspaceId, hash)
}

const TOKENS_LISTED = 200

/**
 * A workspace's tokens as people tell them apart: mode, scopes, last four, created, last used,
 * expiry, revoked. At most 200, those in force first (so ended ones never push a token that still
 * works off the list), each newest first; `more` when there are others. `id`: that token alone.
 * A workspace the database does not hold is NotFoundError (the operator command names it).
 */
export async function listTokens(sql: Db, workspaceId: string, opts: { id?: string } = {}) {
  const rows = await store.selectTokens(sql, workspaceId, TOKENS_LISTED + 1, opts.id)
  // None listed: say whether the workspace is there at all (an operator's typo), asked only then.
  if (rows.length === 0 && opts.id === undefined && !(await workspaceExists(sql, workspaceId))) throw new NotFoundError('workspace', workspaceId, `No workspace ${workspaceId}.`)
  return { tokens: rows.slice(0, TOKENS_LISTED).map(tokenListed), more: rows.length > TOKENS_LISTED }
}

/** A token's state in one word: revoked, expired (its expiry passed), or active. */
function tokenState(r: { revoked_at: Date | null; expires_at: Date | null }, now = Date.now()): 'active' | 'expired' | 'revoked' {
  if (r.revoked_at) return 'revoked'
  if (r.expires_at && new Date(r.expires_at).getTime() <= now) return 'expired'
  return 'active'
}

function tokenListed(r: Awaited<ReturnType<typeof store.selectTokens>>[number]) {
  return {
    id: r.id,
    mode: r.kind,
    state: tokenState(r),
    hint: r.token_hint,
    scopes: r.scopes,
    createdAt: new Date(r.created_at).toISOString(),
    lastUsedAt: r.last_used_at ? new Date(r.last_used_at).toISOString() : null,
    expiresAt: r.expires_at ? new Date(r.expires_at).toISOString() : null,
    revokedAt: r.revoked_at ? new Date(r.revoked_at).toISOString() : null,
    /** The token that took its place (rotated): this one works until `expiresAt`. */
    replacedBy: r.replaced_by,
  }
}
export type TokenListed = ReturnType<typeof tokenListed>
