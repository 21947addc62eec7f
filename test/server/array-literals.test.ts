import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { booleanArray, numberArray, textArray } from '../../server/src/store/arrays.ts'
import { getHarness } from '../harness.ts'

/**
 * The batched statements' columns as array literals (server/src/store/arrays.ts), read back by the
 * database they are written to: every text PostgreSQL can hold (quotes, backslashes, commas, braces,
 * the word NULL, empty, any Unicode) comes back as it went, and a null as NULL.
 */
/** The elements as PostgreSQL reads them, one row each (postgres.js reads an unquoted NULL inside an array back as the text "NULL"). */
async function elements(literal: string): Promise<(string | null)[]> {
  const { sql } = await getHarness()
  const rows = await sql<{ x: string | null }[]>`SELECT x FROM unnest(${literal}::text[]) WITH ORDINALITY AS u(x, i) ORDER BY i`
  return rows.map((r) => r.x)
}

describe('array literals', () => {
  // PostgreSQL's text holds no NUL character (the request log replaces it before it gets here).
  const text = fc.string({ unit: 'binary', maxLength: 12 }).map((s) => s.replaceAll('\u0000', ''))
  const tricky = fc.constantFrom('', 'NULL', 'null', '"', '\\', '\\"', ',', '{', '}', '{}', ' a ', 'a,b', '"quoted"', 'end\\')

  test('text, and null: each element back as it went, in order', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.oneof(text, tricky, fc.constant(null)), { maxLength: 20 }), async (xs) => {
        expect(await elements(textArray(xs))).toEqual(xs)
      }),
      { numRuns: 300 },
    )
  })

  test('an element that needs no escaping and one that does, in one column', async () => {
    const xs = ['req_1', 'a "quoted" path', 'C:\\path', null, 'NULL', '']
    expect(textArray(xs)).toBe('{"req_1","a \\"quoted\\" path","C:\\\\path",NULL,"NULL",""}')
    expect(textArray(['req_1', 'req_2'])).toBe('{"req_1","req_2"}')
    expect(await elements(textArray(xs))).toEqual(xs)
    expect(await elements(textArray([]))).toEqual([])
  })

  test('numbers and booleans', async () => {
    const { sql } = await getHarness()
    await fc.assert(
      fc.asyncProperty(fc.array(fc.double({ noNaN: true, noDefaultInfinity: true }), { maxLength: 20 }), fc.array(fc.boolean(), { maxLength: 20 }), async (ns, bs) => {
        const [row] = await sql<{ ns: string[]; bs: boolean[] }[]>`SELECT ${numberArray(ns)}::float8[]::text[] AS ns, ${booleanArray(bs)}::boolean[] AS bs`
        expect(row!.ns.map(Number)).toEqual(ns.map((n) => (Object.is(n, -0) ? 0 : n)))
        expect(row!.bs).toEqual(bs)
      }),
      { numRuns: 200 },
    )
  })

  test('a number that is not finite is refused here, not sent', () => {
    expect(() => numberArray([1, Number.NaN])).toThrow('not a finite number: NaN')
    expect(() => numberArray([Number.POSITIVE_INFINITY])).toThrow('not a finite number: Infinity')
  })
})
