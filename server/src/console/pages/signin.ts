import { type Html, html } from '../html.ts'
import type { ConsoleSession, LinkRefusal } from '../session-port.ts'
import { when } from './describe.ts'
import { layout } from './layout.ts'

/**
 * The sign-in pages. A person signs in with a one-time link from their workspace's owner or
 * operator (`growth admin person link`), or mailed to them when mail is configured. Opening a link
 * asks for one click ("Sign in", a POST): mail scanners and link previewers open links, and a GET
 * never changes anything.
 */

const WHAT = 'The console is where the people of a workspace see what waits for a person (agents asking for approval, proposed changes) and decide.'

/**
 * The sign-in page's passkey form: the passkeys' script asks the browser for a passkey of this
 * console (no address needed), then posts its answer. `unavailable`: why this server has none.
 */
function passkeyForm(formToken: string, unavailable: string | null): Html {
  if (unavailable) return html`<p class="hint" role="note">${unavailable}</p>`
  return html`<form method="post" action="/console/signin/passkey" class="decide" data-passkey="sign-in" data-options="/console/signin/passkey/options" data-status="passkey-status">
<input type="hidden" name="csrf" value="${formToken}">
<input type="hidden" name="response" value="">
<p>Added a passkey to your account? Sign in with it, no link needed.</p>
<div><button type="submit" disabled>Sign in with a passkey</button></div>
<p class="hint" id="passkey-status" role="status" aria-live="polite"></p>
<noscript><p>Signing in with a passkey needs JavaScript.</p></noscript>
</form>`
}

/**
 * GET /console/signin. `formToken`: the sign-in forms' CSRF token; `passkeys`: whether the server
 * has passkeys wired, and why not when it cannot (null: they work); `error`: why a passkey did not
 * sign in.
 */
export function signInPage(opts: { mail: boolean; formToken: string; passkeys?: { unavailable: string | null }; error?: string; goingOn?: boolean; signedOut?: boolean }): Html {
  const how = opts.mail
    ? html`<form method="post" action="/console/signin" class="decide">
<input type="hidden" name="csrf" value="${opts.formToken}">
<div><label for="email">Your email address</label>
<input id="email" name="email" type="email" autocomplete="email" required>
<p class="hint">We mail a sign-in link to it if it belongs to a person of a workspace. The link works once, for 15 minutes.</p></div>
<div><button type="submit">Mail me a sign-in link</button></div>
</form>`
    : html`<p>To sign in, ask your workspace's owner or operator for a sign-in link. A link works once, for 15 minutes.</p>`
  return layout({
    title: 'Sign in',
    passkeys: Boolean(opts.passkeys && !opts.passkeys.unavailable),
    body: html`<h1>Sign in</h1>
<p class="lead">${WHAT}</p>
${opts.signedOut ? html`<div class="panel notice" role="status"><p>Signed out: this browser no longer has a session of the console.</p></div>` : null}
${opts.goingOn ? html`<div class="panel notice" role="status"><p>Sign in to open the page you followed a link to: you go on to it once you are signed in, in this browser.</p></div>` : null}
${opts.error ? html`<div class="panel error" role="alert"><p>${opts.error}</p></div>` : null}
<div class="panel">${how}</div>
${opts.passkeys ? html`<div class="panel">${passkeyForm(opts.formToken, opts.passkeys.unavailable)}</div>` : null}`,
  })
}

/** After the mail form: the same answer whether or not the address is a person's. */
export function linkMailedPage(): Html {
  return layout({
    title: 'Check your mail',
    body: html`<h1>Check your mail</h1>
<div class="panel notice" role="status"><p>If that address belongs to a person of a workspace, a sign-in link is on its way. It works once, for 15 minutes.</p></div>
<p><a href="/console/signin">Back to sign in</a></p>`,
  })
}

/**
 * After the mail form, when too many links were asked for this hour (from this network address, for
 * this email address or its person): nothing was mailed. The same whether or not the address is a
 * person's.
 */
export function linkNotMailedPage(retryAt: string): Html {
  return layout({
    title: 'Not mailed',
    body: html`<h1>No link mailed this time</h1>
<div class="panel notice" role="status"><p>Too many sign-in links were asked for in the last hour, so none was mailed this time. Try again after ${when(retryAt)}, or ask your workspace’s owner or operator for a link.</p></div>
<p><a href="/console/signin">Back to sign in</a></p>`,
  })
}

/** GET /console/signin/{token}: one button, so that opening the link alone signs no one in. */
export function redeemPage(opts: { token: string; formToken: string }): Html {
  return layout({
    title: 'Sign in',
    body: html`<h1>Sign in to the console</h1>
<p class="lead">${WHAT}</p>
<div class="panel">
<form method="post" action="/console/signin/${encodeURIComponent(opts.token)}">
<input type="hidden" name="csrf" value="${opts.formToken}">
<p>This link signs you in once. Continue on this device?</p>
<button type="submit">Sign in</button>
</form>
</div>`,
  })
}

/**
 * GET /console/signout: the stable path asks for one click (a GET never changes anything, and a
 * link or a prefetch must not end a session); the button posts with the session's CSRF token.
 */
export function signOutPage(session: ConsoleSession): Html {
  return layout({
    title: 'Sign out',
    session,
    body: html`<h1>Sign out</h1>
<div class="panel">
<form method="post" action="/console/signout">
<input type="hidden" name="csrf" value="${session.csrf}">
<p>End your session in this browser? Your sessions elsewhere stay signed in.</p>
<button type="submit">Sign out</button>
</form>
</div>`,
  })
}

/** Where a person gets a new link: mailed from the sign-in page when this server sends mail, else from an owner or operator. */
const newLink = (mail: boolean) => (mail ? 'Ask for a new one on the sign-in page.' : 'Ask your workspace\u2019s owner or operator for a new one.')

const REFUSALS: Record<LinkRefusal, (mail: boolean) => string> = {
  used: (mail) => `This sign-in link was already used: a link works once. ${newLink(mail)}`,
  expired: (mail) => `This sign-in link has expired (a link works for 15 minutes). ${newLink(mail)}`,
  unknown: (mail) => `This sign-in link is not one we know. Check that the whole link was copied. ${newLink(mail)}`,
  // Past the hour's failed links from this address: this link did not work (a good one always does).
  rate_limited: (mail) => `This sign-in link does not work, and too many that did not were opened from this network this hour, so we say no more about it. ${newLink(mail)}`,
}

/** Why a link did not sign anyone in, and where to get another (`mail`: whether this server mails links). */
export const refusalMessage = (why: LinkRefusal, mail: boolean) => REFUSALS[why](mail)
