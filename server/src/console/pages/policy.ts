import type { PolicyPlan } from '../../domain/agent-policy-plan.ts'
import { type PolicyChange, sameRuleNotes } from '../../domain/agent-policy-changes.ts'
import { type Decider, describeDecider } from '../../core/decider.ts'
import type { Agent } from '../../schemas/agents.ts'
import { type Html, html } from '../html.ts'
import type { ConsoleSession } from '../session-port.ts'
import { when } from './describe.ts'
import { answerAt, answerAttrs, doneNotice, layout, unseen } from './layout.ts'
import { permissionChoices } from './permissions.ts'

/**
 * GET /console/policy: the workspace's agent policy in sentences (its rules as GET /agents/rules
 * says them, each agent's permissions, ceilings and risk as GET /agent/me does) and as the document
 * itself (YAML, as growth admin policy export prints it); for owners, a form for the common changes
 * and the document to edit, "Plan" (each change as a sentence and the backtest), "Apply" (exactly
 * what was planned: the document and the plan id travel in the form), the policy tests; and for
 * everyone the history of applied changes with who applied them.
 */

type AppliedEntry = { id: string; rulesVersion: number; appliedBy: Decider; appliedAt: string; changes: PolicyChange[] }
type TestRun = { passed: number; failed: number; cases: { name: string; expected: string; got: string; failing: string[]; ok: boolean }[] }

export type PolicyPageState = {
  session: ConsoleSession
  rules: { id: string; sentence: string }[]
  /** The active agents, each with the name the policy document gives it (`label`: its name, or its id when two share a name). */
  agents: (Agent & { label: string })[]
  tools: { key: string; name: string; actions: { key: string; name: string; risk: string }[] }[]
  /** The workspace's limits in sentences: not the policy's, but every request and proposed change keeps within them. */
  limits: string[]
  document: string
  /** The document as written (after a plan or a refusal): shown in the editor instead of the one in force. */
  draft?: string
  plan?: PolicyPlan
  since?: string
  error?: string
  notice?: string
  cases?: string
  tested?: TestRun
  testError?: string
  history: AppliedEntry[]
  /** What was chosen in the "Add a rule" form, after a refusal: shown chosen again. */
  ruleForm?: Partial<Record<(typeof RULE_FIELDS)[number], string>>
  /** What was sent in one agent's form, after a refusal: that agent's form open, as it was sent. */
  agentForm?: Partial<Record<(typeof AGENT_FIELDS)[number], string>> & { allow?: string[] }
}

/** The fields of the "Add a rule" form and of an agent's form, kept as sent after a refusal. */
export const RULE_FIELDS = ['effect', 'target', 'agent', 'fact', 'value', 'currency'] as const
export const AGENT_FIELDS = ['agent', 'maxUnattendedRisk', 'amountPercent', 'recipients', 'records'] as const

const MARK = { add: '+', change: '~', remove: '-' } as const
const csrfField = (s: ConsoleSession) => html`<input type="hidden" name="csrf" value="${s.csrf}">`
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`

function changeList(changes: PolicyChange[]): Html {
  return html`<ul class="sentences changes">${changes.map((c) => html`<li><span aria-hidden="true">${MARK[c.op]} </span><span class="visually-hidden">${c.op === 'add' ? 'Added' : c.op === 'change' ? 'Changed' : 'Removed'}: </span>${c.sentence}</li>`)}</ul>`
}

function tallyTable(caption: string, by: Record<string, { requests: number; changed: number; undecidable: number; [k: string]: number }>): Html | null {
  const rows = Object.entries(by)
  if (!rows.length) return null
  const transitions = (t: Record<string, number>) => Object.entries(t).filter(([k]) => k.includes('->')).map(([k, v]) => `${k.replace('->', ' \u2192 ')}: ${v}`).join(', ')
  return html`<div class="scroll" tabindex="0" role="region" aria-label="${caption}"><table><caption>${caption}</caption><thead><tr><th scope="col">${caption.startsWith('By agent') ? 'Agent' : 'Tool action'}</th><th scope="col">Requests</th><th scope="col">Would change</th><th scope="col">How</th></tr></thead>
<tbody>${rows.map(([k, t]) => html`<tr><th scope="row">${k}</th><td>${t.requests}</td><td>${t.changed}</td><td>${transitions(t) || '\u2014'}</td></tr>`)}</tbody></table></div>`
}

function planPanel(s: ConsoleSession, plan: PolicyPlan, document: string, since: string): Html {
  const b = plan.backtest
  const n = plan.changes.length
  return html`<section class="panel" aria-labelledby="plan-h"${answerAttrs('plan')}>
<h2 id="plan-h">The plan</h2>
${n
  ? html`<p class="status">${plural(n, 'change')} (rules version ${plan.rulesVersion.from} \u2192 ${plan.rulesVersion.to}):</p>${changeList(plan.changes)}${sameRuleNotes(plan.changes, 'the document this page opens with has every rule in force with its id').map((note) => html`<p class="caution">${note}</p>`)}`
  : html`<p class="status">No changes: this document is the policy in force (rules version ${plan.rulesVersion.from}).</p>`}
<h3>Backtest</h3>
${b.requests
  ? html`<p>Since ${when(b.since)}: ${plural(b.requests, 'recorded request')} decided again, ${b.changed.length} would be decided otherwise${b.undecidable ? `, ${b.undecidable} undecidable (their agent is gone)` : ''}.</p>`
  : html`<p>No request was recorded since ${when(b.since)}, so there is nothing to decide again yet. After Apply, the <a href="#tests">policy tests</a> decide cases you write under the new policy.</p>`}
${b.changed.length ? html`<ol class="sentences backtest">${b.changed.map((c) => html`<li>${c.sentence} <span class="hint">(${c.authorizationId})</span></li>`)}</ol>` : null}
${tallyTable('By agent', b.byAgent)}
${tallyTable('By tool action', b.byToolAction)}
${n
  ? html`<form method="post" action="/console/policy/apply">${csrfField(s)}
<input type="hidden" name="plan" value="${plan.planId}">
<input type="hidden" name="document" value="${document}">
<p class="hint">Apply makes exactly these changes, and only if nobody changed the policy since this plan (${plan.planId.slice(0, 17)}\u2026).</p>
<button type="submit">Apply ${plural(n, 'change')}</button></form>`
  : null}
</section>`
}

function inForce(opts: PolicyPageState): Html {
  return html`<section class="panel" aria-labelledby="force-h">
<h2 id="force-h">In force</h2>
<h3>Rules</h3>
${opts.rules.length ? html`<ul class="sentences">${opts.rules.map((r) => html`<li>${r.sentence}</li>`)}</ul>` : html`<p>No rules: the agents' permissions, ceilings and risk levels decide alone.</p>`}
<h3>Agents</h3>
${opts.agents.length
  ? html`<ul class="sentences">${opts.agents.map((a) => html`<li><strong>${a.name}</strong>: ${a.permissions.length ? a.permissions.map((p) => p.sentence).join(' ') : `${a.name} may do nothing yet.`} ${a.ceilings.sentences.join(' ')} Acts alone up to ${a.maxUnattendedRisk} risk.</li>`)}</ul>`
  : html`<p>No agent yet.</p>`}
<h3>Workspace limits</h3>
<p class="hint">Every agent's request and every proposed change keeps within them, whatever the rules and ceilings allow. They are the workspace's, not the policy's: the document does not change them.</p>
<ul class="sentences">${opts.limits.map((l) => html`<li>${l}</li>`)}</ul>
</section>`
}

function ownerForms(opts: PolicyPageState): Html {
  const s = opts.session
  const targets = opts.tools.flatMap((t) => t.actions.map((a) => `${t.key}.${a.key}`))
  // After a refusal, the form as it was sent: chosen options chosen again, the value as typed.
  const typed = opts.ruleForm ?? {}
  const option = (field: keyof typeof typed, value: string, label: Html | string) => html`<option value="${value}"${typed[field] === value ? html` selected` : null}>${label}</option>`
  const agentOptions = opts.agents.map((a) => option('agent', a.label, shown(a)))
  const facts: [string, string][] = [['amount', 'the amount is more than'], ['amountPercent', 'the change in percent is more than'], ['recipients', 'the recipients are more than'], ['records', 'the records are more than']]
  return html`<section class="panel" aria-labelledby="rule-h">
<h2 id="rule-h">Add a rule</h2>
<form class="policy" method="post" action="${answerAt('/console/policy/plan', 'plan')}">${csrfField(s)}<input type="hidden" name="edit" value="rule">
<label for="rule-effect">What happens</label>
<select id="rule-effect" name="effect">${option('effect', 'require_approval', 'Ask a person first')}${option('effect', 'deny', 'Deny')}</select>
<label for="rule-target">For the tool action</label>
<select id="rule-target" name="target">${targets.map((t) => option('target', t, t))}</select>
<label for="rule-agent">For the agent</label>
<select id="rule-agent" name="agent">${option('agent', '', 'Every agent')}${agentOptions}</select>
<label for="rule-fact">When</label>
<select id="rule-fact" name="fact">${facts.map(([v, words]) => option('fact', v, words))}</select>
<label for="rule-value">Value</label><input type="text" id="rule-value" name="value" inputmode="decimal" required value="${typed.value ?? ''}"${opts.ruleForm ? html` aria-describedby="policy-error"` : null}>
<label for="rule-currency">Currency (for an amount)</label><input type="text" id="rule-currency" name="currency" value="${typed.currency ?? 'USD'}" maxlength="3" autocomplete="off">
<button type="submit">Plan this rule</button></form>
</section>
${opts.agents.length
  ? html`<section class="panel" aria-labelledby="agent-h">
<h2 id="agent-h">Change an agent's permissions, risk level and ceilings</h2>
<p class="hint">Each form starts from the agent's values in force: change what should change, and the plan shows the rest as it is.</p>
${opts.agents.map((a, n) => agentForm(s, a, n, opts.tools, opts.agentForm?.agent === a.label ? opts.agentForm : undefined))}
</section>`
  : null}
<section class="panel" aria-labelledby="doc-h">
<h2 id="doc-h">The document</h2>
<form class="policy" method="post" action="${answerAt('/console/policy/plan', 'plan')}">${csrfField(s)}
<label for="policy-document">The whole policy (YAML or JSON), as in force: edit it and plan</label>
<textarea id="policy-document" name="document" rows="24" spellcheck="false"${opts.error ? html` aria-describedby="policy-error"` : null}>${opts.draft ?? opts.document}</textarea>
<label for="policy-since">Backtest the decisions of the last</label><select id="policy-since" name="since">${['24h', '7d', '30d'].map((v) => html`<option value="${v}"${v === (opts.since ?? '7d') ? html` selected` : null}>${v}</option>`)}</select>
<button type="submit">Plan</button></form>
</section>`
}

/**
 * A case to copy, shown in the empty cases field: one of the workspace's agents asking a tool action
 * it is not permitted, which is denied whatever the rules, limits and stop switch say, so the case
 * passes as it is copied.
 */
function exampleCase(opts: PolicyPageState): string {
  const targets = opts.tools.flatMap((t) => t.actions.map((a) => ({ tool: t.key, action: a.key })))
  for (const agent of opts.agents) {
    const may = new Set(agent.permissions.map((p) => `${p.tool}.${p.action}`))
    const other = targets.find((t) => !may.has(`${t.tool}.${t.action}`))
    if (other) return `cases:\n  - name: ${agent.label} may not ${other.tool}.${other.action}\n    agent: ${agent.label}\n    tool: ${other.tool}\n    action: ${other.action}\n    facts: {}\n    expect: denied`
  }
  return 'cases:\n  - name: what the case checks\n    agent: an agent\'s name\n    tool: ads\n    action: pause_campaign\n    facts: {}\n    expect: allowed'
}

function testsPanel(opts: PolicyPageState): Html {
  const t = opts.tested
  return html`<section class="panel" aria-labelledby="tests-h" id="tests">
<h2 id="tests-h">Policy tests</h2>
${t
  ? html`<div class="tested" role="status"${answerAttrs('tested')}><p class="status">${t.failed ? 'FAIL' : 'ok'}: ${t.passed} passed, ${t.failed} failed.</p>
<ul class="sentences">${t.cases.map((c) => html`<li class="${c.ok ? 'ok' : 'failed'}">${c.ok ? 'ok' : 'FAIL'} ${c.name}: ${c.ok ? c.got : `expected ${c.expected}, got ${c.got}`}${c.failing.length ? ` (failing: ${c.failing.join(', ')})` : ''}</li>`)}</ul></div>`
  : null}
<p class="hint">Each case an agent asking a tool action with some facts, and the decision expected (the empty field shows one to copy). Decided under the policy in force, with the workspace's limits and stop switch; nothing is recorded.</p>
${opts.testError ? html`<div class="failed" role="alert" id="tests-error"><pre>${opts.testError}</pre></div>` : null}
<form class="policy" method="post" action="${answerAt('/console/policy/test', 'tested')}">${csrfField(opts.session)}
<label for="policy-cases">Cases (YAML or JSON)</label>
<textarea id="policy-cases" name="cases" rows="8" spellcheck="false" placeholder="${exampleCase(opts)}"${opts.testError ? html` aria-describedby="tests-error"` : null}>${opts.cases ?? ''}</textarea>
<button type="submit">Run the policy tests</button></form>
</section>`
}

function historyPanel(history: AppliedEntry[]): Html {
  return html`<section class="panel" aria-labelledby="history-h">
<h2 id="history-h">Applied changes</h2>
${history.length
  ? html`<ol class="inbox">${history.map((a) => html`<li><h3>Rules version ${a.rulesVersion}, by ${describeDecider(a.appliedBy)}, ${when(a.appliedAt)}</h3>${changeList(a.changes)}</li>`)}</ol>`
  : html`<p>No policy has been applied here yet.</p>`}
</section>`
}

/** One agent's form, filled with its values in force (an empty ceiling field: none of its own). */
type PolicyAgent = PolicyPageState['agents'][number]
/** An agent as the forms show it: its name, and its id beside it when another active agent has the name. */
const shown = (a: PolicyAgent) => (a.label === a.name ? a.name : `${a.name} (${a.id})`)

function agentForm(s: ConsoleSession, a: PolicyAgent, n: number, tools: PolicyPageState['tools'], typed?: PolicyPageState['agentForm']): Html {
  // After a refusal, this agent's form open and as it was sent, pointing at the refusal; else its values in force.
  const value = (v: number | null) => (v === null ? '' : String(v))
  const sent = (key: 'maxUnattendedRisk' | 'amountPercent' | 'recipients' | 'records', inForce: string) => (typed ? (typed[key] ?? '') : inForce)
  const risk = (r: string) => html`<option value="${r}"${sent('maxUnattendedRisk', a.maxUnattendedRisk) === r ? html` selected` : null}>${r} risk</option>`
  const described = typed ? html` aria-describedby="policy-error"` : null
  const allowed = new Set(typed ? (typed.allow ?? []) : a.permissions.map((p) => `${p.tool}.${p.action}`))
  return html`<details${typed ? html` open` : null}><summary>${shown(a)}</summary>
<form class="policy" method="post" action="${answerAt('/console/policy/plan', 'plan')}">${csrfField(s)}<input type="hidden" name="edit" value="agent"><input type="hidden" name="agent" value="${a.label}"><input type="hidden" name="permissions" value="shown">
<p class="hint">What it may ask for (none ticked: every request it makes is denied).</p>
${permissionChoices(tools, allowed)}
<label for="agent-risk-${n}">Acts alone up to</label><select id="agent-risk-${n}" name="maxUnattendedRisk"${described}>${risk('low')}${risk('medium')}${risk('high')}</select>
<label for="agent-percent-${n}">Ceiling: change in percent (empty: none)</label><input type="text" id="agent-percent-${n}" name="amountPercent" inputmode="decimal" value="${sent('amountPercent', value(a.ceilings.amountPercent))}"${described}>
<label for="agent-recipients-${n}">Ceiling: recipients (empty: none)</label><input type="text" id="agent-recipients-${n}" name="recipients" inputmode="numeric" value="${sent('recipients', value(a.ceilings.recipients))}"${described}>
<label for="agent-records-${n}">Ceiling: records (empty: none)</label><input type="text" id="agent-records-${n}" name="records" inputmode="numeric" value="${sent('records', value(a.ceilings.records))}"${described}>
<button type="submit">Plan this change${unseen(` for ${shown(a)}`)}</button></form>
</details>`
}

export function policyPage(opts: PolicyPageState): Html {
  const owner = opts.session.person.role === 'owner'
  return layout({
    title: 'Policy',
    session: opts.session,
    section: 'policy',
    body: html`<h1>Policy</h1>
<p class="lead">What the agents of ${opts.session.workspace.name} may do, and the rules the gateway judges them by.</p>
${opts.notice ? doneNotice(opts.notice) : null}
${opts.error ? html`<div class="panel error" role="alert" id="policy-error"><p>Not planned or applied:</p><pre>${opts.error}</pre></div>` : null}
${opts.plan ? planPanel(opts.session, opts.plan, opts.draft ?? opts.document, opts.since ?? '7d') : null}
${inForce(opts)}
${owner
  ? ownerForms(opts)
  : html`<section class="panel" aria-labelledby="doc-h"><h2 id="doc-h">The document</h2><p class="hint">You can read the policy; an owner plans and applies changes.</p><pre class="document" tabindex="0">${opts.document}</pre></section>`}
${owner ? testsPanel(opts) : null}
${historyPanel(opts.history)}`,
  })
}
