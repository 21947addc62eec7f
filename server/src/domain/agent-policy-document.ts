import { Document, isScalar, isSeq, visit } from 'yaml'
import { AgentPolicy } from '../schemas/agent-policy.ts'
import type { DocumentWording } from './document-issues.ts'
import { type DocumentError, readDocument } from './document-text.ts'

/**
 * The agent policy document read from text: YAML or JSON (JSON is YAML), checked against the one
 * schema (schemas/agent-policy.ts) by the shared reader (document-text.ts), every error naming its
 * line, column and field path (`line 12, column 9: rules[0].when[1].op: must be one of ...`).
 */

/** The largest policy document read: beyond it, the text is refused before it is parsed. */
export const POLICY_MAX_BYTES = 1024 * 1024

type PolicyParse = { ok: true; policy: AgentPolicy } | { ok: false; errors: DocumentError[] }

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

/** The policy in `text`, or every error found in it (syntax errors first; then the schema's). */
export function parsePolicy(text: string): PolicyParse {
  const read = readPolicy(text)
  return read.ok ? { ok: true, policy: read.value } : { ok: false, errors: read.errors }
}

/** As parsePolicy, keeping where each field stands (`at`), for the errors found when it is resolved against a workspace. */
export const readPolicy = (text: string) => readDocument(text, AgentPolicy, { what: 'the policy', maxBytes: POLICY_MAX_BYTES, wording: policyWording })

/** What the policy says in its own words: what a document and a condition must hold. */
const policyWording: DocumentWording = (issue, path, value) => {
  if (issue.code === 'invalid_type' && !path.length) return 'the policy must be a mapping with tools (and agents, missingFacts, rules)'
  if (issue.code === 'invalid_union' && value && typeof value === 'object' && !Array.isArray(value) && !('fact' in value) && !('count' in value)) {
    return 'needs fact (a condition on a stated fact) or count (a count of allowed requests)'
  }
  return undefined
}
