import type { z } from 'zod'

/** Where in a document: the keys and indexes from its root. */
export type DocumentPath = PropertyKey[]

/**
 * What an unknown field of a document should have been: the fields the object at its place takes,
 * read from the document's own schema, and the one its name is closest to, so a misspelt
 * `maxUnatendedRisk` is answered `did you mean maxUnattendedRisk?` rather than only refused.
 */

type Def = { type: string; [k: string]: unknown }
const defOf = (s: unknown): Def | undefined => (s as { _zod?: { def?: Def } } | undefined)?._zod?.def

/** The schema under the wrappers that do not change a value's shape (optional, default, pipe, lazy, ...). */
function unwrap(schema: unknown): unknown {
  for (let s = schema, i = 0; i < 32; i++) {
    const def = defOf(s)
    if (!def) return s
    if (['optional', 'nullable', 'default', 'prefault', 'readonly', 'catch', 'nonoptional'].includes(def.type)) s = def.innerType
    else if (def.type === 'pipe') s = def.in
    else if (def.type === 'lazy') s = (def.getter as () => unknown)()
    else return s
  }
  return schema
}

const shapeOf = (s: unknown) => (defOf(s)?.type === 'object' ? (defOf(s)!.shape as Record<string, unknown>) : undefined)

/** How well `value` fits an option of a union: 100 for each literal field it matches (e.g. `fact`), -100 for one it contradicts, 1 for each other field it has. */
function fit(option: unknown, value: unknown): number {
  const o = unwrap(option)
  if (defOf(o)?.type === 'union') return Math.max(...(defOf(o)!.options as unknown[]).map((x) => fit(x, value)))
  const shape = shapeOf(o)
  if (!shape) return -1
  const fields = value && typeof value === 'object' ? (value as Record<string, unknown>) : {}
  let n = 0
  for (const [k, field] of Object.entries(shape)) {
    if (!(k in fields)) continue
    const literal = defOf(unwrap(field))
    n += literal?.type === 'literal' ? ((literal.values as unknown[]).includes(fields[k]) ? 100 : -100) : 1
  }
  return n
}

/** The option of a union `value` was written for: a literal field it matches first, then the most fields it has. */
function bestOption(options: unknown[], value: unknown): number {
  let best = 0
  for (let i = 1; i < options.length; i++) if (fit(options[i], value) > fit(options[best], value)) best = i
  return best
}

/** The branch of a union `value` was written for (nested unions followed down to an object). */
function branchFor(schema: unknown, value: unknown): unknown {
  let s = unwrap(schema)
  while (defOf(s)?.type === 'union') {
    const options = defOf(s)!.options as unknown[]
    s = unwrap(options[bestOption(options, value)])
  }
  return s
}

/** The schema at `path` of the document (unions followed by the value written), or undefined where the path leaves it. */
function schemaAt(schema: z.ZodType, path: DocumentPath, data: unknown): unknown {
  let s: unknown = schema
  let value = data
  for (const key of path) {
    s = branchFor(s, value)
    const def = defOf(s)
    if (def?.type === 'object') s = (def.shape as Record<PropertyKey, unknown>)[key]
    else if (def?.type === 'array') s = def.element
    else if (def?.type === 'record') s = def.valueType
    else return undefined
    value = value && typeof value === 'object' ? (value as Record<PropertyKey, unknown>)[key] : undefined
  }
  return unwrap(s)
}

/**
 * The option of the union at `path` that the value names by a literal field (`count: allowed`
 * names the count condition, whatever else is wrong in it), or undefined when none does.
 */
export function namedOption(schema: z.ZodType, path: DocumentPath, data: unknown): number | undefined {
  const union = schemaAt(schema, path, data)
  if (defOf(union)?.type !== 'union') return undefined
  const options = defOf(union)!.options as unknown[]
  let value = data
  for (const key of path) value = value && typeof value === 'object' ? (value as Record<PropertyKey, unknown>)[key] : undefined
  const i = bestOption(options, value)
  return fit(options[i], value) >= 100 ? i : undefined
}

/** The fields the object at `path` of the document takes, in the schema's order; undefined when the place is not an object. */
export function fieldsAt(schema: z.ZodType, path: DocumentPath, data: unknown): string[] | undefined {
  let value = data
  for (const key of path) value = value && typeof value === 'object' ? (value as Record<PropertyKey, unknown>)[key] : undefined
  const shape = shapeOf(branchFor(schemaAt(schema, path, data), value))
  return shape ? Object.keys(shape) : undefined
}

/** The field `name` most likely meant: the same but for case, or within a few typing slips of it. */
export function closestField(name: string, fields: readonly string[]): string | undefined {
  const lower = name.toLowerCase()
  const same = fields.find((f) => f.toLowerCase() === lower)
  if (same) return same
  const within = Math.max(1, Math.min(3, Math.floor(name.length / 3)))
  let best: string | undefined
  let bestDistance = within + 1
  for (const f of fields) {
    const d = distance(lower, f.toLowerCase())
    if (d < bestDistance) [best, bestDistance] = [f, d]
  }
  return best
}

/** Edits (insert, delete, replace, swap two neighbours) from `a` to `b`. */
function distance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)])
  for (let j = 1; j <= b.length; j++) d[0]![j] = j
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1)
      d[i]![j] = v
    }
  }
  return d[a.length]![b.length]!
}

/** `unknown field, did you mean effect? (fields here: id, effect, match, agents, when)`, or without the guess when none is close. */
export function unknownFieldMessage(name: string, fields: readonly string[] | undefined): string {
  if (!fields?.length) return 'unknown field'
  const meant = closestField(name, fields)
  return `unknown field${meant ? `, did you mean ${meant}?` : ''} (fields here: ${fields.join(', ')})`
}
