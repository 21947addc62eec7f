import { SCOPES } from '../../core/caller.ts'
import type { TokenListed } from '../../domain/credentials.ts'
import { type Html, html } from '../html.ts'
import type { ConsoleSession } from '../session-port.ts'
import { shownOnce, when } from './describe.ts'
import { answerAttrs, doneNotice, layout } from './layout.ts'

/**
 * GET /console/tokens: the workspace's API tokens (mode, scopes, last four, created, last used,
 * expiry), and for an owner the form to issue one and a Revoke button on each. The page after
 * issuing shows the new token once (the POST's own answer, never a later page).
 */

function tokenCard(t: TokenListed, session: ConsoleSession): Html {
  const allScopes = SCOPES.every((s) => t.scopes.includes(s))
  const state = t.state === 'revoked' && t.revokedAt ? html`revoked ${when(t.revokedAt)}` : t.state
  return html`<li class="panel"><p><strong><code>${t.id}</code>: ${t.mode}, ${state}</strong></p>
<dl class="facts">
<dt>Scopes</dt><dd>${allScopes ? 'all' : t.scopes.join(', ')}</dd>
<dt>Ends with</dt><dd><code>…${t.hint}</code></dd>
<dt>Created</dt><dd>${when(t.createdAt)}</dd>
<dt>Last used</dt><dd>${t.lastUsedAt ? when(t.lastUsedAt) : 'no use on record'}</dd>
<dt>Expires</dt><dd>${t.expiresAt ? when(t.expiresAt) : 'never'}</dd>
</dl>
${session.person.role === 'owner' && !t.revokedAt ? html`<form method="post" action="/console/tokens/${t.id}/revoke" data-confirm="Revoke ${t.id} (ends in ${t.hint})? It is refused from its next request, and this cannot be undone."><input type="hidden" name="csrf" value="${session.csrf}"><button class="danger" type="submit" aria-label="Revoke ${t.id} (ends in ${t.hint})">Revoke</button></form>` : null}
</li>`
}

/** What was chosen in the form, shown again beside its refusal. */
type TokenForm = { mode: string; scopes: string[]; expires: string }

function createForm(session: ConsoleSession, error: string | null, typed: TokenForm | null): Html {
  const checked = (on: boolean) => (on ? html` checked` : null)
  const test = typed?.mode === 'test'
  return html`<section class="panel" aria-labelledby="create-h">
<h2 id="create-h">Issue a token</h2>
${error ? html`<p class="failed" role="alert" id="create-error">${error}</p>` : null}
<form method="post" action="/console/tokens"><input type="hidden" name="csrf" value="${session.csrf}">
<fieldset><legend>Mode</legend>
<label><input type="radio" name="mode" value="live"${checked(!test)}> live (svc_live_…)</label>
<label><input type="radio" name="mode" value="test"${checked(test)}> test (svc_test_…)</label></fieldset>
<fieldset><legend>Scopes (none ticked: all)</legend>
${SCOPES.map((s) => html`<label><input type="checkbox" name="scope" value="${s}"${checked(Boolean(typed?.scopes.includes(s)))}> ${s}</label>`)}</fieldset>
<label for="expires">Expires (the start of that day, UTC; empty: never)</label>
<input id="expires" name="expires" type="date" value="${typed?.expires ?? ''}"${error ? html` aria-describedby="create-error"` : null}>
<button type="submit">Issue the token</button></form>
</section>`
}

export function tokensPage(opts: { session: ConsoleSession; tokens: TokenListed[]; /** Tokens beyond the first `tokens.length`. */ more?: boolean; error?: string; typed?: TokenForm; notice?: string }): Html {
  const { session, tokens } = opts
  const owner = session.person.role === 'owner'
  return layout({
    title: 'Tokens',
    session,
    section: 'tokens',
    body: html`<h1>Tokens</h1>
<p class="lead">The API tokens of ${session.workspace.name}: what its programs call the API with.</p>
${opts.notice ? doneNotice(opts.notice) : null}
${owner ? createForm(session, opts.error ?? null, opts.typed ?? null) : html`<p class="hint">You can read this list; an owner issues and revokes tokens.</p>`}
<section aria-labelledby="list-h"><h2 id="list-h">The workspace's tokens</h2>
<p class="hint">Those in force first, then the revoked and expired ones; newest first.${opts.more ? ` Only the first ${tokens.length} are shown.` : ''}</p>
${tokens.length ? html`<ol class="calls">${tokens.map((t) => tokenCard(t, session))}</ol>` : html`<div class="panel empty" role="status"><p>No token yet: ${owner ? 'issue one with the form above' : 'an owner issues them'}.</p></div>`}
</section>`,
  })
}

/** The token just issued, shown once (after the POST, on GET /console/shown/token), with a copy button (assets/console.js). */
export type TokenShown = { session: ConsoleSession; id: string; token: string; mode: string; scopes: string[]; expiresAt: string | null }

export function tokenIssuedPage(opts: TokenShown): Html {
  return layout({
    title: 'Token issued',
    session: opts.session,
    section: 'tokens',
    body: html`<h1>Token issued</h1>
<div class="panel notice" role="status"${answerAttrs()}><p>This is the only time the token is shown: copy it now and keep it where your program reads its secrets. If it is lost, revoke it and issue another.</p></div>
${shownOnce(html`${opts.mode} token ${opts.id} (${opts.scopes.length === SCOPES.length ? 'all scopes' : opts.scopes.join(', ')}; expires ${opts.expiresAt ? when(opts.expiresAt) : 'never'})`, opts.token)}
<p><a href="/console/tokens">Back to the tokens</a></p>`,
  })
}
