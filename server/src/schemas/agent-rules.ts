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
      when: z
        .array(
          z.object({
            fact: z.enum(FACT_NAMES).describe('The fact compared.'),
            op: z.enum(['>', '>=', '<', '<=', '=']).describe('How it is compared.'),
            value: z.union([z.number(), z.boolean(), z.string()]).describe('What it is compared with (minor units for amountMinor).'),
            currency: z.string().optional().describe('For amountMinor: the currency the amount is in.'),
          }),
        )
        .describe('Every condition must hold on the stated facts; none: always.'),
    }).describe('The rule as the gateway judges it.'),
    createdAt: Timestamp,
  })
  .describe('A rule in force for agents.')

export type Rule = z.infer<typeof Rule>
