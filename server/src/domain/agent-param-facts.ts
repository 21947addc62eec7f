import type { FactName } from '../core/enums.ts'
import { RuleError } from '../core/errors.ts'
import { isCurrency } from '../core/money.ts'
import type { Facts } from '../schemas/agent-gateway.ts'

/**
 * Facts read from an action's params, for the standard actions whose arguments the API knows
 * (schemas/actions.ts ACTION_KIND_ARGS, the args of POST /actions):
 *
 *   ads.adjust_budget   { changePercent: 300 }      -> amountPercent 300, increase true
 *                       { changePercent: -20 }      -> amountPercent 20, increase false
 *                       { dailyBudget: { amountMinor, currency } } -> amountMinor, currency
 *   discounts.create_discount { percentOff: 30 }    -> amountPercent 30
 *
 * An agent states facts so that the gateway can judge what it asks; when it also gives the params
 * the action will run with, the params are what will happen, so the decision is judged on the facts
 * they imply (merged over the stated ones), and a stated fact that says otherwise is a
 * contradiction, denied (agent-decision.ts, the limits check) naming both. Other args (campaignId,
 * code, ...) and other actions' params are not read: they imply no fact cleanly.
 */

type Reader = (params: Record<string, unknown>) => Facts

const badParam = (path: string, what: string, value: unknown): never => {
  throw new RuleError('unreadable_param', `params.${path} must be ${what}; got ${JSON.stringify(value) ?? String(value)}. The gateway reads the facts of this action from its params.`, `params.${path}`)
}

const READERS: Record<string, Reader> = {
  'ads.adjust_budget': (p) => {
    const out: Facts = {}
    const change = p.changePercent
    if (change !== undefined) {
      if (typeof change !== 'number' || !Number.isFinite(change) || change <= -100 || change > 10_000) badParam('changePercent', 'a number above -100 and at most 10000 (15 raises by 15%, -20 lowers by 20%)', change)
      const c = change as number
      out.amountPercent = Math.abs(c)
      if (c !== 0) out.increase = c > 0
    }
    const budget = p.dailyBudget
    if (budget !== undefined) {
      const b = budget as Record<string, unknown>
      if (!b || typeof b !== 'object' || Array.isArray(b)) badParam('dailyBudget', 'an object { amountMinor, currency }', budget)
      if (typeof b.amountMinor !== 'number' || !Number.isSafeInteger(b.amountMinor) || b.amountMinor <= 0) badParam('dailyBudget.amountMinor', "a whole number above 0 in the currency's minor unit", b.amountMinor)
      if (typeof b.currency !== 'string' || !isCurrency(b.currency)) badParam('dailyBudget.currency', 'an ISO 4217 code in capitals, e.g. USD', b.currency)
      out.amountMinor = b.amountMinor as number
      out.currency = b.currency as string
    }
    return out
  },
  'discounts.create_discount': (p) => {
    const off = p.percentOff
    if (off === undefined) return {}
    if (typeof off !== 'number' || !Number.isFinite(off) || off <= 0 || off > 100) badParam('percentOff', 'a number above 0 and at most 100', off)
    return { amountPercent: off as number }
  },
}

/**
 * The facts a request is judged on: the stated facts, with those its params imply over them (for
 * the actions above; params of any other action imply nothing). A param of the right name but not of
 * its shape is refused (400, naming it): a figure the gateway cannot read is never
 * silently left out.
 */
export function judgedFactsOf(tool: string, action: string, stated: Facts, params: Record<string, unknown> | undefined): Facts {
  const read = params ? READERS[`${tool}.${action}`]?.(params) : undefined
  return read && Object.keys(read).length ? { ...stated, ...read } : stated
}

/** Where a judged fact of this tool action comes from in its params, and the param's value, in words: `params.changePercent is 300`. */
function paramWords(tool: string, action: string, fact: FactName, judged: Facts): string {
  const key = `${tool}.${action}`
  if (key === 'ads.adjust_budget') {
    if ((fact === 'amountPercent' || fact === 'increase') && judged.amountPercent !== undefined) {
      return `params.changePercent is ${judged.increase === false ? -judged.amountPercent : judged.amountPercent}`
    }
    if (fact === 'amountMinor' || fact === 'currency') return `params.dailyBudget.${fact} is ${JSON.stringify(judged[fact])}`
  }
  if (key === 'discounts.create_discount' && fact === 'amountPercent') return `params.percentOff is ${judged.amountPercent}`
  return `the params make ${fact} ${JSON.stringify(judged[fact])}`
}

/**
 * Each stated fact the params contradict, in words naming both: "facts.amountPercent is 1 but
 * params.changePercent is 300". Pure, from the stated and the judged facts alone (a recorded request
 * keeps both, never its params), so a decision replayed reads the same.
 */
export function contradictionsOf(tool: string, action: string, stated: Facts, judged: Facts): string[] {
  const out: string[] = []
  for (const fact of Object.keys(stated) as FactName[]) {
    const s = stated[fact]
    const j = judged[fact]
    if (s === undefined || j === undefined || s === j) continue
    out.push(`facts.${fact} is ${JSON.stringify(s)} but ${paramWords(tool, action, fact, judged)}`)
  }
  return out
}
