/**
 * Money (CONTRACT: Shapes): `{ amountMinor, currency }`, an integer in the currency's minor unit and
 * an ISO 4217 code in capitals. A figure spanning currencies is a list, one entry per currency,
 * ordered by code. Nothing here adds or converts across currencies.
 *
 * Minor-unit exponents come from the runtime's ICU data (JPY 0, USD 2, KWD 3), not a hand-kept table.
 */
export type Money = { amountMinor: number; currency: string }

/** Every ISO 4217 code the runtime knows, in order: the codes the API takes. */
export const CURRENCY_CODES: readonly string[] = [...Intl.supportedValuesOf('currency')].filter((c) => /^[A-Z]{3}$/.test(c)).sort()
const KNOWN = new Set(CURRENCY_CODES)
const exponents = new Map<string, number>()

/** Whether `code` is an ISO 4217 currency code the runtime knows, in capitals. */
export function isCurrency(code: string): boolean {
  return /^[A-Z]{3}$/.test(code) && KNOWN.has(code)
}

/** Digits after the decimal point in the currency's own format (JPY 0, USD 2, KWD 3). */
export function exponentOf(currency: string): number {
  let e = exponents.get(currency)
  if (e === undefined) {
    e = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2
    exponents.set(currency, e)
  }
  return e
}

/**
 * One formatter per number of fraction digits, made once: `toLocaleString` builds a new
 * Intl.NumberFormat on every call, which measured 8% of the CPU of money-heavy reads.
 */
const amountFormats = new Map<number, Intl.NumberFormat>()
const countFormat = new Intl.NumberFormat('en-US')

/** For people: "50,000.00 EUR", "90,000 JPY", "1.250 KWD". */
export function formatMoney(m: Money): string {
  const e = exponentOf(m.currency)
  let f = amountFormats.get(e)
  if (!f) {
    f = new Intl.NumberFormat('en-US', { minimumFractionDigits: e, maximumFractionDigits: e })
    amountFormats.set(e, f)
  }
  // A decimal string is formatted exactly (Intl.NumberFormat v3, ES2023; the ES2022 lib types only numbers). `format` is a bound function.
  return `${(f.format as (value: number | string) => string)(exactAmount(m.amountMinor, e))} ${m.currency}`
}

/**
 * The amount in major units, as Intl formats it exactly. Below 10^15 minor units the division is
 * exact to the digits shown (the double is within a thousandth of a last digit); past it (the API
 * takes any safe integer) 9007199254740991 cents would read 90,071,992,547,409.90, so the amount is
 * given as a decimal string, which Intl formats without rounding through a double.
 */
export function exactAmount(amountMinor: number, e: number): number | string {
  return Math.abs(amountMinor) < 1e15 ? amountMinor / 10 ** e : `${amountMinor}E-${e}`
}

/**
 * Counts already written, kept (up to COUNTS_KEPT, then begun again): the gateway's sentences write
 * the same ceilings, limits and thresholds over and over, and Intl's format costs about a
 * microsecond each time (a backtest's decisions spent a tenth of their time there).
 */
const countTexts = new Map<number, string>()
const COUNTS_KEPT = 10_000

/** A count for people, grouped the en-US way: "62,400". */
export function formatCount(n: number): string {
  // A Map takes -0 for 0; Intl writes them apart.
  if (Object.is(n, -0)) return countFormat.format(n)
  let text = countTexts.get(n)
  if (text === undefined) {
    if (countTexts.size >= COUNTS_KEPT) countTexts.clear()
    countTexts.set(n, (text = countFormat.format(n)))
  }
  return text
}

/** A count of things for people, one singular: "1 recipient", "62,400 recipients". */
export function formatCountOf(n: number, one: string, many: string): string {
  return `${formatCount(n)} ${n === 1 ? one : many}`
}

/** Order a per-currency list by currency code (the contract's order). */
export function byCurrency<T extends { currency: string }>(xs: T[]): T[] {
  return [...xs].sort((a, b) => (a.currency < b.currency ? -1 : a.currency > b.currency ? 1 : 0))
}
