import { expect, test } from 'bun:test'
import { HistoryCounts } from '../../server/src/domain/agent-policy-counts.ts'

/** Count conditions judged on the recorded history: the allowed requests strictly before the time asked, within the window. */
test('counts an agent\'s allowed requests of one tool action in the window before a time, the bounds excluded', () => {
  const c = new HistoryCounts()
  const t0 = Date.UTC(2026, 10, 20, 12)
  const H = 3_600_000
  for (const dt of [0, 10 * 60_000, 30 * 60_000, 30 * 60_000, H]) c.add('agt_a', 'ads', 'pause_campaign', t0 + dt)
  c.add('agt_b', 'ads', 'pause_campaign', t0 + 5 * 60_000)
  c.add('agt_a', 'ads', 'adjust_budget', t0 + 5 * 60_000)
  const at = (ms: number) => new Date(t0 + ms)
  expect(c.allowedWithin('agt_a', 'ads', 'pause_campaign', '1h', at(H))).toBe(3) // t0 is exactly 1h before: out; t0+1h is the request itself: out
  expect(c.allowedWithin('agt_a', 'ads', 'pause_campaign', '1h', at(H + 1))).toBe(4)
  expect(c.allowedWithin('agt_a', 'ads', 'pause_campaign', '24h', at(H + 1))).toBe(5)
  expect(c.allowedWithin('agt_a', 'ads', 'pause_campaign', '30m', at(30 * 60_000))).toBe(1) // t0 + 10m only
  expect(c.allowedWithin('agt_a', 'ads', 'pause_campaign', '1d', at(0))).toBe(0)
  expect(c.allowedWithin('agt_b', 'ads', 'pause_campaign', '1h', at(H))).toBe(1)
  expect(c.allowedWithin('agt_c', 'ads', 'pause_campaign', '1h', at(H))).toBe(0)
  expect(c.allowedWithin('agt_a', 'ads', 'adjust_budget', '7d', at(H))).toBe(1)
})
