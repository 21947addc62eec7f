import type { TimePosition } from '../../core/paging.ts'
import type { InboxItem } from '../../domain/inbox.ts'
import { type Html, html } from '../html.ts'
import type { ConsoleSession } from '../session-port.ts'
import { agentSummary, agentText, factList, timeLeft, when } from './describe.ts'
import { layout } from './layout.ts'

/**
 * GET /console/: everything waiting for a person in the workspace, oldest first: who asked, what
 * exactly, the planned effect, the checks that failed, and the time left; each opens its page,
 * where it is decided.
 */

/** A paging position as a query value, and back (null for anything that is not one). */
export const positionParam = (p: TimePosition) => `${p.t}~${p.id}`
export function parsePosition(value: string): TimePosition | null {
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,6})?Z)~([a-z]+_[A-Za-z0-9_-]{1,64})$/.exec(value)
  if (!m || Number.isNaN(Date.parse(m[1]!))) return null
  return { t: m[1]!, id: m[2]! }
}

/*
 * A waiting item is a card whose heading is its link, named by what it asks (the summary) in a
 * screen reader's list of links and as the focus reaches it; the whole card still opens it
 * (console.css: .item-card), and the kind, who asked, the time left and the facts are read with the
 * card, under its heading.
 */
function approvalCard(item: Extract<InboxItem, { kind: 'approval' }>, now: Date): Html {
  const { approval: a, asked } = item
  const failed = asked?.checks.filter((c) => !c.passed) ?? []
  const left = timeLeft(a.expiresAt, now)
  return html`<article class="panel item-card">
<div class="meta"><span class="kind">${asked ? 'Agent request' : 'Send'}</span><span>${asked ? asked.agentName : a.requestedBy}</span>
${asked ? html`<span>${asked.tool}.${asked.action}${asked.resource ? html` on ${agentText(asked.resource)}` : null}</span>` : null}
${left ? html`<span class="expiring"${a.expiresAt ? html` data-expires="${a.expiresAt}"` : null}>${left}</span>` : null}<span>asked ${when(a.createdAt)}</span></div>
<h2><a class="item" href="/console/approvals/${a.id}">${asked?.summary ? agentSummary(asked.summary) : a.summary}</a></h2>
${asked ? factList(asked.facts, 'Facts') : null}
${failed.length ? html`<p class="meta">Needs a person: ${failed.map((c) => c.detail).join(' ')}</p>` : null}
</article>`
}

function actionCard(a: Extract<InboxItem, { kind: 'action' }>['action']): Html {
  const { summary, ...figures } = a.plannedEffect
  return html`<article class="panel item-card">
<div class="meta"><span class="kind">Proposed change</span><span>${a.proposedBy.name}</span><span>${a.kind}</span><span>proposed ${when(a.createdAt)}</span></div>
<h2><a class="item" href="/console/actions/${a.id}">${summary}</a></h2>
${factList(figures, 'Planned effect')}
</article>`
}

/** Why an empty inbox of a workspace with no agent stays empty, and where agents are registered (by whom). */
const noAgentYet = (owner: boolean) =>
  owner
    ? html`<p>No agent is registered yet, so none can ask: <a href="/console/agents">register one on the Agents page</a>.</p>`
    : html`<p>No agent is registered yet, so none can ask: an owner registers them on the <a href="/console/agents">Agents page</a>.</p>`

/** `noAgents`: the workspace has never had an agent (asked only when the inbox is empty). */
export function inboxPage(opts: { session: ConsoleSession; items: InboxItem[]; next: TimePosition | null; now: Date; noAgents?: boolean }): Html {
  const list = opts.items.length
    ? html`<ol class="inbox">${opts.items.map((i) => html`<li>${i.kind === 'approval' ? approvalCard(i, opts.now) : actionCard(i.action)}</li>`)}</ol>`
    : html`<div class="panel empty" role="status"><p>Nothing waits for a person. New requests and proposed changes appear here.</p>${opts.noAgents ? noAgentYet(opts.session.person.role === 'owner') : null}</div>`
  return layout({
    title: 'Inbox',
    session: opts.session,
    section: 'inbox',
    live: 'all',
    body: html`<h1>Inbox</h1>
<p class="lead">What waits for a person in ${opts.session.workspace.name}, oldest first.</p>
${list}
${opts.next ? html`<nav class="pages" aria-label="Pages"><a href="/console/?after=${encodeURIComponent(positionParam(opts.next))}">Later items</a></nav>` : null}`,
  })
}
