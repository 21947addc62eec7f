import { describe, expect, test } from 'bun:test'
import { catalogueTools } from '../../server/src/domain/agent-tools.ts'
import { planIdOf, policyChanges } from '../../server/src/domain/agent-policy-changes.ts'
import type { ResolvedPolicy } from '../../server/src/domain/agent-policy-model.ts'
import { ruleConflicts } from '../../server/src/domain/agent-policy-rule-checks.ts'
import type { Condition } from '../../server/src/domain/agent-rules.ts'

/** The pure parts of plan: what counts as a change and how it is said, the plan id, and rules that can never match. */

const pacer = { id: 'agt_1', name: 'Budget Pacer', ceilings: {}, data_access: ['campaigns'], max_unattended_risk: 'medium' as const, permissions: [{ tool: 'ads', action: 'pause_campaign' }] }
const base = (): ResolvedPolicy => ({
  tools: catalogueTools(),
  agents: [pacer],
  missingFacts: 'require_approval',
  rules: [{ id: 'rule_1', effect: 'deny', structure: { match: [{ tool: 'ads', action: 'adjust_budget' }], when: [{ fact: 'amountPercent', op: '>', value: 20 }] } }],
})

describe('policyChanges', () => {
  test('the same policy, in another order of tools, data and permissions, is no change and the same plan id', () => {
    const a = base()
    const b = base()
    b.tools.reverse()
    b.agents = [{ ...pacer, data_access: ['campaigns'], ceilings: { amounts: [] } }]
    expect(policyChanges(a, b)).toEqual([])
    expect(planIdOf(a, 3, b)).toBe(planIdOf(b, 3, a))
    expect(planIdOf(a, 3, b)).not.toBe(planIdOf(a, 4, b))
  })

  test('an action changed, a tool renamed, ceilings, risk and missing facts, each as a sentence', () => {
    const b = base()
    const ads = b.tools.find((t) => t.key === 'ads')!
    b.tools = b.tools.map((t) =>
      t.key === 'ads' ? { ...ads, name: 'Ads', actions: ads.actions.map((x) => (x.key === 'adjust_budget' ? { ...x, risk: 'high' as const } : x)) } : t,
    )
    b.agents = [{ ...pacer, max_unattended_risk: 'low', ceilings: { amounts: [{ amountMinor: 50000, currency: 'USD' }] } }]
    b.missingFacts = 'ignore'
    expect(policyChanges(base(), b).map((c) => [c.kind, c.op, c.key, c.sentence])).toEqual([
      ['tool', 'change', 'ads', 'Changes the tool ads: name Ad accounts -> Ads.'],
      ['action', 'change', 'ads.adjust_budget', 'Changes ads.adjust_budget: risk medium -> high.'],
      ['agent', 'change', 'agt_1', "Budget Pacer's highest risk without a person: medium -> low."],
      ['agent', 'change', 'agt_1', "Budget Pacer's ceilings: No amount in any currency. -> At most 500.00 USD in one request. No amount in any other currency."],
      [
        'rule',
        'change',
        'missingFacts',
        'A fact a rule, ceiling or limit reads that a request did not state now is ignored (before: it sends the request to a person).',
      ],
    ])
  })

  test('a rule kept by id is no change; a rule changed under its id is removed and added', () => {
    const b = base()
    b.rules = [{ ...b.rules[0]!, effect: 'require_approval' }]
    expect(policyChanges(base(), b).map((c) => [c.kind, c.op, c.key, c.sentence])).toEqual([
      ['rule', 'remove', 'rule_1', 'Removes the rule: No agent may change a daily budget by more than 20%.'],
      ['rule', 'add', 'rules[0]', 'Adds the rule: Ask a person before any agent changes a daily budget by more than 20%.'],
    ])
  })
})

describe('ruleConflicts', () => {
  const rule = (when: Condition[], effect: 'deny' | 'require_approval' = 'deny', agents?: string[]) => ({
    id: null,
    effect,
    structure: { match: [{ tool: 'ads', action: 'adjust_budget' }], ...(agents ? { agents } : {}), when },
  })
  const never = (when: Condition[]) => ruleConflicts([rule(when)]).map((c) => [c.path, c.message])

  test('conditions that can hold are fine, whole-number and real facts apart', () => {
    expect(never([{ fact: 'amountPercent', op: '>', value: 5 }, { fact: 'amountPercent', op: '<', value: 6 }])).toEqual([])
    expect(never([{ count: 'allowed', window: '24h', op: '>=', value: 1 }])).toEqual([])
    expect(never([{ fact: 'recipients', op: '>=', value: 0 }])).toEqual([]) // holds only for a request that states the fact: not always
    expect(never([{ fact: 'records', op: '>=', value: 5 }, { fact: 'records', op: '<=', value: 5 }])).toEqual([])
    expect(never([{ fact: 'currency', op: '=', value: 'EUR' }, { fact: 'amountMinor', op: '>', value: 5, currency: 'EUR' }])).toEqual([])
    expect(never([{ count: 'allowed', window: '24h', op: '>', value: 5 }, { count: 'allowed', window: '1h', op: '<', value: 2 }])).toEqual([])
  })

  test('conditions that never hold name the one that closes the range', () => {
    expect(never([{ fact: 'records', op: '>', value: 5 }, { fact: 'records', op: '<', value: 6 }])).toEqual([
      [['when', 1], 'the rule can never match: records > 5 and records < 6 cannot all hold'],
    ])
    expect(never([{ fact: 'amountPercent', op: '=', value: 2.5 }, { fact: 'amountPercent', op: '>', value: 2.5 }])[0]![0]).toEqual(['when', 1])
    expect(never([{ fact: 'recipients', op: '=', value: 2.5 }])).toHaveLength(1)
    expect(never([{ fact: 'increase', op: '=', value: true }, { fact: 'increase', op: '=', value: false }])).toHaveLength(1)
    expect(never([{ fact: 'amountMinor', op: '>', value: 1, currency: 'USD' }, { fact: 'amountMinor', op: '<', value: 9, currency: 'EUR' }])).toHaveLength(1)
    expect(never([{ count: 'allowed', window: '24h', op: '<', value: 0 }])).toEqual([
      [['when', 0], 'the rule can never match: count in 24h < 0 never holds (a count is a whole number at least 0)'],
    ])
  })

  test('a count condition that always holds is named: it limits nothing', () => {
    expect(never([{ fact: 'records', op: '>', value: 5 }, { count: 'allowed', window: '24h', op: '>=', value: 0 }])).toEqual([
      [['when', 1], "count in 24h >= 0 always holds (a count is never below 0), so it limits nothing: leave the condition out, or write op: '>' to match only once one request was allowed in the window"],
    ])
  })

  test('the same rule twice, or with the other effect, is named against the earlier; other agents or conditions are not', () => {
    const when: Condition[] = [{ fact: 'records', op: '>', value: 5 }, { fact: 'amountPercent', op: '>', value: 1 }]
    const found = ruleConflicts([rule(when), rule([...when].reverse(), 'require_approval'), rule(when, 'deny', ['agt_1']), rule([when[0]!]), rule(when)])
    expect(found.map((c) => [c.rule, c.other, c.message.split(':')[0]])).toEqual([
      [1, 0, 'contradicts {other}'],
      [4, 0, 'the same rule as {other}'],
    ])
  })
})
