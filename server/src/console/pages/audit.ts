import type { TimePosition } from '../../core/paging.ts'
import type { AuditAction, AuditEntry } from '../../domain/audit.ts'
import { type Html, html } from '../html.ts'
import type { ConsoleSession } from '../session-port.ts'
import { factList, when } from './describe.ts'
import { positionParam } from './inbox.ts'
import { layout } from './layout.ts'

/**
 * GET /console/audit: who did what in the workspace, newest first (the list `growth admin audit`
 * prints): sign-ins, decisions, stops, policy, tokens, agents, webhook endpoints and people. Every
 * role reads it (CONTRACT: approvers and viewers read everything). Paged by position (`before`).
 * An entry never holds a secret (a token, a credential, a link): only what names it.
 */

/** The actions recorded, in words (every one: the type holds it to domain/audit.ts's list); an entry of an older server's action unknown here is shown as recorded. */
const ACTION_WORDS: Record<AuditAction, string> = {
  'approval.approved': 'approved',
  'approval.rejected': 'rejected',
  'action.approved': 'approved the action',
  'action.rejected': 'rejected the action',
  'agents.stopped': 'stopped the agents',
  'agents.resumed': 'resumed the agents',
  'agent.created': 'registered the agent',
  'agent.credential_issued': 'issued a credential for',
  'agent.credential_rotated': 'rotated a credential of',
  'agent.retired': 'retired the agent',
  'policy.applied': 'applied a policy change',
  'token.created': 'issued the token',
  'token.revoked': 'revoked the token',
  'webhook.created': 'added the webhook endpoint',
  'webhook.disabled': 'disabled the webhook endpoint',
  'webhook.enabled': 'enabled the webhook endpoint',
  'webhook.secret_rotated': 'rotated the signing secret of the webhook endpoint',
  'person.added': 'added',
  'person.removed': 'removed',
  'person.role_changed': 'changed the role of',
  'person.link_created': 'made a sign-in link for',
  'person.signed_in': 'signed in',
  'person.signed_out': 'signed out',
  'person.passkey_added': 'added a passkey',
  'person.passkey_removed': 'removed a passkey',
}

function who(e: AuditEntry): Html {
  if (e.actor.kind === 'person') return html`<strong>${e.actor.name}</strong>`
  return html`<strong>${e.actor.name}</strong> (${e.actor.kind === 'operator' ? 'an operator, with the CLI' : 'the service'})`
}

function entry(e: AuditEntry): Html {
  const words = ACTION_WORDS[e.action as AuditAction] ?? e.action
  // A sign-in's subject is the person themself: "Ana signed in", not "Ana signed in per_...".
  const self = e.actor.kind === 'person' && e.subject === e.actor.id
  // A person (or whatever else) the entry names is named by their name, with its id beside it.
  const named = typeof e.detail.name === 'string' ? html` <strong>${e.detail.name}</strong>` : null
  return html`<li class="panel">
<p>${who(e)} ${words}${self ? null : html`${named} <code>${e.subject}</code>`}</p>
<p class="meta"><span>${when(e.at)}</span><code>${e.action}</code></p>
${factList(e.detail, 'Details')}
</li>`
}

export function auditPage(opts: { session: ConsoleSession; entries: AuditEntry[]; next: TimePosition | null; paged: boolean }): Html {
  const list = opts.entries.length
    ? html`<ol class="inbox audit">${opts.entries.map(entry)}</ol>`
    : html`<div class="panel empty" role="status"><p>${opts.paged ? 'No older entries.' : 'Nothing recorded yet.'}</p></div>`
  return layout({
    title: 'Audit',
    session: opts.session,
    section: 'audit',
    body: html`<h1>Audit</h1>
<p class="lead">Who did what in ${opts.session.workspace.name}, newest first: in the console, with the CLI, and by the service.</p>
${list}
${opts.paged || opts.next ? html`<nav class="pages" aria-label="Pages">${opts.paged ? html`<a href="/console/audit">Newest</a> ` : null}${opts.next ? html`<a href="/console/audit?before=${encodeURIComponent(positionParam(opts.next))}">Older entries</a>` : null}</nav>` : null}`,
  })
}
