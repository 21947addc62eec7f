import type { z } from 'zod'
import { HttpError } from './answer.ts'

/**
 * Validation against the declared schemas, with one readable sentence per problem naming the field
 * (or query parameter): what is wrong and what would be right.
 */

function describe(issue: z.core.$ZodIssue, root: string): string {
  const path = issue.path.map(String).join('.')
  const name = path || root
  switch (issue.code) {
    case 'unrecognized_keys':
      return `Unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => (path ? `${path}.${k}` : k)).join(', ')}${path ? '' : ` in ${root}`}.`
    case 'invalid_type':
      return issue.input === undefined ? `${name} is required.` : `${name} must be ${article(issue.expected)}.`
    case 'too_small':
      if (issue.origin === 'string') return `${name} must be at least ${issue.minimum} characters long.`
      if (issue.origin === 'array') return `${name} must have at least ${issue.minimum} item(s).`
      return `${name} must be ${issue.inclusive ? 'at least' : 'more than'} ${issue.minimum}.`
    case 'too_big':
      if (issue.origin === 'string') return `${name} must be at most ${issue.maximum} characters long.`
      if (issue.origin === 'array') return `${name} must have at most ${issue.maximum} item(s).`
      return `${name} must be ${issue.inclusive ? 'at most' : 'less than'} ${issue.maximum}.`
    case 'invalid_value':
      return `${name} must be one of: ${issue.values.map((v) => String(v)).join(', ')}.`
    case 'invalid_union': {
      // A discriminated union (a body whose shape depends on its kind): name the values it takes.
      const options = (issue as { options?: unknown[] }).options
      if (options?.length) return `${name} must be one of: ${options.map(String).join(', ')}.`
      return `${name} does not match any of the shapes it may take.`
    }
    case 'invalid_format':
      if (issue.format === 'datetime') return `${name} is not an ISO 8601 date-time with a time zone, e.g. 2026-10-01T00:00:00Z.`
      // A pattern's own message says what the value must be (e.g. "must be a campaign id (cmp_...)").
      return issue.format === 'regex' ? `${name} ${issue.message}.` : `${name} is not a valid ${issue.format}.`
    default:
      return `${name}: ${issue.message}`
  }
}

function article(type: string): string {
  if (type === 'int') return 'an integer'
  if (type === 'object') return 'a JSON object'
  if (type === 'array') return 'an array'
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`
}

/**
 * The query of a request URL, without parsing the whole URL (a request's URL is always absolute,
 * and the server never sees a fragment): cheaper than `new URL(url).searchParams` on every request.
 */
export function searchOf(url: string): URLSearchParams {
  const i = url.indexOf('?')
  return new URLSearchParams(i < 0 ? '' : url.slice(i + 1))
}

/** Query parameters as one object: a repeated, unknown or malformed one is 400 invalid_parameter naming it. */
export function parseQuery<S extends z.ZodType>(schema: S, search: URLSearchParams): z.output<S> {
  const raw: Record<string, string> = {}
  for (const [key, value] of search) {
    if (key in raw) throw new HttpError('invalid_parameter', `Query parameter ${key} is given more than once.`)
    if (key.includes('\u0000') || value.includes('\u0000')) {
      throw new HttpError('invalid_parameter', `Query parameter ${key.replaceAll('\u0000', '')} contains a NUL character (%00).`)
    }
    raw[key] = value
  }
  const result = schema.safeParse(raw, { reportInput: true })
  if (result.success) return result.data
  const issue = result.error.issues[0]!
  if (issue.code === 'unrecognized_keys') {
    const known = Object.keys((schema as unknown as z.ZodObject).shape ?? {})
    const takes = known.length ? `this endpoint takes ${known.join(', ')}` : 'this endpoint takes none'
    throw new HttpError('invalid_parameter', `Unknown query parameter ${issue.keys.join(', ')}: ${takes}.`)
  }
  const name = issue.path.map(String).join('.')
  const got = raw[name] === undefined ? '' : ` (got ${JSON.stringify(raw[name])})`
  throw new HttpError('invalid_parameter', `Invalid query parameter: ${describe(issue, 'query').replace(/\.$/, '')}${got}.`)
}

/** A parsed JSON body against the operation's strict schema: 400 invalid_request naming the field(s). */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  // reportInput: so a wrong type ("must be a string") is told apart from a missing field ("is required").
  const result = schema.safeParse(body, { reportInput: true })
  if (result.success) return result.data
  const messages = result.error.issues.slice(0, 3).map((i) => describe(i, 'the body'))
  throw new HttpError('invalid_request', messages.join(' '))
}
