import { describe, expect, test } from 'bun:test'
import { checkWorkspaceLimits, inQuietHours, type WorkspaceLimits } from '../../server/src/domain/limits.ts'
import { exponentOf, formatCount, formatMoney, isCurrency } from '../../server/src/core/money.ts'

const limits: WorkspaceLimits = { maxBudgetChangePercent: 30, maxDiscountPercent: 25, maxSendRecipients: 50_000, quietHours: { startHour: 22, endHour: 7 } }

describe('workspace limits (shared by the action planner and the agent gateway)', () => {
  test('within every limit passes', () => {
    expect(checkWorkspaceLimits(limits, { budgetChangePercent: 30, discountPercent: 25, recipients: 50_000, sendAt: new Date('2026-11-20T12:00:00Z') })).toEqual({ passed: true, reasons: [] })
  })
  test('each limit refuses with a sentence naming the figure and the limit', () => {
    const v = checkWorkspaceLimits(limits, { budgetChangePercent: -31, discountPercent: 40, recipients: 62_400, sendAt: new Date('2026-11-20T23:30:00Z') })
    expect(v.passed).toBe(false)
    expect(v.reasons).toEqual([
      'A budget change of -31% is over the workspace limit of 30%.',
      'A discount of 40% is over the workspace limit of 25%.',
      '62,400 recipients is over the workspace limit of 50,000 per send.',
      "No send may start in the workspace's quiet hours, 22:00 to 07:00 UTC.",
    ])
  })
  test('quiet hours wrap midnight; start inclusive, end exclusive', () => {
    const q = limits.quietHours!
    expect(inQuietHours(q, new Date('2026-11-20T22:00:00Z'))).toBe(true)
    expect(inQuietHours(q, new Date('2026-11-20T06:59:00Z'))).toBe(true)
    expect(inQuietHours(q, new Date('2026-11-20T07:00:00Z'))).toBe(false)
    expect(inQuietHours({ startHour: 1, endHour: 5 }, new Date('2026-11-20T03:00:00Z'))).toBe(true)
    expect(inQuietHours({ startHour: 1, endHour: 5 }, new Date('2026-11-20T05:00:00Z'))).toBe(false)
  })
})

describe('money', () => {
  test('minor-unit exponents come from the currency (JPY 0, USD 2, KWD 3)', () => {
    expect([exponentOf('JPY'), exponentOf('USD'), exponentOf('KWD')]).toEqual([0, 2, 3])
    expect(formatMoney({ amountMinor: 90_000, currency: 'JPY' })).toBe('90,000 JPY')
    expect(formatMoney({ amountMinor: 5_000_000, currency: 'EUR' })).toBe('50,000.00 EUR')
    expect(formatMoney({ amountMinor: 1_250, currency: 'KWD' })).toBe('1.250 KWD')
  })
  test('currency codes are ISO 4217 in capitals', () => {
    expect(isCurrency('USD')).toBe(true)
    expect(isCurrency('usd')).toBe(false)
    expect(isCurrency('XYZ')).toBe(false)
  })
  test('counts for people are grouped the en-US way', () => {
    expect([formatCount(0), formatCount(999), formatCount(62_400), formatCount(1_250_000)]).toEqual(['0', '999', '62,400', '1,250,000'])
  })
})
