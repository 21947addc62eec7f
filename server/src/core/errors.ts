/**
 * What can go wrong, in the terms every layer shares.
 *
 * The domain refuses with a DomainError of one of four kinds: something named does not exist in the
 * workspace, a rule refuses the request (naming the rule), the record's state conflicts with it, or
 * an allowance of the plan has run out. None of them knows HTTP: only the http layer
 * (http/answer.ts) turns a kind into a status and an error code of the envelope.
 */

/** The closed set of error codes of the envelope (spec: Errors), in the order the spec lists them. */
export const ERROR_CODES = [
  'invalid_parameter',
  'invalid_body',
  'invalid_request',
  'unauthorized',
  'plan_required',
  'forbidden',
  'not_found',
  'conflict',
  'idempotency_key_reused',
  'rate_limited',
  'internal',
] as const

export type ErrorCode = (typeof ERROR_CODES)[number]

type DomainErrorKind = 'not_found' | 'rule' | 'conflict' | 'allowance'

export abstract class DomainError extends Error {
  abstract readonly kind: DomainErrorKind
}

/** Nothing with that id (in this workspace, for API callers). Worded the same whoever's it is. */
export class NotFoundError extends DomainError {
  readonly kind = 'not_found'
  constructor(
    readonly resource: string,
    readonly id: string,
    message = `No ${resource} ${id} in this workspace.`,
  ) {
    super(message)
  }
}

/**
 * A rule refuses the request. `rule` names the rule (stable, for logs and tests); `field` names the
 * input it is about, in the API's terms (`expiresAt`, `args.campaignId`), when there is one.
 */
export class RuleError extends DomainError {
  readonly kind = 'rule'
  constructor(
    readonly rule: string,
    message: string,
    readonly field?: string,
  ) {
    super(message)
  }
}

/**
 * The record is in a state that refuses this (a test already decided, an approval already used).
 * `recorded`: the refusal itself was recorded (e.g. an agent's result the gateway would not take),
 * so the write that found it must commit that record and keep the answer for its Idempotency-Key.
 */
export class ConflictError extends DomainError {
  readonly kind = 'conflict'
  readonly recorded: boolean
  constructor(message: string, opts: { recorded?: boolean } = {}) {
    super(message)
    this.recorded = opts.recorded ?? false
  }
}

/** An allowance of the workspace's plan has run out; the message names it and what remains. */
export class AllowanceError extends DomainError {
  readonly kind = 'allowance'
  constructor(
    readonly allowance: string,
    message: string,
  ) {
    super(message)
  }
}
