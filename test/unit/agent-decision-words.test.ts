import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { RISKS } from '../../server/src/core/enums.ts'
import { type DecisionInput, decide, decisionOf, type PriorApproval } from '../../server/src/domain/agent-decision.ts'
import type { Condition, GatewayRule } from '../../server/src/domain/agent-rules.ts'

/**
 * The backtest asks `decisionOf` (the decision alone, no sentence written) and the gateway and
 * `policy test` ask `decide`: one judging, the words left out of the first. Whatever the input, the
 * two must decide alike; a judgement moved by mistake into a sentence's branch would show here.
 */
const TOOLS: Record<string, string[]> = { ads: ['adjust_budget', 'pause_campaign'], email: ['send_campaign'], github: ['create_issue'] }
const AGENTS = ['agt_a', 'agt_b']
const at = new Date('2026-11-20T14:02:00Z')

const op = fc.constantFrom('>' as const, '>=' as const, '<' as const, '<=' as const, '=' as const)
const condition: fc.Arbitrary<Condition> = fc.oneof(
  fc.record({ fact: fc.constantFrom('amountPercent' as const, 'recipients' as const, 'records' as const), op, value: fc.integer({ min: 0, max: 200 }) }),
  fc.record({ fact: fc.constant('amountMinor' as const), op, value: fc.integer({ min: 0, max: 100_000 }), currency: fc.constantFrom('USD', 'EUR') }),
  fc.record({ fact: fc.constant('increase' as const), op: fc.constant('=' as const), value: fc.boolean() }),
  fc.record({ count: fc.constant('allowed' as const), window: fc.constantFrom('30m', '24h'), op, value: fc.integer({ min: 0, max: 10 }) }),
)
const toolAction = fc.constantFrom(...Object.entries(TOOLS).flatMap(([tool, actions]) => actions.map((action) => ({ tool, action }))))
const rule: fc.Arbitrary<GatewayRule & { sentence: string }> = fc.record({
  id: fc.constantFrom('rul_1', 'rul_2', 'rul_3'),
  effect: fc.constantFrom('deny' as const, 'require_approval' as const),
  sentence: fc.constant('A rule.'),
  structure: fc.record(
    { match: fc.array(fc.oneof(toolAction, toolAction.map(({ tool }) => ({ tool }))), { minLength: 1, maxLength: 2 }), agents: fc.subarray(AGENTS, { minLength: 1 }), when: fc.array(condition, { maxLength: 3 }) },
    { requiredKeys: ['match', 'when'] },
  ),
})
const facts = fc.record(
  {
    amountPercent: fc.integer({ min: 0, max: 200 }),
    amountMinor: fc.integer({ min: 0, max: 100_000 }),
    currency: fc.constantFrom('USD', 'EUR', 'GBP'),
    increase: fc.boolean(),
    recipients: fc.integer({ min: 0, max: 200_000 }),
    records: fc.integer({ min: 0, max: 50_000 }),
  },
  { requiredKeys: [] },
)
const prior: fc.Arbitrary<PriorApproval | null> = fc.oneof(
  fc.constant(null),
  fc.constant({ state: 'approved' as const, id: 'apv_1', decidedBy: 'maya', expiresAt: at }),
  fc.constant({ state: 'pending' as const, id: 'apv_1', expiresAt: at }),
  fc.constant({ state: 'rejected' as const, id: 'apv_1', decidedBy: 'maya', decidedAt: at, expiresAt: at, reason: 'no' }),
  fc.constant({ state: 'expired' as const, id: 'apv_1', expiresAt: at }),
  fc.constant({ state: 'used' as const, id: 'apv_1', usedAt: at }),
)

const input: fc.Arbitrary<DecisionInput> = fc
  .record({
    asked: fc.oneof({ arbitrary: toolAction, weight: 8 }, fc.constant({ tool: 'ads', action: 'no_such' }), fc.constant({ tool: 'no_such', action: 'x' })),
    agentId: fc.constantFrom(...AGENTS),
    // Mostly permitted, with the data, and running: or nearly every input would be denied early.
    permitsAsked: fc.nat(9).map((n) => n > 0),
    permitted: fc.subarray(['ads.adjust_budget', 'ads.pause_campaign', 'email.send_campaign', 'github.create_issue']),
    dataAccess: fc.oneof({ arbitrary: fc.constant(['campaigns', 'contacts', 'metrics']), weight: 4 }, { arbitrary: fc.subarray(['campaigns', 'contacts', 'metrics']), weight: 1 }),
    ceilings: fc.record(
      { amountPercent: fc.integer({ min: 0, max: 100 }), recipients: fc.integer({ min: 0, max: 100_000 }), records: fc.integer({ min: 0, max: 10_000 }), amounts: fc.array(fc.record({ amountMinor: fc.integer({ min: 0, max: 50_000 }), currency: fc.constantFrom('USD', 'EUR') }), { maxLength: 2 }) },
      { requiredKeys: [] },
    ),
    maxUnattendedRisk: fc.constantFrom(...RISKS),
    risk: fc.constantFrom(...RISKS),
    reversible: fc.boolean(),
    dataUsed: fc.subarray(['campaigns', 'contacts', 'metrics']),
    stopped: fc.nat(19).map((n) => n === 0),
    stated: facts,
    judged: fc.option(facts, { nil: undefined }),
    missingFacts: fc.constantFrom('require_approval' as const, 'ignore' as const),
    counts: fc.record({ '30m': fc.integer({ min: 0, max: 12 }), '24h': fc.integer({ min: 0, max: 12 }) }, { requiredKeys: [] }),
    rules: fc.array(rule, { maxLength: 4 }),
    quietHours: fc.boolean(),
    prior,
  })
  .map((g): DecisionInput => {
    const actions = TOOLS[g.asked.tool]
    const known = actions?.includes(g.asked.action)
    return {
      agent: { id: g.agentId, name: 'Budget Pacer', permissions: new Set([...g.permitted, ...(g.permitsAsked ? [`${g.asked.tool}.${g.asked.action}`] : [])]), dataAccess: g.dataAccess, ceilings: g.ceilings, maxUnattendedRisk: g.maxUnattendedRisk },
      stopped: g.stopped ? { at, by: 'maya', reason: 'a test' } : null,
      tool: g.asked.tool,
      action: g.asked.action,
      toolActions: actions ?? null,
      toolKeys: Object.keys(TOOLS),
      actionDef: known ? { tool: g.asked.tool, key: g.asked.action, name: 'An action', risk: g.risk, dataUsed: g.dataUsed, reversible: g.reversible } : null,
      facts: g.judged ?? g.stated,
      stated: g.stated,
      missingFacts: g.missingFacts,
      allowedCounts: g.counts,
      rules: g.rules,
      rulesInForce: g.rules.length,
      rulesVersion: 3,
      limits: { maxBudgetChangePercent: 50, maxDiscountPercent: 30, maxSendRecipients: 100_000, quietHours: g.quietHours ? { startHour: 13, endHour: 15 } : null },
      at,
      prior: g.prior,
    } as DecisionInput
  })

describe('the decision alone (the backtest) and the decision in words (the gateway)', () => {
  test('decide alike on every input; only the words are left out', () => {
    const seen = new Set<string>()
    fc.assert(
      fc.property(input, (i) => {
        const worded = decide(i)
        const alone = decisionOf(i)
        seen.add(worded.decision)
        expect(alone).toBe(worded.decision)
        // The words are there when asked for: every check says something, and so does the decision.
        expect(worded.reason.length).toBeGreaterThan(0)
        for (const c of worded.checks) expect(c.detail.length, c.name).toBeGreaterThan(0)
      }),
      { numRuns: 3000, seed: 27 },
    )
    // The inputs reach every decision, or the comparison proved little.
    expect([...seen].sort()).toEqual(['allowed', 'denied', 'requires_approval'])
  })
})
