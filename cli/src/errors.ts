import { CommanderError } from 'commander'
import { DomainError, RuleError } from '../../server/src/core/errors.ts'
import { printError, writeErr } from './output.ts'

/** A refusal by the CLI itself (bad configuration, bad input it checks before the domain does): exit 1. */
export class CliError extends Error {}

/** The command was stopped by Ctrl-C (or SIGTERM) before it was done; it said what it did: exit 130, as a shell has it. */
export class Interrupted extends CliError {}

/**
 * The command printed its result, and the result is a failure (a policy test case failed): exit 1,
 * nothing more printed (the result said what failed).
 */
export class ResultFailed extends Error {}

/**
 * The API refused a call (or, with --json, the CLI refused its input, or --require-allowed a
 * decision): exit 1, the envelope on stderr. `label` names it on the line for people when its code
 * alone would not say why (default: the code).
 */
export class ApiRefusal extends Error {
  constructor(
    readonly error: { code: string; message: string; requestId: string | null; idempotencyKey?: string },
    readonly status: number | undefined,
    readonly json: boolean,
    readonly label: string = error.code,
    /** A line for people after the refusal's (a write that may have been done: how to send it again). */
    readonly hint?: string,
  ) {
    super(error.message)
  }
}

/**
 * No answer from the API (no server at the base URL, a wrong address, a time-out): exit 2, as anything
 * unexpected; one sentence, or with --json the error envelope (code `no_answer`) on stderr.
 */
export class NoAnswer extends Error {
  constructor(
    message: string,
    readonly json: boolean,
    /** A write that may have been done (refusal.ts, outcomeUnknown): its key in the envelope with --json, else the hint's line. */
    readonly unknown?: { idempotencyKey: string; hint: string },
  ) {
    super(message)
  }
}

/** `expiresAt` -> `--expires-at`: the option an operator command takes for a field of the domain. */
const flagOf = (field: string) => `--${field.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`

/**
 * The domain speaks of its fields (`expiresAt must be ...`); an operator typed options. A refusal
 * naming a field is told in the option's name (`--expires-at must be ...`), or points at it.
 */
function refusalMessage(err: DomainError): string {
  if (!(err instanceof RuleError) || !err.field || err.field === 'id') return err.message
  const flag = flagOf(err.field)
  return err.message.startsWith(`${err.field} `) ? `${flag}${err.message.slice(err.field.length)}` : `${err.message} (${flag})`
}

/** The API's code for a refusal of the same kind. */
function codeOf(err: DomainError | CliError): string {
  if (err instanceof Interrupted) return 'interrupted'
  if (!(err instanceof DomainError)) return 'invalid_request'
  return { not_found: 'not_found', rule: 'invalid_request', conflict: 'conflict', allowance: 'plan_required' }[err.kind as string] ?? 'invalid_request'
}

/** Commander's outcomes that printed help rather than refused anything. */
const COMMANDER_HELP = new Set(['commander.help', 'commander.helpDisplayed', 'commander.version'])

/**
 * The one top-level error handler. Returns the exit code:
 * - commander's own outcomes (help, version, usage errors: it has already printed them) keep its code;
 *   with --json, a usage error (printed by no one yet) is the error envelope, as other refusals are;
 * - a refusal meant for the operator (a domain refusal, a CliError) prints `error: <message>` and gives 1;
 * - the API's refusal (ApiRefusal) prints its envelope's message and gives 1; an answer of 500 or
 *   more (after the SDK's retries) is the API failing, not refusing: the same, and 2;
 * - an interruption (Interrupted, a Ctrl-C the command stopped for) prints the same and gives 130;
 * - no answer from the API (NoAnswer) prints one sentence (with --json the envelope) and gives 2;
 * - a result that is a failure (ResultFailed), already printed, gives 1;
 * - anything else is unexpected: `error: <message>` (the stack with DEBUG set) and 2.
 * stdout stays empty in every case but the last.
 */
export function handleError(err: unknown, opts: { json?: boolean } = {}): number {
  if (err instanceof CommanderError) {
    if (opts.json && err.exitCode !== 0 && !COMMANDER_HELP.has(err.code)) {
      writeErr(`${JSON.stringify({ error: { code: 'invalid_request', message: err.message.replace(/^error: /, '').replace(/\s*\n\s*/g, ' '), requestId: null } })}\n`)
    }
    return err.exitCode
  }
  if (err instanceof ResultFailed) return 1
  if (err instanceof ApiRefusal) {
    if (err.json) writeErr(`${JSON.stringify({ error: err.error })}\n`)
    else if (err.status) printError(`${err.error.message} (${err.status} ${err.error.code}${err.error.requestId ? `, request ${err.error.requestId}` : ''})${err.hint ? `\n${err.hint}` : ''}`)
    else printError(err.error.code === 'invalid_request' ? err.error.message : `${err.label}: ${err.error.message}`)
    // A 500 or more (after the SDK's retries) is the API failing, not refusing: unexpected.
    return err.status !== undefined && err.status >= 500 ? 2 : 1
  }
  if (err instanceof NoAnswer) {
    const key = err.unknown ? { idempotencyKey: err.unknown.idempotencyKey } : {}
    if (err.json || opts.json) writeErr(`${JSON.stringify({ error: { code: 'no_answer', message: err.message, requestId: null, ...key } })}\n`)
    else printError(err.unknown ? `${err.message}\n${err.unknown.hint}` : err.message)
    return 2
  }
  if (err instanceof DomainError || err instanceof CliError) {
    const message = err instanceof DomainError ? refusalMessage(err) : err.message
    // With --json a refusal is JSON too, shaped as the API's error envelope.
    if (opts.json) writeErr(`${JSON.stringify({ error: { code: codeOf(err), message, requestId: null } })}\n`)
    else printError(message)
    return err instanceof Interrupted ? 130 : 1
  }
  const message = err instanceof Error ? err.message : String(err)
  printError(message || 'unexpected failure')
  if (process.env.DEBUG && err instanceof Error && err.stack) process.stderr.write(`${err.stack}\n`)
  return 2
}
