import { exponentOf, isCurrency } from '../core/money.ts'
import { RISKS } from '../core/enums.ts'
import type { AgentPolicy } from '../schemas/agent-policy.ts'

/**
 * The console's form for the common changes of a policy, turned into the document itself: the
 * policy in force (as `growth admin policy export` gives it) with one rule added or one agent's
 * permissions, risk level and ceilings changed. The document is then planned and applied like any other
 * (agent-policy-plan.ts, agent-policy-apply.ts): the form writes YAML, it decides nothing.
 * A field the form cannot read is named in the answer (a 400 page), never silently dropped.
 */

type Edit = { policy: AgentPolicy } | { refused: string }

const NUMBER = /^(0|[1-9][0-9]*)(\.[0-9]+)?$/
const WHOLE = /^(0|[1-9][0-9]*)$/
const RULE_FACTS = ['amount', 'amountPercent', 'recipients', 'records'] as const
/** The facts a rule or a ceiling reads, as the forms word them ("the change in percent is more than"). */
const FACT_WORDS = { amountPercent: 'the change in percent', recipients: 'the recipients', records: 'the records' } as const

const capitalised = (words: string) => words[0]!.toUpperCase() + words.slice(1)

/** A rule "ask a person (or deny) when FACT > VALUE" for one tool action, and optionally one agent. */
export function addRuleEdit(policy: AgentPolicy, f: URLSearchParams): Edit {
  const target = f.get('target') ?? ''
  const [tool, action] = target.split('.')
  const known = policy.tools.some((t) => t.key === tool && t.actions.some((a) => a.key === action))
  if (!tool || !action || !known) return { refused: `Choose the tool action the rule is for (got ${JSON.stringify(target.slice(0, 80))}).` }
  const effect = f.get('effect') ?? 'require_approval'
  if (effect !== 'require_approval' && effect !== 'deny') return { refused: 'The rule either asks a person or denies.' }
  const fact = f.get('fact') ?? ''
  if (!(RULE_FACTS as readonly string[]).includes(fact)) return { refused: `Choose what the rule reads: ${RULE_FACTS.join(', ')} (got ${JSON.stringify(fact.slice(0, 40))}).` }
  const raw = (f.get('value') ?? '').trim()
  let condition: NonNullable<NonNullable<AgentPolicy['rules']>[number]['when']>[number]
  if (fact === 'amount') {
    const currency = (f.get('currency') ?? '').trim().toUpperCase()
    if (!isCurrency(currency)) return { refused: `The amount needs a currency, an ISO 4217 code such as USD (got ${JSON.stringify(currency.slice(0, 10))}).` }
    const exp = exponentOf(currency)
    const m = NUMBER.exec(raw)
    if (!m || (m[2] ?? '').length - 1 > exp) return { refused: `The amount must be a number in ${currency} with at most ${exp} decimals, e.g. 500${exp ? '.00' : ''} (got ${JSON.stringify(raw.slice(0, 40))}).` }
    const minor = Math.round(Number(raw) * 10 ** exp)
    condition = { fact: 'amountMinor', op: '>', value: minor, currency } as typeof condition
  } else {
    if (!(fact === 'amountPercent' ? NUMBER : WHOLE).test(raw)) return { refused: `${capitalised(FACT_WORDS[fact as keyof typeof FACT_WORDS])} must be ${fact === 'amountPercent' ? 'a number' : 'a whole number'} of 0 or more (got ${JSON.stringify(raw.slice(0, 40))}).` }
    condition = { fact, op: '>', value: Number(raw) } as typeof condition
  }
  const agent = (f.get('agent') ?? '').trim()
  if (agent && !policy.agents?.some((a) => a.agent === agent)) return { refused: `No agent ${JSON.stringify(agent.slice(0, 80))} in this policy; choose one of the list or every agent.` }
  const rule = { effect, match: [{ tool, action }], ...(agent ? { agents: [agent] } : {}), when: [condition] } as NonNullable<AgentPolicy['rules']>[number]
  return { policy: { ...policy, rules: [...(policy.rules ?? []), rule] } }
}

/**
 * The tool actions ticked in an agent's form, in the policy's order; refused when one is not the
 * policy's. With its `dataAccess` written out (narrowed), the data an action newly allowed uses is
 * added to it, so that the agent is not denied the action it was just given; the plan says so.
 */
function permissionsEdit(policy: AgentPolicy, was: NonNullable<AgentPolicy['agents']>[number], f: URLSearchParams): { allow: string[]; dataAccess?: string[] } | { refused: string } {
  const ticked = new Set(f.getAll('allow'))
  const known = policy.tools.flatMap((t) => t.actions.map((a) => ({ key: `${t.key}.${a.key}`, dataUsed: a.dataUsed })))
  const unknown = [...ticked].find((k) => !known.some((a) => a.key === k))
  if (unknown !== undefined) return { refused: `${was.agent} may ask only for a tool action of the policy (got ${JSON.stringify(unknown.slice(0, 80))}).` }
  const allow = known.filter((a) => ticked.has(a.key)).map((a) => a.key)
  if (!was.dataAccess) return { allow }
  const added = known.filter((a) => ticked.has(a.key) && !was.allow.includes(a.key)).flatMap((a) => a.dataUsed)
  return { allow, dataAccess: [...new Set([...was.dataAccess, ...added])] }
}

/**
 * One agent's permissions (when the form showed them: `permissions=shown`), maxUnattendedRisk and
 * its own ceilings (a field left empty: no ceiling of its own on it).
 */
export function agentEdit(policy: AgentPolicy, f: URLSearchParams): Edit {
  const name = f.get('agent') ?? ''
  const agents = policy.agents ?? []
  const i = agents.findIndex((a) => a.agent === name)
  if (i < 0) return { refused: `Choose an agent of the policy (got ${JSON.stringify(name.slice(0, 80))}).` }
  const permissions: ReturnType<typeof permissionsEdit> | Record<string, never> = f.get('permissions') === 'shown' ? permissionsEdit(policy, agents[i]!, f) : {}
  if ('refused' in permissions) return { refused: permissions.refused }
  const risk = f.get('maxUnattendedRisk') ?? ''
  if (!(RISKS as readonly string[]).includes(risk)) return { refused: `maxUnattendedRisk must be one of ${RISKS.join(', ')} (got ${JSON.stringify(risk.slice(0, 20))}).` }
  const was = agents[i]!
  const ceilings: Record<string, unknown> = { ...(was.ceilings?.amountMinor ? { amountMinor: was.ceilings.amountMinor } : {}) }
  for (const key of ['amountPercent', 'recipients', 'records'] as const) {
    const raw = (f.get(key) ?? '').trim()
    if (!raw) continue
    if (!(key === 'amountPercent' ? NUMBER : WHOLE).test(raw)) return { refused: `${name}'s ceiling on ${FACT_WORDS[key]} must be ${key === 'amountPercent' ? 'a number' : 'a whole number'} of 0 or more, or empty for none (got ${JSON.stringify(raw.slice(0, 40))}).` }
    ceilings[key] = Number(raw)
  }
  const { ceilings: _old, ...rest } = was
  const next = { ...rest, ...permissions, maxUnattendedRisk: risk, ...(Object.keys(ceilings).length ? { ceilings } : {}) } as typeof was
  return { policy: { ...policy, agents: agents.map((a, k) => (k === i ? next : a)) } }
}
