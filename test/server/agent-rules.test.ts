import { describe, expect, test } from 'bun:test'
import { judgeRule, parseRuleStructure, ruleSentence, type RuleStructure, windowMs } from '../../server/src/domain/agent-rules.ts'

/** Whether the rule bites a request of any agent with these facts, none allowed before it. */
const ruleBites = (rule: Parameters<typeof judgeRule>[0], tool: string, action: string, facts: Parameters<typeof judgeRule>[1]['facts']) =>
  judgeRule(rule, { agentId: 'agt_any', tool, action, facts, allowedWithin: () => 0 }).bites

const sentence = (structure: RuleStructure, effect: 'deny' | 'require_approval' = 'require_approval') => ruleSentence({ structure, effect }, { sms: 'SMS' })

describe('agent rules as structure and sentence', () => {
  test('sentences: actions in words, several conditions, money in the currency\'s own format', () => {
    expect(sentence({ match: [{ tool: 'ads', action: 'adjust_budget' }], when: [{ fact: 'increase', op: '=', value: true }, { fact: 'amountPercent', op: '>', value: 20 }] }))
      .toBe('Ask a person before any agent raises a daily budget by more than 20%.')
    expect(sentence({ match: [{ tool: 'ads', action: 'adjust_budget' }], when: [{ fact: 'increase', op: '=', value: false }] }, 'deny')).toBe('No agent may lower a daily budget.')
    expect(sentence({ match: [{ tool: 'discounts', action: 'create_discount' }], when: [{ fact: 'amountPercent', op: '>=', value: 30 }] }, 'deny'))
      .toBe('No agent may create a discount code of at least 30%.')
    expect(sentence({ match: [{ tool: 'ads', action: 'adjust_budget' }], when: [{ fact: 'amountMinor', op: '>', value: 9_000_000, currency: 'KWD' }] }))
      .toBe('Ask a person before any agent changes a daily budget for more than 9,000.000 KWD.')
    expect(sentence({ match: [{ tool: 'email', action: 'send_campaign' }], when: [{ fact: 'recipients', op: '>', value: 10_000 }, { fact: 'currency', op: '=', value: 'JPY' }] }))
      .toBe('Ask a person before any agent sends an email campaign to more than 10,000 recipients and in JPY.')
    expect(sentence({ match: [{ tool: 'contacts', action: 'tag_contacts' }], when: [{ fact: 'increase', op: '=', value: true }] }))
      .toBe('Ask a person before any agent tags contacts when it is an increase.')
    expect(sentence({ match: [{ tool: 'sms' }], when: [] }, 'deny')).toBe('No agent may use SMS.')
  })

  test('a rule bites only on its tool actions, when every condition holds on the stated facts', () => {
    const rule = {
      id: 'rule_1',
      effect: 'deny' as const,
      structure: parseRuleStructure({ match: [{ tool: 'ads' }], when: [{ fact: 'amountMinor', op: '>', value: 1000, currency: 'USD' }, { fact: 'records', op: '<=', value: 5 }] }),
    }
    expect(ruleBites(rule, 'ads', 'adjust_budget', { amountMinor: 1001, currency: 'USD', records: 5 })).toBe(true)
    expect(ruleBites(rule, 'ads', 'pause_campaign', { amountMinor: 1001, currency: 'USD', records: 1 })).toBe(true)
    expect(ruleBites(rule, 'ads', 'adjust_budget', { amountMinor: 1001, currency: 'EUR', records: 5 })).toBe(false)
    expect(ruleBites(rule, 'ads', 'adjust_budget', { amountMinor: 1001, currency: 'USD' })).toBe(false)
    expect(ruleBites(rule, 'email', 'send_campaign', { amountMinor: 1001, currency: 'USD', records: 1 })).toBe(false)
  })

  test('a malformed structure is refused with what is wrong', () => {
    expect(() => parseRuleStructure({ tool: 'ads', action: 'adjust_budget', when: {} })).toThrow(/match/)
    expect(() => parseRuleStructure({ match: [{ tool: 'ads' }], when: [{ fact: 'budget', op: '>', value: 1 }] })).toThrow(/fact must be one of/)
    expect(() => parseRuleStructure({ match: [{ tool: 'ads' }], when: [{ fact: 'amountMinor', op: '>', value: 1 }] })).toThrow(/names its currency/)
    expect(() => parseRuleStructure({ match: [{ tool: 'ads' }], when: [{ fact: 'increase', op: '>', value: true }] })).toThrow(/increase/)
    expect(() => parseRuleStructure({ match: [{ tool: 'ads' }], when: [{ fact: 'records', op: '~', value: 1 }] })).toThrow(/op must be/)
  })
})

describe('rules naming agents and counting allowed requests', () => {
  const rule = {
    id: 'rule_2',
    effect: 'require_approval' as const,
    structure: parseRuleStructure({
      match: [{ tool: 'ads', action: 'pause_campaign' }],
      agents: ['agt_a', 'agt_b'],
      when: [{ count: 'allowed', window: '24h', op: '>=', value: 5 }, { fact: 'records', op: '>', value: 10 }],
    }),
  }
  const ask = (agentId: string, allowed: number, facts = { records: 11 }) => ({ agentId, tool: 'ads', action: 'pause_campaign', facts, allowedWithin: (w: string) => (w === '24h' ? allowed : -1) })

  test('a rule bites only the agents it names, and a count condition reads the window it names', () => {
    expect(judgeRule(rule, ask('agt_a', 5))).toEqual({ bites: true, missing: [] })
    expect(judgeRule(rule, ask('agt_b', 4))).toEqual({ bites: false, missing: [] })
    expect(judgeRule(rule, ask('agt_c', 9))).toEqual({ bites: false, missing: [] })
  })

  test('a condition on a fact not stated is missing, not false, when the rest holds', () => {
    expect(judgeRule(rule, ask('agt_a', 5, {} as never))).toEqual({ bites: false, missing: ['records'] })
    expect(judgeRule(rule, ask('agt_a', 1, {} as never))).toEqual({ bites: false, missing: [] })
  })

  test('a count is read only when no condition on a fact failed, whatever the order the rule lists them in', () => {
    const reads: string[] = []
    const counting = (agentId: string, allowed: number, facts: { records?: number }) => ({
      ...ask(agentId, allowed, facts as never),
      allowedWithin: (w: string) => (reads.push(w), allowed),
    })
    // The count is listed first; records 3 fails its condition: the count is not read.
    expect(judgeRule(rule, counting('agt_a', 9, { records: 3 }))).toEqual({ bites: false, missing: [] })
    expect(reads).toEqual([])
    // Another agent: the rule does not cover it, nothing is read.
    expect(judgeRule(rule, counting('agt_c', 9, { records: 11 }))).toEqual({ bites: false, missing: [] })
    expect(reads).toEqual([])
    // The fact holds: the count decides.
    expect(judgeRule(rule, counting('agt_a', 9, { records: 11 }))).toEqual({ bites: true, missing: [] })
    expect(judgeRule(rule, counting('agt_a', 4, { records: 11 }))).toEqual({ bites: false, missing: [] })
    // Not stated: the count is read (it decides whether the missing fact matters).
    expect(judgeRule(rule, counting('agt_a', 5, {}))).toEqual({ bites: false, missing: ['records'] })
    expect(reads).toEqual(['24h', '24h', '24h'])
  })

  test('sentences name the agents and the count', () => {
    expect(ruleSentence(rule, {}, { agt_a: 'Budget Pacer', agt_b: 'Promo Bot' })).toBe(
      'Ask a person before Budget Pacer or Promo Bot pauses a campaign when it has already been allowed to do so at least 5 times in the last 24 hours and affecting more than 10 records.',
    )
    expect(ruleSentence({ ...rule, effect: 'deny', structure: { ...rule.structure, when: [{ count: 'allowed', window: '1d', op: '>', value: 1 }] } }, {}, { agt_a: 'Budget Pacer' })).toBe(
      'Budget Pacer and agt_b may not pause a campaign when it has already been allowed to do so more than 1 time in the last 1 day.',
    )
  })

  test('a count condition is checked', () => {
    expect(() => parseRuleStructure({ match: [{ tool: 'ads' }], when: [{ count: 'allowed', window: '24x', op: '>', value: 1 }] })).toThrow(/window/)
    expect(() => parseRuleStructure({ match: [{ tool: 'ads' }], agents: [], when: [] })).toThrow(/agents/)
    expect(windowMs('30m')).toBe(1_800_000)
    expect(windowMs('7d')).toBe(604_800_000)
  })
})
