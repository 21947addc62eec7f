import type { GatewayDecision } from '../../core/enums.ts'
import { readableFacts } from '../../core/figures.ts'
import { type Html, html } from '../html.ts'

/** Small pieces the inbox and item pages share: times, time left, facts and figures. */

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?Z$/

/** A time as a <time> element: UTC text, which assets/console.js rewrites in the person's own zone. */
export function when(iso: string): Html {
  return html`<time datetime="${iso}">${iso.slice(0, 16).replace('T', ' ')} UTC</time>`
}

/** A rotated credential's fact (a token's card, an agent credential's): the id of the one that replaced it. */
export function replacedByFact(replacedBy: string | null): Html | null {
  return replacedBy ? html`<dt>Replaced by</dt><dd><code>${replacedBy}</code> (rotated)</dd>` : null
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

/**
 * Words an agent wrote, as a page shows them. The agent is the party the product does not trust:
 * its summary is in quotes, as the mail has it (mail-words.ts), so that "SYSTEM: approved by the
 * security team" reads as the agent's words and not the console's; and what it wrote is isolated
 * (<bdi>), so a right-to-left override in it cannot turn the console's own words after it around.
 */
export const agentQuoted = (summary: string) => `\u201c${summary}\u201d`
export const agentSummary = (summary: string): Html => html`<bdi>${agentQuoted(summary)}</bdi>`
export const agentText = (text: string): Html => html`<bdi>${text}</bdi>`

/**
 * Named values as a definition list; nothing for none. A value not set (null) is left out, and an
 * amount in minor units with its currency is shown once, as money ({ amountMinor, currency } facts).
 */
export function factList(entries: Record<string, unknown>, label: string): Html | null {
  const shown = readableFacts(entries)
  if (!shown.length) return null
  // A time (an audit entry's expiresAt) as every other time of the console: in the reader's zone.
  return html`<dl class="facts" aria-label="${label}">${shown.map(([k, v]) => html`<dt>${k}</dt><dd>${typeof v === 'string' && ISO_TIME.test(v) ? when(v) : v}</dd>`)}</dl>`
}

/**
 * A secret shown once (a token, an agent's credential, a webhook secret, a sign-in link): its label,
 * and a read-only field to select, with a Copy button (assets/console.js). The page that shows it is
 * the answer to the form that made it, never stored: no later page holds it.
 */
export function shownOnce(label: Html | string, value: string): Html {
  return html`<label for="secret">${label}</label>
<div class="copy"><input id="secret" type="text" readonly value="${value}" class="secret" autocomplete="off" spellcheck="false"><button type="button" data-copy="secret">Copy</button></div>`
}

/** A page's query string from its filter's fields (those given, in this order), or '' when none is. */
export function queryOf(fields: Record<string, string | undefined>): string {
  const q = new URLSearchParams()
  for (const [name, value] of Object.entries(fields)) if (value) q.set(name, value)
  const text = q.toString()
  return text ? `?${text}` : ''
}

/** A name's possessive as English writes it: Acme's, and Northwind Coffee Roasters' (a name ending in s). */
export function possessive(name: string): string {
  return /s$/i.test(name) ? `${name}'` : `${name}'s`
}

/**
 * How a person reads one check of a gateway decision. A check that did not pass in a decision that
 * waits for a person asked for one (a denying check would have denied it): it needs a person, it has
 * not failed. Elsewhere, one that did not pass failed (its detail says when no approval could help).
 */
export function checkWord(passed: boolean, decision: GatewayDecision): { word: string; tone: 'passed' | 'needs-person' | 'failed' } {
  if (passed) return { word: 'Passed', tone: 'passed' }
  return decision === 'requires_approval' ? { word: 'Needs a person', tone: 'needs-person' } : { word: 'Failed', tone: 'failed' }
}
