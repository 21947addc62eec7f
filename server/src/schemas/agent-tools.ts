import { z } from 'zod'
import { Timestamp } from './common.ts'
import { RiskLevel } from './agents.ts'

export const Tool = z
  .object({
    key: z.string().describe('The tool key, e.g. ads (authorize takes it as tool).'),
    name: z.string().describe('The tool in words.'),
    description: z.string().describe('What it reaches.'),
    actions: z
      .array(
        z.object({
          key: z.string().describe('The action key (authorize takes it as action).'),
          name: z.string().describe('The action in words.'),
          risk: RiskLevel,
          dataUsed: z.array(z.string()).describe('The data it uses, e.g. contacts, ad_spend, customer_spend, revenue.'),
          reversible: z.boolean().describe('Whether it can be undone.'),
        }),
      )
      .describe('Every action of the tool.'),
    createdAt: Timestamp,
  })
  .describe('A tool an agent can be permitted, with each action: risk, data used, whether it can be undone.')

export type Tool = z.infer<typeof Tool>
