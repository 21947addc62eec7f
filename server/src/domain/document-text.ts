import { type Document, isMap, isPair, isScalar, isSeq, LineCounter, type Node, parseDocument } from 'yaml'
import type { z } from 'zod'
import type { DocumentPath } from './document-fields.ts'
import { type DocumentWording, explainIssue } from './document-issues.ts'

/**
 * A document an operator writes (YAML, or JSON, which is YAML) read against a zod schema. Every
 * error found names where it stands, the line and column of the YAML node at the schema issue's
 * path, and the field by its path:
 *
 *   line 12, column 9: rules[0].when[1].op: must be one of >, >=, <, <=, =
 *
 * A field that is missing is placed at the object that lacks it; an unknown field at its key. The
 * agent policy (agent-policy-document.ts) and the cases of `growth admin policy test`
 * (agent-policy-test.ts) are both read here, each with its own wording (document-issues.ts).
 */

export type DocumentError = { line: number; column: number; path: string; message: string }
type Position = { line: number; column: number }
/** Why a document was refused: too large to read, not YAML, or not what the schema asks. */
type Refusal = 'too_large' | 'syntax' | 'schema'
type DocumentRead<T> = { ok: true; value: T; at(path: DocumentPath): Position } | { ok: false; refusal: Refusal; errors: DocumentError[] }

type ReadOptions = {
  /** What the document is, in the too-large message: `the policy`. */
  what: string
  maxBytes?: number
  wording?: DocumentWording
}

/** 1 MiB: beyond it, the text is refused before it is parsed. */
const MAX_BYTES = 1024 * 1024

/** `line 3, column 5: tools[0].key: must be ...`, one line per error. */
export const documentErrorLine = (e: DocumentError) => `line ${e.line}, column ${e.column}: ${e.path ? `${e.path}: ` : ''}${e.message}`

/** The value `text` holds, or every error found in it (syntax errors first; then the schema's, in the order of the text). */
export function readDocument<S extends z.ZodType>(text: string, schema: S, opts: ReadOptions): DocumentRead<z.output<S>> {
  const max = opts.maxBytes ?? MAX_BYTES
  const bytes = Buffer.byteLength(text, 'utf8')
  if (bytes > max) {
    const mib = max % MAX_BYTES === 0 ? ` (${max / MAX_BYTES} MiB)` : ''
    return { ok: false, refusal: 'too_large', errors: [{ line: 1, column: 1, path: '', message: `${opts.what} is too large: ${bytes} bytes, at most ${max}${mib}` }] }
  }
  const lineCounter = new LineCounter()
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true })
  const pos = (offset: number): Position => {
    const { line, col } = lineCounter.linePos(offset)
    return { line, column: col }
  }
  if (doc.errors.length) {
    return { ok: false, refusal: 'syntax', errors: doc.errors.map((e) => ({ ...pos(e.pos[0]), path: '', message: `not valid YAML or JSON: ${syntaxMessage(e.message)}${hintOf(e.code, e.message)}` })) }
  }
  let data: unknown
  try {
    data = doc.toJS({ maxAliasCount: 100 })
  } catch (e) {
    return { ok: false, refusal: 'syntax', errors: [{ line: 1, column: 1, path: '', message: (e as Error).message }] }
  }
  const parsed = schema.safeParse(data)
  if (parsed.success) return { ok: true, value: parsed.data, at: (path) => pos(offsetOf(doc, path)) }
  const errors = parsed.error.issues
    .flatMap((issue) => explainIssue(issue, [], data, opts.wording, schema))
    .map(({ path, message, onKey }) => ({ ...pos(offsetOf(doc, path, onKey)), path: pathText(path), message }))
  errors.sort((a, b) => a.line - b.line || a.column - b.column)
  return { ok: false, refusal: 'schema', errors }
}

/**
 * What to do about the yaml package's terser errors, by their code: the commonest slips in a file
 * written by hand (an indent off by a space, a missing space after a colon) read as a parser's words.
 */
const SYNTAX_HINTS: Partial<Record<string, string>> = {
  BAD_INDENT: ' (check the indentation of this line: the fields of one mapping start in the same column, indented under the key they belong to)',
  MISSING_CHAR: ' (check the indentation of this line: the fields of one mapping start in the same column, and a list item starts with "- ")',
  MULTILINE_IMPLICIT_KEY: ' (a field is written key: value, with a space after the colon)',
}

/** The hint for a syntax error: an unclosed [ or { first (the yaml package files it as BAD_INDENT too, though no indent is wrong). */
function hintOf(code: string, message: string): string {
  const unclosed = /end with an? ([\]}])/.exec(message)?.[1]
  if (unclosed) return ` (a ${unclosed === ']' ? 'list written [a, b' : 'mapping written { a: 1'} lacks its closing ${unclosed}: close it on the line where it starts, or write it as one item a line)`
  return SYNTAX_HINTS[code] ?? ''
}

/** The yaml package's message without its own position (the error says where, once). */
const syntaxMessage = (m: string) => m.replace(/ at line \d+, column \d+.*$/s, '').trim()

/** `rules[0].when[1].op` */
export function pathText(path: DocumentPath): string {
  return path.reduce<string>((s, k) => (typeof k === 'number' ? `${s}[${k}]` : s ? `${s}.${String(k)}` : String(k)), '')
}

/** Where the node at `path` starts in the text (its key, for a field named wrongly); else its nearest ancestor. */
function offsetOf(doc: Document, path: DocumentPath, onKey = false): number {
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
