import { type PersonListed, ROLES } from '../../domain/people.ts'
import { type Html, html } from '../html.ts'
import type { ConsoleSession } from '../session-port.ts'
import { shownOnce, when } from './describe.ts'
import { answerAttrs, doneNotice, layout, unseen } from './layout.ts'

/**
 * GET /console/people: the workspace's people (name, email, role, added); for an owner the form to
 * invite one, and on each person a role form and a Remove button. The page after inviting shows the
 * sign-in link once when it was not mailed (the POST's own answer, never a later page).
 */

const ROLE_WORDS: Record<string, string> = { owner: 'Owner', approver: 'Approver', viewer: 'Viewer' }

/** What each role may do, said once at the top of the page, not in the options (a select is cut on a phone). */
const ROLES_SAID = 'An owner does everything; an approver decides what waits, stops and resumes the agents and reads everything; a viewer reads.'

/** A role with its article: "an owner", "an approver", "a viewer". */
function withArticle(role: string): string {
  return `${/^[aeiou]/.test(role) ? 'an' : 'a'} ${role}`
}

function roleSelect(id: string, label: string, current: string): Html {
  return html`<label for="${id}">${label}</label>
<select id="${id}" name="role" aria-describedby="roles-said">${ROLES.map((r) => html`<option value="${r}"${r === current ? html` selected` : null}>${ROLE_WORDS[r]}</option>`)}</select>`
}

/**
 * A new link to the invitation of a person who has not signed in yet (an owner's, for a link that
 * was lost or ran out): mailed to them again, or shown once to pass on, as the first one was.
 */
function inviteAgainForm(p: PersonListed, session: ConsoleSession, mailed: boolean): Html {
  return html`<form method="post" action="/console/people/${p.id}/link"><input type="hidden" name="csrf" value="${session.csrf}">
<p class="hint">${mailed ? `If their sign-in link did not reach ${p.name} or ran out, mail them a new one.` : `If the sign-in link for ${p.name} was lost or ran out (it works for 15 minutes), make a new one to pass on.`}</p>
<button type="submit">${mailed ? 'Mail a new sign-in link' : 'Make a new sign-in link'}${unseen(` for ${p.name}`)}</button></form>`
}

/** One person; `onlyOwner`: they are the workspace's one owner, whom no form may remove or demote (the domain refuses it). */
function personCard(p: PersonListed, session: ConsoleSession, onlyOwner: boolean, mailed: boolean): Html {
  const owner = session.person.role === 'owner'
  const you = p.id === session.person.id
  return html`<li class="panel"><p><strong>${p.name}</strong>${you ? ' (you)' : null}</p>
<dl class="facts">
<dt>Email</dt><dd>${p.email}</dd>
<dt>Role</dt><dd>${p.role}</dd>
<dt>Added</dt><dd>${when(p.addedAt)}</dd>
<dt>Last signed in</dt><dd>${p.signedInAt ? when(p.signedInAt) : 'Not yet'}</dd>
<dt>Id</dt><dd><code>${p.id}</code></dd>
</dl>
${owner && !you && !p.signedInAt ? inviteAgainForm(p, session, mailed) : null}
${owner && onlyOwner ? html`<p class="hint">The only owner of ${session.workspace.name}: a workspace keeps one, so make someone else an owner before changing this role or removing ${p.name}.</p>` : null}
${
  owner && !onlyOwner
    ? html`<form method="post" action="/console/people/${p.id}/role"${you ? html` data-confirm="Change your own role? Once you are not an owner, these forms are no longer yours, and only another owner can make you one again."` : null}><input type="hidden" name="csrf" value="${session.csrf}">
${roleSelect(`role-${p.id}`, `Role of ${p.name}`, p.role)}
<button type="submit">Change the role${unseen(` of ${p.name}`)}</button></form>
<form method="post" action="/console/people/${p.id}/remove" data-confirm="Remove ${p.name} (${p.email}) from the workspace? Their sessions end at once."><input type="hidden" name="csrf" value="${session.csrf}"><button class="danger" type="submit" aria-label="Remove ${p.name} (${p.email})">Remove</button></form>`
    : null
}
</li>`
}

/** What was typed into the invitation form, shown again beside its refusal. */
type InviteForm = { email: string; name: string; role: string }

function inviteForm(session: ConsoleSession, mailed: boolean, error: string | null, typed: InviteForm | null): Html {
  const described = error ? html` aria-describedby="invite-error"` : null
  return html`<section class="panel" aria-labelledby="invite-h">
<h2 id="invite-h">Invite a person</h2>
<p class="hint">${mailed ? 'A sign-in link is mailed to them (it works once, for 15 minutes).' : 'This server sends no mail: the next page shows a sign-in link, once, for you to pass on (it works once, for 15 minutes).'}</p>
${error ? html`<p class="failed" role="alert" id="invite-error">${error}</p>` : null}
<form method="post" action="/console/people"><input type="hidden" name="csrf" value="${session.csrf}">
<label for="invite-email">Email</label>
<input id="invite-email" name="email" type="email" autocomplete="off" required value="${typed?.email ?? ''}"${described}>
<label for="invite-name">Name</label>
<input id="invite-name" name="name" type="text" autocomplete="off" required maxlength="100" value="${typed?.name ?? ''}"${described}>
${roleSelect('invite-role', 'Role', typed && Object.hasOwn(ROLE_WORDS, typed.role) ? typed.role : 'viewer')}
<button type="submit">Invite</button></form>
</section>`
}

export function peoplePage(opts: { session: ConsoleSession; people: PersonListed[]; mailed: boolean; error?: string; typed?: InviteForm; notice?: string }): Html {
  const { session, people } = opts
  const owner = session.person.role === 'owner'
  const owners = people.filter((p) => p.role === 'owner').length
  return layout({
    title: 'People',
    session,
    section: 'people',
    body: html`<h1>People</h1>
<p class="lead" id="roles-said">${ROLES_SAID}</p>
${opts.notice ? doneNotice(opts.notice) : null}
${owner ? inviteForm(session, opts.mailed, opts.error ?? null, opts.typed ?? null) : html`<p class="hint">You can read this list; an owner invites people, changes their roles and removes them.</p>`}
<section aria-labelledby="list-h"><h2 id="list-h">The workspace's people</h2>
<ol class="calls">${people.map((p) => personCard(p, session, p.role === 'owner' && owners === 1, opts.mailed))}</ol>
</section>`,
  })
}

/** The answer to inviting: mailed, or the sign-in link this once, with a copy button (assets/console.js). */
/** A person just invited, and their sign-in link when this server sends no mail: shown once, on GET /console/shown/person after the POST. */
export type PersonShown = { person: { name: string; email: string; role: string }; link: { url: string; expiresAt: string } | null; again?: boolean }

export function personInvitedPage(opts: PersonShown & { session: ConsoleSession }): Html {
  const { person, link, again } = opts
  const title = again ? 'New sign-in link' : 'Person invited'
  const who = again ? `A new sign-in link for ${person.name} (${person.email}), ${withArticle(person.role)} who has not signed in yet.` : `${person.name} (${person.email}) is now ${withArticle(person.role)}.`
  return layout({
    title,
    session: opts.session,
    section: 'people',
    body: html`<h1>${title}</h1>
${
  link
    ? html`<div class="panel notice" role="status"${answerAttrs()}><p>${who} This server sends no mail: pass this sign-in link on to them yourself. This is the only time it is shown; it works once, until ${when(link.expiresAt)}. If it is lost, make another on the People page until they first sign in.</p></div>
${shownOnce(`Sign-in link for ${person.name}`, link.url)}`
    : html`<div class="panel notice" role="status"${answerAttrs()}><p>${who} A sign-in link is on its way to ${person.email}; it works once, for 15 minutes. If it does not arrive, they can ask for another on the sign-in page.</p></div>`
}
<p><a href="/console/people">Back to the people</a></p>`,
  })
}
