import type { SimulatedWrite } from './generated/models.ts'

/**
 * What kind of credential a client holds, as far as its type can tell: a write with a test token
 * is checked as a live one and then only simulated, so what it resolves to depends on this.
 * `unknown` (a token read from the environment) means either.
 */
export type Mode = 'live' | 'test' | 'agent' | 'unknown'

/** The mode a token's literal type shows (its prefix), or `unknown` for a plain string. */
export type ModeOf<T> = string extends T
  ? 'unknown'
  : T extends `svc_test_${string}`
    ? 'test'
    : T extends `svc_live_${string}`
      ? 'live'
      : T extends `svc_agt_${string}`
        ? 'agent'
        : 'unknown'

/** A test token's write: every check passed and nothing was recorded. */
export type Simulated = SimulatedWrite

/** What a write resolves to with a token of mode M: the record, `{ simulated: true }`, or either. */
export type Written<R, M extends Mode> = M extends 'test' ? Simulated : M extends 'live' | 'agent' ? R : R | Simulated

/** True when a write's answer is a test token's simulation (nothing was recorded). */
export function isSimulated(value: unknown): value is Simulated {
  return typeof value === 'object' && value !== null && (value as { simulated?: unknown }).simulated === true && Object.keys(value).length === 1
}
