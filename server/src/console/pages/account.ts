import { FRESH_SIGN_IN_MS, signedInRecently } from '../../core/session-expiry.ts'
import { type Html, html } from '../html.ts'
import type { ConsolePasskey, ConsoleSession } from '../session-port.ts'
import { when } from './describe.ts'
import { doneNotice, layout } from './layout.ts'

/**
 * GET /console/account: the signed-in person, and their passkeys: each with its name, when it was
 * added and last used, and a button to remove it; and the form that registers a new one (the
 * passkeys' script asks the browser for it, then posts its answer). `unavailable`: why this server
 * has no passkeys, in place of the form. A session that signed in more than 30 minutes ago adds no
 * passkey: in place of the form, a button that signs out and back in to this page.
 */
export function accountPage(opts: {
  session: ConsoleSession
  now: Date
  passkeys: ConsolePasskey[]
  unavailable: string | null
  notice?: string
  error?: string
}): Html {
  const s = opts.session
  const list = opts.passkeys.length
    ? html`<ul class="passkeys">${opts.passkeys.map(
        (p) => html`<li><div><strong>${p.name}</strong>
<div class="meta"><span>added ${when(p.createdAt)}</span><span>${p.lastUsedAt ? html`last used ${when(p.lastUsedAt)}` : 'not used yet'}</span></div></div>
<form method="post" action="/console/account/passkeys/${encodeURIComponent(p.id)}/remove" data-confirm="Remove the passkey ${p.name}? It no longer signs you in.">
<input type="hidden" name="csrf" value="${s.csrf}">
<button class="secondary" type="submit" aria-label="Remove the passkey ${p.name}">Remove</button>
</form></li>`,
      )}</ul>`
    : html`<p>You have no passkey yet: you sign in with a link.</p>`
  const add = opts.unavailable
    ? html`<p role="note">${opts.unavailable}</p>`
    : !signedInRecently(new Date(s.signedInAt), opts.now)
      ? html`<p role="note">A passkey is added within ${FRESH_SIGN_IN_MS / 60_000} minutes of signing in, and you signed in ${when(s.signedInAt)}: this way, whoever finds this browser signed in cannot add a passkey of their own. Sign out and sign in again (with a link, or a passkey you have) to add one; you come back to this page.</p>
<form method="post" action="/console/signout"><input type="hidden" name="csrf" value="${s.csrf}"><input type="hidden" name="next" value="/console/account">
<button type="submit">Sign out and sign in again</button></form>`
      : html`<form method="post" action="/console/account/passkeys" class="decide" data-passkey="register" data-options="/console/account/passkeys/options" data-status="passkey-status">
<input type="hidden" name="csrf" value="${s.csrf}">
<input type="hidden" name="response" value="">
<div><label for="passkey-name">Name for the new passkey</label>
<input id="passkey-name" name="name" type="text" maxlength="60" autocomplete="off" aria-describedby="passkey-name-hint">
<p class="hint" id="passkey-name-hint">Say where it lives, such as \u201cWork laptop\u201d. Left empty, it is named by today\u2019s date.</p></div>
<div><button type="submit" disabled>Add a passkey</button></div>
<p class="hint" id="passkey-status" role="status" aria-live="polite"></p>
<noscript><p>Adding a passkey needs JavaScript.</p></noscript>
</form>`
  return layout({
    title: 'Your account',
    session: s,
    passkeys: !opts.unavailable,
    body: html`<h1>Your account</h1>
<p class="lead">${s.person.name} (${s.person.email}) · ${s.person.role} of ${s.workspace.name}</p>
${opts.notice ? doneNotice(opts.notice) : null}
${opts.error ? html`<div class="panel error" role="alert"><p>${opts.error}</p></div>` : null}
<section class="panel" aria-labelledby="passkeys-title">
<h2 id="passkeys-title">Passkeys</h2>
<p>A passkey signs you in from the sign-in page without a link: your device (or password manager) keeps it and asks for your fingerprint, face or PIN.</p>
${list}
${add}
</section>`,
  })
}
