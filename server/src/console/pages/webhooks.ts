import { EVENT_CATALOGUE, EVENT_TYPES } from '../../core/event-types.ts'
import type { EndpointView } from '../../domain/webhooks.ts'
import { type Html, html } from '../html.ts'
import type { ConsoleSession } from '../session-port.ts'
import { possessive, shownOnce, when } from './describe.ts'
import { answerAttrs, doneNotice, layout, unseen } from './layout.ts'

/**
 * GET /console/webhooks: the workspace's endpoints with their state, circuit and last success, and
 * (for owners) the form that adds one, with every event type of the catalogue, what its data holds
 * and a link to its schema and example in the API reference. GET /console/webhooks/{id}: one
 * endpoint, its attempts (status, error, duration), and the owner's forms: send the test event or a
 * sample of any type, change its URL and event types, rotate the secret, disable or enable. A secret is shown once, on the page that
 * answers the form that made it, with a copy button; never on a later page.
 */

type Endpoint = EndpointView

type Attempt = { deliveryId: string; eventId: string; event: string; attempt: number; statusCode: number | null; error: string | null; durationMs: number; at: string; nextAttemptAt: string | null }

/** Where the API reference shows an event type's schema and example (its renderer's anchor). */
const referenceOf = (type: string) => `/api/v1/reference#api-1/tag/events/webhook/POST/${type.replaceAll('.', '')}`

const CIRCUIT_WORDS = { closed: 'delivering', open: 'paused after failures', half_open: 'trying one delivery' } as const

function state(e: Endpoint): Html {
  if (e.status === 'disabled') return html`<span class="kind state-off">Disabled</span>`
  return html`<span class="kind ${e.circuit.state === 'closed' ? 'state-on' : 'state-warn'}">${e.circuit.state === 'closed' ? 'Enabled' : `Enabled, ${CIRCUIT_WORDS[e.circuit.state]}`}</span>`
}

function summary(e: Endpoint): Html {
  return html`<div class="meta">${state(e)}<span>${e.lastSuccessAt ? html`last success ${when(e.lastSuccessAt)}` : 'no success yet'}</span>
${e.circuit.openUntil && e.status === 'enabled' ? html`<span>next try ${when(e.circuit.openUntil)}</span>` : null}<span>added ${when(e.createdAt)}</span></div>`
}

/** The secret just made, once, with what to do with it. */
function secretOnce(secret: string, what: string): Html {
  return html`<section class="panel once" aria-labelledby="secret-h" role="status"${answerAttrs()}>
<h2 id="secret-h">${what}</h2>
<p>Give it to the receiver now: it verifies every delivery with it. It is not shown again, not even to you.</p>
${shownOnce('Signing secret', secret)}
</section>`
}

function eventChoices(checked: Set<string>): Html {
  return html`<fieldset class="events"><legend>Event types it receives (at least one)</legend>
${EVENT_TYPES.map(
  (t) => html`<div class="choice"><input type="checkbox" name="events" value="${t}" id="ev-${t}"${checked.has(t) ? html` checked` : null}>
<label for="ev-${t}"><code>${t}</code></label>
<p class="hint">${EVENT_CATALOGUE[t]} <a href="${referenceOf(t)}">Schema and example${unseen(` of ${t}`)}</a></p></div>`,
)}
</fieldset>`
}

export function webhooksPage(opts: {
  session: ConsoleSession
  endpoints: Endpoint[]
  created?: { id: string; url: string; secret: string }
  refused?: { message: string; url: string; events: string[] }
}): Html {
  const owner = opts.session.person.role === 'owner'
  const r = opts.refused
  return layout({
    title: 'Webhooks',
    session: opts.session,
    section: 'webhooks',
    body: html`<h1>Webhooks</h1>
<p class="lead">Where ${possessive(opts.session.workspace.name)} events are delivered, signed, and how each endpoint is doing.</p>
${opts.created ? html`${secretOnce(opts.created.secret, `Added ${opts.created.url}`)}<p><a href="/console/webhooks/${opts.created.id}">Send it a test event</a></p>` : null}
${
  opts.endpoints.length
    ? html`<ol class="inbox">${opts.endpoints.map(
        (e) => html`<li><article class="panel" aria-labelledby="endpoint-${e.id}">
<h2 id="endpoint-${e.id}"><a href="/console/webhooks/${e.id}">${e.url}</a></h2>
${summary(e)}
${e.status === 'disabled' && e.disabledReason ? html`<p>${e.disabledReason}</p>` : null}
<p class="hint">${e.events.join(', ')}</p>
</article></li>`,
      )}</ol>`
    : html`<div class="panel empty" role="status"><p>No endpoint yet: events are not delivered anywhere.</p></div>`
}
${
  owner
    ? html`<section class="panel" aria-labelledby="add-h"><h2 id="add-h">Add an endpoint</h2>
${r ? html`<p class="failed" role="alert" id="add-error">${r.message}</p>` : null}
<form method="post" action="/console/webhooks" class="stack"><input type="hidden" name="csrf" value="${opts.session.csrf}">
<label for="url">Its URL</label>
<input id="url" name="url" type="text" inputmode="url" required value="${r?.url ?? ''}" placeholder="https://example.com/hooks/growth"${r ? html` aria-describedby="add-error"` : null}>
<p class="hint">A public https or http address: private and local networks are refused, as the API refuses them, and checked again before every delivery.</p>
${eventChoices(new Set(r?.events ?? []))}
<button type="submit">Add the endpoint</button>
</form></section>`
    : html`<p class="hint">You can read this; an owner adds and changes endpoints.</p>`
}`,
  })
}

/** The attempts table's caption, and the name of the box it scrolls in (as the policy page's tables are named). */
const ATTEMPTS = 'Delivery attempts, newest first'

const OVERLAPS: [string, string][] = [
  ['86400', '24 hours'],
  ['3600', '1 hour'],
  ['259200', '72 hours'],
  ['0', 'none: the old secret stops now'],
]

export function webhookPage(opts: {
  session: ConsoleSession
  endpoint: Endpoint
  attempts: Attempt[]
  notice?: string
  rotated?: string
  error?: string
  /** The URL and event types form as sent, after a refusal. */
  edit?: { message: string; url: string; events: string[] }
}): Html {
  const e = opts.endpoint
  const edit = opts.edit
  const owner = opts.session.person.role === 'owner'
  const csrf = html`<input type="hidden" name="csrf" value="${opts.session.csrf}">`
  return layout({
    title: e.url,
    session: opts.session,
    section: 'webhooks',
    body: html`<p><a href="/console/webhooks">Webhooks</a></p>
<h1>${e.url}</h1>
${summary(e)}
${e.status === 'disabled' && e.disabledReason ? html`<p>${e.disabledReason}</p>` : null}
<p class="hint">${e.id} · receives ${e.events.join(', ')}</p>
${opts.error ? html`<p class="failed" role="alert">${opts.error}</p>` : null}
${opts.notice ? doneNotice(opts.notice, !opts.rotated) : null}
${opts.rotated ? secretOnce(opts.rotated, 'A new signing secret') : null}
${
  owner
    ? html`<section class="panel" aria-labelledby="test-h"><h2 id="test-h">Send a test</h2>
<form method="post" action="/console/webhooks/${e.id}/test" class="stack">${csrf}
<label for="event">Event</label>
<select id="event" name="event">${EVENT_TYPES.map((t) => html`<option value="${t}"${t === 'webhook.test' ? html` selected` : null}>${t === 'webhook.test' ? 'webhook.test (the test event)' : `${t} (a sample)`}</option>`)}</select>
<p class="hint">A sample is its type's example, signed and delivered like the real thing; it is not in the event stream.</p>
<button type="submit">Send</button></form></section>
<section class="panel" aria-labelledby="edit-h"><h2 id="edit-h">URL and event types</h2>
${edit ? html`<p class="failed" role="alert" id="edit-error">${edit.message}</p>` : null}
<details${edit ? html` open` : null}><summary>Change them</summary>
<form method="post" action="/console/webhooks/${e.id}/update" class="stack">${csrf}
<label for="url">Its URL</label>
<input id="url" name="url" type="text" inputmode="url" required value="${edit?.url ?? e.url}"${edit ? html` aria-describedby="edit-error"` : null}>
<p class="hint">Its id and signing secret stay, so the receiver verifies as before. A delivery waiting for its next attempt goes to the new URL; events already made keep going to it.</p>
${eventChoices(new Set(edit?.events ?? e.events))}
<button type="submit">Save the URL and event types</button></form></details></section>
<section class="panel" aria-labelledby="rotate-h"><h2 id="rotate-h">Signing secret</h2>
<form method="post" action="/console/webhooks/${e.id}/rotate" class="stack" data-confirm-if="overlap=0" data-confirm="Rotate the secret with no overlap? From now on deliveries are signed with the new secret alone: the receiver fails them until it has it.">${csrf}
<label for="overlap">The old secret keeps signing beside the new one for</label>
<select id="overlap" name="overlap">${OVERLAPS.map(([v, words]) => html`<option value="${v}">${words}</option>`)}</select>
<button type="submit">Rotate the secret</button></form></section>
<section class="panel" aria-labelledby="switch-h"><h2 id="switch-h">${e.status === 'enabled' ? 'Disable' : 'Enable'}</h2>
<form method="post" action="/console/webhooks/${e.id}/${e.status === 'enabled' ? 'disable' : 'enable'}" class="stack"${e.status === 'enabled' ? html` data-confirm="Disable the endpoint ${e.url}? What was queued waits until it is enabled again; events meanwhile are not sent to it."` : null}>${csrf}
<p class="hint">${e.status === 'enabled' ? 'While it is disabled nothing is sent to it: what was queued waits for Enable, and events meanwhile are not sent to it.' : 'Enabling sends what waited, and again what failed to it in the last 72 hours, oldest first, at the drain rate.'}</p>
<button type="submit"${e.status === 'enabled' ? html` class="danger"` : null}>${e.status === 'enabled' ? 'Disable the endpoint' : 'Enable the endpoint'}</button></form></section>`
    : null
}
<h2>Attempts</h2>
${
  opts.attempts.length
    ? html`<div class="scroll" tabindex="0" role="region" aria-label="${ATTEMPTS}"><table class="attempts"><caption>${ATTEMPTS}</caption><thead><tr><th scope="col">When</th><th scope="col">Event</th><th scope="col">Attempt</th><th scope="col">Answer</th><th scope="col">Took</th></tr></thead><tbody>
${opts.attempts.map(
  (a) => html`<tr><td>${when(a.at)}</td><td><code>${a.event}</code><br><span class="hint">${a.eventId}</span></td><td>${a.attempt}</td>
<td>${a.statusCode !== null && a.statusCode >= 200 && a.statusCode < 300 ? html`<span class="passed">${a.statusCode}</span>` : html`<span class="failed">${a.statusCode ?? 'no answer'}</span>`}${a.error ? html`<br>${a.error}` : null}${a.nextAttemptAt ? html`<br><span class="hint">next try ${when(a.nextAttemptAt)}</span>` : null}</td>
<td>${a.durationMs.toLocaleString('en-US')} ms</td></tr>`,
)}
</tbody></table></div>`
    : html`<div class="panel empty" role="status"><p>Nothing was sent to it yet.</p></div>`
}`,
  })
}
