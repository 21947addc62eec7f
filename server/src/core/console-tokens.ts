import { createHash, randomBytes } from 'node:crypto'

/**
 * The console's bearer secrets: one-time sign-in links (`gsl_`) and session tokens (`gss_`).
 * Each carries its workspace's id (not secret) so the server finds it by (workspace, hash), like an
 * API token, then 256 random bits. Only the SHA-256 of the whole token is stored.
 */
type ConsoleTokenKind = 'link' | 'session'

const PREFIX: Record<ConsoleTokenKind, string> = { link: 'gsl_', session: 'gss_' }
const SHAPE: Record<ConsoleTokenKind, RegExp> = {
  link: /^gsl_([0-9a-z]{26})_([A-Za-z0-9_-]{43})$/,
  session: /^gss_([0-9a-z]{26})_([A-Za-z0-9_-]{43})$/,
}

/** A new token of the workspace, with the hash to store. */
export function mintConsoleToken(kind: ConsoleTokenKind, workspaceId: string): { token: string; hash: string } {
  const token = `${PREFIX[kind]}${workspaceId.replace(/^ws_/, '')}_${randomBytes(32).toString('base64url')}`
  return { token, hash: hashConsoleToken(token) }
}

/** SHA-256 of the token, hex: what is stored and looked up. */
export function hashConsoleToken(token: string): string {
  return createHash('sha256').update(token).digest('hex')
}

/** The workspace a token of this kind names, or null when it is not one (wrong kind, bad shape). */
export function consoleTokenWorkspace(kind: ConsoleTokenKind, token: string): string | null {
  const m = SHAPE[kind].exec(token)
  return m ? `ws_${m[1]}` : null
}
