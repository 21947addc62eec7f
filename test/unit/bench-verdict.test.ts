import { describe, expect, test } from 'bun:test'
import { medianInterval, verdict } from '../bench/support.ts'

/**
 * How a benchmark judges an aim from its rounds (test/bench/support.ts): the distribution-free
 * interval of the median, from the rounds' order statistics, as tables of it give (for 8 rounds the
 * 2nd and 7th smallest, about 93%; for 20 the 6th and 15th, about 96%).
 */
describe("a benchmark's verdict", () => {
  const shuffled = (n: number) => Array.from({ length: n }, (_, i) => ((i * 7) % n) + 1)

  test('the interval of the median is the order statistics that keep each tail at most 5%', () => {
    expect(medianInterval(shuffled(8))).toEqual({ low: 2, high: 7, confidence: 1 - 2 * (9 / 256) })
    const twenty = medianInterval(shuffled(20))
    expect([twenty.low, twenty.high]).toEqual([6, 15])
    expect(twenty.confidence).toBeCloseTo(0.9586, 4)
    // Too few rounds for 5% a tail: the smallest to the largest, with what confidence that has.
    expect(medianInterval([3, 1, 4, 2])).toEqual({ low: 1, high: 4, confidence: 0.875 })
  })

  test('met above the aim, not met below it, not settled when the interval holds it', () => {
    expect(verdict([0.97, 0.98, 0.99, 0.96, 0.955, 1.0, 0.97, 0.96], 0.95).word).toBe('met')
    expect(verdict([0.7, 0.65, 0.66, 0.6, 0.94, 0.62, 0.64, 0.66], 0.95).word).toBe('NOT met')
    const unsettled = verdict([0.879, 1.052, 0.923, 0.914, 1.084, 1.057, 0.978, 1.027], 0.95)
    expect(unsettled.word).toBe('not settled')
    expect(unsettled.text).toBe('median 100.3% of 8 rounds (93% interval of the median 91.4% to 105.7%): the interval holds the aim; more rounds (BENCH_ROUNDS) would tell')
  })
})
