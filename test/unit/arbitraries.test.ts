// Proves test/support/arbitraries.ts: every value it generates for a schema is one Ajv (2020-12, with formats)
// calls valid, for every schema of the server's OpenAPI document and for hand-written schemas of each keyword.
import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import { arbitraryOf, validatorFor } from '../support/arbitraries.ts'

// Fixed, so a failure replays; ARBITRARIES_SEED=<n> tries another.
const SEED = Number(process.env.ARBITRARIES_SEED ?? 20_261_120)
const RUNS = 100
const doc = JSON.parse(readFileSync(join(import.meta.dir, '../../sdk/openapi.json'), 'utf8'))

type Json = { [key: string]: any }
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/** Every string inside a value, keys included. */
function strings(v: unknown): string[] {
  if (typeof v === 'string') return [v]
  if (Array.isArray(v)) return v.flatMap(strings)
  if (v && typeof v === 'object') return Object.entries(v).flatMap(([k, x]) => [k, ...strings(x)])
  return []
}

/** RUNS values for `schema`, checked: fails the test listing each invalid one, with Ajv's reasons and the seed. */
function samples(schema: object, where: string, root: object = doc): unknown[] {
  const validate = validatorFor(root)
  const values = fc.sample(arbitraryOf(schema, root), { numRuns: RUNS, seed: SEED })
  const failures = values.flatMap((v) => {
    const { valid, errors } = validate(schema, v)
    const bad = strings(v).filter((s) => LONE_SURROGATE.test(s))
    return [
      ...(valid ? [] : [`${where} (seed ${SEED}): ${JSON.stringify(v)} is invalid: ${errors}`]),
      ...(bad.length ? [`${where} (seed ${SEED}): lone surrogate in ${JSON.stringify(bad)}`] : []),
    ]
  })
  expect(failures).toEqual([])
  expect(values).toHaveLength(RUNS)
  return values
}

describe('every schema of sdk/openapi.json', () => {
  const schemas = Object.entries(doc.components?.schemas ?? {}) as [string, object][]
  test('the document has schemas to try', () => expect(schemas.length).toBeGreaterThan(0))
  for (const [name, schema] of schemas) {
    test(`components.schemas.${name}`, () => void samples(schema, `#/components/schemas/${name}`))
  }

  // Query (and path) parameters of every operation, and JSON request bodies: what a fuzz test sends.
  const resolve = (v: Json): Json => (typeof v.$ref === 'string'
    ? v.$ref.slice(2).split('/').reduce((node: Json, part: string) => node[part.replace(/~1/g, '/').replace(/~0/g, '~')], doc)
    : v)
  const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']
  for (const [path, item] of Object.entries(doc.paths ?? {}) as [string, Json][]) {
    for (const method of METHODS.filter((m) => item[m])) {
      const op = item[method]
      for (const parameter of [...(item.parameters ?? []), ...(op.parameters ?? [])].map(resolve)) {
        if (parameter.in !== 'query' && parameter.in !== 'path') continue // headers are the harness's business
        test(`${method.toUpperCase()} ${path} ${parameter.in} parameter ${parameter.name}`,
          () => void samples(parameter.schema, `${method} ${path} ${parameter.name}`))
      }
      const body = op.requestBody && resolve(op.requestBody).content?.['application/json']?.schema
      if (body) test(`${method.toUpperCase()} ${path} request body`, () => void samples(body, `${method} ${path} body`))
    }
  }
})

describe('hand-written schemas', () => {
  test('a pattern with a length bound', () => {
    const values = samples({ type: 'string', pattern: '^abt_.+$', minLength: 6, maxLength: 12 }, 'abt') as string[]
    expect(values.every((v) => v.startsWith('abt_') && [...v].length <= 12)).toBe(true)
    samples({ type: 'string', pattern: '^[A-Z]{3}$' }, 'currency')
    samples({ type: 'string', format: 'ulid', pattern: '^[0-7][0-9A-HJKMNP-TV-Za-hjkmnp-tv-z]{25}$' }, 'zod ulid')
    // A loose pattern (the server's "no NUL" text rule) still gets non-ASCII text.
    const text = samples({ type: 'string', minLength: 1, maxLength: 200, pattern: '^[^\\u0000]*$' }, 'text') as string[]
    expect(text.some((v) => /[^\x00-\x7f]/.test(v))).toBe(true)
  })

  test('plain strings: lengths, non-ASCII letters and emoji, never lone surrogates', () => {
    const values = samples({ type: 'string', minLength: 1, maxLength: 30 }, 'plain') as string[]
    expect(values.some((v) => /[^\x00-\x7f]/.test(v))).toBe(true)
    expect(values.some((v) => /\p{Extended_Pictographic}/u.test(v))).toBe(true)
    expect(Math.max(...values.map((v) => [...v].length))).toBeLessThanOrEqual(30)
    samples({ type: 'string', minLength: 25 }, 'long minimum')
  })

  test('a oneOf discriminated by a kind const', () => {
    const schema = {
      oneOf: [
        { type: 'object', properties: { kind: { type: 'string', const: 'email' }, to: { type: 'string', format: 'email' } }, required: ['kind', 'to'], additionalProperties: false },
        { type: 'object', properties: { kind: { type: 'string', const: 'sms' }, phone: { type: 'string', minLength: 1 } }, required: ['kind', 'phone'], additionalProperties: false },
      ],
    }
    const kinds = new Set((samples(schema, 'union') as Json[]).map((v) => v.kind))
    expect([...kinds].sort()).toEqual(['email', 'sms'])
  })

  test('a oneOf whose branches overlap still yields values valid for exactly one', () => {
    samples({ oneOf: [{ type: 'integer', minimum: 0, maximum: 10 }, { type: 'integer', minimum: 5, maximum: 20 }] }, 'overlap')
    samples({ type: 'object', oneOf: [{ required: ['a'] }, { required: ['b'] }], properties: { a: { type: 'string' }, b: { type: 'string' } } }, 'required union')
  })

  test('dependentRequired', () => {
    const schema = {
      type: 'object',
      properties: { amountMinor: { type: 'integer', minimum: 0 }, currency: { type: 'string', pattern: '^[A-Z]{3}$' }, note: { type: 'string' } },
      dependentRequired: { amountMinor: ['currency'] },
      additionalProperties: false,
    }
    const values = samples(schema, 'dependentRequired') as Json[]
    expect(values.some((v) => 'amountMinor' in v)).toBe(true)
    expect(values.filter((v) => 'amountMinor' in v).every((v) => 'currency' in v)).toBe(true)
  })

  test('enum and const', () => {
    const values = samples({ type: 'string', enum: ['open', 'resolved', 'dismissed'] }, 'enum')
    expect(new Set(values).size).toBe(3)
    expect(samples({ const: { a: [1] } }, 'const')).toContainEqual({ a: [1] })
  })

  test('integer and number bounds, exclusive bounds and multipleOf', () => {
    const small = samples({ type: 'integer', minimum: 1, maximum: 5 }, '1..5') as number[]
    expect(new Set(small)).toEqual(new Set([1, 2, 3, 4, 5]))
    const big = samples({ type: 'integer', minimum: 0, maximum: 9007199254740991 }, 'safe integers') as number[]
    expect(big).toContain(9007199254740991) // the exact bound, sometimes
    expect(big.some((v) => v > 0 && v <= 1e9)).toBe(true)
    samples({ type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1 }, '(0, 1)')
    samples({ type: 'integer', exclusiveMinimum: 0, exclusiveMaximum: 3 }, 'integer (0, 3)')
    samples({ type: 'number', multipleOf: 0.01, minimum: -5, maximum: 5 }, 'cents')
    samples({ type: 'integer', multipleOf: 5, minimum: 3e9 }, 'beyond 1e9')
    samples({ type: 'number', maximum: -2e9 }, 'below -1e9')
    const numbers = samples({ type: 'number' }, 'any number') as number[]
    expect(numbers.every((v) => Number.isFinite(v) && !Object.is(v, -0) && Math.abs(v) <= 1e9)).toBe(true)
  })

  test('date-time, date, email, uri and uuid formats, with and without zod patterns', () => {
    const times = samples({ type: 'string', format: 'date-time' }, 'date-time') as string[]
    expect(times.every((t) => /(Z|[+-]\d\d:\d\d)$/.test(t) && !Number.isNaN(Date.parse(t)))).toBe(true)
    samples(doc.paths['/api/v1/revenue']?.get?.parameters?.[0]?.schema ?? { type: 'string', format: 'date-time' }, 'zod date-time with offset')
    const zodDateTime = '^(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|(?:02)-(?:0[1-9]|1\\d|2[0-8])))T(?:(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d+)?(?:Z))$'
    samples({ type: 'string', format: 'date-time', pattern: zodDateTime }, 'zod date-time, Z only')
    samples({ type: 'string', format: 'date' }, 'date')
    samples({ type: 'string', format: 'email', maxLength: 254 }, 'email')
    const zodEmail = "^(?:[A-Za-z0-9_'+\\-]+\\.)*[A-Za-z0-9_'+\\-]*[A-Za-z0-9_+-]@(?:[A-Za-z0-9][A-Za-z0-9\\-]*\\.)+[A-Za-z]{2,}$"
    samples({ type: 'string', format: 'email', pattern: zodEmail }, 'zod email')
    samples({ type: 'string', format: 'uri' }, 'uri')
    samples({ type: 'string', format: 'uuid' }, 'uuid')
  })

  test('nullable, by a type array and by anyOf with null', () => {
    for (const schema of [{ type: ['string', 'null'], minLength: 1 }, { anyOf: [{ type: 'integer', minimum: 0 }, { type: 'null' }] }]) {
      const values = samples(schema, JSON.stringify(schema))
      expect(values).toContain(null)
      expect(values.some((v) => v !== null)).toBe(true)
    }
  })

  test('objects: required always, optional sometimes, additionalProperties', () => {
    const closed = { type: 'object', properties: { id: { type: 'string' }, name: { type: 'string' } }, required: ['id'], additionalProperties: false }
    const values = samples(closed, 'closed') as Json[]
    expect(values.every((v) => 'id' in v && Object.keys(v).every((k) => k === 'id' || k === 'name'))).toBe(true)
    expect(values.some((v) => 'name' in v) && values.some((v) => !('name' in v))).toBe(true)
    const record = samples({ type: 'object', propertyNames: { type: 'string' }, additionalProperties: { type: 'integer', minimum: 0 } }, 'record') as Json[]
    expect(record.some((v) => Object.keys(v).length > 0)).toBe(true)
    const open = samples({ type: 'object', properties: { a: { type: 'boolean' } } }, 'open') as Json[]
    expect(open.some((v) => Object.keys(v).some((k) => k !== 'a'))).toBe(true)
    samples({ type: 'object', propertyNames: { pattern: '^x-[a-z]+$' }, minProperties: 2, maxProperties: 4 }, 'propertyNames')
    samples({ type: 'object', additionalProperties: {} }, 'anything goes')
  })

  test('arrays: items, prefixItems, bounds and uniqueItems', () => {
    samples({ type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], items: false, minItems: 2, maxItems: 2 }, 'tuple')
    const unique = samples({ type: 'array', items: { type: 'integer', minimum: 0, maximum: 9 }, uniqueItems: true, minItems: 3 }, 'unique') as number[][]
    expect(unique.every((a) => a.length >= 3 && new Set(a).size === a.length)).toBe(true)
    samples({ type: 'array', items: { type: 'object', properties: { tag: { type: 'string', minLength: 1, maxLength: 64 } }, required: ['tag'] }, maxItems: 50 }, 'objects')
  })

  test('$ref, allOf and recursion, against a document of their own', () => {
    const root = {
      components: {
        schemas: {
          Base: { type: 'object', properties: { id: { type: 'string', pattern: '^abt_[0-9a-z]{4}$' } }, required: ['id'] },
          Named: { allOf: [{ $ref: '#/components/schemas/Base' }, { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] }] },
          Closed: { allOf: [{ $ref: '#/components/schemas/Base' }, { properties: { id: { maxLength: 8 } }, additionalProperties: false }] },
          Tree: { type: 'object', properties: { value: { type: 'integer' }, children: { type: 'array', items: { $ref: '#/components/schemas/Tree' } } }, required: ['value'] },
          Chain: { type: 'object', properties: { next: { $ref: '#/components/schemas/Chain', maxProperties: 1 } } },
        },
      },
    }
    for (const name of Object.keys(root.components.schemas)) samples({ $ref: `#/components/schemas/${name}`, description: name }, name, root)
    const named = samples({ $ref: '#/components/schemas/Named' }, 'Named', root) as Json[]
    expect(named.every((v) => typeof v.id === 'string' && typeof v.name === 'string')).toBe(true)
    const trees = samples({ $ref: '#/components/schemas/Tree' }, 'Tree', root) as Json[]
    expect(trees.some((t) => t.children?.length > 0)).toBe(true)
  })

  test('a keyword it does not support throws, naming the keyword and where it is', () => {
    expect(() => arbitraryOf({ not: { type: 'string' } }, doc)).toThrow(/"not" at/)
    expect(() => arbitraryOf({ type: 'object', properties: { x: { if: { type: 'string' }, then: { minLength: 1 } } } }, doc)).toThrow(/"if" at \(schema\)\/properties\/x/)
    expect(() => arbitraryOf({ type: 'object', patternProperties: { '^a': {} } }, doc)).toThrow(/"patternProperties"/)
    expect(() => arbitraryOf({ type: 'string', format: 'no-such-format' }, doc)).toThrow(/format "no-such-format"/)
  })

  test('the validator rejects what is invalid and resolves $refs into the document', () => {
    const validate = validatorFor(doc)
    expect(validate({ type: 'integer', maximum: 5 }, 6).valid).toBe(false)
    expect(validate({ type: 'string', format: 'email' }, 'not an email').errors).toContain('email')
    const [name, schema] = Object.entries(doc.components.schemas as Json).find(([, s]) => s.required?.length)!
    const result = validate({ $ref: `#/components/schemas/${name}` }, {})
    expect(result.valid).toBe(false)
    expect(result.errors).toContain(`must have required property '${schema.required[0]}'`)
  })
})
