/**
 * Columns of a batched statement (`unnest(...)`) as PostgreSQL array literals, made in one pass.
 *
 * postgres.js serializes a `string[]` parameter element by element, each through two regular
 * expression replacements; for a batch written at every call's rate (the request log: 13 columns
 * a call) that was most of what the flush cost this process. A literal passed as a string is sent
 * as is (postgres.js leaves a parameter that is not an array to PostgreSQL, which reads it as the
 * array type the statement casts it to), so a column none of whose elements needs escaping is one
 * `join`: checked in one scan of the joined text, not element by element.
 */

/** `{"a","b",NULL}`: every element quoted, so an element is never read as NULL or split on a comma or brace. */
export function textArray(xs: readonly (string | null)[]): string {
  if (xs.length === 0) return '{}'
  if (!xs.includes(null)) {
    const joined = (xs as readonly string[]).join('","')
    if (!/["\\]/.test(joined)) return `{"${joined}"}`
  }
  let out = '{'
  for (let i = 0; i < xs.length; i++) {
    const x = xs[i]
    if (i) out += ','
    out += x === null ? 'NULL' : `"${x.replace(/["\\]/g, '\\$&')}"`
  }
  return `${out}}`
}

/** `{1,2.5,3}`: finite numbers only (NaN and Infinity are refused, never sent as text PostgreSQL would misread). */
export function numberArray(xs: readonly number[]): string {
  for (const x of xs) if (!Number.isFinite(x)) throw new TypeError(`not a finite number: ${x}`)
  return `{${xs.join(',')}}`
}

/** `{t,f}`. */
export function booleanArray(xs: readonly boolean[]): string {
  return `{${xs.map((x) => (x ? 't' : 'f')).join(',')}}`
}
