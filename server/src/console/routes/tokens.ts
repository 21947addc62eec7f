import { Elysia } from 'elysia'
import { SCOPES } from '../../core/caller.ts'
import { RuleError } from '../../core/errors.ts'
import { createToken, listTokens, MAX_TOKEN_OVERLAP_MS, revokeToken, rotateToken } from '../../domain/credentials.ts'
import { type TokenShown, tokenIssuedPage, tokensPage } from '../pages/tokens.ts'
import { answerAt } from '../pages/layout.ts'
import { pageResponse, redirectTo } from '../responses.ts'
import type { ConsoleDeps, RouteKit } from '../route-kit.ts'
import { personActor, type ConsoleSession } from '../session-port.ts'

const DONE: Record<string, string> = { revoked: 'Token revoked: it is refused from its very next request, on every server.' }
/**
 * The domain's refusals of an expiry in the form's words: its field is Expires, a day (the API's
 * and the CLI's is expiresAt, an instant, which the domain's sentence names).
 */
const EXPIRES_REFUSED: Record<string, (day: string) => string> = {
  'expires_at.future': (day) => `Expires is ${day}, a day that has begun or passed: the token ends at the start of that day (UTC). Choose a later day, or leave it empty for never.`,
  'expires_at.instant': (day) => `Expires is ${day}, which is not a day of the calendar. Choose one, YYYY-MM-DD.`,
}
const ownersOnly = (session: ConsoleSession) => `You are ${session.person.role === 'approver' ? 'an approver' : 'a viewer'} of ${session.workspace.name}: you can read the tokens, and an owner issues, rotates and revokes them.`

/**
 * The workspace's API tokens: every signed-in person reads the list (CONTRACT: approvers and
 * viewers read); only an owner issues, rotates and revokes, through the same domain functions as
 * growth admin token create|rotate|revoke, recorded in the audit list with the person.
 */
export function tokenRoutes({ sql }: ConsoleDeps, kit: RouteKit) {
  const { signedIn, rolePost, notFound, showOnce, shownPage } = kit
  return new Elysia()
    .get('/console/tokens', signedIn(async ({ request, session }) => {
      const done = new URL(request.url).searchParams.get('done')
      return pageResponse(tokensPage({ session, ...(await listTokens(sql, session.workspace.id)), notice: done && Object.hasOwn(DONE, done) ? DONE[done] : undefined }))
    }))
    .get(
      '/console/shown/token',
      shownPage<Omit<TokenShown, 'session'>>('token', { lost: 'If the token was not copied, revoke it and issue another.', back: { href: '/console/tokens', text: 'Back to the tokens' } }, async (session, t) =>
        pageResponse(tokenIssuedPage({ session, ...t })),
      ),
    )
    .post('/console/tokens', rolePost(['owner'], ownersOnly, async ({ request, session }, fields) => {
      const mode = fields.get('mode') ?? 'live'
      const scopes = fields.getAll('scope')
      const expires = fields.get('expires')?.trim() ?? ''
      const again = async (error: string) => pageResponse(tokensPage({ session, ...(await listTokens(sql, session.workspace.id)), error, typed: { mode, scopes, expires } }), 400)
      if (mode !== 'live' && mode !== 'test') return again(`Mode is live or test (got ${JSON.stringify(mode.slice(0, 40))}).`)
      if (expires && !/^\d{4}-\d{2}-\d{2}$/.test(expires)) return again(`Expires is a date, YYYY-MM-DD (got ${JSON.stringify(expires.slice(0, 40))}).`)
      try {
        const t = await createToken(sql, {
          workspaceId: session.workspace.id,
          test: mode === 'test',
          scopes: scopes.length ? scopes.join(',') : 'all',
          expiresAt: expires ? `${expires}T00:00:00Z` : undefined,
          by: personActor(session),
        })
        const shown: Omit<TokenShown, 'session'> = { id: t.id, token: t.token, mode: t.mode, scopes: t.scopes.length === SCOPES.length ? [...SCOPES] : t.scopes, expiresAt: t.expiresAt }
        return showOnce(request, session, 'token', shown)
      } catch (error) {
        if (error instanceof RuleError) return again(Object.hasOwn(EXPIRES_REFUSED, error.rule) ? EXPIRES_REFUSED[error.rule]!(expires) : error.message)
        throw error
      }
    }), { parse: 'none' })
    .post('/console/tokens/:id/rotate', rolePost(['owner'], ownersOnly, async ({ request, session, params }, fields) => {
      if (!(await listTokens(sql, session.workspace.id, { id: params.id! })).tokens.length) return notFound(session)
      const again = async (listError: string) => pageResponse(tokensPage({ session, ...(await listTokens(sql, session.workspace.id)), listError }), 400)
      const overlap = fields.get('overlap')?.trim() ?? ''
      if (!/^\d{1,6}$/.test(overlap) || Number(overlap) > MAX_TOKEN_OVERLAP_MS / 60_000) {
        return again(`The overlap is a whole number of minutes from 0 to ${MAX_TOKEN_OVERLAP_MS / 60_000} (a week) (got ${JSON.stringify(overlap.slice(0, 40))}).`)
      }
      try {
        const r = await rotateToken(sql, params.id!, Number(overlap) * 60_000, { by: personActor(session), workspaceId: session.workspace.id })
        const shown: Omit<TokenShown, 'session'> = {
          id: r.id, token: r.token, mode: r.mode, scopes: r.scopes.length === SCOPES.length ? [...SCOPES] : r.scopes, expiresAt: r.expiresAt, replaced: { id: r.replaces, endsAt: r.oldEndsAt },
        }
        return showOnce(request, session, 'token', shown)
      } catch (error) {
        if (error instanceof RuleError) return again(error.message)
        throw error
      }
    }), { parse: 'none' })
    .post('/console/tokens/:id/revoke', rolePost(['owner'], ownersOnly, async ({ session, params }) => {
      // The token itself, looked up: not whether it made the list's first page.
      if (!(await listTokens(sql, session.workspace.id, { id: params.id! })).tokens.length) return notFound(session)
      await revokeToken(sql, params.id!, personActor(session), session.workspace.id)
      return redirectTo(answerAt('/console/tokens?done=revoked'))
    }), { parse: 'none' })
}
