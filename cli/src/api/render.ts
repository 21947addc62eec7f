import { type Decider, describeDecider } from '../../../server/src/core/decider.ts'
import { exactAmount } from '../../../server/src/core/money.ts'
import { describe, type Human, table } from '../output.ts'

/**
 * What a person sees of an API answer: a list as a table, anything else as indented `key: value`
 * lines; money in its currency's own format (`$1,234.50`, `¥5,000`), times in the terminal's time
 * zone (`2026-11-23 17:05`). --json prints the answer's data untouched instead (ISO times, minor units).
 */

type Money = { amountMinor: number; currency: string }

/** A money value as the API writes it: exactly { amountMinor, currency }. */
export const isMoney = (v: unknown): v is Money =>
  typeof v === 'object' && v !== null && typeof (v as Money).amountMinor === 'number' && typeof (v as Money).currency === 'string' && Object.keys(v).length === 2

/** Who decided, as the API writes it (decidedBy): an operator of the CLI or a person of the console. */
const isDecider = (v: unknown): v is Decider =>
  typeof v === 'object' && v !== null && ((v as Decider).kind === 'operator' || (v as Decider).kind === 'person') && typeof (v as Decider).name === 'string'

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z$/

export function formatMoney(m: Money): string {
  try {
    const format = new Intl.NumberFormat(undefined, { style: 'currency', currency: m.currency })
    const digits = format.resolvedOptions().maximumFractionDigits ?? 2
    // Exact to the last minor unit however large (the API takes any safe integer): as the server's sentences.
    return (format.format as (value: number | string) => string)(exactAmount(m.amountMinor, digits))
  } catch {
    return `${m.amountMinor} ${m.currency} (minor units)`
  }
}

/** A UTC time as the terminal's local time, to the minute (--json keeps the ISO value). */
export function formatTime(iso: string): string {
  const d = new Date(iso)
  if (Number.isNaN(d.getTime())) return iso
  const p = (n: number) => String(n).padStart(2, '0')
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`
}

/** The value with money and times made readable, for describe(). */
function readable(value: unknown): unknown {
  if (typeof value === 'string' && ISO_TIME.test(value)) return formatTime(value)
  if (isMoney(value)) return formatMoney(value)
  if (isDecider(value)) return describeDecider(value)
  if (Array.isArray(value)) return value.map(readable)
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, readable(v)]))
  return value
}

const MAX_COLUMNS = 7
const MAX_CELL = 48

function cell(value: unknown): string {
  if (value === null || value === undefined) return '-'
  if (isMoney(value)) return formatMoney(value)
  if (isDecider(value)) return cell(describeDecider(value))
  if (typeof value === 'string') {
    const text = ISO_TIME.test(value) ? formatTime(value) : value.replace(/\s+/g, ' ')
    return text.length > MAX_CELL ? `${text.slice(0, MAX_CELL - 1)}…` : text
  }
  return String(value)
}

/** What a row is read by whenever a list has it: its state and when it happened. */
const ALWAYS_SHOWN = ['status', 'decision', 'createdAt']

/**
 * The columns worth a table: short scalar members, money and deciders, in the API's own order, at
 * most MAX_COLUMNS. A member that repeats an earlier one in every row (an agent request's
 * authorizationId is its id) is left out; the state and the time (ALWAYS_SHOWN) are kept however far
 * down the API lists them, and the first other members fill the rest.
 */
function columnsOf(items: Record<string, unknown>[]): string[] {
  const first = items[0] ?? {}
  const scalar = Object.keys(first)
    .filter((key) => key !== 'workspaceId')
    .filter((key) =>
      items.every((item) => {
        const v = item[key]
        return v === null || v === undefined || typeof v !== 'object' || isMoney(v) || isDecider(v)
      }),
    )
  const same = (a: string, b: string) => items.every((item) => item[a] !== null && item[a] !== undefined && JSON.stringify(item[a]) === JSON.stringify(item[b]))
  const distinct = scalar.filter((key, i) => !scalar.slice(0, i).some((earlier) => same(earlier, key)))
  const kept = new Set(distinct.filter((key) => ALWAYS_SHOWN.includes(key)))
  for (const key of distinct) if (kept.size < MAX_COLUMNS) kept.add(key)
  return distinct.filter((key) => kept.has(key))
}

export function renderList(items: unknown[], opts: { color: boolean }): string[] {
  if (!items.length) return ['(none)']
  const rows = items as Record<string, unknown>[]
  const columns = columnsOf(rows)
  if (!columns.length) return rows.flatMap((r) => describe(readable(r), ''))
  const header = columns.map((c) => c.replace(/[A-Z]/g, (x) => ` ${x.toLowerCase()}`))
  const lines = table([header, ...rows.map((r) => columns.map((c) => cell(r[c])))], '')
  if (opts.color) lines[0] = `\u001b[1m${lines[0]}\u001b[22m`
  return lines
}

export function renderItem(data: unknown): Human {
  if (typeof data === 'object' && data !== null && (data as { simulated?: unknown }).simulated === true && Object.keys(data).length === 1) {
    return 'Simulated with a test token: every check passed, and nothing was recorded.'
  }
  return describe(readable(data), '')
}

/** Colour only for a person at a terminal, and never with NO_COLOR (https://no-color.org). */
export function useColor(stream: NodeJS.WriteStream = process.stdout): boolean {
  return Boolean(stream.isTTY) && !('NO_COLOR' in process.env && process.env.NO_COLOR !== '')
}
