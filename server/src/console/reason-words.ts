import { DECISION_REASON_MAX } from '../core/decider.ts'
import { ReasonRefused } from '../domain/deciders.ts'

/**
 * A reason (or note) the domain refused, in the words of the person who typed it: what is wrong with
 * it and what to do, naming the field as its form does ("The note", "The reason"). The API and the
 * CLI keep the domain's own sentence, which names the parameter.
 */
export function reasonRefusal(error: ReasonRefused, field: string): string {
  return 'length' in error.got
    ? `${field} is ${error.got.length.toLocaleString('en-US')} characters long: keep it to ${DECISION_REASON_MAX}.`
    : `${field} holds a control character (${error.got.character}), as text pasted from a terminal can: take it out and try again.`
}
