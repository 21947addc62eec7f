import { Document, isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, visit, type Node } from 'yaml'
import type { z } from 'zod'
import { AgentPolicy } from '../schemas/agent-policy.ts'

/**
 * The agent policy document read from text: YAML or JSON (JSON is YAML), checked against the one
 * schema (schemas/agent-policy.ts). Every error names where it stands, the line and column of the
 * YAML node at the schema issue's path, and the field by its path:
 *
 *   line 12, column 9: rules[0].when[1].op: must be one of >, >=, <, <=, =
 *
 * A field that is missing is placed at the object that lacks it; an unknown field at its key.
 */

/** The largest policy document read: beyond it, the text is refused before it is parsed. */
export const POLICY_MAX_BYTES = 1024 * 1024

type PolicyError = { line: number; column: number; path: string; message: string }
type PolicyParse = { ok: true; policy: AgentPolicy } | { ok: false; errors: PolicyError[] }
type Issue = z.core.$ZodIssue
type Path = PropertyKey[]

/**
 * The document as YAML, laid out as CONTRACT.md writes it: a list of plain values on one line
 * (`allow: [ads.pause_campaign, ads.adjust_budget]`), and an item of a list whose fields are all
 * plain values or such lists on one line too (an action, a match, a condition); long lines kept whole.
 */
export function policyYaml(policy: AgentPolicy): string {
  const doc = new Document(policy)
  const flat = (n: unknown) => isScalar(n) || (isSeq(n) && n.flow)
  visit(doc, {
    Seq(_, seq) {
      if (seq.items.length && seq.items.every(isScalar)) seq.flow = true
    },
  })
  visit(doc, {
    Map(_, map, path) {
      if (isSeq(path.at(-1)) && map.items.every((p) => flat(p.value))) map.flow = true
    },
  })
  return doc.toString({ lineWidth: 0, flowCollectionPadding: true })
}

/** `line 3, column 5: tools[0].key: must be ...`, one line per error. */
export const policyErrorLine = (e: PolicyError) => `line ${e.line}, column ${e.column}: ${e.path ? `${e.path}: ` : ''}${e.message}`

/** The policy in `text`, or every error found in it (syntax errors first; then the schema's). */
export function parsePolicy(text: string): PolicyParse {
  const bytes = Buffer.byteLength(text, 'utf8')
  if (bytes > POLICY_MAX_BYTES) {
    return { ok: false, errors: [{ line: 1, column: 1, path: '', message: `the policy is too large: ${bytes} bytes, at most ${POLICY_MAX_BYTES} (1 MiB)` }] }
  }
  const lineCounter = new LineCounter()
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true })
  const at = (offset: number) => {
    const { line, col } = lineCounter.linePos(offset)
    return { line, column: col }
  }
  if (doc.errors.length) {
    return { ok: false, errors: doc.errors.map((e) => ({ ...at(e.pos[0]), path: '', message: syntaxMessage(e.message) })) }
  }
  let data: unknown
  try {
    data = doc.toJS({ maxAliasCount: 100 })
  } catch (e) {
    return { ok: false, errors: [{ line: 1, column: 1, path: '', message: (e as Error).message }] }
  }
  const parsed = AgentPolicy.safeParse(data)
  if (parsed.success) return { ok: true, policy: parsed.data }
  const errors = parsed.error.issues.flatMap((issue) => explain(issue, [], data)).map(({ path, message, onKey }) => ({
    ...at(offsetOf(doc, path, onKey)),
    path: pathText(path),
    message,
  }))
  errors.sort((a, b) => a.line - b.line || a.column - b.column)
  return { ok: false, errors }
}

/** The yaml package's message without its own position (the error says where, once). */
const syntaxMessage = (m: string) => m.replace(/ at line \d+, column \d+.*$/s, '').trim()

/** `rules[0].when[1].op` */
function pathText(path: Path): string {
  return path.reduce<string>((s, k) => (typeof k === 'number' ? `${s}[${k}]` : s ? `${s}.${String(k)}` : String(k)), '')
}

type Explained = { path: Path; message: string; onKey?: boolean }

const quoteAll = (values: readonly unknown[]) => values.map((v) => String(v)).join(', ')

/** One schema issue as errors in words, each with its full path (a union's branch issues are relative to it). */
function explain(issue: Issue, base: Path, data: unknown): Explained[] {
  const path = [...base, ...issue.path]
  switch (issue.code) {
    case 'unrecognized_keys':
      return issue.keys.map((k) => ({ path: [...path, k], message: 'unknown field', onKey: true }))
    case 'invalid_key':
      return [{ path, message: issue.issues.at(-1)?.message ?? 'is not a valid key', onKey: true }]
    case 'invalid_union': {
      if (noMatch(issue)) {
        const options = (issue as { options?: unknown[] }).options ?? []
        return [{ path, message: valueOfPath(data, path) === undefined ? 'is required' : `must be one of ${quoteAll(options)}` }]
      }
      // The branch the input was meant for: the one with the fewest issues, where a branch whose
      // discriminator or fields do not fit at all counts as far off.
      const far = (i: Issue) => noMatch(i) || (i.code === 'unrecognized_keys' && i.path.length === 0)
      const branches = issue.errors.map((errs) => ({ errs, score: errs.length + errs.filter(far).length * 10 }))
      const best = branches.sort((a, b) => a.score - b.score)[0]
      if (!best?.errs.length) return [{ path, message: 'is not valid here' }]
      const value = valueOfPath(data, path)
      if (value && typeof value === 'object' && !Array.isArray(value) && !('fact' in value) && !('count' in value)) {
        return [{ path, message: 'needs fact (a condition on a stated fact) or count (a count of allowed requests)' }]
      }
      return best.errs.flatMap((i) => explain(i, path, data))
    }
    case 'invalid_type': {
      if (valueOfPath(data, path) === undefined) return [{ path, message: 'is required' }]
      if (!path.length) return [{ path, message: 'the policy must be a mapping with tools (and agents, missingFacts, rules)' }]
      const expected = issue.expected === 'int' ? 'a whole number' : issue.expected === 'object' ? 'a mapping of fields' : issue.expected === 'array' ? 'a list' : `a ${issue.expected}`
      return [{ path, message: `must be ${expected}` }]
    }
    case 'invalid_value':
      if (valueOfPath(data, path) === undefined) return [{ path, message: 'is required' }]
      return [{ path, message: issue.values.length === 1 ? `must be ${quoteAll(issue.values)}` : `must be one of ${quoteAll(issue.values)}` }]
    case 'too_small':
      if (issue.origin === 'array') return [{ path, message: issue.message.startsWith('Too small') ? `must list at least ${issue.minimum}` : issue.message }]
      if (issue.origin === 'number') return [{ path, message: `must be at least ${issue.minimum}` }]
      return [{ path, message: issue.message }]
    default:
      return [{ path, message: issue.message }]
  }
}

/** A discriminated union's issue when the discriminator (e.g. fact) is none of its options. */
const noMatch = (i: Issue) => i.code === 'invalid_union' && (i as { note?: string }).note === 'No matching discriminator'

function valueOfPath(data: unknown, path: Path): unknown {
  let v = data
  for (const k of path) {
    if (v === null || typeof v !== 'object') return undefined
    v = (v as Record<PropertyKey, unknown>)[k]
  }
  return v
}

/** Where the node at `path` starts in the text (its key, for a field named wrongly); else its nearest ancestor. */
function offsetOf(doc: Document, path: Path, onKey = false): number {
  let node: unknown = doc.contents
  let start = (doc.contents as Node | null)?.range?.[0] ?? 0
  for (const [i, k] of path.entries()) {
    const last = i === path.length - 1
    if (isMap(node)) {
      const pair = node.items.find((p) => isPair(p) && (isScalar(p.key) ? p.key.value : p.key) === k)
      if (!pair) break
      const key = pair.key as Node | null
      if (last && onKey && key?.range) return key.range[0]
      node = pair.value
      start = (node as Node | null)?.range?.[0] ?? key?.range?.[0] ?? start
    } else if (isSeq(node) && typeof k === 'number') {
      node = node.items[k]
      if (!node) break
      start = (node as Node).range?.[0] ?? start
    } else break
  }
  return start
}
