import { expect, test } from 'bun:test'
import { formatCount } from '../../server/src/core/money.ts'

// formatCount keeps the counts it wrote (core/money.ts): what it returns is Intl's en-US text, kept or not.
test('a count is written as Intl writes it, the first time, again, -0 apart from 0, and after the kept ones begin again', () => {
  const intl = new Intl.NumberFormat('en-US')
  const samples = [0, -0, 1, 999, 1000, 62_400, 1_234_567.5, -5, Number.NaN, Number.POSITIVE_INFINITY, 0.1 + 0.2]
  for (const n of samples) expect(`${n}: ${formatCount(n)}`).toBe(`${n}: ${intl.format(n)}`)
  for (const n of samples) expect(`${n}: ${formatCount(n)}`).toBe(`${n}: ${intl.format(n)}`)
  expect([formatCount(-0), formatCount(0), formatCount(-0)]).toEqual(['-0', '0', '-0'])
  // Past what is kept (10,000), and back over the first ones.
  for (let i = 0; i < 25_000; i += 1) if (formatCount(i * 7) !== intl.format(i * 7)) expect(`${i * 7}: ${formatCount(i * 7)}`).toBe(`${i * 7}: ${intl.format(i * 7)}`)
  expect(formatCount(62_400)).toBe('62,400')
})
