import { z } from 'zod'
import { FACT_NAMES, MISSING_FACTS, RULE_EFFECTS } from '../core/enums.ts'
import { Currency } from './common.ts'
import { RiskLevel } from './agents.ts'

/**
 * A workspace's agent policy as one document (CONTRACT: Agent policy): its tools and their actions,
 * what each agent may do, what happens when a fact is missing, and the rules. Owners write it in YAML
 * or JSON; `growth admin policy export` prints the policy in force in this shape. Strict: a field
 * the document does not know is an error, so a misspelt field never silently does nothing. The
 * published JSON Schema (docs/agent-policy.schema.json) is generated from this one schema.
 */

const KEY = /^[a-z][a-z0-9_]{0,39}$/
const Key = (what: string) =>
  z.string().regex(KEY, { message: 'must be 1 to 40 of a-z, 0-9 and _, starting with a letter' }).describe(what)
const Words = (what: string) => z.string().trim().min(1, { message: 'must not be empty' }).describe(what)

const PolicyAction = z
  .strictObject({
    key: Key('The action key, unique in its tool (authorize takes it as action).'),
    name: Words('The action in words.'),
    risk: RiskLevel,
    dataUsed: z.array(z.string().min(1)).describe('The data it uses, e.g. contacts, ad_spend.'),
    reversible: z.boolean().describe('Whether it can be undone.'),
  })
  .describe('An action of the tool.')

const PolicyTool = z
  .strictObject({
    key: Key('The tool key, unique in the workspace (authorize takes it as tool).'),
    name: Words('The tool in words.'),
    description: z.string().describe('What it reaches.'),
    actions: z.array(PolicyAction).describe('Every action of the tool.'),
  })
  .describe('A tool agents can be permitted.')

const ToolAction = z
  .string()
  .regex(/^[a-z][a-z0-9_]{0,39}\.[a-z][a-z0-9_]{0,39}$/, { message: 'must be tool.action, e.g. ads.pause_campaign' })
  .describe('tool.action')

const Ceilings = z
  .strictObject({
    amountMinor: z
      .record(Currency, z.number().int().nonnegative())
      .optional()
      .describe('The most one request may ask for, in minor units, per currency; an amount in any other currency is denied (absent: an amount in any currency is).'),
    amountPercent: z.number().nonnegative().optional().describe('The largest percentage one request may ask for.'),
    recipients: z.number().int().nonnegative().optional().describe('The most recipients of one request.'),
    records: z.number().int().nonnegative().optional().describe('The most records one request may touch.'),
  })
  .describe("The most the agent may ask for; the workspace's own limits apply as well.")

const PolicyAgent = z
  .strictObject({
    agent: Words("The agent's id (agt_...) or its name; agents are registered with growth admin agent create."),
    allow: z.array(ToolAction).describe('The tool actions it may ask for.'),
    dataAccess: z.array(z.string().min(1)).optional().describe('The data it may use (default: the data its allowed actions use).'),
    maxUnattendedRisk: RiskLevel.optional().describe('The highest risk it may take without a person (default medium).'),
    ceilings: Ceilings.optional(),
  })
  .describe('What one agent may do.')

const OPS = ['>', '>=', '<', '<=', '='] as const
const Op = z.enum(OPS).describe('How it is compared.')
const Equals = z.literal('=').describe('= (the only comparison this fact takes)')
const Amount = z.number().nonnegative()

const [AMOUNT_MINOR, CURRENCY, AMOUNT_PERCENT, INCREASE, RECIPIENTS, RECORDS] = FACT_NAMES
const FactCondition = z.discriminatedUnion('fact', [
  z.strictObject({ fact: z.literal(AMOUNT_MINOR), op: Op, value: z.number().int().nonnegative().describe('Minor units.'), currency: Currency }),
  z.strictObject({ fact: z.literal(CURRENCY), op: Equals, value: Currency }),
  z.strictObject({ fact: z.literal([AMOUNT_PERCENT, RECIPIENTS, RECORDS]), op: Op, value: Amount }),
  z.strictObject({ fact: z.literal(INCREASE), op: Equals, value: z.boolean() }),
])

const CountCondition = z
  .strictObject({
    count: z.literal('allowed').describe("allowed: the agent's allowed requests for the rule's tool action."),
    window: z
      .string()
      .regex(/^[1-9][0-9]{0,3}[mhd]$/, {
        // A window of nothing counts nothing: said as such, not as a duration misspelt.
        error: (issue) => (typeof issue.input === 'string' && /^0+[mhd]$/.test(issue.input) ? 'must be longer than 0: a count over no time is always 0; a duration such as 30m, 24h or 7d' : 'must be a duration such as 30m, 24h or 7d'),
      })
      .describe('How far back to count, e.g. 24h.'),
    op: Op,
    value: z.number().int().nonnegative(),
  })
  .describe('How often the agent was already allowed this tool action in the window.')

const Condition = z
  .union([FactCondition, CountCondition])
  .describe('A condition on a stated fact ({ fact, op, value }) or a count ({ count: allowed, window, op, value }).')

const PolicyRule = z
  .strictObject({
    id: z.string().regex(/^rule_[A-Za-z0-9]+$/, { message: 'must be a rule id (rule_...)' }).optional().describe('Kept from export; a rule without an id is new.'),
    effect: z.enum(RULE_EFFECTS).describe('deny refuses; require_approval waits for a person.'),
    match: z
      .array(z.strictObject({ tool: Key('A tool key.'), action: Key('An action key of the tool (absent: every action of it).').optional() }))
      .min(1, { message: 'must list at least one { tool, action }' })
      .describe('The tool actions it covers.'),
    agents: z.array(Words('An agent id or name.')).min(1, { message: 'must list at least one agent (its name or id), or be left out to apply to every agent' }).optional().describe('The agents it applies to (absent: every agent).'),
    when: z.array(Condition).optional().describe('Every condition must hold (absent or empty: always).'),
  })
  .describe('A rule for agents.')

export const AgentPolicy = z
  .strictObject({
    tools: z.array(PolicyTool).describe('The whole catalogue; a tool missing here is retired.'),
    agents: z.array(PolicyAgent).optional().describe('What each agent may do.'),
    missingFacts: z
      .enum(MISSING_FACTS)
      .optional()
      .describe('What happens when a rule, ceiling or limit reads a fact the request did not state (default require_approval).'),
    rules: z.array(PolicyRule).optional().describe('The rules, in order.'),
  })
  .superRefine((doc, ctx) => {
    // Each key once: a second tool, action, agent or rule id of the same name is an error where it stands.
    const once = (keys: (string | undefined)[], path: (i: number) => (string | number)[], what: (k: string) => string) =>
      keys.forEach((k, i) => {
        if (k !== undefined && keys.indexOf(k) !== i) ctx.addIssue({ code: 'custom', path: path(i), message: `${what(k)} is given twice` })
      })
    once(doc.tools.map((t) => t.key), (i) => ['tools', i, 'key'], (k) => `tool ${k}`)
    doc.tools.forEach((t, ti) => once(t.actions.map((a) => a.key), (i) => ['tools', ti, 'actions', i, 'key'], (k) => `action ${t.key}.${k}`))
    once((doc.agents ?? []).map((a) => a.agent), (i) => ['agents', i, 'agent'], (k) => `agent ${k}`)
    once((doc.rules ?? []).map((r) => r.id), (i) => ['rules', i, 'id'], (k) => `rule ${k}`)
  })
  .describe("A workspace's agent policy: its tools, its agents' permissions and its rules.")

export type AgentPolicy = z.infer<typeof AgentPolicy>
