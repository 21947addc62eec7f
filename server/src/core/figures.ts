import { formatMoney, type Money } from './money.ts'

/** Values as people read them, in the console's pages and in its mail. */

const isMoney = (v: unknown): v is Money =>
  typeof v === 'object' && v !== null && typeof (v as Money).amountMinor === 'number' && typeof (v as Money).currency === 'string'

/** A fact's key in words: amountMinor -> amount minor, max_recipients -> max recipients. */
const factWords = (key: string) => key.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/_/g, ' ').toLowerCase()

/** A thing the effect names ({ id, name }, e.g. a campaign or a list): its name, then its id. */
const isNamed = (v: unknown): v is { id: string; name: string } =>
  typeof v === 'object' && v !== null && typeof (v as { name?: unknown }).name === 'string' && typeof (v as { id?: unknown }).id === 'string'

/** A value for people: money in its currency's format, a named thing by its name, numbers grouped, lists joined, the rest as JSON. */
function figure(v: unknown): string {
  if (isMoney(v)) return formatMoney(v)
  if (isNamed(v)) return `${v.name} (${v.id})`
  if (typeof v === 'number') return v.toLocaleString('en-US')
  if (typeof v === 'string') return v
  if (typeof v === 'boolean') return v ? 'yes' : 'no'
  if (Array.isArray(v) && v.length && v.every((x) => isMoney(x))) return v.map(formatMoney).join(' + ')
  // A list of words or figures (an agent's actions, a token's scopes) as a person writes one.
  if (Array.isArray(v) && v.every((x) => typeof x === 'string' || typeof x === 'number')) return v.length ? v.map((x) => figure(x)).join(', ') : 'none'
  return JSON.stringify(v)
}


/**
 * Named values as people read them, [words, figure] in order: a value not set (null) is left out,
 * and an amount in minor units with its currency is shown once, as money.
 */
export function readableFacts(entries: Record<string, unknown>): [string, string][] {
  const shown: Record<string, unknown> = Object.fromEntries(Object.entries(entries).filter(([, v]) => v !== null && v !== undefined))
  if (typeof shown.amountMinor === 'number' && typeof shown.currency === 'string') {
    const { amountMinor, currency, ...rest } = shown
    return readableFacts({ amount: { amountMinor, currency }, ...rest })
  }
  return Object.entries(shown).map(([k, v]) => [factWords(k), figure(v)])
}
