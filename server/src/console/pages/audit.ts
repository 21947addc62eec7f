import type { TimePosition } from '../../core/paging.ts'
import type { AuditAction, AuditEntry, AuditFilter, AuditKind } from '../../domain/audit.ts'
import { type Html, html } from '../html.ts'
import type { ConsoleSession } from '../session-port.ts'
import { factList, queryOf, when } from './describe.ts'
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
  'token.rotated': 'rotated the token',
  'token.revoked': 'revoked the token',
  'webhook.created': 'added the webhook endpoint',
  'webhook.updated': 'changed the address or event types of the webhook endpoint',
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

/** The kinds of entry in words, for the filter (every kind: the type holds it to domain/audit.ts's list). */
const KIND_WORDS: Record<AuditKind, string> = {
  decisions: 'Decisions',
  'stop-switch': 'The stop switch',
  agents: 'Agents and credentials',
  policy: 'Policy',
  tokens: 'Tokens',
  webhooks: 'Webhook endpoints',
  people: 'People and sign-ins',
}

/** The list's address with this filter (and, for a later page, its position). */
const auditQuery = (f: AuditFilter, before?: TimePosition) =>
  `/console/audit${queryOf({ kind: f.kind, who: f.who, subject: f.subject, before: before && positionParam(before) })}`

/** Who acted, linked to the list of what they did. */
function who(e: AuditEntry, f: AuditFilter): Html {
  const by = e.actor.kind === 'person' ? e.actor.id : e.actor.kind
  const name = html`<a href="${auditQuery({ ...f, who: by })}"><strong>${e.actor.name}</strong></a>`
  if (e.actor.kind === 'person') return name
  return html`${name} (${e.actor.kind === 'operator' ? 'an operator, with the CLI' : 'the service'})`
}

function entry(e: AuditEntry, f: AuditFilter): Html {
  const words = ACTION_WORDS[e.action as AuditAction] ?? e.action
  // A sign-in's subject is the person themself: "Ana signed in", not "Ana signed in per_...".
  const self = e.actor.kind === 'person' && e.subject === e.actor.id
  // A person (or whatever else) the entry names is named by their name, with its id beside it,
  // linked to everything recorded about it.
  const named = typeof e.detail.name === 'string' ? html` <strong>${e.detail.name}</strong>` : null
  return html`<li class="panel">
<p>${who(e, f)} ${words}${self ? null : html`${named} <a href="${auditQuery({ ...f, subject: e.subject })}"><code>${e.subject}</code></a>`}</p>
<p class="meta"><span>${when(e.at)}</span><code>${e.action}</code></p>
${factList(e.detail, 'Details')}
</li>`
}

export function auditPage(opts: { session: ConsoleSession; entries: AuditEntry[]; next: TimePosition | null; paged: boolean; filter: AuditFilter; people: { id: string; name: string }[] }): Html {
  const f = opts.filter
  const filtered = Boolean(f.kind || f.who || f.subject)
  const empty = opts.paged ? 'No older entries.' : filtered ? 'Nothing recorded matches this filter.' : 'Nothing recorded yet.'
  const list = opts.entries.length
    ? html`<ol class="inbox audit">${opts.entries.map((e) => entry(e, f))}</ol>`
    : html`<div class="panel empty" role="status"><p>${empty}</p></div>`
  // Whoever the filter names is offered even when no longer a person of the workspace (a link from an old entry).
  const whoOptions = [
    ...opts.people.map((p) => ({ value: p.id, text: p.name })),
    ...(f.who && f.who.startsWith('per_') && !opts.people.some((p) => p.id === f.who) ? [{ value: f.who, text: f.who }] : []),
    { value: 'operator', text: 'Operators, with the CLI' },
    { value: 'system', text: 'The service' },
  ]
  const option = (value: string, text: string, chosen: string | undefined) => html`<option value="${value}"${value === (chosen ?? '') ? html` selected` : null}>${text}</option>`
  return layout({
    title: 'Audit',
    session: opts.session,
    section: 'audit',
    body: html`<h1>Audit</h1>
<p class="lead">Who did what in ${opts.session.workspace.name}, newest first: in the console, with the CLI, and by the service.</p>
<form class="filters panel" method="get" action="/console/audit">
<label>What <select name="kind">${option('', 'Everything', f.kind)}${(Object.keys(KIND_WORDS) as AuditKind[]).map((k) => option(k, KIND_WORDS[k], f.kind))}</select></label>
<label>Who <select name="who">${option('', 'Anyone', f.who)}${whoOptions.map((o) => option(o.value, o.text, f.who))}</select></label>
${f.subject ? html`<label>About <input name="subject" value="${f.subject}" size="28"></label>` : null}
<button type="submit">Show</button>${filtered ? html` <a href="/console/audit">Show everything</a>` : null}
</form>
${list}
${opts.paged || opts.next ? html`<nav class="pages" aria-label="Pages">${opts.paged ? html`<a href="${auditQuery(f)}">Newest</a> ` : null}${opts.next ? html`<a href="${auditQuery(f, opts.next)}">Older entries</a>` : null}</nav>` : null}`,
  })
}
