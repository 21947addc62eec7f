// Generators of values valid for a JSON Schema (draft 2020-12, as zod v4's z.toJSONSchema emits it inside an
// OpenAPI 3.1 document), built on fast-check, and an Ajv validator that checks values against the same document.
// A keyword the generator does not know throws (naming it and where it is) rather than risk an invalid value.
import fc from 'fast-check'
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020'
import addFormats from 'ajv-formats'

type Schema = { [keyword: string]: any }

// Keywords that only annotate: they never change which values are valid.
const ANNOTATIONS = new Set(['title', 'description', 'default', 'examples', 'example', 'deprecated', 'readOnly',
  'writeOnly', '$comment', '$schema', '$defs', 'definitions', 'discriminator', 'xml', 'externalDocs',
  'contentEncoding', 'contentMediaType'])
const SUPPORTED = new Set([...ANNOTATIONS, '$ref', 'type', 'const', 'enum', 'anyOf', 'oneOf', 'allOf',
  'minLength', 'maxLength', 'pattern', 'format', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum',
  'multipleOf', 'items', 'prefixItems', 'minItems', 'maxItems', 'uniqueItems', 'properties', 'required',
  'additionalProperties', 'propertyNames', 'minProperties', 'maxProperties', 'dependentRequired'])
// Without a `type`, the keywords present tell which types to generate.
const TYPE_KEYWORDS: Record<string, string[]> = {
  object: ['properties', 'required', 'additionalProperties', 'propertyNames', 'minProperties', 'maxProperties', 'dependentRequired'],
  array: ['items', 'prefixItems', 'minItems', 'maxItems', 'uniqueItems'],
  string: ['minLength', 'maxLength', 'pattern', 'format'],
  number: ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'],
}
const MAX_STRING = 20 // plain strings stay this short unless minLength says more
const MAX_ARRAY = 10 // and arrays this short unless minItems says more
const DOC = 'doc' // the key the document is registered under in Ajv

/** A code point at a time: mostly printable ASCII, sometimes accented, Cyrillic or CJK letters, or an emoji
 * (a surrogate pair in UTF-16, one code point as minLength/maxLength count). Never a lone surrogate. */
const CHAR = fc.oneof(
  { weight: 12, arbitrary: fc.integer({ min: 0x20, max: 0x7e }) },
  { weight: 2, arbitrary: fc.integer({ min: 0xc0, max: 0x24f }) },
  { weight: 1, arbitrary: fc.integer({ min: 0x410, max: 0x44f }) },
  { weight: 1, arbitrary: fc.integer({ min: 0x4e00, max: 0x9fff }) },
  { weight: 1, arbitrary: fc.integer({ min: 0x1f600, max: 0x1f64f }) },
).map((cp) => String.fromCodePoint(cp))
const noNegativeZero = (v: number) => (v === 0 ? 0 : v)
const SIMPLE: fc.Arbitrary<unknown> = fc.oneof(fc.string({ unit: CHAR, maxLength: 10 }),
  fc.integer({ min: -1e6, max: 1e6 }), fc.double({ min: -1e9, max: 1e9, noNaN: true }).map(noNegativeZero),
  fc.boolean(), fc.constant(null))
/** Any JSON value, small: for `{}`, `true` and items without a schema. */
const ANY_JSON: fc.Arbitrary<unknown> = fc.oneof({ weight: 4, arbitrary: SIMPLE },
  { weight: 1, arbitrary: fc.array(SIMPLE, { maxLength: 3 }) },
  { weight: 1, arbitrary: fc.dictionary(fc.string({ unit: CHAR, minLength: 1, maxLength: 8 }), SIMPLE, { maxKeys: 3, noNullPrototype: true }) })

const lowerAlnum = (max: number) => fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789'), minLength: 1, maxLength: max })
const moment = fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2099-12-31T23:59:59Z'), noInvalidDate: true })
/** An ISO 8601 date-time with a zone: Z, or an offset of whole quarter hours (the local time shifted to match). */
function isoDateTime(d: Date, quarters: number, millis: boolean): string {
  const local = new Date(d.getTime() + quarters * 15 * 60_000).toISOString().slice(0, millis ? 23 : 19)
  if (quarters === 0) return `${local}Z`
  const minutes = Math.abs(quarters) * 15
  return `${local}${quarters < 0 ? '-' : '+'}${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`
}
// Generators for string formats; the result is still checked against Ajv's format and any pattern beside it.
const FORMATS: Record<string, fc.Arbitrary<string>> = {
  // fc.emailAddress() uses the whole RFC alphabet; plain addresses also pass the stricter patterns zod adds.
  email: fc.oneof(fc.emailAddress(), fc.tuple(lowerAlnum(10), lowerAlnum(10), fc.constantFrom('com', 'org', 'io', 'example'))
    .map(([local, domain, tld]) => `${local}@${domain}.${tld}`)),
  'date-time': fc.tuple(moment, fc.oneof(fc.constant(0), fc.integer({ min: -56, max: 56 })), fc.boolean())
    .map(([d, q, ms]) => isoDateTime(d, q, ms)),
  date: moment.map((d) => d.toISOString().slice(0, 10)),
  time: moment.map((d) => `${d.toISOString().slice(11, 23)}Z`),
  uri: fc.webUrl(),
  url: fc.webUrl(),
  uuid: fc.uuid(),
  ipv4: fc.ipV4(),
  hostname: fc.domain(),
}

/** Ajv checks of a single format, whatever the type; a format Ajv does not know passes, as it does in Ajv. */
const formatAjv = addFormats(new Ajv2020({ strict: false, logger: false }))
const formatChecks = new Map<string, ValidateFunction>()
function formatOk(format: unknown, value: unknown): boolean {
  if (typeof format !== 'string') return true
  if (!formatChecks.has(format)) formatChecks.set(format, formatAjv.compile({ format }))
  return formatChecks.get(format)!(value) as boolean
}

/** arb.filter(ok), but after 1000 rejections in a row it throws, naming what it was making, instead of spinning. */
function guard<T>(arb: fc.Arbitrary<T>, ok: (v: T) => boolean, what: string): fc.Arbitrary<T> {
  let misses = 0
  return arb.filter((v) => {
    if (ok(v)) return ((misses = 0), true)
    if (++misses > 1000) throw new Error(`gave up generating ${what}: 1000 candidates in a row were invalid`)
    return false
  })
}
/** JSON with sorted keys: equal for values JSON Schema calls equal (uniqueItems, enum). */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`
  if (v && typeof v === 'object') return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical((v as Schema)[k])}`).join(',')}}`
  return JSON.stringify(v)
}
const constraining = (s: Schema) => Object.keys(s).some((k) => !ANNOTATIONS.has(k))
const without = (s: Schema, ...keys: string[]) => Object.fromEntries(Object.entries(s).filter(([k]) => !keys.includes(k)))

/** Values valid for `schema`; `root` (the OpenAPI document) resolves `$ref`s such as `#/components/schemas/Name`. */
export function arbitraryOf(schema: object, root: object, path = pointerOf(root, schema) ?? '(schema)'): fc.Arbitrary<unknown> {
  return new Builder(root).build(schema, path, [])
}

class Builder {
  readonly validate: (schema: object, value: unknown) => { valid: boolean }
  constructor(readonly root: object) { this.validate = validatorFor(root) }
  valid(schema: unknown, value: unknown): boolean { return this.validate(schema as object, value).valid }

  /** `refs` lists the `$ref`s being expanded, to notice recursion. */
  build(s: Schema | boolean, path: string, refs: string[]): fc.Arbitrary<unknown> {
    if (s === true) return ANY_JSON
    if (s === false || typeof s !== 'object' || s === null) throw new Error(`no value is valid for the schema at ${path}`)
    for (const k of Object.keys(s)) if (!SUPPORTED.has(k) && !k.startsWith('x-')) throw new Error(`unsupported JSON Schema keyword "${k}" at ${path}`)
    // $ref alone (annotations aside) is followed; $ref with other keywords, and allOf, become one merged schema.
    // A $ref met again inside itself (recursion) is expanded lazily, at generation time.
    if (s.$ref !== undefined || s.allOf !== undefined) {
      const alone = s.$ref !== undefined && !constraining(without(s, '$ref'))
      const expand = () => this.build(alone ? this.resolve(s.$ref) : this.flatten(s, path), alone ? s.$ref : path, s.$ref !== undefined ? [...refs, s.$ref] : refs)
      return s.$ref !== undefined && refs.includes(s.$ref) ? fc.constant(null).chain(expand) : expand()
    }
    // anyOf/oneOf with siblings: each branch gets the siblings, so {type: 'object', anyOf: [A, B]} = anyOf [A + type, B + type].
    for (const kw of ['anyOf', 'oneOf'] as const) {
      if (s[kw] === undefined) continue
      const rest = without(s, kw)
      const branches: Schema[] = s[kw]
      return fc.oneof(...branches.map((b, i) => {
        const arb = this.build(constraining(rest) ? { allOf: [rest, b] } : b, `${path}/${kw}/${i}`, refs)
        // oneOf: exactly one branch; a value from branch i must not also be valid for another one.
        return kw === 'anyOf' ? arb : guard(arb, (v) => branches.every((o, j) => j === i || !this.valid(o, v)), `a value only valid for ${path}/oneOf/${i}`)
      }))
    }
    // const and enum: the listed values that also pass the schema's other keywords.
    if (s.const !== undefined || s.enum !== undefined) {
      const values = (s.const !== undefined ? [s.const] : (s.enum as unknown[])).filter((v) => this.valid(s, v))
      if (values.length === 0) throw new Error(`no value of const/enum is valid for the schema at ${path}`)
      return fc.constantFrom(...values).map((v) => structuredClone(v))
    }
    let types: string[] = s.type === undefined ? Object.keys(TYPE_KEYWORDS).filter((t) => TYPE_KEYWORDS[t].some((k) => k in s))
      : Array.isArray(s.type) ? s.type : [s.type]
    if (types.length === 0) return ANY_JSON
    if (types.includes('number')) types = types.filter((t) => t !== 'integer') // number covers integer
    return fc.oneof(...types.map((t) => this.typed(s, t, path, refs)))
  }

  typed(s: Schema, type: string, path: string, refs: string[]): fc.Arbitrary<unknown> {
    switch (type) {
      case 'null': return fc.constant(null)
      case 'boolean': return fc.boolean()
      case 'integer': case 'number': return this.number(s, type === 'integer', path)
      case 'string': return this.string(s, path)
      case 'array': return this.array(s, path, refs)
      case 'object': return this.object(s, path, refs)
      default: throw new Error(`unsupported type "${type}" at ${path}`)
    }
  }

  number(s: Schema, integer: boolean, path: string): fc.Arbitrary<number> {
    for (const k of ['exclusiveMinimum', 'exclusiveMaximum']) if (s[k] !== undefined && typeof s[k] !== 'number') throw new Error(`"${k}" must be a number (draft 2020-12) at ${path}`)
    // The tightest bound on each side, and whether it is exclusive (exclusiveMinimum: 0 is tighter than minimum: 0).
    const [lo, loEx]: [number, boolean] = s.exclusiveMinimum !== undefined && !(s.minimum > s.exclusiveMinimum) ? [s.exclusiveMinimum, true] : [s.minimum ?? -Infinity, false]
    const [hi, hiEx]: [number, boolean] = s.exclusiveMaximum !== undefined && !(s.maximum < s.exclusiveMaximum) ? [s.exclusiveMaximum, true] : [s.maximum ?? Infinity, false]
    const m: number | undefined = s.multipleOf
    // multipleOf as Ajv checks it: value / multipleOf is an integer (so 0.1 * 3 fails for multipleOf 0.1: filtered out).
    const ok = (v: number) => Number.isFinite(v) && (loEx ? v > lo : v >= lo) && (hiEx ? v < hi : v <= hi) &&
      (!integer || Number.isInteger(v)) && (m === undefined || v / m === parseInt(String(v / m))) && formatOk(s.format, v)
    // Typical values stay within ±1e9; when the bounds lie outside that, within 1e9 of the nearer bound.
    let [wlo, whi] = [Math.max(lo, -1e9), Math.min(hi, 1e9)]
    if (wlo > whi) [wlo, whi] = lo > 1e9 ? [lo, Math.min(hi, lo + 1e9)] : [Math.max(lo, hi - 1e9), hi]
    const step = m ?? (integer ? 1 : undefined)
    const arbs: fc.Arbitrary<number>[] = []
    const multiples = (from: number, to: number, by: number) => { // k * by for whole k in [from, to]
      const [kmin, kmax] = [Math.ceil(from / by), Math.floor(to / by)]
      if (kmin <= kmax) arbs.push(fc.bigInt(BigInt(kmin), BigInt(kmax)).map((k) => Number(k) * by))
    }
    if (step !== undefined) multiples(wlo, whi, step)
    else {
      arbs.push(fc.double({ min: wlo, max: whi, minExcluded: loEx && wlo === lo, maxExcluded: hiEx && whi === hi, noNaN: true }))
      multiples(wlo, whi, 1) // whole numbers are the common case for `number` too
    }
    // Sometimes the exact bounds (or the first multiple inside an exclusive one), e.g. maximum: 9007199254740991.
    const edges = [...new Set([lo, hi].filter(Number.isFinite).flatMap((b) => step === undefined ? [b]
      : [-1, 0, 1].flatMap((d) => [(Math.ceil(b / step) + d) * step, (Math.floor(b / step) + d) * step])))].filter(ok)
    if (edges.length > 0) arbs.push(fc.constantFrom(...edges))
    if (arbs.length === 0) throw new Error(`no ${integer ? 'integer' : 'number'} satisfies the bounds at ${path}`)
    const weighted = arbs.map((arbitrary, i) => ({ arbitrary, weight: edges.length > 0 && i === arbs.length - 1 ? 1 : 4 }))
    return guard(fc.oneof(...weighted).map(noNegativeZero), ok, `a number for ${path}`)
  }

  string(s: Schema, path: string): fc.Arbitrary<string> {
    const [min, max]: [number, number] = [s.minLength ?? 0, s.maxLength ?? Infinity]
    const re = s.pattern === undefined ? undefined : new RegExp(s.pattern, 'u') // Ajv compiles patterns with the u flag
    const plain = fc.string({ unit: CHAR, minLength: min, maxLength: Math.min(max, Math.max(min, MAX_STRING)) })
    let base = plain
    if (s.format !== undefined && Object.hasOwn(FORMATS, s.format)) base = FORMATS[s.format] // a pattern beside it is checked below
    else if (s.format !== undefined && !re) throw new Error(`unsupported format "${s.format}" at ${path}`)
    else if (re) { // (zod gives formats it invents, like "ulid" or "starts_with", a pattern that says it all)
      try { base = fc.stringMatching(re, { maxLength: Number.isFinite(max) ? max : undefined, size: min > 8 ? 'medium' : undefined }) }
      catch (e) { throw new Error(`pattern ${s.pattern} at ${path} is beyond fc.stringMatching: ${(e as Error).message}`) }
      // fc.stringMatching writes only ASCII for `.` and negated classes such as [^\u0000]: when plain strings
      // mostly match the pattern anyway, mix them in, so such fields get non-ASCII text too.
      if (fc.sample(plain, { numRuns: 20, seed: 1 }).filter((v) => re.test(v)).length >= 15) base = fc.oneof(base, plain)
    }
    // Lengths count code points, as JSON Schema does.
    const length = (v: string) => [...v].length
    return guard(base, (v) => length(v) >= min && length(v) <= max && (!re || re.test(v)) && formatOk(s.format, v), `a string for ${path}`)
  }

  array(s: Schema, path: string, refs: string[]): fc.Arbitrary<unknown[]> {
    // prefixItems give the first positions their own schemas; items covers the rest (items: false: no more).
    const prefix = ((s.prefixItems ?? []) as Schema[]).map((p, i) => this.build(p, `${path}/prefixItems/${i}`, refs))
    const rest = s.items === false ? undefined : this.build(s.items ?? true, `${path}/items`, refs)
    const nested = refs.length !== new Set(refs).size // inside a recursive $ref: as few items as allowed
    const min: number = s.minItems ?? 0
    const max = Math.min(s.maxItems ?? Infinity, rest ? (nested ? min : Math.max(min, MAX_ARRAY)) : prefix.length)
    if (min > max) throw new Error(`no array length satisfies minItems/maxItems/prefixItems at ${path}`)
    const unique = (a: unknown[]) => new Set(a.map(canonical)).size === a.length
    if (prefix.length === 0 && rest) return s.uniqueItems ? fc.uniqueArray(rest, { minLength: min, maxLength: max, selector: canonical }) : fc.array(rest, { minLength: min, maxLength: max })
    const arb = fc.integer({ min, max }).chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => prefix[i] ?? rest!)))
    return s.uniqueItems ? guard(arb, unique, `unique items for ${path}`) : arb
  }

  object(s: Schema, path: string, refs: string[]): fc.Arbitrary<Record<string, unknown>> {
    const props: Schema = s.properties ?? {}
    const required: string[] = s.required ?? []
    const deps: Record<string, string[]> = s.dependentRequired ?? {}
    const additional: Schema | boolean = s.additionalProperties ?? true
    const schemaOf = (k: string): Schema | boolean => (Object.hasOwn(props, k) ? props[k] : additional)
    // Every key we may write: declared, required, or named by dependentRequired; propertyNames applies to them too.
    const known = [...new Set([...Object.keys(props), ...required, ...Object.entries(deps).flat(2)])]
    const usable = known.filter((k) => schemaOf(k) !== false && (s.propertyNames === undefined || this.valid(s.propertyNames, k)))
    for (const k of required) if (!usable.includes(k)) throw new Error(`required property "${k}" at ${path} is forbidden by additionalProperties or propertyNames`)
    // dependentRequired: a key may appear only if the keys it needs can appear too.
    const nested = refs.length !== new Set(refs).size // inside a recursive $ref: required keys only
    const optional = nested ? [] : usable.filter((k) => !required.includes(k) && (deps[k] ?? []).every((d) => usable.includes(d)))
    // dependentRequired: a present key brings the keys it depends on, and theirs.
    const withDependencies = (keys: Set<string>) => {
      for (let grew = true; grew;) {
        grew = false
        for (const k of [...keys]) for (const d of deps[k] ?? []) if (!keys.has(d)) grew = !!keys.add(d)
      }
      return keys
    }
    // A value for every key that may appear (generated even when the key is then left out).
    const present = nested ? usable.filter((k) => withDependencies(new Set(required)).has(k)) : usable
    const values = fc.record(Object.fromEntries(present.map((k) => [k, this.build(schemaOf(k), `${path}/properties/${k}`, refs)])))
    // Extra keys: never with additionalProperties: false; a schema's values with a schema; small JSON values otherwise.
    const minProperties: number = s.minProperties ?? 0
    const maxProperties: number = s.maxProperties ?? Infinity
    const needExtra = Math.max(0, minProperties - present.length)
    let extras: fc.Arbitrary<[string, unknown][]> = fc.constant([])
    if (additional !== false && (!nested || needExtra > 0)) {
      const name = s.propertyNames === undefined ? fc.string({ unit: CHAR, minLength: 1, maxLength: 10 })
        : this.build({ type: 'string', allOf: [s.propertyNames] }, `${path}/propertyNames`, refs)
      const key = guard(name, (k) => typeof k === 'string' && !known.includes(k) && (s.propertyNames === undefined || this.valid(s.propertyNames, k)), `an extra key for ${path}`) as fc.Arbitrary<string>
      const value = additional === true ? SIMPLE : this.build(additional, `${path}/additionalProperties`, refs)
      const some = fc.uniqueArray(fc.tuple(key, value), { minLength: needExtra, maxLength: needExtra + 3, selector: ([k]) => k })
      extras = needExtra > 0 ? some : fc.oneof({ weight: 3, arbitrary: extras }, { weight: 1, arbitrary: some })
    }
    const object = fc.tuple(values, fc.subarray(optional), extras).map(([vals, chosen, extra]) => {
      const keys = withDependencies(new Set([...required, ...chosen]))
      // Object.fromEntries makes own properties even of a key like "__proto__".
      return Object.fromEntries([...present.filter((k) => keys.has(k)).map((k) => [k, vals[k]]), ...extra])
    })
    const count = (o: object) => Object.keys(o).length
    return guard(object, (o) => count(o) >= minProperties && count(o) <= maxProperties, `an object for ${path} with minProperties/maxProperties`)
  }

  /** The value a local `$ref` (a JSON pointer into the document) points at. */
  resolve(ref: string): Schema {
    if (!ref.startsWith('#')) throw new Error(`only local $refs ("#/...") are supported, not "${ref}"`)
    let node: any = this.root
    for (const part of ref.slice(1).split('/').slice(1)) {
      node = node?.[decodeURIComponent(part).replace(/~1/g, '/').replace(/~0/g, '~')]
      if (node === undefined) throw new Error(`$ref "${ref}" points at nothing`)
    }
    return node
  }

  /** A schema with its `$ref` and `allOf` merged into it. */
  flatten(s: Schema, path: string): Schema {
    let out = without(s, '$ref', 'allOf')
    const parts: (Schema | boolean)[] = [...(s.$ref !== undefined ? [this.resolve(s.$ref)] : []), ...(s.allOf ?? [])]
    for (const part of parts) {
      if (part === false) throw new Error(`no value is valid for the allOf at ${path}: it includes false`)
      out = this.merge(out, part === true ? {} : this.flatten(part, path), path)
    }
    return out
  }

  /** allOf of two flat schemas as one: enough for the objects, bounds and types zod emits; other clashes throw. */
  merge(a: Schema, b: Schema, path: string): Schema {
    const out: Schema = { ...a }
    const both = (x: unknown, y: unknown) => (x === true || (x && typeof x === 'object' && !constraining(x as Schema)) ? y
      : y === true || (y && typeof y === 'object' && !constraining(y as Schema)) ? x : x === false || y === false ? false : { allOf: [x, y] })
    for (const [k, v] of Object.entries(b)) {
      const mine = a[k]
      if (ANNOTATIONS.has(k) || ['properties', 'additionalProperties'].includes(k)) continue
      else if (mine === undefined || canonical(mine) === canonical(v)) out[k] = v
      else if (k === 'type') {
        const [x, y] = [[mine].flat(), [v].flat()]
        out.type = x.flatMap((t) => y.includes(t) ? [t] : t === 'number' && y.includes('integer') ? ['integer'] : t === 'integer' && y.includes('number') ? ['integer'] : [])
        if (out.type.length === 0) throw new Error(`allOf at ${path}: no type is both ${canonical(mine)} and ${canonical(v)}`)
      } else if (['minimum', 'exclusiveMinimum', 'minLength', 'minItems', 'minProperties'].includes(k)) out[k] = Math.max(mine, v)
      else if (['maximum', 'exclusiveMaximum', 'maxLength', 'maxItems', 'maxProperties'].includes(k)) out[k] = Math.min(mine, v)
      else if (k === 'required') out.required = [...new Set([...mine, ...v])]
      else if (k === 'uniqueItems') out.uniqueItems = mine || v
      else if (k === 'enum') out.enum = (mine as unknown[]).filter((x) => (v as unknown[]).some((y) => canonical(x) === canonical(y)))
      else if (k === 'items' || k === 'propertyNames') out[k] = both(mine, v)
      else if (k === 'dependentRequired') out[k] = Object.fromEntries([...new Set([...Object.keys(mine), ...Object.keys(v)])].map((d) => [d, [...new Set([...(mine[d] ?? []), ...(v[d] ?? [])])]]))
      else throw new Error(`allOf at ${path}: cannot merge two different "${k}"`)
    }
    // Objects: a key is allowed only if both sides allow it (through properties or additionalProperties),
    // and its value must match both sides' schemas for it.
    if (['properties', 'additionalProperties'].some((k) => k in a || k in b)) {
      const side = (s: Schema, k: string) => (s.properties && Object.hasOwn(s.properties, k) ? s.properties[k] : s.additionalProperties ?? true)
      const keys = [...new Set([...Object.keys(a.properties ?? {}), ...Object.keys(b.properties ?? {})])]
      out.properties = Object.fromEntries(keys.map((k) => [k, both(side(a, k), side(b, k))]).filter(([, v]) => v !== false))
      out.additionalProperties = both(a.additionalProperties ?? true, b.additionalProperties ?? true)
      for (const k of out.required ?? []) if (side(a, k) === false || side(b, k) === false) throw new Error(`allOf at ${path}: required "${k}" is forbidden by one side`)
    }
    return out
  }
}

/** The JSON pointer of `schema` inside `root` (by identity), for error messages. */
function pointerOf(root: unknown, schema: unknown, at = '#'): string | undefined {
  if (root === schema) return at
  if (!root || typeof root !== 'object') return undefined
  for (const [k, v] of Object.entries(root)) {
    const found = pointerOf(v, schema, `${at}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`)
    if (found) return found
  }
  return undefined
}

/** `$ref: "#/..."` means the document: point it at the copy registered in Ajv. const/enum/examples are values, left as they are. */
function rewriteRefs(s: unknown): unknown {
  if (Array.isArray(s)) return s.map(rewriteRefs)
  if (!s || typeof s !== 'object') return s
  return Object.fromEntries(Object.entries(s).map(([k, v]) => [k,
    k === '$ref' && typeof v === 'string' && v.startsWith('#') ? `${DOC}${v}`
      : ['const', 'enum', 'default', 'examples', 'example'].includes(k) ? v : rewriteRefs(v)]))
}

export type Validate = (schema: object, value: unknown) => { valid: boolean; errors: string }
const validators = new WeakMap<object, Validate>()

/** A validator of values against schemas of `root` (an OpenAPI 3.1 document), by Ajv 2020-12 with ajv-formats. */
export function validatorFor(root: object): Validate {
  const cached = validators.get(root)
  if (cached) return cached
  const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true, logger: false })) // unknown formats pass, quietly
  ajv.addSchema(root, DOC)
  const compiled = new WeakMap<object, ValidateFunction>()
  const validate: Validate = (schema, value) => {
    let fn = typeof schema === 'object' ? compiled.get(schema) : undefined
    if (!fn) {
      fn = ajv.compile(rewriteRefs(schema) as object)
      if (typeof schema === 'object') compiled.set(schema, fn)
    }
    const valid = fn(value) as boolean
    return { valid, errors: valid ? '' : ajv.errorsText(fn.errors, { separator: '; ' }) }
  }
  validators.set(root, validate)
  return validate
}
