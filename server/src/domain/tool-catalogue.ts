/**
 * The tools every workspace starts with: what an agent can be permitted, action by action, with
 * the risk, the data each action uses and whether it can be undone. The agent gateway judges
 * requests against these rows (tools, tool_actions), which a workspace may extend.
 */
export type CatalogueAction = { key: string; name: string; risk: 'low' | 'medium' | 'high'; dataUsed: string[]; reversible: boolean }
export type CatalogueTool = { key: string; name: string; description: string; actions: CatalogueAction[] }

export const TOOL_CATALOGUE: CatalogueTool[] = [
  {
    key: 'ads',
    name: 'Ad accounts',
    description: 'Campaigns and budgets on the connected ad accounts.',
    actions: [
      { key: 'read_performance', name: 'Read campaign performance', risk: 'low', dataUsed: ['campaign_metrics'], reversible: true },
      { key: 'pause_campaign', name: 'Pause a campaign', risk: 'low', dataUsed: ['campaigns'], reversible: true },
      { key: 'resume_campaign', name: 'Resume a campaign', risk: 'medium', dataUsed: ['campaigns'], reversible: true },
      { key: 'adjust_budget', name: 'Change a daily budget', risk: 'medium', dataUsed: ['campaigns', 'spend'], reversible: true },
    ],
  },
  {
    key: 'email',
    name: 'Email',
    description: 'Drafts and sends through the connected email platform.',
    actions: [
      { key: 'draft_campaign', name: 'Draft an email campaign', risk: 'low', dataUsed: ['templates'], reversible: true },
      { key: 'send_campaign', name: 'Send an email campaign', risk: 'high', dataUsed: ['contacts', 'segments'], reversible: false },
    ],
  },
  {
    key: 'discounts',
    name: 'Discounts',
    description: 'Discount codes in the connected store.',
    actions: [
      { key: 'create_discount', name: 'Create a discount code', risk: 'medium', dataUsed: ['products'], reversible: true },
    ],
  },
  {
    key: 'contacts',
    name: 'Contacts',
    description: 'The people who agreed to hear from the business.',
    actions: [
      { key: 'tag_contacts', name: 'Tag contacts', risk: 'low', dataUsed: ['contacts'], reversible: true },
      { key: 'export_contacts', name: 'Export contacts', risk: 'high', dataUsed: ['contacts', 'personal_data'], reversible: false },
    ],
  },
]
