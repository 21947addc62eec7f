import { expect, test } from 'bun:test'
import { formatMoney } from '../../cli/src/api/render.ts'

/** The CLI's money for a person (cli/src/api/render.ts): the currency's own format, exact to the last minor unit. */
const digits = (s: string) => s.replace(/\D/g, '')

test('the largest amount the API takes is printed to its last minor unit', () => {
  // In floating point 9007199254740991 cents were 90,071,992,547,409.90.
  expect(digits(formatMoney({ amountMinor: Number.MAX_SAFE_INTEGER, currency: 'USD' }))).toBe('9007199254740991')
  expect(digits(formatMoney({ amountMinor: -Number.MAX_SAFE_INTEGER, currency: 'EUR' }))).toBe('9007199254740991')
  expect(digits(formatMoney({ amountMinor: 9_007_199_254_740_991, currency: 'JPY' }))).toBe('9007199254740991')
  expect(digits(formatMoney({ amountMinor: 1_000_000_000_000_001, currency: 'KWD' }))).toBe('1000000000000001')
})

test('ordinary amounts as before', () => {
  expect(digits(formatMoney({ amountMinor: 123_450, currency: 'USD' }))).toBe('123450')
  expect(digits(formatMoney({ amountMinor: 500, currency: 'JPY' }))).toBe('500')
  expect(formatMoney({ amountMinor: 5, currency: 'XXX_' })).toBe('5 XXX_ (minor units)')
})
