import type { Decider } from '../../core/decider.ts'
import type { InboxItem } from '../../domain/inbox.ts'
import type { Action } from '../../schemas/actions.ts'
import { type Html, html } from '../html.ts'
import { type ConsoleSession, mayDecide } from '../session-port.ts'
import { agentQuoted, agentSummary, agentText, checkWord, factList, timeLeft, when } from './describe.ts'
import { answerAttrs, layout } from './layout.ts'

/**
 * One waiting item and the decision at hand: /console/approvals/{id} and /console/actions/{id}.
 * Everything a person needs to decide is on the page; owners and approvers get Approve and Reject
 * (a rejection needs a reason, which reaches the agent); a viewer reads only. A decided item shows
 * who decided, when and why.
 */

type ApprovalItem = Extract<InboxItem, { kind: 'approval' }>

const decidedBy = (d: Decider) => (d.kind === 'person' ? d.name : `${d.name} (operator)`)

function decision(status: string, by: Decider | null, at: string | null, reason: string | null): Html {
  return html`<div class="panel notice" role="status"${answerAttrs()}><p class="status">${status}</p>
${by ? html`<p>Decided by ${decidedBy(by)}${at ? html`, ${when(at)}` : null}.</p>` : null}
${reason ? html`<p>Reason: ${reason}</p>` : null}</div>`
}

const ACTION_STATUS: Record<Action['status'], string> = {
  proposed: 'Proposed',
  approved: 'Approved; being carried out',
  applying: 'Approved; being carried out',
  applied: 'Approved and applied',
  failed: 'Approved, but carrying it out failed',
  rejected: 'Rejected',
  refused: 'Refused by the workspace\u2019s limits',
}

/**
 * A decision the console refused, with the form it came from and what was typed there: the page is
 * shown again with the refusal beside that form and the text kept in its field.
 */
export type DecisionRefused = { error: string; decision: 'approve' | 'reject' | null; reason: string }

/** The Approve and Reject forms, posting back to the item's own page with the session's CSRF token. */
function decideForms(action: string, session: ConsoleSession, refused: DecisionRefused | null): Html {
  // The refusal describes the field it is about: the note when Approve was refused, else the reason.
  const about = (decision: 'approve' | 'reject') => refused && (refused.decision ?? 'reject') === decision
  const described = (decision: 'approve' | 'reject') => (about(decision) ? html` aria-describedby="decide-error"` : null)
  const typed = (decision: 'approve' | 'reject') => (refused?.decision === decision ? refused.reason : '')
  return html`<section class="panel" aria-labelledby="decide-h">
<h2 id="decide-h">Decide</h2>
${refused ? html`<p class="failed" role="alert" id="decide-error">${refused.error}</p>` : null}
<form method="post" action="${action}" class="decide">
<input type="hidden" name="csrf" value="${session.csrf}"><input type="hidden" name="decision" value="approve">
<div><label for="approve-reason">Note (optional)</label><input id="approve-reason" name="reason" type="text" maxlength="500" value="${typed('approve')}"${described('approve')}></div>
<div><button type="submit">Approve</button></div>
</form>
<form method="post" action="${action}" class="decide">
<input type="hidden" name="csrf" value="${session.csrf}"><input type="hidden" name="decision" value="reject">
<div><label for="reject-reason">Reason for rejecting (required; the requester sees it)</label>
<textarea id="reject-reason" name="reason" required maxlength="500"${described('reject')}>${typed('reject')}</textarea></div>
<div><button type="submit" class="danger">Reject</button></div>
</form>
</section>`
}

/** A send waiting to go out: what it is, to how many, for which campaign, and who asked. */
function sendSection(send: NonNullable<ApprovalItem['send']>, requestedBy: string): Html {
  return html`<section class="panel" aria-labelledby="asked-h"><h2 id="asked-h">What exactly</h2>
<dl class="facts"><dt>email send</dt><dd><code>${send.id}</code></dd><dt>subject line</dt><dd>${send.subject}</dd><dt>recipients</dt><dd>${send.recipients.toLocaleString('en-US')}</dd>
<dt>campaign</dt><dd>${send.campaignId ? html`${send.campaignName ?? 'unnamed'} <code>${send.campaignId}</code>` : 'none'}</dd><dt>requested by</dt><dd>${requestedBy}</dd></dl>
<h3>Why it waits</h3><p>A send goes out only once a person approves it: approved, it goes to ${send.recipients.toLocaleString('en-US')} ${send.recipients === 1 ? 'recipient' : 'recipients'}.</p>
</section>`
}

export function approvalPage(opts: { session: ConsoleSession; item: ApprovalItem; now: Date; refused?: DecisionRefused | null }): Html {
  const { approval: a, asked } = opts.item
  const open = a.status === 'pending' && !a.expired
  // The time left is for what still waits: a decided item expires no more.
  const left = a.status === 'pending' ? timeLeft(a.expiresAt, opts.now) : null
  // Once decided (or expired), that is said first, under the title: it is what the person who just decided looks for.
  let settled: Html | null = null
  if (a.status !== 'pending') settled = decision(a.status === 'approved' ? 'Approved' : 'Rejected', a.decidedBy, a.decidedAt, a.decisionReason)
  else if (a.expired) settled = html`<div class="panel notice" role="status"><p>Expired without a decision; it can no longer be decided.</p></div>`
  return layout({
    title: asked?.summary ? agentQuoted(asked.summary) : a.summary,
    session: opts.session,
    section: 'inbox',
    live: a.id,
    body: html`<p><a href="/console/">Inbox</a></p>
<h1>${asked?.summary ? agentSummary(asked.summary) : a.summary}</h1>
<p class="lead">${asked ? html`${asked.agentName} asks to ${asked.tool}.${asked.action}${asked.resource ? html` on ${agentText(asked.resource)}` : null}` : html`Requested by ${a.requestedBy}`} · asked ${when(a.createdAt)}${left ? html` · <span class="expiring"${open && a.expiresAt ? html` data-expires="${a.expiresAt}"` : null}>${left}</span>` : null}</p>
${settled}
${
  asked
    ? html`<section class="panel" aria-labelledby="asked-h"><h2 id="asked-h">What exactly</h2>
<dl class="facts"><dt>agent</dt><dd>${asked.agentName}</dd><dt>tool action</dt><dd>${asked.tool}.${asked.action}</dd><dt>resource</dt><dd>${asked.resource ? agentText(asked.resource) : 'none named'}</dd></dl>
<h3>Facts</h3>${factList(asked.facts, 'Facts') ?? html`<p>None stated.</p>`}
<h3>Why it waits</h3><p>${asked.reason}</p>
<h3>Checks</h3><ul class="checks">${asked.checks.map((c) => {
  // An approval is made for a request that waits for a person: what did not pass asked for one.
  const { word, tone } = checkWord(c.passed, 'requires_approval')
  return html`<li><span class="${tone}">${word}</span> ${c.name}: ${c.detail}</li>`
})}</ul>
${asked.rules.length ? html`<h3>Rules that bit (version ${asked.rulesVersion})</h3><ul class="checks">${asked.rules.map((r) => html`<li>${r.sentence} <span class="meta">(${r.effect.replace('_', ' ')})</span></li>`)}</ul>` : null}
</section>`
    : opts.item.send
      ? sendSection(opts.item.send, a.requestedBy)
      : html`<section class="panel"><p>${a.summary}</p></section>`
}
${open && mayDecide(opts.session.person.role) ? decideForms(`/console/approvals/${a.id}`, opts.session, opts.refused ?? null) : null}
${open && !mayDecide(opts.session.person.role) ? html`<p class="hint">You can read this; an owner or approver decides it.</p>` : null}`,
  })
}

export function actionPage(opts: { session: ConsoleSession; action: Action; refused?: DecisionRefused | null }): Html {
  const a = opts.action
  const { summary, ...figures } = a.plannedEffect
  const open = a.status === 'proposed'
  return layout({
    title: summary,
    session: opts.session,
    section: 'inbox',
    live: opts.action.id,
    body: html`<p><a href="/console/">Inbox</a></p>
<h1>${summary}</h1>
<p class="lead">${a.proposedBy.name} proposes ${a.kind} · ${when(a.createdAt)}</p>
${open ? null : decision(ACTION_STATUS[a.status], a.decidedBy, a.decidedAt, a.decisionReason)}
${a.outcome ? html`<div class="panel"><p>${a.outcome.ok ? a.outcome.detail : a.outcome.error}</p></div>` : null}
<section class="panel" aria-labelledby="effect-h"><h2 id="effect-h">Planned effect</h2>
<p>${summary}</p>
${factList(figures, 'Planned effect')}
<h3>Workspace limits</h3><p>${a.limits.allowed ? 'Within the workspace\u2019s limits.' : `Refused: ${a.limits.reason}`}</p>
</section>
${open && mayDecide(opts.session.person.role) ? decideForms(`/console/actions/${a.id}`, opts.session, opts.refused ?? null) : null}
${open && !mayDecide(opts.session.person.role) ? html`<p class="hint">You can read this; an owner or approver decides it.</p>` : null}`,
  })
}
