import { isNode, LineCounter, parseDocument } from 'yaml'
import type { z } from 'zod'
import { RuleError } from '../core/errors.ts'

/**
 * A document an operator writes (YAML, or JSON, which is YAML) read against a zod schema, every
 * refusal naming the line it is on: `CASES line 7: case 2 "big raise": unknown fact amount; ...`.
 */

/** A schema issue, as `describe` receives it to put in words. */
export type DocumentIssue = { code: string; path: (string | number)[]; message: string; keys?: string[]; input?: unknown }

type ParsedDocument<T> = {
  value: T
  /** `line N` of the node at `path` (or of the nearest node above it that exists). */
  lineOf(path: (string | number)[]): string
}

export function parseDocumentText<S extends z.ZodType>(
  text: string,
  schema: S,
  source: string,
  describe: (issue: DocumentIssue, root: unknown) => string = (i) => `${i.path.join('.') || 'the document'} ${i.message}`,
): ParsedDocument<z.output<S>> {
  const lines = new LineCounter()
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true })
  const bad = doc.errors[0]
  if (bad) {
    const { line } = lines.linePos(bad.pos[0])
    throw new RuleError('unreadable_document', `${source} line ${line}: not valid YAML or JSON: ${bad.message.split('\n')[0]}`)
  }
  const lineOf = (path: (string | number)[]) => {
    for (let n = path.length; n >= 0; n--) {
      const node = n === 0 ? doc.contents : doc.getIn(path.slice(0, n), true)
      if (isNode(node) && node.range) return `line ${lines.linePos(node.range[0]).line}`
    }
    return 'line 1'
  }
  const root = doc.toJS()
  const result = schema.safeParse(root, { reportInput: true })
  if (!result.success) {
    const issue = deepest(result.error.issues as unknown as DocumentIssue[])
    // An unknown key is named on its own line, not its object's.
    const at = issue.code === 'unrecognized_keys' && issue.keys?.length ? [...issue.path, issue.keys[0]!] : issue.path
    throw new RuleError('invalid_document', `${source} ${lineOf(at)}: ${describe(issue, root)}`)
  }
  return { value: result.data, lineOf }
}

/**
 * The issue to tell, of all zod found: a union (a list, or `{ cases: [...] }`) reports each member's
 * issues; the one that went deepest into the document is the one the writer meant.
 */
function deepest(issues: DocumentIssue[]): DocumentIssue {
  const flatten = (i: DocumentIssue & { errors?: DocumentIssue[][] }): DocumentIssue[] =>
    i.code !== 'invalid_union' || !i.errors?.length ? [i] : i.errors.flatMap((branch) => branch.flatMap((b) => flatten({ ...b, path: [...i.path, ...b.path] })))
  const flat = issues.flatMap(flatten)
  // An unknown key counts as deep as the key itself, and wins a tie: a misspelt field also leaves
  // the field it meant missing, and the misspelling is what to tell.
  const depth = (i: DocumentIssue) => i.path.length + (i.code === 'unrecognized_keys' ? 1 : 0)
  const better = (i: DocumentIssue, best: DocumentIssue) => depth(i) > depth(best) || (depth(i) === depth(best) && i.code === 'unrecognized_keys' && best.code !== 'unrecognized_keys')
  return flat.reduce((best, i) => (better(i, best) ? i : best), flat[0] ?? issues[0]!)
}
