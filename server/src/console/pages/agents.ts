import { RISKS } from '../../core/enums.ts'
import { type AgentCredential, MAX_OVERLAP_MINUTES } from '../../domain/agents.ts'
import { dataName } from '../../domain/agent-tools.ts'
import type { Agent } from '../../schemas/agents.ts'
import type { Tool } from '../../schemas/agent-tools.ts'
import type { ListedRequest } from '../../domain/agent-requests.ts'
import type { AgentsSwitch } from '../../domain/workspaces.ts'
import { type Html, html } from '../html.ts'
import { type ConsoleSession, mayDecide } from '../session-port.ts'
import { replacedByFact, shownOnce, when } from './describe.ts'
import { answerAttrs, doneNotice, layout } from './layout.ts'
import { permissionChoices } from './permissions.ts'
import { requestCard } from './requests.ts'

/**
 * GET /console/agents: the stop switch of the whole workspace (owners and approvers press it, with
 * a reason, or resume; a viewer sees its state), then each agent with what it may do, in the
 * sentences GET /agent/me answers, retired ones apart; an owner registers an agent there. GET
 * /console/agents/{id}: one agent, its credentials (an owner rotates one with an overlap, or
 * retires the agent) and its recent requests. A new credential is shown once, on the POST's answer.
 */

export type RegisterForm = { name: string; description: string; allow: string[]; risk: string }

function switchPanel(session: ConsoleSession, state: AgentsSwitch, error: string | null, typed: string): Html {
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
<textarea id="stop-reason" name="reason" rows="2" maxlength="500" required${error ? html` aria-describedby="switch-error"` : null}>${typed}</textarea>
<button class="danger" type="submit">Stop all agents</button></form>`
  return html`<section class="panel switch ${state.stopped ? 'stopped' : 'running'}" aria-labelledby="switch-h"${answerAttrs('switch')}>
<h2 id="switch-h">Stop switch</h2>
${error ? html`<p class="failed" role="alert" id="switch-error">${error}</p>` : null}
${status}
${form}
</section>`
}

function mayDo(a: Agent): Html {
  return html`<ul class="sentences">${a.permissions.length ? a.permissions.map((p) => html`<li>${p.sentence}</li>`) : html`<li>${a.name} may do nothing yet.</li>`}
<li>${a.dataAccess.length ? `It may use ${a.dataAccess.map(dataName).join(', ')}.` : 'It may use no data.'}</li>
${a.ceilings.sentences.map((s) => html`<li>${s}</li>`)}
<li>Acts alone up to ${a.maxUnattendedRisk} risk; above that a person decides.</li></ul>`
}

function registerForm(session: ConsoleSession, tools: Tool[], form: RegisterForm | null, error: string | null): Html {
  const allowed = new Set(form?.allow ?? [])
  const risk = form?.risk ?? 'medium'
  return html`<section class="panel" aria-labelledby="register-h">
<h2 id="register-h">Register an agent</h2>
${error ? html`<p class="failed" role="alert" id="register-error">${error}</p>` : null}
<form method="post" action="/console/agents/register"><input type="hidden" name="csrf" value="${session.csrf}">
<label for="agent-name">Name</label>
<input id="agent-name" name="name" type="text" maxlength="100" required value="${form?.name ?? ''}"${error ? html` aria-describedby="register-error"` : null}>
<label for="agent-description">What it is for (optional)</label>
<input id="agent-description" name="description" type="text" maxlength="500" value="${form?.description ?? ''}">
${permissionChoices(tools, allowed)}
<label for="agent-risk">The highest risk it takes alone (above it, a person decides)</label>
<select id="agent-risk" name="risk">${RISKS.map((r) => html`<option value="${r}"${r === risk ? html` selected` : null}>${r}</option>`)}</select>
<button type="submit">Register the agent</button></form>
</section>`
}

/** Who the agent belongs to, in words: one the workspace registered, or one that comes with the product. */
const ownerWords = (owner: Agent['owner']) => (owner === 'product' ? 'comes with the product' : 'registered in this workspace')

function agentCard(a: Agent): Html {
  const { retiredAt } = a
  return html`<li><article class="panel" aria-labelledby="agent-${a.id}">
<h3 class="name" id="agent-${a.id}"><a href="/console/agents/${a.id}">${a.name}</a></h3>
<div class="meta"><span>${ownerWords(a.owner)}</span>${retiredAt ? html`<span>retired ${when(retiredAt)}</span>` : null}<span>${a.lastActedAt ? html`last acted ${when(a.lastActedAt)}` : 'has not acted yet'}</span></div>
${a.description ? html`<p>${a.description}</p>` : null}
${retiredAt ? html`<p>Retired: the gateway refuses it; its history is kept.</p>` : mayDo(a)}
</article></li>`
}

export function agentsPage(opts: {
  session: ConsoleSession
  agents: Agent[]
  state: AgentsSwitch
  tools: Tool[]
  error?: string | null
  /** The stop reason as typed, kept when the stop was refused. */
  reason?: string
  register?: RegisterForm
  registerError?: string
  notice?: string
}): Html {
  const owner = opts.session.person.role === 'owner'
  const active = opts.agents.filter((a) => a.retiredAt === null)
  const retired = opts.agents.filter((a) => a.retiredAt !== null)
  return layout({
    title: 'Agents',
    session: opts.session,
    section: 'agents',
    body: html`<h1>Agents</h1>
<p class="lead">The agents of ${opts.session.workspace.name} and what each may do.</p>
${opts.notice ? doneNotice(opts.notice) : null}
${switchPanel(opts.session, opts.state, opts.error ?? null, opts.reason ?? '')}
${owner ? registerForm(opts.session, opts.tools, opts.register ?? null, opts.registerError ?? null) : html`<p class="hint">You can read the agents; an owner registers, rotates credentials and retires them.</p>`}
<section aria-labelledby="active-h"><h2 id="active-h">Active agents</h2>
${
  active.length
    ? html`<ol class="inbox">${active.map(agentCard)}</ol>`
    : html`<div class="panel empty" role="status"><p>No active agent yet: ${owner ? 'register one with the form above' : 'an owner registers them here, or an operator with growth admin agent create'}.</p></div>`
}</section>
${retired.length ? html`<section aria-labelledby="retired-h"><h2 id="retired-h">Retired agents</h2><ol class="inbox">${retired.map(agentCard)}</ol></section>` : null}`,
  })
}

function credentialCard(c: AgentCredential, session: ConsoleSession, agentId: string, retired: boolean): Html {
  const ended = c.revokedAt !== null || (c.expiresAt !== null && Date.parse(c.expiresAt) <= Date.now())
  const state = c.revokedAt ? html`revoked ${when(c.revokedAt)}` : ended ? html`ended ${when(c.expiresAt!)}` : c.expiresAt ? html`active, ends ${when(c.expiresAt)}` : html`active`
  return html`<li class="panel"><p><strong><code>${c.id}</code>: ${state}</strong></p>
<dl class="facts">
<dt>Ends with</dt><dd><code>…${c.hint}</code></dd>
<dt>Created</dt><dd>${when(c.createdAt)}</dd>
${replacedByFact(c.replacedBy)}
</dl>
${session.person.role === 'owner' && !ended && !retired && c.expiresAt
    ? html`<form method="post" action="/console/agents/${agentId}/credentials/${c.id}/revoke" data-confirm="Revoke ${c.id} (ends in ${c.hint}) now? The agent is refused with it from its next request."><input type="hidden" name="csrf" value="${session.csrf}">
<button class="danger" type="submit" aria-label="Revoke now ${c.id} (ends in ${c.hint})">Revoke now</button></form>`
    : null}
${session.person.role === 'owner' && !ended && !retired && !c.expiresAt
    ? html`<form method="post" action="/console/agents/${agentId}/rotate" data-confirm-if="overlap=0" data-confirm="Rotate ${c.id} (ends in ${c.hint}) with no overlap? The agent is refused with it from its next request, until it is given the new one."><input type="hidden" name="csrf" value="${session.csrf}"><input type="hidden" name="credential" value="${c.id}">
<label for="overlap-${c.id}">Overlap in minutes: the old credential keeps working this long (0: refused at once)</label>
<input id="overlap-${c.id}" name="overlap" type="number" min="0" max="${MAX_OVERLAP_MINUTES}" step="1" value="60" required>
<button type="submit" aria-label="Rotate ${c.id} (ends in ${c.hint})">Rotate</button></form>`
    : null}
</li>`
}

/** The answer to registering or rotating: the agent's new credential, this once, with a copy button (assets/console.js). */
/** A credential just made (an agent registered, or one rotated), shown once: on GET /console/shown/agent after the POST. */
export type CredentialShown = {
  heading: string
  agentId: string
  agentName: string
  credentialId: string
  credential: string
  replaced?: { id: string; endsAt: string }
}

/** The credential a rotation replaced: refused already (an overlap of 0), or until when it still works. */
function replacedLine(r: NonNullable<CredentialShown['replaced']>): Html {
  return new Date(r.endsAt).getTime() <= Date.now()
    ? html`<p>The credential it replaces, <code>${r.id}</code>, is refused since ${when(r.endsAt)}: the agent needs this one now.</p>`
    : html`<p>The credential it replaces, <code>${r.id}</code>, works until ${when(r.endsAt)} and is refused after.</p>`
}

export function credentialShownPage(opts: CredentialShown & { session: ConsoleSession }): Html {
  return layout({
    title: opts.heading,
    session: opts.session,
    section: 'agents',
    body: html`<h1>${opts.heading}</h1>
<div class="panel notice" role="status"${answerAttrs()}><p>This is the only time the credential is shown: copy it now and give it to the agent. If it is lost, rotate it with an overlap of 0.</p>
${opts.replaced ? replacedLine(opts.replaced) : null}</div>
${shownOnce(`Credential ${opts.credentialId} of ${opts.agentName}`, opts.credential)}
<p><a href="/console/agents/${opts.agentId}">Back to ${opts.agentName}</a></p>`,
  })
}

export function agentPage(opts: {
  session: ConsoleSession
  agent: Agent
  credentials: AgentCredential[]
  requests: ListedRequest[]
  more: boolean
  error?: string
  notice?: string
}): Html {
  const a = opts.agent
  const owner = opts.session.person.role === 'owner'
  const retired = a.retiredAt !== null
  return layout({
    title: a.name,
    session: opts.session,
    section: 'agents',
    live: 'all',
    body: html`<p><a href="/console/agents">Agents</a></p>
<h1>${a.name}</h1>
<div class="meta"><span>${ownerWords(a.owner)}</span><span>${a.id}</span>${a.retiredAt ? html`<span>retired ${when(a.retiredAt)}</span>` : null}<span>${a.lastActedAt ? html`last acted ${when(a.lastActedAt)}` : 'has not acted yet'}</span></div>
${opts.notice ? doneNotice(opts.notice) : null}
${opts.error ? html`<p class="failed" role="alert">${opts.error}</p>` : null}
${a.description ? html`<p>${a.description}</p>` : null}
${retired ? html`<div class="panel" role="status"><p>${a.name} is retired: its credentials are revoked and the gateway refuses it. Its history is kept below.</p></div>` : null}
<section class="panel" aria-labelledby="may-h"><h2 id="may-h">What it may do</h2>${mayDo(a)}
${retired ? null : html`<p class="hint">What ${a.name} may do, the data it may use, its ceilings and its risk level are the policy's: <a href="/console/policy">${owner ? 'change them' : 'an owner changes them'} on the Policy page</a>.</p>`}</section>
<section aria-labelledby="creds-h"><h2 id="creds-h">Credentials</h2>
${owner || retired ? null : html`<p class="hint">You can read this; an owner rotates credentials and retires the agent.</p>`}
${opts.credentials.length ? html`<ol class="calls">${opts.credentials.map((c) => credentialCard(c, opts.session, a.id, retired))}</ol>` : html`<p>No credential.</p>`}
</section>
${owner && !retired
  ? html`<section class="panel" aria-labelledby="retire-h"><h2 id="retire-h">Retire ${a.name}</h2>
<p>Its credentials are revoked at once and the gateway refuses it from its next request; its requests and audit entries are kept. This cannot be undone: register a new agent instead.</p>
<form method="post" action="/console/agents/${a.id}/retire" data-confirm="Retire ${a.name}? Its credentials stop working at once, and this cannot be undone."><input type="hidden" name="csrf" value="${opts.session.csrf}"><button class="danger" type="submit">Retire ${a.name}</button></form></section>`
  : null}
<section aria-labelledby="recent-h"><h2 id="recent-h">Recent requests</h2>
${
  opts.requests.length
    ? html`<ol class="inbox">${opts.requests.map((r) => html`<li>${requestCard(r, { agentLink: false, level: 3 })}</li>`)}</ol>`
    : html`<div class="panel empty" role="status"><p>${a.name} has asked nothing yet.</p></div>`
}</section>
${opts.more ? html`<nav class="pages" aria-label="Pages"><a href="/console/requests?agent=${a.id}">All of its requests</a></nav>` : null}`,
  })
}
