import { SCOPES } from '../../../core.ts'
import { table } from '../../../output.ts'

/** A token just made (created or rotated), for people: its scopes, expiry and the token itself, shown once. */
export function tokenShownLines(t: { scopes: string[]; expiresAt: string | null; token: string }): string[] {
  const allScopes = t.scopes.length === SCOPES.length && SCOPES.every((s) => t.scopes.includes(s))
  return table([
    ['Scopes:', allScopes ? `all (${t.scopes.join(', ')})` : t.scopes.join(', ')],
    ['Expires:', t.expiresAt ?? 'never'],
    ['Token:', t.token],
  ])
}
