import { CommanderError } from 'commander'
import { AdminError } from './core.ts'
import { printError } from './output.ts'

/** A refusal by the CLI itself (bad configuration, bad input it checks before the domain does): exit 1. */
export class CliError extends Error {}

/**
 * The one top-level error handler. Returns the exit code:
 * - commander's own outcomes (help, version, usage errors: it has already printed them) keep its code;
 * - a refusal meant for the operator (AdminError, CliError) prints `error: <message>` and gives 1;
 * - anything else is unexpected: `error: <message>` (the stack with DEBUG set) and 2.
 * stdout stays empty in every case.
 */
export function handleError(err: unknown): number {
  if (err instanceof CommanderError) return err.exitCode
  if (err instanceof AdminError || err instanceof CliError) {
    printError(err.message)
    return 1
  }
  const message = err instanceof Error ? err.message : String(err)
  printError(message || 'unexpected failure')
  if (process.env.DEBUG && err instanceof Error && err.stack) process.stderr.write(`${err.stack}\n`)
  return 2
}
