import { readCappedBytes } from '../core/capped-body.ts'
import { HttpError } from './answer.ts'

const MAX_BODY_BYTES = 1024 * 1024

/** How deeply a body may nest objects and arrays: far beyond any schema, far below any stack. */
const MAX_BODY_DEPTH = 64

const notAnObject = () =>
  new HttpError('invalid_body', 'The request body must be a JSON object, e.g. {"field": "value"}.')

/**
 * Read a request body of at most 1 MiB and parse it as a JSON object. Not sent as application/json
 * (checkContentType), empty, not UTF-8, malformed,
 * nested deeper than 64 levels, not an object, or too large: 400 invalid_body. A declared
 * Content-Length over the cap is refused before reading; a streamed body is read only up to the cap.
 * Two rules hold for every body, wherever in it: a string may not hold an unpaired UTF-16 surrogate
 * (not Unicode text; I-JSON, RFC 7493), no member may be named __proto__ (which schemas would
 * silently drop), and no object may name a member twice (JSON.parse keeps the last without a word;
 * I-JSON requires names to be unique): 400 invalid_request naming the field. (NUL characters, which PostgreSQL text
 * cannot store, are refused by the schemas, field by field, where the document states it.)
 */
export async function readJsonObject(request: Request): Promise<Record<string, unknown>> {
  checkContentType(request.headers.get('content-type'))
  const declared = Number(request.headers.get('content-length') ?? NaN)
  if (declared > MAX_BODY_BYTES) throw tooLarge()
  const text = await readCapped(request)
  if (text.trim() === '') throw new HttpError('invalid_body', 'The request body is empty; this endpoint takes a JSON object.')
  // Before anything recurses over the value (request hashes, params digests, schemas).
  if (nestsDeeperThan(text, MAX_BODY_DEPTH)) {
    throw new HttpError('invalid_body', `The request body nests objects and arrays more than ${MAX_BODY_DEPTH} levels deep.`)
  }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    throw new HttpError('invalid_body', 'The request body is not valid JSON.')
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw notAnObject()
  const repeated = repeatedName(text)
  if (repeated !== undefined) throw new HttpError('invalid_request', `${repeated} is given more than once in the body; give each field once.`)
  // Lone surrogates can only arrive as \u escapes, and __proto__ only as itself or with escapes:
  // a body with neither (nearly every body) needs no walk.
  if (text.includes('\\u') || text.includes('__proto__')) {
    const bad = badText(value, '')
    if (bad !== undefined) throw new HttpError('invalid_request', bad)
  }
  return value as Record<string, unknown>
}

/**
 * A body is read only when it says it is JSON: the Content-Type header must be application/json
 * (any case), with at most parameters that do not contradict it (charset=utf-8, the only encoding
 * JSON has, RFC 8259). Missing, another type (text/plain, XML, a form, multipart) or another
 * charset: 400 invalid_body naming the header, before a byte of the body is read.
 */
function checkContentType(header: string | null): void {
  const how = 'send Content-Type: application/json with a JSON object'
  if (header === null || header.trim() === '') throw new HttpError('invalid_body', `The request has no Content-Type header; ${how}.`)
  const [type, ...params] = header.split(';')
  const charset = params.map((p) => p.trim().split('=')).find(([name]) => name!.trim().toLowerCase() === 'charset')?.[1]
  const charsetOk = charset === undefined || charset.trim().replace(/^"(.*)"$/, '$1').toLowerCase() === 'utf-8'
  if (type!.trim().toLowerCase() !== 'application/json' || !charsetOk) {
    throw new HttpError('invalid_body', `The Content-Type header is ${JSON.stringify(header.slice(0, 100))}; ${how} (charset=utf-8 is allowed).`)
  }
}

/** A string that is not Unicode text: one holding an unpaired UTF-16 surrogate. */
const BAD_TEXT = /\p{Cs}/u

function whatIsBad(s: string): string {
  const c = BAD_TEXT.exec(s)![0]
  return `an unpaired UTF-16 surrogate (\\u${c.charCodeAt(0).toString(16)}), which is not text`
}

/**
 * Why the body is refused, naming the field: the first string (value or key) that is not Unicode
 * text, or a key named __proto__ (zod objects and records drop it without a word).
 * Refused here, once for every body, rather than failing in the database or vanishing.
 * The body is at most MAX_BODY_DEPTH deep, so the recursion is bounded.
 */
function badText(value: unknown, path: string): string | undefined {
  if (typeof value === 'string') return BAD_TEXT.test(value) ? `${path} contains ${whatIsBad(value)}.` : undefined
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = badText(value[i], `${path}[${i}]`)
      if (found !== undefined) return found
    }
    return undefined
  }
  if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (BAD_TEXT.test(k)) return `A field name${path ? ` in ${path}` : ''} contains ${whatIsBad(k)}.`
      const at = path ? `${path}.${k}` : k
      if (k === '__proto__') return `${at} is the reserved name __proto__; use another field name.`
      const found = badText(v, at)
      if (found !== undefined) return found
    }
  }
  return undefined
}

/**
 * Whether JSON text opens more than `max` objects and arrays inside one another, found by one
 * pass over the text without recursion (brackets inside strings do not count).
 */
function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 0x5c) i++ // a backslash: skip the escaped character
      else if (c === 0x22) inString = false
    } else if (c === 0x22) inString = true
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true
    } else if (c === 0x5d || c === 0x7d) depth--
  }
  return false
}

/**
 * The first member named twice in one object of valid JSON text, as its path (`properties.plan`,
 * `contacts[1].email`), or undefined: one pass over the text, names compared as JSON reads them
 * (`"a"` and `"\u0061"` are one name). The text has parsed already, and nests at most
 * MAX_BODY_DEPTH deep.
 */
function repeatedName(text: string): string | undefined {
  type Frame = { names: Set<string> | null; path: string; name: string; index: number }
  const stack: Frame[] = []
  const childPath = (f: Frame | undefined) => (!f ? '' : f.names ? (f.path ? `${f.path}.${f.name}` : f.name) : `${f.path}[${f.index}]`)
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 0x22) {
      const start = i + 1
      let escaped = false
      for (i = start; text.charCodeAt(i) !== 0x22; i++) {
        if (text.charCodeAt(i) === 0x5c) {
          escaped = true
          i++
        }
      }
      const top = stack[stack.length - 1]
      if (!top?.names) continue
      let j = i + 1
      while (text.charCodeAt(j) <= 0x20) j++
      if (text.charCodeAt(j) !== 0x3a) continue // a value, not a name
      const raw = text.slice(start, i)
      const name = escaped ? (JSON.parse(`"${raw}"`) as string) : raw
      if (top.names.has(name)) return top.path ? `${top.path}.${name}` : name
      top.names.add(name)
      top.name = name
    } else if (c === 0x7b || c === 0x5b) {
      stack.push({ names: c === 0x7b ? new Set() : null, path: childPath(stack[stack.length - 1]), name: '', index: 0 })
    } else if (c === 0x7d || c === 0x5d) {
      stack.pop()
    } else if (c === 0x2c) {
      const top = stack[stack.length - 1]
      if (top && !top.names) top.index++
    }
  }
  return undefined
}

function tooLarge() {
  return new HttpError('invalid_body', `The request body is larger than ${MAX_BODY_BYTES} bytes (1 MiB).`)
}

async function readCapped(request: Request): Promise<string> {
  const bytes = await readCappedBytes(request, MAX_BODY_BYTES)
  if ('tooLarge' in bytes) throw tooLarge()
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    throw new HttpError('invalid_body', 'The request body is not valid UTF-8.')
  }
}
