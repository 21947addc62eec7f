/**
 * The closed sets of values that every layer speaks of: stored in the database (whose CHECK
 * constraints hold the same lists), judged by the domain, and published as enums in the API's
 * schemas. Each list is written once, here.
 */

/** An action's risk, as the tool catalogue rates it. */
export const RISKS = ['low', 'medium', 'high'] as const
export type Risk = (typeof RISKS)[number]

/** The agent gateway's decisions: only `allowed` is a yes. */
export const GATEWAY_DECISIONS = ['allowed', 'denied', 'requires_approval'] as const
export type GatewayDecision = (typeof GATEWAY_DECISIONS)[number]

/** What a rule for agents does when it bites. */
export const RULE_EFFECTS = ['deny', 'require_approval'] as const
export type RuleEffect = (typeof RULE_EFFECTS)[number]

/** What the agent policy does when a rule, ceiling or limit reads a fact the request did not state. */
export const MISSING_FACTS = ['require_approval', 'ignore'] as const
export type MissingFacts = (typeof MISSING_FACTS)[number]

/** What an agent reports became of an allowed action. */
export const RESULT_STATUSES = ['completed', 'failed', 'cancelled'] as const
export type ResultStatus = (typeof RESULT_STATUSES)[number]

/** Who an agent belongs to: the product's own agents, or the workspace's. */
export const AGENT_OWNERS = ['product', 'workspace'] as const
export type AgentOwner = (typeof AGENT_OWNERS)[number]

export const ACTION_STATUSES = ['proposed', 'approved', 'applying', 'applied', 'rejected', 'refused', 'failed'] as const
export type ActionStatus = (typeof ACTION_STATUSES)[number]

export const APPROVAL_STATUSES = ['pending', 'approved', 'rejected'] as const
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number]
export const APPROVAL_KINDS = ['send', 'agent_request'] as const
export type ApprovalKind = (typeof APPROVAL_KINDS)[number]

export const SIGNAL_STATUSES = ['open', 'resolved', 'dismissed'] as const
export type SignalStatus = (typeof SIGNAL_STATUSES)[number]

export const OPPORTUNITY_STATUSES = ['open', 'actioned', 'dismissed', 'expired'] as const
export type OpportunityStatus = (typeof OPPORTUNITY_STATUSES)[number]

export const CUSTOMER_STAGES = ['prospect', 'first_time', 'repeat', 'lapsed'] as const
export type CustomerStage = (typeof CUSTOMER_STAGES)[number]

export const CONNECTION_KINDS = ['store', 'ad_account', 'email_platform', 'social_account'] as const
export type ConnectionKind = (typeof CONNECTION_KINDS)[number]

export const EXPERIMENT_KINDS = ['email_ab_test', 'email_holdout', 'sms_holdout'] as const
export type ExperimentKind = (typeof EXPERIMENT_KINDS)[number]
export const EXPECTATIONS = ['a_better', 'b_better', 'no_difference', 'send_adds'] as const
export type Expectation = (typeof EXPECTATIONS)[number]

export const MISSION_STATUSES = ['active', 'paused', 'completed'] as const
export type MissionStatus = (typeof MISSION_STATUSES)[number]
export const AUTOMATION_STATUSES = ['running', 'paused', 'finished'] as const
export type AutomationStatus = (typeof AUTOMATION_STATUSES)[number]

/** The plans a workspace can be on (CONTRACT: Allowances and plans). */
export const PLANS = ['starter', 'growth', 'scale'] as const
export type Plan = (typeof PLANS)[number]

/** The plan's monthly allowances, and the standing one (contacts held). */
export const MONTHLY_ALLOWANCES = ['emails', 'sms', 'trackedEvents', 'agentRequests'] as const
export type MonthlyAllowance = (typeof MONTHLY_ALLOWANCES)[number]
export const ALLOWANCES = [...MONTHLY_ALLOWANCES, 'contacts'] as const
export type Allowance = (typeof ALLOWANCES)[number]

/** The gateway's checks, in the order they run and report (CONTRACT: Agent gateway). */
export const CHECK_NAMES = ['agents_enabled', 'tool', 'permission', 'data', 'limits', 'risk', 'rules'] as const
export type CheckName = (typeof CHECK_NAMES)[number]

/** The facts an agent may state when it asks (CONTRACT: Agent gateway); any other name is refused. */
export const FACT_NAMES = ['amountMinor', 'currency', 'amountPercent', 'increase', 'recipients', 'records'] as const
export type FactName = (typeof FACT_NAMES)[number]
