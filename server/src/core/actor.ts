import type { Decider } from './decider.ts'

/**
 * Who did something, as the audit list records it: an operator at a terminal (their login), a
 * person signed in to the console (id and name), or the system itself (e.g. the demo's seeding).
 */
export type Actor = { kind: 'operator'; name: string } | { kind: 'person'; id: string; name: string } | { kind: 'system'; name: string }

/** Whoever acts when a caller names no one: the service itself. */
export const SYSTEM_ACTOR: Actor = { kind: 'system', name: 'growth' }

/** The actor of a decision: the operator's login (the --by note stays in the decision), or the person. */
export function actorOfDecider(d: Decider): Actor {
  return d.kind === 'person' ? { kind: 'person', id: d.id, name: d.name } : { kind: 'operator', name: d.name }
}

/**
 * The actor of a stop or resume as the kill switch records it, in one line: `operator:<login>`,
 * `person:<id>`, `system:<name>`; and back (a line of another shape is an operator's own words). A
 * person's line holds their id only: `personName` is their name as read now (their id when they
 * are no longer in the workspace).
 */
export function actorLine(a: Actor): string {
  return a.kind === 'person' ? `person:${a.id}` : `${a.kind}:${a.name}`
}

export function actorOfLine(line: string, personName?: string | null): Actor {
  const person = /^person:(.+)$/.exec(line.trim())
  if (person) return { kind: 'person', id: person[1]!, name: personName || person[1]! }
  const m = /^(operator|system):(.+)$/.exec(line.trim())
  if (m) return { kind: m[1] as 'operator' | 'system', name: m[2]! }
  return { kind: 'operator', name: line.trim() }
}

/** An actor for a terminal: a person as name and id, anyone else as name and kind. */
export function actorText(a: Actor): string {
  return a.kind === 'person' ? `${a.name} (${a.id})` : `${a.name} (${a.kind})`
}
