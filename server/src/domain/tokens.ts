import { createHash, randomBytes } from 'node:crypto'

/**
 * Credential format: `svc_<kind>_<workspace ulid>_<48 hex>`, kind live | test | agt.
 * The workspace part lets the server find the credential by (workspace_id, hash), so every index
 * starts with workspace_id; it is not secret (ids never are). Only a SHA-256 hash of the whole
 * token is stored: tokens carry 192 random bits, so a fast hash is the right tool (as GitHub does).
 */
export type TokenKind = 'live' | 'test' | 'agent'

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
