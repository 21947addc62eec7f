import type { z } from 'zod'
import { ApiError } from '../errors.ts'

/** One readable sentence for a zod issue, naming the field (or query parameter) it is about. */
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
    case 'invalid_format':
      if (issue.format === 'datetime') return `${name} is not an ISO 8601 date-time with a time zone, e.g. 2026-10-01T00:00:00Z.`
      return `${name} is not a valid ${issue.format}.`
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

/** Query parameters: unknown, repeated or malformed ones are 400 invalid_parameter naming them. */
export function parseQuery<S extends z.ZodType>(schema: S | undefined, url: URL): z.output<S> {
  const raw: Record<string, string> = {}
  for (const [key, value] of url.searchParams) {
    if (key in raw) throw new ApiError('invalid_parameter', `Query parameter ${key} is given more than once.`)
    if (key.includes('\u0000') || value.includes('\u0000')) {
      throw new ApiError('invalid_parameter', `Query parameter ${key.replaceAll('\u0000', '')} contains a NUL character (%00).`)
    }
    raw[key] = value
  }
  if (!schema) {
    const keys = Object.keys(raw)
    if (keys.length) throw new ApiError('invalid_parameter', `Unknown query parameter ${keys[0]}: this endpoint takes none.`)
    return {} as z.output<S>
  }
  const result = schema.safeParse(raw)
  if (result.success) return result.data
  const issue = result.error.issues[0]!
  if (issue.code === 'unrecognized_keys') {
    throw new ApiError('invalid_parameter', `Unknown query parameter ${issue.keys.join(', ')}.`)
  }
  const name = issue.path.map(String).join('.')
  const got = raw[name] === undefined ? '' : ` (got ${JSON.stringify(raw[name])})`
  throw new ApiError('invalid_parameter', `Invalid query parameter ${describe(issue, 'query').replace(/\.$/, '')}${got}.`)
}

/** A parsed JSON body against the operation's strict schema: 400 invalid_request naming the field. */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const result = schema.safeParse(body)
  if (result.success) return result.data
  const messages = result.error.issues.slice(0, 3).map((i) => describe(i, 'the body'))
  throw new ApiError('invalid_request', messages.join(' '))
}
