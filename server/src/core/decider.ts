/**
 * Who decided an approval or a proposed change. An operator decides from the CLI (`growth admin
 * approval|action approve|reject ID`): the name is the operator's login, and `--by` only adds a
 * note beside it. A person signed in to the console decides as themselves (`per_...`).
 */
export type Decider =
  | { kind: 'operator'; name: string; note?: string }
  | { kind: 'person'; id: string; name: string }

/** What a note (`--by`) may hold: letters, digits, spaces and . , ' - _ @, at most 100 characters. */
export const DECISION_NOTE = /^[\p{L}\p{M}\p{N} .,'_@-]{1,100}$/u
export const DECISION_NOTE_ALLOWED = "letters, digits, spaces and . , ' - _ @, at most 100 characters"

/** A decision's reason (`--reason`) is free text of at most this many characters. */
export const DECISION_REASON_MAX = 500

/** The decider as one line for people: `maya (operator)`, `maya (operator; note: for Kenji)`, `Maya Chen`. */
export function describeDecider(d: Decider): string {
  if (d.kind === 'person') return d.name
  return d.note ? `${d.name} (operator; note: ${d.note})` : `${d.name} (operator)`
}
