import type { TimePosition } from '../../core/paging.ts'
import type { RequestLogEntry } from '../../schemas/request-log.ts'
import { type Html, html } from '../html.ts'
import type { ConsoleSession } from '../session-port.ts'
import { possessive, queryOf, when } from './describe.ts'
import { positionParam } from './inbox.ts'
import { layout } from './layout.ts'

/**
 * GET /console/logs: the request log of GET /api/v1/logs (the workspace's calls of the last 7 days,
 * newest first), filtered by status, operation and credential; each call opens to what refused it
 * (the error's code and message) and its request id, the one the caller's answer carried.
 */
export type LogFilter = { status?: string; operation?: string; credentialId?: string }

const logsQuery = (filter: LogFilter, after?: TimePosition) =>
  queryOf({ status: filter.status, operation: filter.operation, credential: filter.credentialId, after: after && positionParam(after) })

function call(e: RequestLogEntry): Html {
  const refused = e.status >= 400
  return html`<li><details${refused ? html` class="refused"` : null}>
<summary><span class="status">${e.status}</span> ${e.operation} <code>${e.method} ${e.path}</code> · ${when(e.createdAt)}</summary>
<dl class="facts">
<dt>Request id</dt><dd><code>${e.id}</code></dd>
${refused ? html`<dt>Refused with</dt><dd><code>${e.code ?? 'no code'}</code>: ${e.message ?? 'no message'}</dd>` : null}
<dt>Credential</dt><dd><a href="/console/logs?credential=${e.credential.id}"><code>${e.credential.id}</code></a> (${e.credential.kind}, ending ${e.credential.last4})</dd>
<dt>Duration</dt><dd>${e.durationMs} ms</dd>
${e.idempotencyKey ? html`<dt>Idempotency-Key</dt><dd><code>${e.idempotencyKey}</code>${e.replayed ? ' (a replay of the first answer)' : null}</dd>` : null}
</dl></details></li>`
}

/** A filter the log could not take: which field, and what to write instead. */
export type FilterRefusal = { field: 'status' | 'operation' | 'credential' | 'after'; message: string }

export function logsPage(opts: { session: ConsoleSession; calls: RequestLogEntry[]; next: TimePosition | null; filter: LogFilter; refused?: FilterRefusal }): Html {
  const f = opts.filter
  // A refused filter: the form as typed, the field marked and pointing at the reason, and no list.
  const marked = (field: FilterRefusal['field']) => (opts.refused?.field === field ? html` aria-invalid="true" aria-describedby="filter-error"` : null)
  const list = opts.refused
    ? null
    : html`${opts.calls.length ? html`<ol class="calls">${opts.calls.map(call)}</ol>` : html`<div class="panel empty" role="status"><p>No call ${f.status || f.operation || f.credentialId ? 'matches this filter' : 'in the last 7 days'}.</p></div>`}
${opts.next ? html`<nav class="pages" aria-label="Pages"><a href="/console/logs${logsQuery(f, opts.next)}">Older calls</a></nav>` : null}`
  return layout({
    title: 'Request log',
    session: opts.session,
    section: 'logs',
    body: html`<h1>Request log</h1>
<p class="lead">Every call ${possessive(opts.session.workspace.name)} credentials made in the last 7 days, refusals included, newest first. Open a call for what refused it and its request id.</p>
<form class="filters panel" method="get" action="/console/logs">
${opts.refused ? html`<p class="failed" role="alert" id="filter-error">${opts.refused.message} Correct it, or empty the field, and show again.</p>` : null}
<label>Status <input type="text" name="status" value="${f.status ?? ''}" placeholder="4xx, 429…" size="6"${marked('status')}></label>
<label>Operation <input type="text" name="operation" value="${f.operation ?? ''}" placeholder="createExperiment" size="18"${marked('operation')}></label>
<label>Credential <input type="text" name="credential" value="${f.credentialId ?? ''}" placeholder="cred_…" size="30"${marked('credential')}></label>
<button type="submit">Show</button>
</form>
${list}`,
  })
}
