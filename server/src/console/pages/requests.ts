import type { GatewayDecision } from '../../core/enums.ts'
import type { TimePosition } from '../../core/paging.ts'
import type { ListedRequest } from '../../domain/agent-requests.ts'
import type { AgentRequest } from '../../schemas/agent-requests.ts'
import { type Html, html } from '../html.ts'
import type { ConsoleSession } from '../session-port.ts'
import { agentSummary, agentText, checkWord, factList, when } from './describe.ts'
import { positionParam } from './inbox.ts'
import { layout, unseen } from './layout.ts'

/**
 * GET /console/requests: what the agents asked the gateway, newest first, each with its decision,
 * every check with its detail, the rules that bit, who decided a request that waited, and the
 * result the agent reported. Filtered by decision and agent (query `decision`, `agent`), paged by
 * position (`after`), as GET /agents/requests is.
 */

const DECISION_WORDS: Record<GatewayDecision, string> = { allowed: 'Allowed', denied: 'Denied', requires_approval: 'Needs a person' }

const decidedBy = (d: NonNullable<AgentRequest['decidedBy']>) => (d.kind === 'person' ? d.name : `${d.name} (operator)`)

/** What the agent reported, as one sentence with one full stop; its own words bidi-isolated (describe.ts agentText). */
function resultLine(r: NonNullable<AgentRequest['result']>): Html {
  const line = `Result: ${r.status}${r.summary ? `, ${r.summary}` : ''}${r.error ? ` (${r.error})` : ''}`
  return html`Result: ${r.status}${r.summary ? html`, ${agentText(r.summary)}` : null}${r.error ? html` (${agentText(r.error)})` : null}${/[.!?]\)?$/.test(line) ? '' : '.'}`
}

/** The person's decision on a request that waited: approved or rejected, by whom, when and why (one full stop). */
function personDecision(r: AgentRequest, status: ListedRequest['approvalStatus']): Html {
  if (!r.decidedBy) return html`<a href="/console/approvals/${r.approvalId}">Waiting for a person${unseen(`: ${r.summary ?? `${r.tool}.${r.action}`}`)}</a>.`
  const verb = status === 'approved' ? 'Approved' : status === 'rejected' ? 'Rejected' : 'Decided'
  const reason = r.decisionReason ? `: ${r.decisionReason}` : ''
  return html`${verb} by ${decidedBy(r.decidedBy)}${r.decidedAt ? html`, ${when(r.decidedAt)}` : null}${reason}${/[.!?]\)?$/.test(reason) ? '' : '.'}`
}

/**
 * One request: what was asked, the decision and its checks, the person's decision when it waited, the
 * result. Headed by its summary at `level`: 2 where the requests are the page's own list, 3 where
 * they are listed under a section's heading (an agent's recent requests).
 */
export function requestCard({ item: r, approvalStatus }: ListedRequest, opts: { agentLink: boolean; level: 2 | 3 }): Html {
  const heading = r.summary ? agentSummary(r.summary) : `${r.tool}.${r.action}`
  const failed = r.checks.filter((c) => !c.passed)
  return html`<article class="panel" aria-label="Request ${r.id}">
<div class="meta"><span class="kind decision-${r.decision}">${DECISION_WORDS[r.decision]}</span>
${opts.agentLink ? html`<a href="/console/agents/${r.agentId}">${r.agentName}</a>` : html`<span>${r.agentName}</span>`}
<span>${r.tool}.${r.action}${r.resource ? html` on ${agentText(r.resource)}` : null}</span><span>asked ${when(r.createdAt)}</span></div>
${opts.level === 2 ? html`<h2>${heading}</h2>` : html`<h3 class="name">${heading}</h3>`}
<p>${r.reason}</p>
${factList(r.facts, 'Facts')}
<details><summary>Checks (${r.checks.length - failed.length} of ${r.checks.length} passed)</summary>
<ul>${r.checks.map((c) => html`<li>${checkWord(c.passed, r.decision).word}: ${c.detail}</li>`)}</ul>
${r.rules.length ? html`<p>Rules that bit (version ${r.rulesVersion}):</p><ul>${r.rules.map((rule) => html`<li>${rule.sentence}</li>`)}</ul>` : null}
</details>
${r.approvalId ? html`<p>${personDecision(r, approvalStatus)}</p>` : null}
${r.result ? html`<p>${resultLine(r.result)}</p>` : r.decision === 'allowed' ? html`<p class="meta">No result reported yet.</p>` : null}
</article>`
}

export type RequestFilter = { decision?: GatewayDecision; agentId?: string }

/** The query of a requests page with this filter and position. */
function requestsQuery(filter: RequestFilter, after?: TimePosition): string {
  const q = new URLSearchParams()
  if (filter.decision) q.set('decision', filter.decision)
  if (filter.agentId) q.set('agent', filter.agentId)
  if (after) q.set('after', positionParam(after))
  const s = q.toString()
  return s ? `?${s}` : ''
}

export function requestsPage(opts: {
  session: ConsoleSession
  requests: ListedRequest[]
  next: TimePosition | null
  filter: RequestFilter
  agents: { id: string; name: string }[]
}): Html {
  const f = opts.filter
  const list = opts.requests.length
    ? html`<ol class="inbox">${opts.requests.map((r) => html`<li>${requestCard(r, { agentLink: true, level: 2 })}</li>`)}</ol>`
    : html`<div class="panel empty" role="status"><p>No request ${f.decision || f.agentId ? 'matches this filter' : 'yet: the agents have asked nothing'}.</p></div>`
  return layout({
    title: 'Requests',
    session: opts.session,
    section: 'requests',
    live: 'all',
    body: html`<h1>Requests</h1>
<p class="lead">What the agents of ${opts.session.workspace.name} asked, newest first, and what was decided.</p>
<form class="filters panel" method="get" action="/console/requests">
<label>Decision <select name="decision"><option value="">Any</option>${(Object.keys(DECISION_WORDS) as GatewayDecision[]).map((d) => html`<option value="${d}"${f.decision === d ? html` selected` : null}>${DECISION_WORDS[d]}</option>`)}</select></label>
<label>Agent <select name="agent"><option value="">Any</option>${opts.agents.map((a) => html`<option value="${a.id}"${f.agentId === a.id ? html` selected` : null}>${a.name}</option>`)}</select></label>
<button type="submit">Show</button>
</form>
${list}
${opts.next ? html`<nav class="pages" aria-label="Pages"><a href="/console/requests${requestsQuery(f, opts.next)}">Older requests</a></nav>` : null}`,
  })
}
