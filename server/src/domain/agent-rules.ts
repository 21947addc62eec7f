import type { Db, Tx } from '../core/db.ts'
import { FACT_NAMES, type FactName, type RuleEffect } from '../core/enums.ts'
import { newId } from '../core/ids.ts'
import { formatCount, formatCountOf, formatMoney, isCurrency } from '../core/money.ts'
import { byCreation, type Positioned, type TimePosition } from '../core/paging.ts'
import { iso } from '../core/time.ts'
import type { Facts } from '../schemas/agent-gateway.ts'
import type { Rule as RuleModel } from '../schemas/agent-rules.ts'
import * as store from '../store/agent-rules.ts'
import { selectToolNames } from '../store/agent-tools.ts'
import { selectAgentNames } from '../store/agents.ts'
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
export type FactCondition =
  | { fact: 'amountMinor'; op: Op; value: number; currency: string }
  | { fact: 'amountPercent' | 'recipients' | 'records'; op: Op; value: number }
  | { fact: 'increase'; op: '='; value: boolean }
  | { fact: 'currency'; op: '='; value: string }
/** How often the agent was already allowed the asked tool action within `window` (30m, 24h, 7d). */
export type CountCondition = { count: 'allowed'; window: string; op: Op; value: number }
export type Condition = FactCondition | CountCondition
/**
 * A rule as stored: the tool actions it covers, the agents it applies to (their ids; absent: every
 * agent) and the conditions that must all hold.
 */
export type RuleStructure = { match: { tool: string; action?: string }[]; agents?: string[]; when: Condition[] }
export type GatewayRule = { id: string; structure: RuleStructure; effect: RuleEffect }

const WINDOW = /^([1-9][0-9]{0,3})([mhd])$/
const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const
const UNIT_WORDS = { m: 'minute', h: 'hour', d: 'day' } as const

const windows = new Map<string, number | undefined>()

/** A count condition's window (30m, 24h, 7d) in milliseconds; undefined when it is not one. Read once per text (a backtest asks per request). */
export function windowMs(window: string): number | undefined {
  if (windows.has(window)) return windows.get(window)
  const m = WINDOW.exec(window)
  const ms = m ? Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS] : undefined
  if (windows.size < 10_000) windows.set(window, ms)
  return ms
}

/** A window in words: "24 hours", "1 day". */
function windowWords(window: string): string {
  const m = WINDOW.exec(window)
  if (!m) return window
  const n = Number(m[1])
  return `${n} ${UNIT_WORDS[m[2] as keyof typeof UNIT_WORDS]}${n === 1 ? '' : 's'}`
}

export const isCount = (c: Condition): c is CountCondition => 'count' in c

const OPS: Op[] = ['>', '>=', '<', '<=', '=']
const OP_WORDS: Record<Op, string> = { '>': 'more than', '>=': 'at least', '<': 'less than', '<=': 'at most', '=': 'exactly' }

/** Checks a structure written by hand (or read back); throws a sentence naming what is wrong. */
export function parseRuleStructure(input: unknown): RuleStructure {
  const fail = (why: string): never => {
    throw new Error(`Not a rule structure: ${why}.`)
  }
  if (!input || typeof input !== 'object') fail('expected an object with match and when')
  const { match, when, agents } = input as Record<string, unknown>
  if (!Array.isArray(match) || match.length === 0) fail('match must list at least one { tool, action? }')
  if (agents !== undefined && (!Array.isArray(agents) || agents.length === 0 || agents.some((a) => typeof a !== 'string' || !a))) fail('agents, when given, lists at least one agent id')
  for (const m of match as unknown[]) {
    const t = m as Record<string, unknown>
    if (!t || typeof t.tool !== 'string' || (t.action !== undefined && t.action !== null && typeof t.action !== 'string')) fail('each match is { tool, action? }')
  }
  if (!Array.isArray(when)) fail('when must be a list of conditions (empty: always)')
  for (const c of when as Condition[]) {
    if (c && typeof c === 'object' && 'count' in c) {
      if (c.count !== 'allowed') fail("a count condition counts allowed requests (count: 'allowed')")
      if (typeof c.window !== 'string' || windowMs(c.window) === undefined) fail('a count condition has a window such as 30m, 24h or 7d')
      if (!OPS.includes(c.op)) fail(`a condition's op must be one of ${OPS.join(' ')}`)
      if (typeof c.value !== 'number' || !Number.isInteger(c.value) || c.value < 0) fail('a count condition compares with a whole number >= 0')
      continue
    }
    if (!c || !FACT_NAMES.includes(c.fact as FactName)) fail(`a condition's fact must be one of ${FACT_NAMES.join(', ')}`)
    if (!OPS.includes(c.op)) fail(`a condition's op must be one of ${OPS.join(' ')}`)
    if (c.fact === 'increase' && (typeof c.value !== 'boolean' || c.op !== '=')) fail('increase takes op = and true or false')
    if (c.fact === 'currency' && (c.op !== '=' || typeof c.value !== 'string' || !isCurrency(c.value))) fail('currency takes op = and an ISO 4217 code')
    if (['amountMinor', 'amountPercent', 'recipients', 'records'].includes(c.fact) && (typeof c.value !== 'number' || c.value < 0)) fail(`${c.fact} takes a number >= 0`)
    if (c.fact === 'amountMinor' && (typeof c.currency !== 'string' || !isCurrency(c.currency))) fail('an amountMinor condition names its currency')
  }
  return {
    match: (match as { tool: string; action?: string | null }[]).map((m) => (m.action ? { tool: m.tool, action: m.action } : { tool: m.tool })),
    ...(agents ? { agents: agents as string[] } : {}),
    when: when as Condition[],
  }
}

/** Whether a count condition holds for `n` requests already allowed in its window. */
export const countHolds = (c: CountCondition, n: number): boolean => compare(n, c.op, c.value)

function compare(x: number, op: Op, v: number): boolean {
  return op === '>' ? x > v : op === '>=' ? x >= v : op === '<' ? x < v : op === '<=' ? x <= v : x === v
}

/** A fact condition on the stated facts: holds, fails, or reads a fact not stated (`missing`). */
function factHolds(c: FactCondition, f: Facts): boolean | 'missing' {
  switch (c.fact) {
    case 'amountMinor':
      return f.amountMinor === undefined ? 'missing' : f.currency === c.currency && compare(f.amountMinor, c.op, c.value)
    case 'increase':
      return f.increase === undefined ? 'missing' : f.increase === c.value
    case 'currency':
      return f.currency === undefined ? 'missing' : f.currency === c.value
    default: {
      const x = f[c.fact]
      return x === undefined ? 'missing' : compare(x, c.op, c.value)
    }
  }
}

function ruleMatches(s: RuleStructure, tool: string, action: string): boolean {
  return s.match.some((m) => m.tool === tool && (m.action === undefined || m.action === action))
}

/**
 * One request as a rule judges it: the agent, the tool action, the stated facts, and how often the
 * agent was already allowed this tool action within a window (a count condition's).
 */
type RuleAsk = { agentId: string; tool: string; action: string; facts: Facts; allowedWithin(window: string): number }

/**
 * How a rule judges one request. `bites`: it covers the tool action and the agent, and every
 * condition holds on the stated facts and the counts. `missing`: when it covers the request and
 * every condition on what was stated holds, the facts its other conditions read that the request
 * did not state (what `missingFacts` decides about); empty otherwise.
 */
export function judgeRule(rule: GatewayRule, ask: RuleAsk): { bites: boolean; missing: FactName[] } {
  const s = rule.structure
  const none = { bites: false, missing: [] }
  if (!ruleMatches(s, ask.tool, ask.action) || (s.agents && !s.agents.includes(ask.agentId))) return none
  const missing: FactName[] = []
  // The conditions on facts first: a count is read only when none of them failed (all conditions
  // must hold, so the order changes nothing but what is read).
  for (const c of s.when) {
    if (isCount(c)) continue
    const held = factHolds(c, ask.facts)
    if (held === false) return none
    if (held === 'missing') missing.push(c.fact)
  }
  for (const c of s.when) if (isCount(c) && !compare(ask.allowedWithin(c.window), c.op, c.value)) return none
  return { bites: missing.length === 0, missing: [...new Set(missing)] }
}


function conditionWords(c: Condition, percentWord: string): string | null {
  const op = OP_WORDS[c.op]
  if (isCount(c)) return `when it has already been allowed to do so ${op} ${formatCount(c.value)} time${c.value === 1 ? '' : 's'} in the last ${windowWords(c.window)}`
  switch (c.fact) {
    case 'amountMinor':
      return `for ${op} ${formatMoney({ amountMinor: c.value, currency: c.currency })}`
    case 'amountPercent':
      return `${percentWord} ${op} ${c.value}%`
    case 'recipients':
      return `to ${op} ${formatCountOf(c.value, 'recipient', 'recipients')}`
    case 'records':
      return `affecting ${op} ${formatCountOf(c.value, 'record', 'records')}`
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
  const w = wordsOf(m.tool, m.action, toolNames[`${m.tool}.${m.action}`])
  if (direction === true && w.raises) return form === 'verb' ? w.raises.replace(/^raises/, 'raise') : w.raises
  if (direction === false && w.lowers) return form === 'verb' ? w.lowers.replace(/^lowers/, 'lower') : w.lowers
  return form === 'verb' ? w.verb : w.does
}

/**
 * The rule as a sentence, with money in the currency's own format, the agents by their names
 * (`agentNames`, by id; an id without a name stays as it is):
 * "Ask a person before any agent raises a daily budget by more than 20%."
 * "No agent may export contacts affecting more than 500 records."
 * "Budget Pacer may not pause a campaign when it has already been allowed to do so at least 5 times in the last 24 hours."
 */
export function ruleSentence(rule: { structure: RuleStructure; effect: RuleEffect }, toolNames: Record<string, string> = {}, agentNames: Record<string, string> = {}): string {
  const { match, when } = rule.structure
  const direction = when.find((c): c is Extract<FactCondition, { fact: 'increase' }> => 'fact' in c && c.fact === 'increase')?.value
  const form = rule.effect === 'deny' ? 'verb' : 'does'
  const single = match.length === 1 && match[0]!.action ? wordsOf(match[0]!.tool, match[0]!.action) : undefined
  const actions = match.map((m) => actionWords(m, form, direction, toolNames))
  const verbs = actions.length > 1 ? `${actions.slice(0, -1).join(', ')} or ${actions.at(-1)}` : actions[0]!
  const conds = when.map((c) => conditionWords(c, single?.percentWord ?? 'of')).filter((x): x is string => x !== null)
  let tail = conds.length ? ` ${conds.join(' and ')}` : ''
  if (direction !== undefined && !(single && (direction ? single.raises : single.lowers))) {
    tail += `${tail ? ',' : ''} when it is ${direction ? 'an increase' : 'a decrease'}`
  }
  const who = rule.structure.agents?.map((id) => agentNames[id] ?? id)
  if (!who) return rule.effect === 'deny' ? `No agent may ${verbs}${tail}.` : `Ask a person before any agent ${verbs}${tail}.`
  const list = (joiner: string) => (who.length > 1 ? `${who.slice(0, -1).join(', ')} ${joiner} ${who.at(-1)}` : who[0]!)
  return rule.effect === 'deny' ? `${list('and')} may not ${verbs}${tail}.` : `Ask a person before ${list('or')} ${verbs}${tail}.`
}

type RuleInForce = GatewayRule & { sentence: string; createdAt: Date }

/** Rules as stored, each with its sentence (tools and agents by their names, when given). */
export function rulesInForce(rows: store.RuleRow[], toolNames: Record<string, string>, agentNames: Record<string, string> = {}): RuleInForce[] {
  return rows.map((r) => {
    const structure = parseRuleStructure(r.structure)
    return { id: r.id, structure, effect: r.effect, sentence: ruleSentence({ structure, effect: r.effect }, toolNames, agentNames), createdAt: r.created_at }
  })
}

/** Every rule in force, for the gateway to judge a request by. */
export async function loadRules(sql: Db, workspaceId: string, toolNames: Record<string, string>): Promise<RuleInForce[]> {
  return rulesInForce(await store.selectRules(sql, workspaceId), toolNames)
}

/** The rules in force, oldest first, each as a sentence and as the structure the gateway judges. */
export async function listRules(sql: Db, workspaceId: string, page: { after?: TimePosition; limit: number }): Promise<Positioned<RuleModel, TimePosition>[]> {
  const rows = await store.selectRules(sql, workspaceId, page)
  const structures = rows.map((r) => parseRuleStructure(r.structure))
  const tools = [...new Set(structures.flatMap((s) => s.match.map((m) => m.tool)))]
  const agents = [...new Set(structures.flatMap((s) => s.agents ?? []))]
  const [toolNames, agentNames] = await Promise.all([selectToolNames(sql, workspaceId, tools), selectAgentNames(sql, workspaceId, agents)])
  const rules = rulesInForce(rows, toolNames, agentNames)
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
