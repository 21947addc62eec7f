import { z } from 'zod'
import { AGENT_OWNERS, RISKS } from '../core/enums.ts'
import { Money, Timestamp } from './common.ts'

const Permission = z
  .object({
    tool: z.string().describe('The tool key.'),
    action: z.string().describe('The action key within the tool.'),
    sentence: z.string().describe('The permission in words.'),
  })
  .describe('An action the agent is permitted, in words.')
export const Permissions = z.array(Permission).describe('Each action the agent is permitted, in words.')
export const DataAccess = z.array(z.string()).describe("The data it may use (the keys of the tools' dataUsed).")
export const RiskLevel = z.enum(RISKS).describe('low, medium or high.')
export const MaxRisk = RiskLevel.describe('The highest risk it may take without a person; above it, a person approves.')
export const AgentOwnerSchema = z.enum(AGENT_OWNERS).describe("product: the product's own agent; workspace: the workspace's own.")

export const Ceilings = z
  .object({
    amounts: z.array(Money).describe('The most it may ask for, per currency; an amount in any other currency is denied.'),
    amountPercent: z.number().nullable().describe('The largest percentage it may ask for; null: no ceiling of its own.'),
    recipients: z.number().int().nullable().describe('The most recipients of one request; null: no ceiling of its own.'),
    records: z.number().int().nullable().describe('The most records one request may touch; null: no ceiling of its own.'),
    sentences: z.array(z.string()).describe('The same ceilings in words.'),
  })
  .describe("The most the agent may ask for. The workspace's own limits apply as well.")

export const Agent = z
  .object({
    id: z.string().describe('agt_...'),
    name: z.string().describe('Its name, as people see it.'),
    owner: AgentOwnerSchema,
    description: z.string().nullable().describe('What it is for.'),
    permissions: Permissions,
    dataAccess: DataAccess,
    maxUnattendedRisk: MaxRisk,
    ceilings: Ceilings,
    lastActedAt: Timestamp.nullable().describe('When it last asked the gateway or reported a result.'),
    createdAt: Timestamp,
    retiredAt: Timestamp.nullable().describe('When a person retired it: its credentials no longer open anything, and its history is kept. null while it is active.'),
  })
  .describe('An agent of the workspace, what it may do and the most it may ask for.')

export type Agent = z.infer<typeof Agent>
export type CeilingsView = z.infer<typeof Ceilings>
