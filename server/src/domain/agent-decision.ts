import { type CheckName, type FactName, type GatewayDecision, type MissingFacts, RISKS, type Risk } from '../core/enums.ts'
import { formatCount, formatCountOf, formatMoney, type Money } from '../core/money.ts'
import { iso } from '../core/time.ts'
import type { Check, Facts } from '../schemas/agent-gateway.ts'
import { contradictionsOf } from './agent-param-facts.ts'
import { type GatewayRule, judgeRule } from './agent-rules.ts'
import { actionVerb, dataName } from './agent-tools.ts'
import { checkWorkspaceLimits, type LimitFacts, type WorkspaceLimits } from './limits.ts'

/**
 * The gateway's decision, as a pure function of plain values: the same function decides live
 * requests (POST /agent/authorize), `policy test`, the demo's seeded history, and (its judging
 * alone, without the sentences: `decisionOf`) the backtest, so they never disagree.
 *
 * Checks run in the contract's order and every one reports: agents_enabled, tool, permission, data,
 * limits, risk, rules. A check passes, denies, or needs a person. Any denial makes the decision
 * `denied`; otherwise anything needing a person makes it `requires_approval`; otherwise `allowed`.
 * An approval a person gave for this same request lifts "needs a person" once; a rejection within
 * the approval's validity turns it into a denial; an expired or used approval lifts nothing.
 *
 * Facts not stated (`missingFacts`, the workspace's policy): with `require_approval`, a rule whose
 * every condition on what was stated holds but which reads a fact not stated, an agent's ceiling on
 * the figure an action is known to carry (ACTION_FIGURES) when the request states none of it, and a
 * workspace limit that reads a fact not stated (budget change percent, discount percent, recipients
 * of a send) each need a person, the check saying which fact was missing. With `ignore`, a condition
 * on a fact not stated does not hold and a ceiling or limit on one is not checked.
 */
export type Ceilings = { amounts?: Money[]; amountPercent?: number; recipients?: number; records?: number }

export type AgentProfile = {
  id: string
  name: string
  /** 'tool.action' keys the agent is permitted. */
  permissions: Set<string>
  dataAccess: string[]
  ceilings: Ceilings
  maxUnattendedRisk: Risk
}

export type ActionDef = { tool: string; key: string; name: string; risk: Risk; dataUsed: string[]; reversible: boolean }

/** The latest approval of this same request from this agent, as it stands now. */
export type PriorApproval =
  | { state: 'approved'; id: string; decidedBy: string; expiresAt: Date }
  | { state: 'pending'; id: string; expiresAt: Date }
  | { state: 'rejected'; id: string; decidedBy: string; decidedAt: Date; expiresAt: Date; reason?: string | null }
  | { state: 'expired'; id: string; expiresAt: Date }
  | { state: 'used'; id: string; usedAt: Date }

export type DecisionInput = {
  agent: AgentProfile
  /** Set when the workspace's stop switch is on. */
  stopped: { at: Date | null; by: string | null; reason: string | null } | null
  tool: string
  action: string
  /**
   * The asked tool's action keys, null when the workspace has no such tool: listed only when the
   * asked action is not one of them (actionDef null), so it may be left empty otherwise.
   */
  toolActions: string[] | null
  /** The workspace's tool keys: listed only when the asked tool is not one of them (toolActions null), so it may be left empty otherwise. */
  toolKeys: string[]
  actionDef: ActionDef | null
  /** The facts the decision is judged on: those stated, with those read from params over them (agent-param-facts.ts). */
  facts: Facts
  /** The facts the agent stated; one that `facts` (read from params) says otherwise about is a contradiction, denied. */
  stated: Facts
  /** What a rule, ceiling or limit reading a fact not stated does (the workspace's policy). */
  missingFacts: MissingFacts
  /** How often the agent was already allowed this tool action, by a count condition's window (24h); a window not listed counts 0. */
  allowedCounts: Record<string, number>
  /** The rules in force that could match the request (any of them; at least every one naming the asked tool action or the whole tool). */
  rules: (GatewayRule & { sentence: string })[]
  /** How many rules are in force in the workspace. */
  rulesInForce: number
  rulesVersion: number
  limits: WorkspaceLimits
  at: Date
  prior: PriorApproval | null
}

export type Verdict = {
  decision: GatewayDecision
  reason: string
  checks: Check[]
  /** The rules that decided: those that bit, and (unless one denied) those that asked a person because they read a fact not stated. */
  rules: { id: string; sentence: string; effect: GatewayRule['effect'] }[]
  /** An approval this decision uses up (allowed because a person approved this request). */
  approvalUsed: string | null
  /**
   * Whether a check needed a person (before any approval): only then does the latest approval of
   * the same request (`prior`) change the verdict, so only then must it be read.
   */
  asksPerson: boolean
  /**
   * The count windows (24h, ...) the decision read, in the order read: a rule reads its counts only
   * once every condition on the facts held, so a decision that read none holds whatever the counts
   * become (recording checks again only these: store/agent-gateway.ts).
   */
  countsRead: string[]
}

type Outcome = 'pass' | 'deny' | 'person'
/** `base`: for a check that needs a person, what it compared, without what became of any approval. */
type Judged = { name: CheckName; outcome: Outcome; detail: string; base?: string }

const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1)
const words = (xs: string[]) => (xs.length <= 1 ? (xs[0] ?? '') : `${xs.slice(0, -1).join(', ')} and ${xs.at(-1)}`)
const SEND_ACTIONS = new Set(['email.send_campaign', 'sms.send_message'])

/**
 * The figure each standard action is known to carry, as the facts that can state it (any one of
 * them states it): an agent's ceiling on one of them is read by the action, so with
 * `require_approval` a request stating none of them needs a person. A budget change is stated in
 * percent or as the new amount; an action not listed (a tool the owner added) carries no known figure.
 */
const ACTION_FIGURES = new Map<string, FactName[]>([
  ['ads.adjust_budget', ['amountPercent', 'amountMinor']],
  ['discounts.create_discount', ['amountPercent']],
  ['email.send_campaign', ['recipients']],
  ['sms.send_message', ['recipients']],
  ['contacts.export_contacts', ['records']],
])

/** The facts the workspace's limits read for an action, by its key (limits.ts): the budget change and the discount in percent, a send's recipients. */
const LIMIT_READS = new Map<string, { fact: FactName; limit: (l: WorkspaceLimits) => string }>([
  ['ads.adjust_budget', { fact: 'amountPercent', limit: (l) => `the workspace's limit on budget changes (${l.maxBudgetChangePercent}%)` }],
  ['discounts.create_discount', { fact: 'amountPercent', limit: (l) => `the workspace's limit on discounts (${l.maxDiscountPercent}%)` }],
  ...[...SEND_ACTIONS].map((key) => [key, { fact: 'recipients', limit: (l: WorkspaceLimits) => `the workspace's limit on recipients per send (${formatCount(l.maxSendRecipients)})` }] as const),
])

/** Which of the agent's ceilings the action reads that the request did not state (none when it states the action's figure in any form). */
function ceilingsMissing(agent: AgentProfile, key: string, f: Facts): FactName[] {
  const figure = ACTION_FIGURES.get(key)
  if (!figure || figure.some((fact) => f[fact] !== undefined)) return []
  const c = agent.ceilings
  return figure.filter((fact) => (fact === 'amountMinor' ? (c.amounts?.length ?? 0) > 0 : fact === 'currency' || fact === 'increase' ? false : c[fact] !== undefined))
}

/**
 * An agent's permissions in words, sorted ("ads.adjust_budget, ads.pause_campaign and ..."), made
 * once per set: a profile is kept per view (agent-decision-input.ts), so an agent refused again is
 * not sorted again (a backtest of a history with many refusals did, each time).
 */
const permittedLists = new WeakMap<Set<string>, string>()
function permittedWords(permissions: Set<string>): string {
  let text = permittedLists.get(permissions)
  if (text === undefined) {
    const has = [...permissions].sort()
    permittedLists.set(permissions, (text = has.length ? words(has) : 'no action'))
  }
  return text
}

const notStated = (facts: string[]) => `${words(facts)}, which the request did not state`

/** The workspace limits' terms for a request's facts (the shared limits module does the judging). */
function limitFactsOf(key: string, action: string, f: Facts, at: Date): LimitFacts {
  const out: LimitFacts = {}
  if (action === 'adjust_budget' && f.amountPercent !== undefined) out.budgetChangePercent = f.increase === false ? -f.amountPercent : f.amountPercent
  if (action === 'create_discount' && f.amountPercent !== undefined) out.discountPercent = f.amountPercent
  if (f.recipients !== undefined) out.recipients = f.recipients
  if (SEND_ACTIONS.has(key)) out.sendAt = at
  return out
}

/**
 * Each stated fact against the agent's ceilings: what was asked and the most it may ask for, one
 * entry each (its words only when `say`, else empty: what is over is what counts then).
 */
function ceilingComparisons(agent: AgentProfile, f: Facts, say: boolean): { ok: string[]; over: string[] } {
  const ok: string[] = []
  const over: string[] = []
  const c = agent.ceilings
  if (f.amountMinor !== undefined && f.currency) {
    const asked = say ? formatMoney({ amountMinor: f.amountMinor, currency: f.currency }) : ''
    const ceiling = c.amounts?.find((m) => m.currency === f.currency)
    if (!ceiling) {
      const has = (c.amounts ?? []).map((m) => m.currency)
      over.push(say ? `asked ${asked}, but ${agent.name} has no ceiling in ${f.currency}, so no amount in ${f.currency} passes${has.length ? ` (it has ceilings in ${words(has)})` : ''}` : '')
    } else (f.amountMinor > ceiling.amountMinor ? over : ok).push(say ? `asked ${asked}, ceiling ${formatMoney(ceiling)}` : '')
  }
  for (const [name, show] of PLAIN_CEILINGS) {
    const asked = f[name]
    const ceiling = c[name]
    if (asked === undefined || ceiling === undefined) continue
    ;(asked > ceiling ? over : ok).push(say ? `asked ${show(asked)}, ceiling ${show(ceiling)}` : '')
  }
  return { ok, over }
}

const PLAIN_CEILINGS: [keyof Ceilings & ('amountPercent' | 'recipients' | 'records'), (n: number) => string][] = [
  ['amountPercent', (n) => `${n}%`],
  ['recipients', (n) => formatCountOf(n, 'recipient', 'recipients')],
  ['records', (n) => formatCountOf(n, 'record', 'records')],
]

/** What the limits check says when it passes: within the agent's ceilings it was compared with, or why none applied. */
function withinLimits(agent: AgentProfile, facts: Facts, ok: string[]): string {
  if (ok.length) return `Within ${agent.name}'s ceilings (${ok.join('; ')}) and the workspace's limits.`
  return Object.keys(facts).some((k) => k !== 'currency' && k !== 'increase')
    ? `Within the workspace's limits; ${agent.name} has no ceiling of its own on the facts stated.`
    : `No amount, percentage, recipients or records were stated, so no ceiling of ${agent.name}'s applies; within the workspace's limits.`
}

/** Who stopped the agents, in words: `operator:maya` is `maya (operator)`, `system:growth` is `growth`; a person by their name (the store reads it). */
const stopperWords = (by: string) => by.replace(/^operator:(.+)$/s, '$1 (operator)').replace(/^system:(.+)$/s, '$1')

const inForce = (input: DecisionInput) => `${formatCount(input.rulesInForce)} rule${input.rulesInForce === 1 ? '' : 's'} in force, version ${input.rulesVersion}`

/** The gateway's decision, with every check and the decision in words. */
export function decide(input: DecisionInput): Verdict {
  return judge(input, true)
}

/**
 * The decision alone, by the same judging as `decide`, no sentence written: the backtest keeps
 * only the decision of each of its 200,000 asks (a sentence made and dropped cost it more than
 * the judging). The words of a verdict judged so are empty.
 */
export function decisionOf(input: DecisionInput): GatewayDecision {
  return judge(input, false).decision
}

/**
 * Judges the request; `say`: write what each check and the decision say. Every outcome is judged
 * alike either way: only the words are left out (empty) when not said.
 */
function judge(input: DecisionInput, say: boolean): Verdict {
  const { agent, tool, action, actionDef: def, facts, prior } = input
  const key = `${tool}.${action}`
  const unjudged = say ? `Not judged: ${key} is not a tool action of this workspace.` : ''
  const checks: Judged[] = []

  // agents_enabled: the workspace's stop switch, always first.
  const s = input.stopped
  checks.push(
    s
      ? {
          name: 'agents_enabled',
          outcome: 'deny',
          detail: say ? `The workspace's agents are stopped${s.at ? ` since ${iso(s.at)}` : ''}${s.by ? ` by ${stopperWords(s.by)}` : ''}${s.reason ? `: ${s.reason}` : ''}. Nothing is allowed until they are resumed.` : '',
        }
      : { name: 'agents_enabled', outcome: 'pass', detail: say ? "The workspace's agents are running." : '' },
  )

  // tool: the tool and the action exist in this workspace.
  const toolActions = input.toolActions
  checks.push(
    def
      ? { name: 'tool', outcome: 'pass', detail: say ? `${key} (${def.name}) is a tool action of this workspace: ${def.risk} risk, ${def.reversible ? 'can be undone' : 'cannot be undone'}.` : '' }
      : toolActions
        ? { name: 'tool', outcome: 'deny', detail: say ? `The tool ${tool} has no action ${action}; its actions are ${words(toolActions)}.` : '' }
        : { name: 'tool', outcome: 'deny', detail: say ? `${tool} is not a tool of this workspace; its tools are ${words([...input.toolKeys].sort())}.` : '' },
  )

  // permission: the agent is permitted this action.
  if (!def) checks.push({ name: 'permission', outcome: 'deny', detail: unjudged })
  else if (agent.permissions.has(key)) checks.push({ name: 'permission', outcome: 'pass', detail: say ? `${agent.name} is permitted to ${actionVerb(tool, action, def.name)} (${key}).` : '' })
  else checks.push({ name: 'permission', outcome: 'deny', detail: say ? `${agent.name} is not permitted to ${actionVerb(tool, action, def.name)} (${key}); it is permitted ${permittedWords(agent.permissions)}.` : '' })

  // data: every kind of data the action uses is data the agent may use.
  if (!def) checks.push({ name: 'data', outcome: 'deny', detail: unjudged })
  else {
    const missing = def.dataUsed.filter((d) => !agent.dataAccess.includes(d))
    const used = say ? words(def.dataUsed.map(dataName)) : ''
    checks.push(
      missing.length === 0
        ? { name: 'data', outcome: 'pass', detail: !say ? '' : def.dataUsed.length ? `${key} uses ${used}, which ${agent.name} may use.` : `${key} uses no workspace data.` }
        : {
            name: 'data',
            outcome: 'deny',
            detail: say ? `${key} uses ${used}; ${agent.name} may not use ${words(missing.map(dataName))}${agent.dataAccess.length ? ` (it may use ${words(agent.dataAccess.map(dataName))})` : ' (it may use no data)'}.` : '',
          },
    )
  }

  // limits: the facts stated against those the params make (a contradiction is denied), the
  // agent's own ceilings and the workspace's limits (the shared limits module).
  const contradictions = contradictionsOf(tool, action, input.stated, facts)
  const ceil = ceilingComparisons(agent, facts, say)
  const ws = checkWorkspaceLimits(input.limits, limitFactsOf(key, action, facts, input.at))
  const asksFacts = input.missingFacts === 'require_approval'
  const unstatedCeilings = asksFacts ? ceilingsMissing(agent, key, facts) : []
  const reads = asksFacts ? (LIMIT_READS.get(key) ?? null) : null
  const unstatedLimit = reads && facts[reads.fact] === undefined ? reads : null
  if (contradictions.length || ceil.over.length || !ws.passed) {
    const parts = !say
      ? []
      : [
          ...(contradictions.length ? [`The facts stated contradict the params: ${contradictions.join('; ')}; the params are what the action would do.`] : []),
          ...(ceil.over.length ? [`Over ${agent.name}'s ceilings: ${ceil.over.join('; ')}.`] : []),
          ...ws.reasons,
        ]
    checks.push({ name: 'limits', outcome: 'deny', detail: parts.join(' ') })
  } else if (def && (unstatedCeilings.length || unstatedLimit)) {
    const parts = !say
      ? []
      : [
          ...(unstatedCeilings.length ? [`${agent.name}'s ceiling${unstatedCeilings.length > 1 ? 's' : ''} on ${words(unstatedCeilings)} ${unstatedCeilings.length > 1 ? 'read' : 'reads'} ${notStated(unstatedCeilings)}.`] : []),
          ...(unstatedLimit ? [`${cap(unstatedLimit.limit(input.limits))} reads ${notStated([unstatedLimit.fact])}.`] : []),
        ]
    checks.push(withApproval({ name: 'limits', detail: parts.join(' ') }, prior, say))
  } else {
    checks.push({ name: 'limits', outcome: 'pass', detail: say ? withinLimits(agent, facts, ceil.ok) : '' })
  }

  // risk: above the highest risk the agent may take without a person, a person decides.
  const riskOver = !!def && RISKS.indexOf(def.risk) > RISKS.indexOf(agent.maxUnattendedRisk)
  if (!def) checks.push({ name: 'risk', outcome: 'deny', detail: unjudged })
  else {
    const base = say ? `${cap(def.risk)} risk${def.reversible ? '' : ' that cannot be undone'}; ${agent.name} may take up to ${agent.maxUnattendedRisk} risk without a person.` : ''
    checks.push(riskOver ? withApproval({ name: 'risk', detail: base }, prior, say) : { name: 'risk', outcome: 'pass', detail: base })
  }

  // rules: the owner's rules, judged against the facts and how often the agent was already allowed
  // this tool action. A rule that reads a fact not stated (every condition on what was stated
  // holding) needs a person under require_approval, whatever its effect.
  const countsRead: string[] = []
  const allowedWithin = (w: string) => {
    if (!countsRead.includes(w)) countsRead.push(w)
    return input.allowedCounts[w] ?? 0
  }
  const ruleAsk = { agentId: agent.id, tool, action, facts, allowedWithin }
  const judged = input.rules.map((r) => ({ rule: r, ...judgeRule(r, ruleAsk) }))
  const bit = judged.filter((j) => j.bites).map((j) => j.rule)
  const unstated = asksFacts ? judged.filter((j) => !j.bites && j.missing.length) : []
  const denying = bit.filter((r) => r.effect === 'deny')
  const asking = bit.filter((r) => r.effect === 'require_approval')
  if (denying.length) checks.push({ name: 'rules', outcome: 'deny', detail: say ? `${denying.map((r) => r.sentence).join(' ')} (${inForce(input)}.)` : '' })
  else if (asking.length || unstated.length) {
    const parts = say ? [...asking.map((r) => r.sentence), ...unstated.map((j) => `${j.rule.sentence} It reads ${notStated(j.missing)}.`)] : []
    checks.push(withApproval({ name: 'rules', detail: parts.join(' ') }, prior, say))
  } else checks.push({ name: 'rules', outcome: 'pass', detail: say ? `No rule applies (${inForce(input)}).` : '' })
  const applied = denying.length ? bit : [...bit, ...unstated.map((j) => j.rule)]

  const firstDeny = checks.find((c) => c.outcome === 'deny')
  const persons = checks.filter((c) => c.outcome === 'person')
  const decision: GatewayDecision = firstDeny ? 'denied' : persons.length ? 'requires_approval' : 'allowed'
  // A check that asked a person carries `base` (withApproval): only then can an approval change anything.
  const asksPerson = checks.some((c) => c.base !== undefined)
  const liftedByApproval = prior?.state === 'approved' && decision === 'allowed' && asksPerson
  const reason = !say
    ? ''
    : decision === 'denied'
      ? `Denied: ${firstDeny!.detail}`
      : decision === 'requires_approval'
        ? `Needs a person's approval: ${persons.map((c) => c.base ?? c.detail).join(' ')}${prior?.state === 'pending' ? ` Approval ${prior.id} is waiting for a person.` : ''}`
        : liftedByApproval
          ? `Allowed once: ${(prior as { decidedBy: string }).decidedBy} approved this request (${prior!.id}).`
          : `Allowed: ${agent.name} may ${actionVerb(tool, action, def?.name)} (${key}) and every check passed.`
  return {
    decision,
    reason,
    // Denied: a check that would ask a person says so, and that no approval can allow the request,
    // rather than "A person must approve it." beside a denial (which reads as if approving would help).
    checks: checks.map((c) => ({
      name: c.name,
      passed: c.outcome === 'pass',
      detail: say && decision === 'denied' && c.outcome === 'person' ? `${c.base} It would need a person's approval, but the ${firstDeny!.name} check denies the request: no approval can allow it.` : c.detail,
    })),
    rules: applied.map((r) => ({ id: r.id, sentence: r.sentence, effect: r.effect })),
    approvalUsed: liftedByApproval ? prior!.id : null,
    asksPerson,
    countsRead,
  }
}

/** A check that needs a person, as the latest approval of this same request leaves it (its words only when `say`). */
function withApproval(c: { name: CheckName; detail: string }, prior: PriorApproval | null, say: boolean): Judged {
  return { name: c.name, outcome: outcomeAfter(prior), detail: say ? afterApproval(c.detail, prior) : '', base: c.detail }
}

function outcomeAfter(prior: PriorApproval | null): Outcome {
  return prior?.state === 'approved' ? 'pass' : prior?.state === 'rejected' ? 'deny' : 'person'
}

function afterApproval(detail: string, prior: PriorApproval | null): string {
  switch (prior?.state) {
    case 'approved':
      return `${detail} Approved by ${prior.decidedBy} (${prior.id}); allowed once, until ${iso(prior.expiresAt)}.`
    case 'rejected':
      return `${detail} ${prior.decidedBy} rejected this same request (${prior.id}) at ${iso(prior.decidedAt)}${prior.reason ? `, saying: ${JSON.stringify(prior.reason)}` : ''}; the rejection stands until ${iso(prior.expiresAt)}.`
    case 'pending':
      return `${detail} Approval ${prior.id} is waiting for a person until ${iso(prior.expiresAt)}.`
    case 'expired':
      return `${detail} The earlier approval ${prior.id} expired at ${iso(prior.expiresAt)} without being used; a person must approve it again.`
    case 'used':
      return `${detail} Approval ${prior.id} was used at ${iso(prior.usedAt)}; an approval allows a request once, so a person must approve it again.`
    default:
      return `${detail} A person must approve it.`
  }
}
