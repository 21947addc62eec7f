/** Scopes of workspace tokens (spec: Authentication, Scopes). */
export const SCOPES = [
  'read:growth',
  'write:experiments',
  'write:actions',
  'write:contacts',
  'write:events',
  'read:contacts',
  'read:analytics',
  'read:events',
  'read:agents',
  'read:logs',
] as const
export type Scope = (typeof SCOPES)[number]

/** Who may call an operation: anyone, a workspace token with the scope, or an agent credential. */
export type Auth = { kind: 'public' } | { kind: 'workspace'; scope: Scope } | { kind: 'agent' }

/** Who is calling, as the credential check established it. */
export type Caller = {
  workspaceId: string
  credentialId: string
  mode: 'live' | 'test' | 'agent'
  agentId: string | null
  scopes: string[]
  /** The workspace's own key for signing cursors and digests. Never sent anywhere. */
  secretKey: string
  /** This credential's rate limit as counted for this request (GET /agent/me reports it). */
  rateLimit: { limit: number; remaining: number; resetAt: Date }
}
