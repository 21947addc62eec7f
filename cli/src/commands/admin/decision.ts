import type { Command } from 'commander'
import type { CommonOptions } from '../../context.ts'
import { type Decider, describeDecider, operatorDecider } from '../../core.ts'
import { operatorLogin } from '../../operator-login.ts'

/** The options of every decision command (`growth admin approval|action approve|reject ID`). */
export type DecisionOptions = CommonOptions & { by?: string; reason?: string }

/** --reason and --by, the same on each decision command. */
export function decisionOptions(command: Command): Command {
  return command
    .option('--reason <text>', 'why, recorded with the decision and shown wherever it is (at most 500 characters)')
    .option(
      '--by <note>',
      "a note kept beside the decision, e.g. on whose behalf (letters, digits, spaces and . , ' - _ @, at most 100); who decided is always your login",
    )
}

/** Who decides: this operator's login, with the --by note; a bad note is refused naming --by. */
export function decisionOf(opts: DecisionOptions): { decider: Decider; reason: string | null } {
  return { decider: operatorDecider(operatorLogin(), opts.by), reason: opts.reason ?? null }
}

/** The lines a person reads about a decision: who (and the note), when, and why. */
export function decisionRows(d: { decidedBy: Decider | null; decidedAt: string | null; decisionReason: string | null }): [string, string][] {
  if (!d.decidedBy) return []
  return [['Decided by:', `${describeDecider(d.decidedBy)} at ${d.decidedAt}`], ...(d.decisionReason ? [['Reason:', d.decisionReason] as [string, string]] : [])]
}
