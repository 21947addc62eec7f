/**
 * The console's HTML: template literals through one tag, `html`, which escapes every value it is
 * given unless it is already HTML made by this tag. Nothing reaches a page unescaped.
 */

export class Html {
  constructor(readonly text: string) {}
  toString() {
    return this.text
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '`': '&#96;' }

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"'`]/g, (c) => ESCAPES[c]!)
}

type Value = Html | string | number | boolean | null | undefined | Value[]

function render(value: Value): string {
  if (value === null || value === undefined || value === false) return ''
  if (value instanceof Html) return value.text
  if (Array.isArray(value)) return value.map(render).join('')
  return escapeHtml(String(value))
}

/** `html\`<p>${name}</p>\``: the values escaped, nested `html` kept as it is; null, undefined and false render nothing. */
export function html(strings: TemplateStringsArray, ...values: Value[]): Html {
  let out = strings[0]!
  for (let i = 0; i < values.length; i++) out += render(values[i]!) + strings[i + 1]!
  return new Html(out)
}
