import { describe, expect, test } from 'bun:test'
import { contradictionsOf, judgedFactsOf } from '../../server/src/domain/agent-param-facts.ts'

/** The facts read from an action's params (pure): what they imply, and each stated fact they contradict, in words naming both. */
describe('judgedFactsOf and contradictionsOf', () => {
  test('a budget change in percent, either way; no change has no direction', () => {
    expect(judgedFactsOf('ads', 'adjust_budget', {}, { changePercent: 300 })).toEqual({ amountPercent: 300, increase: true })
    expect(judgedFactsOf('ads', 'adjust_budget', {}, { changePercent: -20 })).toEqual({ amountPercent: 20, increase: false })
    expect(judgedFactsOf('ads', 'adjust_budget', {}, { changePercent: 0 })).toEqual({ amountPercent: 0 })
  })

  test('params over stated facts; other facts stated stay; no params or another action: the stated facts', () => {
    const stated = { amountPercent: 1, records: 3 }
    expect(judgedFactsOf('ads', 'adjust_budget', stated, { changePercent: 300, campaignId: 'cmp_x' })).toEqual({ amountPercent: 300, increase: true, records: 3 })
    expect(judgedFactsOf('ads', 'adjust_budget', stated, undefined)).toBe(stated)
    expect(judgedFactsOf('ads', 'pause_campaign', stated, { changePercent: 300 })).toBe(stated)
    expect(judgedFactsOf('github', 'create_issue', stated, { percentOff: 30 })).toBe(stated)
    expect(judgedFactsOf('discounts', 'create_discount', {}, { percentOff: 30, code: 'X' })).toEqual({ amountPercent: 30 })
    expect(judgedFactsOf('ads', 'adjust_budget', {}, { dailyBudget: { amountMinor: 500, currency: 'JPY' } })).toEqual({ amountMinor: 500, currency: 'JPY' })
  })

  test('a contradiction names the stated fact and the param it read', () => {
    const judged = judgedFactsOf('ads', 'adjust_budget', { amountPercent: 1 }, { changePercent: 300 })
    expect(contradictionsOf('ads', 'adjust_budget', { amountPercent: 1 }, judged)).toEqual(['facts.amountPercent is 1 but params.changePercent is 300'])
    const lowered = judgedFactsOf('ads', 'adjust_budget', { increase: true }, { changePercent: -5 })
    expect(contradictionsOf('ads', 'adjust_budget', { increase: true }, lowered)).toEqual(['facts.increase is true but params.changePercent is -5'])
    expect(contradictionsOf('discounts', 'create_discount', { amountPercent: 10 }, { amountPercent: 40 })).toEqual(['facts.amountPercent is 10 but params.percentOff is 40'])
    // Agreeing facts, and facts the params say nothing of, are no contradiction.
    expect(contradictionsOf('ads', 'adjust_budget', { amountPercent: 10, records: 2 }, { amountPercent: 10, increase: true, records: 2 })).toEqual([])
  })

  test('a param of a known name but not of its shape is refused, naming it', () => {
    expect(() => judgedFactsOf('ads', 'adjust_budget', {}, { changePercent: -100 })).toThrow('params.changePercent must be a number above -100')
    expect(() => judgedFactsOf('ads', 'adjust_budget', {}, { dailyBudget: 13200 })).toThrow('params.dailyBudget must be an object { amountMinor, currency }')
    expect(() => judgedFactsOf('discounts', 'create_discount', {}, { percentOff: 0 })).toThrow('params.percentOff must be a number above 0 and at most 100')
  })
})
