import { SCOPES } from '../../core/caller.ts'
import { endsWithinOverlap, MAX_TOKEN_OVERLAP_MS, type TokenListed } from '../../domain/credentials.ts'
import { type Html, html } from '../html.ts'
import type { ConsoleSession } from '../session-port.ts'
import { replacedByFact, shownOnce, when } from './describe.ts'
import { answerAttrs, doneNotice, layout } from './layout.ts'

/**
 * GET /console/tokens: the workspace's API tokens (mode, scopes, last four, created, last used,
 * expiry), and for an owner the form to issue one, and on each a Revoke button and, on one in force
 * that does not end within a week, Rotate with an overlap. The page after issuing or rotating shows
 * the new token once (the POST's own answer, never a later page).
 */

const MAX_OVERLAP_MINUTES = MAX_TOKEN_OVERLAP_MS / 60_000
/** What the Rotate form offers first: a day, as `growth admin token rotate`'s --overlap. */
const DEFAULT_OVERLAP_MINUTES = 24 * 60

/** Whether a token may be rotated: in force, and not ending within a week (rotateToken's rule). */
const rotatable = (t: TokenListed) => t.state === 'active' && !endsWithinOverlap(t.expiresAt)

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
${replacedByFact(t.replacedBy)}
</dl>
${session.person.role === 'owner' && rotatable(t)
    ? html`<form method="post" action="/console/tokens/${t.id}/rotate" data-confirm-if="overlap=0" data-confirm="Rotate ${t.id} (ends in ${t.hint}) with no overlap? It is refused from its next request, until its programs are given the new one."><input type="hidden" name="csrf" value="${session.csrf}">
<label for="overlap-${t.id}">Overlap in minutes: the old token keeps working this long beside the new one (0: refused at once; at most ${MAX_OVERLAP_MINUTES}, a week)</label>
<input id="overlap-${t.id}" name="overlap" type="number" min="0" max="${MAX_OVERLAP_MINUTES}" step="1" value="${DEFAULT_OVERLAP_MINUTES}" required>
<button type="submit" aria-label="Rotate ${t.id} (ends in ${t.hint})">Rotate</button></form>`
    : null}
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

export function tokensPage(opts: {
  session: ConsoleSession
  tokens: TokenListed[]
  /** Tokens beyond the first `tokens.length`. */
  more?: boolean
  /** The issue form's refusal, and what was chosen in it. */
  error?: string
  typed?: TokenForm
  /** A refusal of a token's own form (Rotate), shown at the top, where the page opens. */
  listError?: string
  notice?: string
}): Html {
  const { session, tokens } = opts
  const owner = session.person.role === 'owner'
  return layout({
    title: 'Tokens',
    session,
    section: 'tokens',
    body: html`<h1>Tokens</h1>
<p class="lead">The API tokens of ${session.workspace.name}: what its programs call the API with.</p>
${opts.notice ? doneNotice(opts.notice) : null}
${opts.listError ? html`<p class="failed" role="alert">${opts.listError}</p>` : null}
${owner ? createForm(session, opts.error ?? null, opts.typed ?? null) : html`<p class="hint">You can read this list; an owner issues, rotates and revokes tokens.</p>`}
<section aria-labelledby="list-h"><h2 id="list-h">The workspace's tokens</h2>
<p class="hint">Those in force first, then the revoked and expired ones; newest first.${opts.more ? ` Only the first ${tokens.length} are shown.` : ''}</p>
${tokens.length ? html`<ol class="calls">${tokens.map((t) => tokenCard(t, session))}</ol>` : html`<div class="panel empty" role="status"><p>No token yet: ${owner ? 'issue one with the form above' : 'an owner issues them'}.</p></div>`}
</section>`,
  })
}

/**
 * The token just issued or rotated, shown once (after the POST, on GET /console/shown/token), with
 * a copy button (assets/console.js); `replaced`: the token it replaces, and when that one ends.
 */
export type TokenShown = { session: ConsoleSession; id: string; token: string; mode: string; scopes: string[]; expiresAt: string | null; replaced?: { id: string; endsAt: string } }

export function tokenIssuedPage(opts: TokenShown): Html {
  const heading = opts.replaced ? 'Token rotated' : 'Token issued'
  return layout({
    title: heading,
    session: opts.session,
    section: 'tokens',
    body: html`<h1>${heading}</h1>
<div class="panel notice" role="status"${answerAttrs()}><p>This is the only time the token is shown: copy it now and keep it where your program reads its secrets. If it is lost, revoke it and issue another.</p>
${opts.replaced ? html`<p>It replaces <code>${opts.replaced.id}</code>, which keeps working until ${when(opts.replaced.endsAt)}: give this one to its programs before then (or revoke the old one sooner on the tokens page).</p>` : null}</div>
${shownOnce(html`${opts.mode} token ${opts.id} (${opts.scopes.length === SCOPES.length ? 'all scopes' : opts.scopes.join(', ')}; expires ${opts.expiresAt ? when(opts.expiresAt) : 'never'})`, opts.token)}
<p><a href="/console/tokens">Back to the tokens</a></p>`,
  })
}
