import { canonicalJson } from '../core/canonical-json.ts'
import type { DocumentPath } from './document-fields.ts'
import type { PolicyRuleModel } from './agent-policy-model.ts'
import { type Condition, isCount } from './agent-rules.ts'

/**
 * What the schema cannot see in a policy's rules, found before anything is applied: a rule that can
 * never match (its conditions cannot all hold), a count condition that always holds (it limits
 * nothing, so it is not what was meant), and two rules that say the same thing of the same requests
 * (given twice) or opposite things (one denies, the other asks a person). Only what is certainly
 * wrong is refused: facts are stated by agents for any action, so a condition on a fact is never
 * refused for the action it is written for, nor `>= 0` on a fact (it holds only for a request that states the fact).
 */

/** A problem of rule `rule` (by its index); `other`: the earlier rule it collides with, named `{other}` in the message. */
type RuleConflict = { rule: number; other?: number; path: DocumentPath; message: string }

type Bound = { v: number; incl: boolean }
type Interval = { lo: Bound; hi: Bound | null }

/** Facts (and counts) that are whole numbers: `> 5 and < 6` holds for none of them. */
const WHOLE = new Set(['amountMinor', 'recipients', 'records', 'count'])

const condText = (c: Condition) =>
  isCount(c) ? `count in ${c.window} ${c.op} ${c.value}` : `${c.fact} ${c.op} ${c.value}${'currency' in c ? ` ${c.currency}` : ''}`

function narrow(i: Interval, op: string, value: number, whole: boolean): Interval {
  let lo = i.lo
  let hi = i.hi
  const tighterLo = (b: Bound) => (b.v > lo.v || (b.v === lo.v && !b.incl) ? b : lo)
  const tighterHi = (b: Bound) => (hi === null || b.v < hi.v || (b.v === hi.v && !b.incl) ? b : hi)
  if (op === '>' || op === '>=' || op === '=') lo = tighterLo({ v: value, incl: op !== '>' })
  if (op === '<' || op === '<=' || op === '=') hi = tighterHi({ v: value, incl: op !== '<' })
  if (whole) {
    // On whole numbers, open bounds and fractions close in to the nearest whole number inside.
    lo = { v: lo.incl ? Math.ceil(lo.v) : Math.floor(lo.v) + 1, incl: true }
    if (hi) hi = { v: hi.incl ? Math.floor(hi.v) : Math.ceil(hi.v) - 1, incl: true }
  }
  return { lo, hi }
}

const empty = (i: Interval) => i.hi !== null && (i.lo.v > i.hi.v || (i.lo.v === i.hi.v && !(i.lo.incl && i.hi.incl)))

/** The first condition of `when` after which the conditions can no longer all hold, and why. */
function neverHolds(when: Condition[]): { at: number; why: string } | undefined {
  const ranges = new Map<string, Interval>()
  const texts = new Map<string, string[]>()
  let currency: { value: string; text: string } | undefined
  let increase: { value: boolean; text: string } | undefined
  for (const [j, c] of when.entries()) {
    const text = condText(c)
    if (!isCount(c) && c.fact === 'increase') {
      if (increase && increase.value !== c.value) return { at: j, why: `${increase.text} and ${text} cannot both hold` }
      increase = { value: c.value, text }
      continue
    }
    // An amount is compared only in its own currency: amounts in two currencies, or an amount in one and currency = another, never hold together.
    const money = !isCount(c) && c.fact === 'currency' ? c.value : !isCount(c) && c.fact === 'amountMinor' ? c.currency : undefined
    if (money !== undefined) {
      if (currency && currency.value !== money) return { at: j, why: `${currency.text} and ${text} cannot both hold (a request states one currency)` }
      currency ??= { value: money, text }
      if (!isCount(c) && c.fact === 'currency') continue
    }
    const key = isCount(c) ? `count:${c.window}` : c.fact
    const whole = WHOLE.has(isCount(c) ? 'count' : c.fact)
    const before = ranges.get(key) ?? { lo: { v: 0, incl: true }, hi: null }
    const after = narrow(before, c.op, c.value as number, whole)
    const seen = [...(texts.get(key) ?? []), text]
    texts.set(key, seen)
    ranges.set(key, after)
    if (empty(after)) {
      const why = seen.length > 1 ? `${seen.join(' and ')} cannot all hold` : `${text} never holds (${isCount(c) ? 'a count' : c.fact} is ${whole ? 'a whole number ' : ''}at least 0)`
      return { at: j, why }
    }
  }
  return undefined
}

/** The rule's meaning without its id and order: its match, agents and conditions as sets. */
function shapeOf(r: PolicyRuleModel): string {
  const sorted = (xs: unknown[]) => xs.map((x) => canonicalJson(x)).sort()
  return canonicalJson({ match: sorted(r.structure.match), agents: r.structure.agents ? sorted(r.structure.agents) : null, when: sorted(r.structure.when) })
}

/** Every rule that can never match, and every rule that repeats or contradicts an earlier one. */
export function ruleConflicts(rules: PolicyRuleModel[]): RuleConflict[] {
  const found: RuleConflict[] = []
  const shapes = new Map<string, number>()
  rules.forEach((r, i) => {
    const never = neverHolds(r.structure.when)
    if (never) found.push({ rule: i, path: ['when', never.at], message: `the rule can never match: ${never.why}` })
    r.structure.when.forEach((c, j) => {
      // A count is known for every request and never below 0: `>= 0` holds for each, so it limits nothing.
      if (isCount(c) && c.op === '>=' && c.value === 0) {
        found.push({ rule: i, path: ['when', j], message: `${condText(c)} always holds (a count is never below 0), so it limits nothing: leave the condition out, or write op: '>' to match only once one request was allowed in the window` })
      }
    })
    const shape = shapeOf(r)
    const other = shapes.get(shape)
    if (other === undefined) return void shapes.set(shape, i)
    const same = rules[other]!.effect === r.effect
    found.push({
      rule: i,
      other,
      path: [],
      message: same
        ? 'the same rule as {other}: the same match, agents and conditions and effect; give it once'
        : `contradicts {other}: the same match, agents and conditions, but one denies and the other asks a person; keep one`,
    })
  })
  return found
}
