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
 * `person:<id>`, `system:<name>`; and back (a line of another shape is an operator's own words).
 */
export function actorLine(a: Actor): string {
  return a.kind === 'person' ? `person:${a.id}` : `${a.kind}:${a.name}`
}

export function actorOfLine(line: string): Actor {
  const m = /^(operator|system):(.+)$/.exec(line.trim())
  if (m) return { kind: m[1] as 'operator' | 'system', name: m[2]! }
  return { kind: 'operator', name: line.trim() }
}
