import type { Db, Tx } from '../core/db.ts'
import { FACT_NAMES, type FactName, type RuleEffect } from '../core/enums.ts'
import { newId } from '../core/ids.ts'
import { formatCount, formatMoney, isCurrency } from '../core/money.ts'
import { byCreation, type Positioned, type TimePosition } from '../core/paging.ts'
import { iso } from '../core/time.ts'
import type { Facts } from '../schemas/agent-gateway.ts'
import type { Rule as RuleModel } from '../schemas/agent-rules.ts'
import * as store from '../store/agent-rules.ts'
import { selectToolNames } from '../store/agent-tools.ts'
import { wordsOf } from './agent-tools.ts'

/**
 * Rules the owner writes for the workspace's agents, kept as structure and rendered as a sentence:
 *
 *   { match: [{ tool: 'ads', action: 'adjust_budget' }],
 *     when: [{ fact: 'increase', op: '=', value: true }, { fact: 'amountPercent', op: '>', value: 20 }] }
 *   effect require_approval
 *   -> "Ask a person before any agent raises a daily budget by more than 20%."
 *
 * A rule bites a request for one of its tool actions (an action left out: every action of the
 * tool) when every condition holds for the stated facts. A condition on a fact the request does not
 * state does not hold: rules are judged against the stated facts. An amount condition names its
 * currency and holds only for amounts in that currency (money is never compared across currencies).
 */

export type Op = '>' | '>=' | '<' | '<=' | '='
type Condition =
  | { fact: 'amountMinor'; op: Op; value: number; currency: string }
  | { fact: 'amountPercent' | 'recipients' | 'records'; op: Op; value: number }
  | { fact: 'increase'; op: '='; value: boolean }
  | { fact: 'currency'; op: '='; value: string }
export type RuleStructure = { match: { tool: string; action?: string }[]; when: Condition[] }
export type GatewayRule = { id: string; structure: RuleStructure; effect: RuleEffect }

const OPS: Op[] = ['>', '>=', '<', '<=', '=']
const OP_WORDS: Record<Op, string> = { '>': 'more than', '>=': 'at least', '<': 'less than', '<=': 'at most', '=': 'exactly' }

/** Checks a structure written by hand (or read back); throws a sentence naming what is wrong. */
export function parseRuleStructure(input: unknown): RuleStructure {
  const fail = (why: string): never => {
    throw new Error(`Not a rule structure: ${why}.`)
  }
  if (!input || typeof input !== 'object') fail('expected an object with match and when')
  const { match, when } = input as Record<string, unknown>
  if (!Array.isArray(match) || match.length === 0) fail('match must list at least one { tool, action? }')
  for (const m of match as unknown[]) {
    const t = m as Record<string, unknown>
    if (!t || typeof t.tool !== 'string' || (t.action !== undefined && t.action !== null && typeof t.action !== 'string')) fail('each match is { tool, action? }')
  }
  if (!Array.isArray(when)) fail('when must be a list of conditions (empty: always)')
  for (const c of when as Condition[]) {
    if (!c || !FACT_NAMES.includes(c.fact as FactName)) fail(`a condition's fact must be one of ${FACT_NAMES.join(', ')}`)
    if (!OPS.includes(c.op)) fail(`a condition's op must be one of ${OPS.join(' ')}`)
    if (c.fact === 'increase' && (typeof c.value !== 'boolean' || c.op !== '=')) fail('increase takes op = and true or false')
    if (c.fact === 'currency' && (c.op !== '=' || typeof c.value !== 'string' || !isCurrency(c.value))) fail('currency takes op = and an ISO 4217 code')
    if (['amountMinor', 'amountPercent', 'recipients', 'records'].includes(c.fact) && (typeof c.value !== 'number' || c.value < 0)) fail(`${c.fact} takes a number >= 0`)
    if (c.fact === 'amountMinor' && (typeof c.currency !== 'string' || !isCurrency(c.currency))) fail('an amountMinor condition names its currency')
  }
  return {
    match: (match as { tool: string; action?: string | null }[]).map((m) => (m.action ? { tool: m.tool, action: m.action } : { tool: m.tool })),
    when: when as Condition[],
  }
}

function compare(x: number, op: Op, v: number): boolean {
  return op === '>' ? x > v : op === '>=' ? x >= v : op === '<' ? x < v : op === '<=' ? x <= v : x === v
}

function conditionHolds(c: Condition, f: Facts): boolean {
  switch (c.fact) {
    case 'amountMinor':
      return f.amountMinor !== undefined && f.currency === c.currency && compare(f.amountMinor, c.op, c.value)
    case 'increase':
      return f.increase === c.value
    case 'currency':
      return f.currency === c.value
    default: {
      const x = f[c.fact]
      return x !== undefined && compare(x, c.op, c.value)
    }
  }
}

function ruleMatches(s: RuleStructure, tool: string, action: string): boolean {
  return s.match.some((m) => m.tool === tool && (m.action === undefined || m.action === action))
}

/** Whether the rule bites this request. */
export function ruleBites(rule: GatewayRule, tool: string, action: string, facts: Facts): boolean {
  return ruleMatches(rule.structure, tool, action) && rule.structure.when.every((c) => conditionHolds(c, facts))
}


function conditionWords(c: Condition, percentWord: string): string | null {
  const op = OP_WORDS[c.op]
  switch (c.fact) {
    case 'amountMinor':
      return `for ${op} ${formatMoney({ amountMinor: c.value, currency: c.currency })}`
    case 'amountPercent':
      return `${percentWord} ${op} ${c.value}%`
    case 'recipients':
      return `to ${op} ${formatCount(c.value)} recipients`
    case 'records':
      return `affecting ${op} ${formatCount(c.value)} records`
    case 'currency':
      return `in ${c.value}`
    case 'increase':
      return null
  }
}

/** The action words of one match, in the right form, taking an increase/decrease condition in. */
function actionWords(m: { tool: string; action?: string }, form: 'verb' | 'does', direction: boolean | undefined, toolNames: Record<string, string>): string {
  if (!m.action) {
    const tool = toolNames[m.tool] ?? m.tool
    return form === 'verb' ? `use ${tool}` : `uses ${tool}`
  }
  const w = wordsOf(m.tool, m.action)
  if (direction === true && w.raises) return form === 'verb' ? w.raises.replace(/^raises/, 'raise') : w.raises
  if (direction === false && w.lowers) return form === 'verb' ? w.lowers.replace(/^lowers/, 'lower') : w.lowers
  return form === 'verb' ? w.verb : w.does
}

/**
 * The rule as a sentence, with money in the currency's own format:
 * "Ask a person before any agent raises a daily budget by more than 20%."
 * "No agent may export contacts affecting more than 500 records."
 */
export function ruleSentence(rule: { structure: RuleStructure; effect: RuleEffect }, toolNames: Record<string, string> = {}): string {
  const { match, when } = rule.structure
  const direction = when.find((c): c is Extract<Condition, { fact: 'increase' }> => c.fact === 'increase')?.value
  const form = rule.effect === 'deny' ? 'verb' : 'does'
  const single = match.length === 1 && match[0]!.action ? wordsOf(match[0]!.tool, match[0]!.action) : undefined
  const actions = match.map((m) => actionWords(m, form, direction, toolNames))
  const verbs = actions.length > 1 ? `${actions.slice(0, -1).join(', ')} or ${actions.at(-1)}` : actions[0]!
  const conds = when.map((c) => conditionWords(c, single?.percentWord ?? 'of')).filter((x): x is string => x !== null)
  let tail = conds.length ? ` ${conds.join(' and ')}` : ''
  if (direction !== undefined && !(single && (direction ? single.raises : single.lowers))) {
    tail += `${tail ? ',' : ''} when it is ${direction ? 'an increase' : 'a decrease'}`
  }
  return rule.effect === 'deny' ? `No agent may ${verbs}${tail}.` : `Ask a person before any agent ${verbs}${tail}.`
}

type RuleInForce = GatewayRule & { sentence: string; createdAt: Date }

/** Rules as stored, each with its sentence. */
export function rulesInForce(rows: store.RuleRow[], toolNames: Record<string, string>): RuleInForce[] {
  return rows.map((r) => {
    const structure = parseRuleStructure(r.structure)
    return { id: r.id, structure, effect: r.effect, sentence: ruleSentence({ structure, effect: r.effect }, toolNames), createdAt: r.created_at }
  })
}

/** Every rule in force, for the gateway to judge a request by. */
export async function loadRules(sql: Db, workspaceId: string, toolNames: Record<string, string>): Promise<RuleInForce[]> {
  return rulesInForce(await store.selectRules(sql, workspaceId), toolNames)
}

/** The rules in force, oldest first, each as a sentence and as the structure the gateway judges. */
export async function listRules(sql: Db, workspaceId: string, page: { after?: TimePosition; limit: number }): Promise<Positioned<RuleModel, TimePosition>[]> {
  const rows = await store.selectRules(sql, workspaceId, page)
  const tools = [...new Set(rows.flatMap((r) => parseRuleStructure(r.structure).match.map((m) => m.tool)))]
  const rules = rulesInForce(rows, await selectToolNames(sql, workspaceId, tools))
  return rules.map((r, i) => ({
    position: byCreation(rows[i]!),
    item: { id: r.id, sentence: r.sentence, effect: r.effect, structure: r.structure as RuleModel['structure'], createdAt: iso(r.createdAt) },
  }))
}

/** Rules written by the owner: checked, stored, and the workspace's rules version moves on with each. */
export async function addRules(tx: Tx, workspaceId: string, rules: { structure: unknown; effect: RuleEffect; createdAt?: Date }[]) {
  const checked = rules.map((r) => ({ id: newId('rule', r.createdAt), structure: parseRuleStructure(r.structure), effect: r.effect, createdAt: r.createdAt }))
  await store.insertRules(tx, workspaceId, checked)
  return checked.map((r) => ({ ...r, sentence: ruleSentence(r) }))
}
