import { formatMoney, type Money } from '../../core/money.ts'
import { type Html, html } from '../html.ts'

/** Small pieces the inbox and item pages share: times, time left, facts and figures. */

/** A time as a <time> element: UTC text, which assets/console.js rewrites in the person's own zone. */
export function when(iso: string): Html {
  return html`<time datetime="${iso}">${iso.slice(0, 16).replace('T', ' ')} UTC</time>`
}

/** How long until `expiresAt`, in words: "expires in 3 h 12 min", or "expired". */
export function timeLeft(expiresAt: string | null, now: Date): string | null {
  if (!expiresAt) return null
  const ms = new Date(expiresAt).getTime() - now.getTime()
  if (ms <= 0) return 'expired'
  const min = Math.ceil(ms / 60_000)
  if (min < 60) return `expires in ${min} min`
  const h = Math.floor(min / 60)
  if (h < 48) return `expires in ${h} h ${min % 60} min`
  return `expires in ${Math.floor(h / 24)} days`
}

const isMoney = (v: unknown): v is Money =>
  typeof v === 'object' && v !== null && typeof (v as Money).amountMinor === 'number' && typeof (v as Money).currency === 'string'

const words = (key: string) => key.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/_/g, ' ').toLowerCase()

/** A thing the effect names ({ id, name }, e.g. a campaign or a list): its name, then its id. */
const isNamed = (v: unknown): v is { id: string; name: string } =>
  typeof v === 'object' && v !== null && typeof (v as { name?: unknown }).name === 'string' && typeof (v as { id?: unknown }).id === 'string'

/** A value for people: money in its currency's format, a named thing by its name, numbers grouped, lists joined, the rest as JSON. */
export function figure(v: unknown): string {
  if (isMoney(v)) return formatMoney(v)
  if (isNamed(v)) return `${v.name} (${v.id})`
  if (typeof v === 'number') return v.toLocaleString('en-US')
  if (typeof v === 'string') return v
  if (typeof v === 'boolean') return v ? 'yes' : 'no'
  if (Array.isArray(v) && v.every((x) => isMoney(x))) return v.map(formatMoney).join(' + ')
  return JSON.stringify(v)
}

/**
 * Named values as a definition list; nothing for none. A value not set (null) is left out, and an
 * amount in minor units with its currency is shown once, as money ({ amountMinor, currency } facts).
 */
export function factList(entries: Record<string, unknown>, label: string): Html | null {
  const shown: Record<string, unknown> = Object.fromEntries(Object.entries(entries).filter(([, v]) => v !== null && v !== undefined))
  if (typeof shown.amountMinor === 'number' && typeof shown.currency === 'string') {
    const { amountMinor, currency, ...rest } = shown
    return factList({ amount: { amountMinor, currency }, ...rest }, label)
  }
  const keys = Object.keys(shown)
  if (!keys.length) return null
  return html`<dl class="facts" aria-label="${label}">${keys.map((k) => html`<dt>${words(k)}</dt><dd>${figure(shown[k])}</dd>`)}</dl>`
}
