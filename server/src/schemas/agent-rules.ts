import { z } from 'zod'
import { FACT_NAMES, RULE_EFFECTS } from '../core/enums.ts'
import { Timestamp } from './common.ts'

export const RuleEffectSchema = z.enum(RULE_EFFECTS).describe('deny refuses; require_approval waits for a person.')

export const Rule = z
  .object({
    id: z.string().describe('rule_...'),
    sentence: z.string().describe('The rule in words, built from its structure.'),
    effect: RuleEffectSchema,
    structure: z.object({
      match: z
        .array(
          z.object({
            tool: z.string().describe('A tool key.'),
            action: z.string().optional().describe('An action key of it; absent: every action of the tool.'),
          }),
        )
        .describe('The tool actions it covers (no action: every action of the tool).'),
      agents: z.array(z.string()).optional().describe('The agents (agt_...) it applies to; absent: every agent.'),
      when: z
        .array(
          z.union([
            z.object({
              fact: z.enum(FACT_NAMES).describe('The fact compared.'),
              op: z.enum(['>', '>=', '<', '<=', '=']).describe('How it is compared.'),
              value: z.union([z.number(), z.boolean(), z.string()]).describe('What it is compared with (minor units for amountMinor).'),
              currency: z.string().optional().describe('For amountMinor: the currency the amount is in.'),
            }),
            z.object({
              count: z.literal('allowed').describe("The agent's allowed requests for the asked tool action."),
              window: z.string().describe('How far back they are counted: 30m, 24h, 7d.'),
              op: z.enum(['>', '>=', '<', '<=', '=']).describe('How the count is compared.'),
              value: z.number().int().describe('What it is compared with.'),
            }),
          ]),
        )
        .describe('Every condition must hold: on the stated facts, or on how often the agent was already allowed the tool action; none: always.'),
    }).describe('The rule as the gateway judges it.'),
    createdAt: Timestamp,
  })
  .describe('A rule in force for agents.')

export type Rule = z.infer<typeof Rule>
