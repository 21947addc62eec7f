import { DECISION_NOTE, DECISION_NOTE_ALLOWED, DECISION_REASON_MAX, type Decider } from '../core/decider.ts'
import { RuleError } from '../core/errors.ts'
import { codePoints } from '../schemas/common.ts'

const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/

/**
 * An operator's decision from the CLI: who decided is the operator's login; the note (`--by`) is
 * kept beside it, never in its place. A note may hold only letters, digits, spaces and . , ' - _ @
 * (it is shown in terminals, logs and the console: no quotes, brackets, control characters or
 * escape sequences), at most 100 characters.
 */
export function operatorDecider(login: string, note?: string): Decider {
  const name = login.trim()
  if (!name) throw new RuleError('decider_named', 'The operator deciding must be known by a login.')
  if (note === undefined) return { kind: 'operator', name }
  const trimmed = note.trim()
  if (!DECISION_NOTE.test(trimmed)) {
    throw new RuleError(
      'note_characters',
      `by may hold only ${DECISION_NOTE_ALLOWED} (got ${JSON.stringify(note)}); it is a note kept beside your login, which is recorded as who decided.`,
      'by',
    )
  }
  return { kind: 'operator', name, note: trimmed }
}

/** A reason refused, with what was wrong in it: its length, or the control character it holds (U+XXXX). */
export class ReasonRefused extends RuleError {
  constructor(
    rule: 'reason_length' | 'reason_text',
    message: string,
    readonly got: { length: number } | { character: string },
  ) {
    super(rule, message, 'reason')
  }
}

/**
 * The reason given with a decision: trimmed, null when empty, at most 500 characters, and no
 * control characters but line breaks and tabs (it is shown in other people's terminals: no escape
 * sequences).
 */
export function decisionReason(reason: string | null | undefined): string | null {
  const trimmed = reason?.trim() ?? ''
  if (!trimmed) return null
  if (codePoints(trimmed) > DECISION_REASON_MAX) {
    const length = codePoints(trimmed)
    throw new ReasonRefused('reason_length', `reason must be at most ${DECISION_REASON_MAX} characters (got ${length}).`, { length })
  }
  const control = CONTROL.exec(trimmed)
  if (control) {
    const code = `U+${control[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`
    throw new ReasonRefused('reason_text', `reason must not contain control characters other than line breaks and tabs (got ${code}).`, { character: code })
  }
  return trimmed
}

/** A person of the console deciding as themselves: their id and name, as the session knows them. */
export function personDecider(person: { id: string; name: string }): Decider {
  return { kind: 'person', id: person.id, name: person.name }
}
