import { assetUrl } from '../assets.ts'
import { type Html, html } from '../html.ts'
import type { ConsoleSession } from '../session-port.ts'

/**
 * The page around every console page: the stylesheet and htmx from this server (htmx told not to
 * add its inline indicator style, which the Content-Security-Policy would refuse), a skip link, the
 * bar with who is signed in and the sign-out form, the sections, and the page's own content in
 * <main>. `live` marks a page that updates itself (assets/console.js): 'all' for any change in the
 * workspace, or the id of the one item it shows.
 */
type Section = 'inbox' | 'agents' | 'requests' | 'policy' | 'tokens' | 'people' | 'webhooks' | 'logs' | 'audit'

const SECTIONS: [Section, string, string][] = [
  ['inbox', '/console/', 'Inbox'],
  ['agents', '/console/agents', 'Agents'],
  ['requests', '/console/requests', 'Requests'],
  ['policy', '/console/policy', 'Policy'],
  ['tokens', '/console/tokens', 'Tokens'],
  ['people', '/console/people', 'People'],
  ['webhooks', '/console/webhooks', 'Webhooks'],
  ['logs', '/console/logs', 'Request log'],
  ['audit', '/console/audit', 'Audit'],
]

function sections(current: Section | undefined): Html {
  return html`<nav class="sections" aria-label="Sections">${SECTIONS.map(([key, href, text]) => html`<a href="${href}"${key === current ? html` aria-current="page"` : null}>${text}</a>`)}</nav>`
}

export function layout(opts: { title: string; session?: ConsoleSession | null; body: Html; live?: string; section?: Section; /** The page has a passkey form, so it loads the passkeys' scripts. */ passkeys?: boolean }): Html {
  const s = opts.session
  return html`<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="htmx-config" content='{"includeIndicatorStyles":false}'>
<title>${opts.title} · Growth console</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${assetUrl('console.css')}">
<script src="${assetUrl('htmx.min.js')}" defer></script>
<script src="${assetUrl('console.js')}" defer></script>
${opts.passkeys ? html`<script src="${assetUrl('webauthn.min.js')}" defer></script>
<script src="${assetUrl('passkeys.js')}" defer></script>
` : null}</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="bar">
<a class="brand" href="/console/">Growth console</a>
${
  s
    ? html`<div class="who"><span><a href="/console/account" title="Your account and passkeys">${s.person.name}${unseen(': your account')}</a> · ${s.workspace.name} · ${s.person.role}</span>
<form method="post" action="/console/signout"><input type="hidden" name="csrf" value="${s.csrf}"><button class="link" type="submit">Sign out</button></form></div>`
    : null
}
</header>
${s ? sections(opts.section) : null}
<main id="main"${opts.live ? html` data-live="${opts.live}"` : null}>
${opts.body}
</main>
</body>
</html>`
}

/**
 * Where the answer to a form is: its page opened at `#answer` (a redirect's Location, or a form's
 * action), where the element that says what was done (a notice, a decision, a plan, the policy
 * tests' result) carries `answerAt`'s id with tabindex="-1". The browser puts the focus there as the
 * page opens, with or without JavaScript, so the keyboard and a screen reader start at the answer
 * instead of at the top of an unchanged page. A page opened without the fragment starts at its top,
 * as any page does. A refused form's page has no such element: console.js puts the focus on what to
 * correct instead (and shows it: no fragment has scrolled the page).
 */
export const answerAt = (path: string, id: AnswerId = 'answer') => `${path}#${id}`
/** The attributes of a form's answer (answerAt's element): its id and tabindex="-1". */
export const answerAttrs = (id: AnswerId = 'answer') => html` id="${id}" tabindex="-1"`
/**
 * The answers' ids: `answer`, or one naming the answer where a page has several (`plan` and `tested`
 * on the policy page, beside its notice) or where the answer is a section always there (`switch`).
 */
type AnswerId = 'answer' | 'plan' | 'tested' | 'switch'

/** A notice saying what a form just did: a page's answer (answerAt) unless `answer` is false. */
export function doneNotice(message: Html | string, answer = true): Html {
  return html`<div class="panel notice" role="status"${answer ? answerAttrs() : null}><p>${message}</p></div>`
}

/**
 * Words a screen reader reads with a link or button and the screen leaves to its surroundings: a
 * list of a page's links or buttons, read out of context, tells "Schema and example" of
 * signal.created from that of signal.resolved. After the visible words, so a name spoken to voice
 * control still starts with what is seen.
 */
export const unseen = (words: string) => html`<span class="visually-hidden">${words}</span>`

/** A page that only says something: an error, a refusal, a confirmation. */
export function messagePage(opts: { title: string; message: string; session?: ConsoleSession | null; tone?: 'notice' | 'error'; next?: { href: string; text: string } }): Html {
  return layout({
    title: opts.title,
    session: opts.session,
    body: html`<h1>${opts.title}</h1>
<div class="panel ${opts.tone ?? 'error'}" role="${opts.tone === 'notice' ? 'status' : 'alert'}"><p>${opts.message}</p></div>
${opts.next ? html`<p><a href="${opts.next.href}">${opts.next.text}</a></p>` : null}`,
  })
}
