import type { z } from 'zod'
import { type DocumentPath, fieldsAt, namedOption, unknownFieldMessage } from './document-fields.ts'

/**
 * A schema's issues in words, for readDocument (document-text.ts): each zod issue becomes errors
 * with their full path, a union's issues those of the branch the writer meant.
 */

type Issue = z.core.$ZodIssue
type Explained = { path: DocumentPath; message: string; onKey?: boolean }

/**
 * A document's own wording: the message for an issue (at `path`, where the document holds `value`;
 * `data` is the whole document), or undefined for the general one. An unknown field's message is
 * placed at the first unknown key.
 */
export type DocumentWording = (issue: Issue, path: DocumentPath, value: unknown, data: unknown) => string | undefined

const quoteAll = (values: readonly unknown[]) => values.map((v) => String(v)).join(', ')

/**
 * One schema issue as errors in words, each with its full path (a union's branch issues are relative
 * to it). With the document's `schema`, an unknown field is answered with the fields its place takes.
 */
export function explainIssue(issue: Issue, base: DocumentPath, data: unknown, wording?: DocumentWording, schema?: z.ZodType): Explained[] {
  const path = [...base, ...issue.path]
  const value = valueOfPath(data, path)
  const own = wording?.(issue, path, value, data)
  if (own !== undefined) {
    const key = issue.code === 'unrecognized_keys' ? issue.keys[0] : undefined
    return [key === undefined ? { path, message: own } : { path: [...path, key], message: own, onKey: true }]
  }
  switch (issue.code) {
    case 'unrecognized_keys': {
      const fields = schema && fieldsAt(schema, path, data)
      return issue.keys.map((k) => ({ path: [...path, k], message: unknownFieldMessage(k, fields), onKey: true }))
    }
    case 'invalid_key':
      return [{ path, message: issue.issues.at(-1)?.message ?? 'is not a valid key', onKey: true }]
    case 'invalid_union': {
      if (noMatch(issue)) {
        const options = (issue as { options?: unknown[] }).options ?? []
        return [{ path, message: value === undefined ? 'is required' : `must be one of ${quoteAll(options)}` }]
      }
      // The branch the value names by a literal field (`count: allowed`), else the one nearest to it.
      const named = schema ? namedOption(schema, path, data) : undefined
      const best = named !== undefined ? issue.errors[named] : meantBranch(issue.errors)
      if (!best?.length) return [{ path, message: 'is not valid here' }]
      return best.flatMap((i) => explainIssue(i, path, data, wording, schema))
    }
    case 'invalid_type': {
      if (value === undefined) return [{ path, message: 'is required' }]
      const expected = issue.expected === 'int' ? 'a whole number' : issue.expected === 'object' ? 'a mapping of fields' : issue.expected === 'array' ? 'a list' : `a ${issue.expected}`
      return [{ path, message: `must be ${expected}` }]
    }
    case 'invalid_value':
      if (value === undefined) return [{ path, message: 'is required' }]
      return [{ path, message: issue.values.length === 1 ? `must be ${quoteAll(issue.values)}` : `must be one of ${quoteAll(issue.values)}` }]
    case 'too_small':
      if (issue.origin === 'array') return [{ path, message: issue.message.startsWith('Too small') ? `must list at least ${issue.minimum}` : issue.message }]
      if (issue.origin === 'number') return [{ path, message: `must be at least ${issue.minimum}` }]
      return [{ path, message: issue.message }]
    default:
      return [{ path, message: issue.message }]
  }
}

/**
 * The branch of a union the input was meant for: the one with the fewest issues, where a branch
 * the value does not fit at all (its discriminator, its type or its fields) counts as far off.
 */
function meantBranch(branches: Issue[][]): Issue[] | undefined {
  const far = (i: Issue) => noMatch(i) || (i.path.length === 0 && (i.code === 'unrecognized_keys' || i.code === 'invalid_type'))
  const scored = branches.map((errs) => ({ errs, score: errs.length + errs.filter(far).length * 10 }))
  return scored.sort((a, b) => a.score - b.score)[0]?.errs
}

/** A discriminated union's issue when the discriminator (e.g. fact) is none of its options. */
const noMatch = (i: Issue) => i.code === 'invalid_union' && (i as { note?: string }).note === 'No matching discriminator'

function valueOfPath(data: unknown, path: DocumentPath): unknown {
  let v = data
  for (const k of path) {
    if (v === null || typeof v !== 'object') return undefined
    v = (v as Record<PropertyKey, unknown>)[k]
  }
  return v
}
