import { z } from 'zod'
import { DECISION_REASON_MAX } from '../core/decider.ts'
import { Timestamp } from './common.ts'

/** An operator's decision, made with the CLI. */
const OperatorDecider = z
  .object({
    kind: z.literal('operator').describe('operator: decided with the CLI.'),
    name: z.string().describe("The operator's login on the machine that ran the command."),
    note: z
      .string()
      .optional()
      .describe("The operator's note (`--by`): letters, digits, spaces and . , ' - _ @, at most 100 characters. Absent when none was given."),
  })
  .describe('Decided by an operator with the CLI (`growth admin approval|action approve|reject`).')

/** A person's decision, made in the console. */
const PersonDecider = z
  .object({
    kind: z.literal('person').describe('person: decided in the console.'),
    id: z.string().describe('per_...'),
    name: z.string().describe("The person's name."),
  })
  .describe('Decided by a person signed in to the console.')

export const DecidedBy = z
  .discriminatedUnion('kind', [OperatorDecider, PersonDecider])
  .meta({ discriminator: { propertyName: 'kind' } })
  .describe('Who decided: an operator with the CLI, or a person in the console (by `kind`).')

/** The three fields every decided record carries (approvals, proposed changes, agent requests). */
export const decisionFields = (what: string) => ({
  decidedBy: DecidedBy.nullable().describe(`Who decided ${what}; null until decided.`),
  decidedAt: Timestamp.nullable().describe(`When ${what} was decided; null until decided.`),
  decisionReason: z
    .string()
    .max(DECISION_REASON_MAX)
    .nullable()
    .describe('The reason given with the decision (`--reason`), or null when none was given.'),
})
