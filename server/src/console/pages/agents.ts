import type { Agent } from '../../schemas/agents.ts'
import type { AgentRequest } from '../../schemas/agent-requests.ts'
import type { AgentsSwitch } from '../../domain/workspaces.ts'
import { type Html, html } from '../html.ts'
import { type ConsoleSession, mayDecide } from '../session-port.ts'
import { when } from './describe.ts'
import { layout } from './layout.ts'
import { requestCard } from './requests.ts'

/**
 * GET /console/agents: the stop switch of the whole workspace (owners and approvers press it, with
 * a reason, or resume; a viewer sees its state), then each agent with what it may do, in the
 * sentences GET /agent/me answers. GET /console/agents/{id}: one agent and its recent requests.
 */

function switchPanel(session: ConsoleSession, state: AgentsSwitch, error: string | null): Html {
  const may = mayDecide(session.person.role)
  const status = state.stopped
    ? html`<p class="status">Agents are stopped${state.at ? html` since ${when(state.at.toISOString())}` : null}${state.by ? html` by ${state.by}` : null}.</p>
<p>Reason: ${state.reason ?? 'none recorded'}. Every request is denied until they are resumed.</p>`
    : html`<p class="status">Agents are running: the gateway decides their requests by the policy.</p>`
  const form = !may
    ? html`<p class="hint">You can read this; an owner or approver stops and resumes the agents.</p>`
    : state.stopped
      ? html`<form method="post" action="/console/agents"><input type="hidden" name="csrf" value="${session.csrf}"><input type="hidden" name="switch" value="resume">
<button type="submit">Resume the agents</button></form>`
      : html`<form method="post" action="/console/agents"><input type="hidden" name="csrf" value="${session.csrf}"><input type="hidden" name="switch" value="stop">
<label for="stop-reason">Why stop them (required, kept in the audit list)</label>
<textarea id="stop-reason" name="reason" rows="2" maxlength="500" required${error ? html` aria-describedby="switch-error"` : null}></textarea>
<button class="danger" type="submit">Stop all agents</button></form>`
  return html`<section class="panel switch ${state.stopped ? 'stopped' : 'running'}" aria-labelledby="switch-h">
<h2 id="switch-h">Stop switch</h2>
${error ? html`<p class="failed" role="alert" id="switch-error">${error}</p>` : null}
${status}
${form}
</section>`
}

function mayDo(a: Agent): Html {
  return html`<ul class="sentences">${a.permissions.length ? a.permissions.map((p) => html`<li>${p.sentence}</li>`) : html`<li>${a.name} may do nothing yet.</li>`}
${a.ceilings.sentences.map((s) => html`<li>${s}</li>`)}
<li>Acts alone up to ${a.maxUnattendedRisk} risk; above that a person decides.</li></ul>`
}

export function agentsPage(opts: { session: ConsoleSession; agents: Agent[]; state: AgentsSwitch; error?: string | null }): Html {
  return layout({
    title: 'Agents',
    session: opts.session,
    section: 'agents',
    body: html`<h1>Agents</h1>
<p class="lead">The agents of ${opts.session.workspace.name} and what each may do.</p>
${switchPanel(opts.session, opts.state, opts.error ?? null)}
${
  opts.agents.length
    ? html`<ol class="inbox">${opts.agents.map(
        (a) => html`<li><article class="panel" aria-labelledby="agent-${a.id}">
<h2 id="agent-${a.id}"><a href="/console/agents/${a.id}">${a.name}</a></h2>
<div class="meta"><span>${a.owner}</span><span>${a.lastActedAt ? html`last acted ${when(a.lastActedAt)}` : 'has not acted yet'}</span></div>
${a.description ? html`<p>${a.description}</p>` : null}
${mayDo(a)}
</article></li>`,
      )}</ol>`
    : html`<div class="panel empty" role="status"><p>No agent yet. An operator registers one with growth admin agent create.</p></div>`
}`,
  })
}

export function agentPage(opts: { session: ConsoleSession; agent: Agent; requests: AgentRequest[]; more: boolean }): Html {
  const a = opts.agent
  return layout({
    title: a.name,
    session: opts.session,
    section: 'agents',
    live: 'all',
    body: html`<p><a href="/console/agents">Agents</a></p>
<h1>${a.name}</h1>
<div class="meta"><span>${a.owner}</span><span>${a.id}</span><span>${a.lastActedAt ? html`last acted ${when(a.lastActedAt)}` : 'has not acted yet'}</span></div>
${a.description ? html`<p>${a.description}</p>` : null}
<section class="panel" aria-labelledby="may-h"><h2 id="may-h">What it may do</h2>${mayDo(a)}</section>
<h2>Recent requests</h2>
${
  opts.requests.length
    ? html`<ol class="inbox">${opts.requests.map((r) => html`<li>${requestCard(r, { agentLink: false })}</li>`)}</ol>`
    : html`<div class="panel empty" role="status"><p>${a.name} has asked nothing yet.</p></div>`
}
${opts.more ? html`<nav class="pages" aria-label="Pages"><a href="/console/requests?agent=${a.id}">All of its requests</a></nav>` : null}`,
  })
}
