import type { Db } from '../core/db.ts'
import type { Risk } from '../core/enums.ts'
import type { Positioned } from '../core/paging.ts'
import { iso } from '../core/time.ts'
import type { Tool } from '../schemas/agent-tools.ts'
import * as store from '../store/agent-tools.ts'

/**
 * The tools every workspace starts with: what an agent can be permitted, action by action, with
 * the risk, the data each action uses and whether it can be undone. The agent gateway judges
 * requests against these rows (tools, tool_actions), which a workspace may extend.
 *
 * `verb` and `does` are the action in words, for the sentences of rules and permissions:
 * "No agent may <verb> ..." and "Ask a person before any agent <does> ...". `raises`/`lowers` are
 * the words when a rule speaks of an increase or a decrease; `percentWord` joins a percentage
 * ("raises a daily budget by 20%", "creates a discount code of 20%").
 */

type CatalogueAction = {
  key: string
  name: string
  risk: Risk
  dataUsed: string[]
  reversible: boolean
  verb: string
  does: string
  raises?: string
  lowers?: string
  percentWord?: 'by' | 'of'
}
type CatalogueTool = { key: string; name: string; description: string; actions: CatalogueAction[] }

/** The data an action can use, in words, for sentences. */
const DATA_NAMES: Record<string, string> = {
  contacts: 'contacts',
  segments: 'segments',
  templates: 'email templates',
  personal_data: 'personal data',
  campaigns: 'campaigns',
  ad_spend: 'ad spend',
  customer_spend: 'customer spend',
  revenue: 'revenue',
  products: 'products',
  discounts: 'discount codes',
}

export const TOOL_CATALOGUE: CatalogueTool[] = [
  {
    key: 'ads',
    name: 'Ad accounts',
    description: 'Campaigns and budgets on the connected ad accounts.',
    actions: [
      { key: 'read_performance', name: 'Read campaign performance', risk: 'low', dataUsed: ['campaigns', 'ad_spend'], reversible: true, verb: 'read campaign performance', does: 'reads campaign performance' },
      { key: 'pause_campaign', name: 'Pause a campaign', risk: 'low', dataUsed: ['campaigns'], reversible: true, verb: 'pause a campaign', does: 'pauses a campaign' },
      { key: 'resume_campaign', name: 'Resume a campaign', risk: 'medium', dataUsed: ['campaigns'], reversible: true, verb: 'resume a campaign', does: 'resumes a campaign' },
      {
        key: 'adjust_budget', name: 'Change a daily budget', risk: 'medium', dataUsed: ['campaigns', 'ad_spend'], reversible: true,
        verb: 'change a daily budget', does: 'changes a daily budget', raises: 'raises a daily budget', lowers: 'lowers a daily budget', percentWord: 'by',
      },
    ],
  },
  {
    key: 'email',
    name: 'Email',
    description: 'Drafts and sends through the connected email platform.',
    actions: [
      { key: 'draft_campaign', name: 'Draft an email campaign', risk: 'low', dataUsed: ['templates', 'segments'], reversible: true, verb: 'draft an email campaign', does: 'drafts an email campaign' },
      { key: 'send_campaign', name: 'Send an email campaign', risk: 'high', dataUsed: ['contacts', 'segments', 'templates'], reversible: false, verb: 'send an email campaign', does: 'sends an email campaign' },
    ],
  },
  {
    key: 'sms',
    name: 'SMS',
    description: 'Text messages to contacts who agreed to receive them.',
    actions: [
      { key: 'send_message', name: 'Send an SMS message', risk: 'high', dataUsed: ['contacts', 'segments'], reversible: false, verb: 'send an SMS message', does: 'sends an SMS message' },
    ],
  },
  {
    key: 'discounts',
    name: 'Discounts',
    description: 'Discount codes in the connected store.',
    actions: [
      { key: 'create_discount', name: 'Create a discount code', risk: 'medium', dataUsed: ['products', 'discounts'], reversible: true, verb: 'create a discount code', does: 'creates a discount code', percentWord: 'of' },
      { key: 'end_discount', name: 'End a discount code', risk: 'low', dataUsed: ['discounts'], reversible: true, verb: 'end a discount code', does: 'ends a discount code' },
    ],
  },
  {
    key: 'contacts',
    name: 'Contacts',
    description: 'The people who agreed to hear from the business.',
    actions: [
      { key: 'tag_contacts', name: 'Tag contacts', risk: 'low', dataUsed: ['contacts'], reversible: true, verb: 'tag contacts', does: 'tags contacts' },
      { key: 'export_contacts', name: 'Export contacts', risk: 'high', dataUsed: ['contacts', 'personal_data'], reversible: false, verb: 'export contacts', does: 'exports contacts' },
    ],
  },
  {
    key: 'reporting',
    name: 'Reporting',
    description: 'Revenue and customer reports from the order ledger.',
    actions: [
      { key: 'read_revenue', name: 'Read revenue', risk: 'low', dataUsed: ['revenue'], reversible: true, verb: 'read revenue', does: 'reads revenue' },
      { key: 'read_customer_spend', name: 'Read customer spend', risk: 'medium', dataUsed: ['customer_spend', 'personal_data'], reversible: true, verb: 'read customer spend', does: 'reads customer spend' },
    ],
  },
]

/** The catalogue's words for an action, or plain fallbacks for one a workspace added itself. */
export function wordsOf(tool: string, action: string, name?: string): Pick<CatalogueAction, 'verb' | 'does' | 'raises' | 'lowers' | 'percentWord'> {
  const known = TOOL_CATALOGUE.find((t) => t.key === tool)?.actions.find((a) => a.key === action)
  if (known) return known
  // Without its name, the key alone: "use billing.refund", never the key twice.
  const plain = name ? ` (${name.charAt(0).toLowerCase() + name.slice(1)})` : ''
  return { verb: `use ${tool}.${action}${plain}`, does: `uses ${tool}.${action}${plain}` }
}

/**
 * The verb of a permission sentence ("Budget Pacer may <verb> (tool.action)."): the catalogue's, or
 * for an action a workspace added, its name as a verb phrase ("Open an issue" -> "open an issue").
 */
export function actionVerb(tool: string, action: string, name?: string): string {
  if (TOOL_CATALOGUE.some((t) => t.key === tool && t.actions.some((a) => a.key === action)) || !name) return wordsOf(tool, action).verb
  return name.charAt(0).toLowerCase() + name.slice(1)
}

export const dataName = (key: string) => DATA_NAMES[key] ?? key.replaceAll('_', ' ')

/** Where a list of tools left off: the last one's created_at (ISO) and key. */
export type ToolPosition = { t: string; key: string }

/** The workspace's tools in the order they were added, each with every action: risk, data used, reversibility. */
export async function listTools(sql: Db, workspaceId: string, page: { after?: ToolPosition; limit: number }): Promise<Positioned<Tool, ToolPosition>[]> {
  return (await store.selectTools(sql, workspaceId, page)).map((t) => ({
    position: { t: iso(t.created_at), key: t.key },
    item: { key: t.key, name: t.name, description: t.description, actions: t.actions, createdAt: iso(t.created_at) },
  }))
}

/** The catalogue as rows for a new workspace's tools. */
export const catalogueTools = (): store.ToolInsert[] =>
  TOOL_CATALOGUE.map((t) => ({
    key: t.key,
    name: t.name,
    description: t.description,
    actions: t.actions.map((a) => ({ key: a.key, name: a.name, risk: a.risk, dataUsed: a.dataUsed, reversible: a.reversible })),
  }))
