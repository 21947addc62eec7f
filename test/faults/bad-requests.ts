import fc from 'fast-check'
import { querySchemaOf } from '../../server/src/http/paging.ts'
import type { Operation } from '../../server/src/routes/operation.ts'
import { z } from 'zod'

/**
 * Generators of bad requests for one operation of the table, for bad-requests.test.ts. Each starts
 * from the operation's own example (its body or query, as the OpenAPI document shows it) and breaks
 * it one way: a wrong type, a missing field, a 1 MB string, deep nesting, NUL and odd Unicode, bad
 * JSON, a wrong content type, a bad cursor, a bad id, a bad header, a bad query parameter, a wrong
 * method. Request heads stay under 8 KB: Bun answers a head over ~16 KB itself (a bare 431) before
 * any handler runs, which is the documented limit (docs/fault-suite.md).
 */

export type BadRequest = {
  /** What was broken, for a failure's message. */
  what: string
  method: string
  /** Query string, with its `?`, already encoded (it may hold bytes that are not UTF-8). */
  query: string
  headers: Record<string, string>
  body?: string | Uint8Array<ArrayBuffer>
  /** Which credential: the operation's own, another kind, or none. */
  credential: 'own' | 'none' | 'other'
}

type Json = any
const MB = 1 << 20

/** Every path to a value inside `v` (the root included). */
function pathsOf(v: Json, at: (string | number)[] = []): (string | number)[][] {
  const out = [at]
  if (Array.isArray(v)) v.forEach((x, i) => out.push(...pathsOf(x, [...at, i])))
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) out.push(...pathsOf(x, [...at, k]))
  return out
}

function setAt(root: Json, path: (string | number)[], value: Json): Json {
  if (path.length === 0) return value
  const copy = structuredClone(root)
  let node = copy
  for (const k of path.slice(0, -1)) node = node[k]
  node[path.at(-1)!] = value
  return copy
}

function deleteAt(root: Json, path: (string | number)[]): Json {
  if (path.length === 0) return undefined
  const copy = structuredClone(root)
  let node = copy
  for (const k of path.slice(0, -1)) node = node[k]
  if (Array.isArray(node)) node.splice(Number(path.at(-1)), 1)
  else delete node[path.at(-1)!]
  return copy
}

const pick = <T>(list: T[], n: number): T => list[n % list.length]!

/** Text that is odd in every way we know: NUL, lone surrogates, direction overrides, zero-width, BOM, non-characters, combining marks. */
const ODD_TEXT = fc.oneof(
  fc.constantFrom(
    '\u0000', 'a\u0000b', '\u0000'.repeat(50), '\ud800', 'x\udfffy', '\udbff\udc00', '\u202eevil\u202c', '\u200b', '\ufeffbom', '\uffff', '\ufffe',
    '\u{10ffff}', 'e\u0301\u0301\u0301', '\u0085\u2028\u2029', '\x7f\x1b[31m', '🏳️‍🌈👨‍👩‍👧‍👦', 'Ω≈ç√∫', '𝕿𝖊𝖘𝖙', '%00', '\\u0000', "' OR 1=1 --",
    '"; DROP TABLE contacts; --', '${7*7}', '{{7*7}}', '<script>alert(1)</script>', '../../etc/passwd', '\r\nX-Injected: 1',
  ),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: fc.integer({ min: 0, max: 0x1f }).map((c) => String.fromCharCode(c)), minLength: 1, maxLength: 10 }),
)

const WRONG_TYPES: Json[] = [0, -1, 1.5, -0.0001, 1e308, 2 ** 53 + 1, true, false, null, [], {}, '', ' ', 'x', [1, 2], { a: 1 }, ['a'], [null], '1e999', 'NaN', 'true', '0x10']

/** An id as it should not be: wrong prefix, garbage after the right one, huge, odd, empty. */
function badIds(real: string): string[] {
  const prefix = real.includes('_') ? real.slice(0, real.indexOf('_')) : 'x'
  return [
    `zzz_${real.slice(prefix.length + 1)}`, `${prefix}_`, `${prefix}`, `${prefix}_${'0'.repeat(26)}`, `${prefix.toUpperCase()}_${real.slice(prefix.length + 1)}`,
    `${prefix}_' OR '1'='1`, `${prefix}_%`, `${prefix}_*`, `${prefix}_\u0000`, `${prefix}_${'a'.repeat(4000)}`, `${prefix}_ü`, ` ${real} `, `${real}\n`, '',
    `${real}_${real}`, `ws_${real.slice(prefix.length + 1)}`, 'null', 'undefined',
  ]
}

/** The fields of the example that are ids (`..._<ulid>`). */
const idPaths = (v: Json) => pathsOf(v).filter((p) => p.length && typeof p.reduce((n: Json, k) => n?.[k], v) === 'string' && /^[a-z]+_[0-9a-z]{10,}$/.test(p.reduce((n: Json, k) => n?.[k], v)))

const deepArray = (depth: number) => '['.repeat(depth) + ']'.repeat(depth)
const deepObject = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth)

/** Query parameters of the operation (names as the schema has them). */
function queryNames(op: Operation): string[] {
  const json = z.toJSONSchema(querySchemaOf(op), { io: 'input', unrepresentable: 'any' }) as { properties?: Record<string, unknown> }
  return Object.keys(json.properties ?? {})
}

const enc = (q: Record<string, string>) => {
  const s = Object.entries(q)
    .map(([k, v]) => `${encodeURIComponent(k)}=${safeEncode(v)}`)
    .join('&')
  return s ? `?${s}` : ''
}

/** encodeURIComponent, except that a lone surrogate is sent as the UTF-8 bytes it would have (not valid UTF-8). */
function safeEncode(v: string): string {
  let out = ''
  for (const ch of v) {
    const cp = ch.codePointAt(0)!
    if (cp >= 0xd800 && cp <= 0xdfff) out += `%${(0xe0 | (cp >> 12)).toString(16)}%${(0x80 | ((cp >> 6) & 0x3f)).toString(16)}%${(0x80 | (cp & 0x3f)).toString(16)}`
    else out += encodeURIComponent(ch)
  }
  return out
}

/** Header values must be bytes (Latin-1) to be sent at all; anything else is sent as its UTF-8 bytes read as Latin-1. */
const headerSafe = (v: string) => Buffer.from(v.replace(/[\r\n\u0000]/g, ''), 'utf8').toString('latin1')

/** The arbitrary of bad requests for `op`. */
export function badRequestArbitrary(op: Operation): fc.Arbitrary<BadRequest> {
  const write = op.kind === 'write'
  const example: Json = write ? op.example.body : { ...(op.example?.query ?? {}) }
  const json = (v: Json) => JSON.stringify(v)
  const names = write ? [] : queryNames(op)
  const base = (over: Partial<BadRequest> & { what: string }): BadRequest => ({
    method: op.method,
    query: write ? '' : enc(example),
    headers: write ? { 'Content-Type': 'application/json' } : {},
    body: write ? json(example) : undefined,
    credential: 'own',
    ...over,
  })
  /** Puts `value` at a path of the example: the body of a write, a parameter of a read. */
  const put = (what: string, value: Json, n: number): BadRequest => {
    if (write) {
      const paths = pathsOf(example)
      const path = pick([...paths, ['unknownField']], n)
      return base({ what: `${what} at ${path.join('.') || '(root)'}`, body: json(setAt(example, path, value)) })
    }
    const name = pick([...names, 'unknownParam'], n)
    const text = typeof value === 'string' ? value : json(value) ?? 'undefined'
    return base({ what: `${what} in ${name}`, query: enc({ ...example, [name]: text.slice(0, 6000) }) })
  }

  const wrongType = fc.tuple(fc.constantFrom(...WRONG_TYPES), fc.nat()).map(([v, n]) => put(`wrong type ${json(v)}`, v, n))
  const missing = fc.nat().map((n) => {
    if (!write) return base({ what: 'no query at all', query: '' })
    const path = pick(pathsOf(example).slice(1), n) ?? []
    const body = deleteAt(example, path)
    return base({ what: `missing ${path.join('.')}`, body: body === undefined ? '' : json(body) })
  })
  const huge = fc.tuple(fc.constantFrom('x', '😀', '\u0000', 'é', ' '), fc.nat()).map(([unit, n]) => {
    if (!write) return put('8 KB string', unit.repeat(Math.floor(2000 / unit.length)), n)
    return put(`1 MB string of ${json(unit)}`, unit.repeat(Math.ceil(MB / Buffer.byteLength(unit))), n)
  })
  const deep = fc.tuple(fc.constantFrom(64, 1000, 10_000, 100_000), fc.boolean(), fc.nat()).map(([depth, arrays, n]) => {
    const nested = arrays ? deepArray(depth) : deepObject(depth)
    if (!write) return base({ what: `query nested ${depth} deep`, query: `?${'a['.repeat(Math.min(depth, 500))}=1&x=${encodeURIComponent(nested.slice(0, 3000))}` })
    const path = pick([...pathsOf(example), ['unknownField']], n)
    // Spliced in as text: JSON.stringify of a 100,000-deep value would overflow the client's own stack.
    const marker = '"__DEEP__"'
    const body = path.length === 0 ? nested : json(setAt(example, path, '__DEEP__')).replace(marker, nested)
    return base({ what: `${arrays ? 'arrays' : 'objects'} nested ${depth} deep at ${path.join('.') || '(root)'}`, body })
  })
  const odd = fc.tuple(ODD_TEXT, fc.nat(), fc.boolean()).map(([text, n, asKey]) => {
    if (write && asKey) return base({ what: `odd member name ${json(text)}`, body: json({ ...example, [text]: 1 }) })
    return put(`odd text ${json(text)}`, text, n)
  })
  const badJson = fc
    .oneof(
      fc.constantFrom('', ' ', '{', '}', '{"a":}', "{'a':1}", '{"a":1,}', '[1,2', 'nul', 'NaN', 'Infinity', '-', '{"a":1}{"b":2}', '{"a":"\\x00"}',
        '{"a":"\\ud800"}', '{"a":1 /* c */}', '\ufeff{}', 'null', '[]', '42', '"text"', 'true', '{"__proto__":{"admin":true}}', '{"constructor":{"prototype":{"x":1}}}',
        '{"a":1,"a":2}', '{"contacts":[{"email":"a@b.c"}],"contacts":[]}', '1e999999'),
      fc.nat().map((n) => {
        const text = json(example)
        return text.slice(0, n % text.length)
      }),
    )
    .map((text) => base({ what: `bad JSON ${json(text.slice(0, 80))}`, body: text }))
  const badBytes = fc.uint8Array({ minLength: 1, maxLength: 64 }).map((bytes) => {
    const prefix = new TextEncoder().encode('{"a":"')
    const body = new Uint8Array([...prefix, ...bytes, 0xff, 0xfe, ...new TextEncoder().encode('"}')]) as Uint8Array<ArrayBuffer>
    return base({ what: `invalid UTF-8 bytes ${[...bytes.slice(0, 8)].join(',')}`, body })
  })
  const contentType = fc
    .constantFrom(
      ['text/plain', json(example)], ['application/xml', '<contacts><contact email="a@b.c"/></contacts>'], ['application/x-www-form-urlencoded', 'email=a%40b.c&tags=x'],
      ['multipart/form-data; boundary=X', '--X\r\nContent-Disposition: form-data; name="email"\r\n\r\na@b.c\r\n--X--\r\n'], ['application/json; charset=latin1', json(example)],
      ['application/json;;;', json(example)], ['application/jsonx', json(example)], ['*/*', json(example)], ['', json(example)], ['application/json', ''],
      ['application/octet-stream', '\u0000\u0001\u0002'], ['application/json; boundary=x', json(example)],
    )
    .map(([type, body]) => {
      const headers: Record<string, string> = type ? { 'Content-Type': type } : {}
      return base({ what: `Content-Type ${json(type)}`, headers, body: type ? body : (new TextEncoder().encode(body) as Uint8Array<ArrayBuffer>) })
    })
  const cursor = fc
    .oneof(fc.constantFrom('', 'null', '0', '-1', 'eyJ9', 'eyJhIjoxfQ', 'eyJhIjoxfQ.sig', '..', '%', 'a'.repeat(6000), '\u0000', '😀', '=====', 'AAAA.BBBB.CCCC'),
      fc.base64String({ maxLength: 200 }), fc.string({ unit: 'binary', maxLength: 60 }))
    .chain((c) => fc.constantFrom('cursor', 'after', 'before').map((param) => base({ what: `${param}=${json(c.slice(0, 60))}`, query: enc({ ...(write ? {} : example), [param]: c }) })))
  const badId = fc.tuple(fc.nat(), fc.nat()).map(([n, m]) => {
    const paths = idPaths(example)
    if (!paths.length) return put('an id where none is taken', 'msn_01kbz4n6w2d8q5r7t9v3x1y0za', n)
    const path = pick(paths, n)
    const real = path.reduce((v: Json, k) => v[k], example) as string
    const id = pick(badIds(real), m)
    if (write) return base({ what: `bad id ${json(id.slice(0, 60))} at ${path.join('.')}`, body: json(setAt(example, path, id)) })
    return base({ what: `bad id ${json(id.slice(0, 60))} in ${path.join('.')}`, query: enc({ ...example, [path[0] as string]: id }) })
  })
  const header = fc
    .constantFrom<[string, Record<string, string>, BadRequest['credential']]>(
      ['no credential', {}, 'none'], ['another kind of credential', {}, 'other'], ['Authorization: Bearer', { Authorization: 'Bearer' }, 'none'],
      ['Authorization: Bearer and spaces', { Authorization: 'Bearer    ' }, 'none'], ['Authorization: Basic', { Authorization: 'Basic dXNlcjpwYXNz' }, 'none'],
      ['unknown live token', { Authorization: 'Bearer svc_live_ws_01kbz4n6w2d8q5r7t9v3x1y0za_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }, 'none'],
      ['agent-looking garbage', { Authorization: 'Bearer svc_agt_' + 'Z'.repeat(300) }, 'none'], ['token of 7 KB', { Authorization: `Bearer svc_live_${'a'.repeat(7000)}` }, 'none'],
      ['token with odd bytes', { Authorization: headerSafe('Bearer svc_live_é\u202e😀') }, 'none'], ['two schemes', { Authorization: 'Bearer a, Bearer b' }, 'none'],
      ['Idempotency-Key of 256', { 'Idempotency-Key': 'k'.repeat(256) }, 'own'], ['Idempotency-Key empty', { 'Idempotency-Key': '' }, 'own'],
      ['Idempotency-Key Latin-1', { 'Idempotency-Key': headerSafe('clé-ü') }, 'own'], ['Idempotency-Key of 7 KB', { 'Idempotency-Key': 'k'.repeat(7000) }, 'own'],
      ['Accept: application/xml', { Accept: 'application/xml' }, 'own'], ['X-Request-Id given', { 'X-Request-Id': 'req_forged' }, 'own'],
      ['X-Forwarded-For garbage', { 'X-Forwarded-For': '999.1.1.1, ::ffff:zz, <x>' }, 'own'], ['Content-Encoding: gzip (not gzipped)', { 'Content-Encoding': 'gzip' }, 'own'],
      ['Transfer-Encoding: chunked header', { 'X-Transfer-Encoding': 'chunked' }, 'own'], ['Authorization lowercase scheme', { Authorization: 'bearer ' }, 'none'],
      ['7 KB of headers', Object.fromEntries(Array.from({ length: 70 }, (_, i) => [`X-Pad-${i}`, 'p'.repeat(90)])), 'own'],
    )
    .map(([what, headers, credential]) => {
      const b = base({ what, credential })
      return { ...b, headers: { ...b.headers, ...headers } }
    })
  const badQuery = fc
    .tuple(
      fc.constantFrom(...(names.length ? names : ['limit'])),
      fc.constantFrom('abc', '-1', '0', '101', '501', '1e999', '0x10', ' 5', '', '5.0', '%2B5', '1,2', 'true', '[]', '{}', '9'.repeat(400), 'open,closed', 'OPEN', '2026-13-45T25:61:00Z', 'not-a-date', '\u0000'),
      fc.boolean(),
    )
    .map(([name, value, twice]) =>
      base({ what: `query ${name}=${json(value.slice(0, 40))}${twice ? ' twice' : ''}`, query: `${enc(write ? {} : example) || '?'}&${encodeURIComponent(name)}=${safeEncode(value)}${twice ? `&${encodeURIComponent(name)}=1` : ''}` }),
    )
  const method = fc.constantFrom('PUT', 'PATCH', 'DELETE', 'OPTIONS', write ? 'GET' : 'POST').map((m) => base({ what: `method ${m}`, method: m, body: m === 'GET' ? undefined : write ? json(example) : '{}', headers: { 'Content-Type': 'application/json' } }))

  // A read has no body: the body's faults are a write's.
  const bodies = write ? [badJson, badBytes, contentType] : []
  return fc.oneof(wrongType, missing, huge, deep, odd, ...bodies, cursor, badId, header, badQuery, method)
}
