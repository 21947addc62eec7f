import type { ResultStatus } from '../core/enums.ts'
import { newId } from '../core/ids.ts'
import { formatMoney } from '../core/money.ts'
import { secretsKeyring } from '../core/secrets.ts'
import { decide, type DecisionInput } from '../domain/agent-decision.ts'
import { loadWorld, paramsDigest } from '../domain/agent-gateway.ts'
import { addRules, type RuleStructure, ruleSentence } from '../domain/agent-rules.ts'
import { toProfile } from '../domain/agents.ts'
import type { Facts } from '../schemas/agent-gateway.ts'
import { insertRequestHistory, insertResultHistory, type RequestInsert, type ResultRow } from '../store/agent-requests.ts'
import { selectAgents, touchAgent } from '../store/agents.ts'
import { type ApprovalInsert, insertApprovals } from '../store/approvals.ts'
import type { CampaignInsert } from '../store/campaigns.ts'
import { approvalRow } from './approvals.ts'
import { budgetAfter, type DemoCampaigns } from './campaigns.ts'
import type { DemoAudience } from './contacts.ts'
import { DAY, type DemoAgent, type DemoContext, HOUR, MINUTE, money } from './context.ts'
import { operatorDecision, PEOPLE } from './people.ts'
import { selectMissingFacts, selectSecretKey, selectWorkspaceGate } from '../store/workspaces.ts'

type Scenario = { tool: string; action: string; resource: string; summary: string; facts: Facts }
type Approved = { id: string; name: string; expiresAt: Date }

const RULE_SPECS: { structure: RuleStructure; effect: 'deny' | 'require_approval' }[] = [
  {
    structure: { match: [{ tool: 'ads', action: 'adjust_budget' }], when: [{ fact: 'increase', op: '=', value: true }, { fact: 'amountPercent', op: '>', value: 15 }] },
    effect: 'require_approval',
  },
  { structure: { match: [{ tool: 'email', action: 'send_campaign' }, { tool: 'sms', action: 'send_message' }], when: [{ fact: 'recipients', op: '>', value: 10_000 }] }, effect: 'require_approval' },
  { structure: { match: [{ tool: 'contacts', action: 'export_contacts' }], when: [{ fact: 'records', op: '>', value: 500 }] }, effect: 'deny' },
]
/** The workspace's rules version once the demo's rules are in: one per rule. */
/** About this many requests over the last four weeks, shared among the agents. */
const REQUESTS = 30

/**
 * The rules in force and the agents' history at the gateway: their requests, the approvals some
 * waited for, and the results they reported. The seeded requests are decided by the real gateway's
 * decision function, on the agents' own permissions, data, ceilings and risk, the workspace's
 * limits and these rules. Returns the requests (oldest first).
 */
export async function seedAgentHistory(
  ctx: DemoContext,
  deps: { campaigns: DemoCampaigns; audience: Pick<DemoAudience, 'lists' | 'segments'>; googleFailingSince: Date },
): Promise<RequestInsert[]> {
  const { tx, workspaceId, r, ago, agoJitter, events, agents } = ctx
  const now = ctx.now.getTime()
  const { newsletter: cNewsletter, meta: cMeta, google: cGoogle, instagram: cInstagram, sms: cSms } = deps.campaigns
  const { lists, segments } = deps.audience
  const world = await loadWorld(tx, workspaceId)
  const profiles = new Map((await selectAgents(tx, workspaceId)).map((row) => [row.id, toProfile(row)]))
  const secretKey = secretsKeyring().open((await selectSecretKey(tx, workspaceId))!)
  const rulesCreated = [150, 150, 97].map((d) => agoJitter(d))
  const added = await addRules(tx, workspaceId, RULE_SPECS.map((s, i) => ({ ...s, createdAt: rulesCreated[i] })))
  // The history is decided under the rules as they stand now, at the version adding them left.
  const rulesVersion = (await selectWorkspaceGate(tx, workspaceId))!.rules_version
  const missingFacts = (await selectMissingFacts(tx, workspaceId))!
  const rulesInForce = added.map((rule) => ({ id: rule.id, structure: rule.structure, effect: rule.effect, sentence: ruleSentence(rule, world.toolNames) }))
  const permittedOf = (agentId: string) => profiles.get(agentId)?.permissions ?? new Set<string>()
  const judge = (agent: DemoAgent, s: Scenario, at: Date, approval: Approved | null) =>
    decide({
      agent: profiles.get(agent.id)!,
      stopped: null,
      tool: s.tool,
      action: s.action,
      toolActions: world.tools.get(s.tool) ?? null,
      toolKeys: [...world.tools.keys()],
      actionDef: world.actions.get(`${s.tool}.${s.action}`) ?? null,
      facts: s.facts,
      stated: s.facts,
      missingFacts,
      // The demo's rules count nothing.
      allowedCounts: {},
      rules: rulesInForce,
      rulesInForce: rulesInForce.length,
      rulesVersion,
      limits: world.limits,
      at,
      prior: approval ? { state: 'approved', id: approval.id, decidedBy: approval.name, expiresAt: approval.expiresAt } : null,
    } satisfies DecisionInput)
  const budgetScenario = (c: CampaignInsert, from: number, pct: number): Scenario => {
    const to = budgetAfter(from, pct)
    return {
      tool: 'ads', action: 'adjust_budget', resource: c.id,
      summary: `Raise "${c.name}" from ${formatMoney(money(from, c.currency!))} to ${formatMoney(money(to, c.currency!))} a day (+${pct}%)`,
      facts: { amountMinor: to, currency: c.currency!, amountPercent: pct, increase: true },
    }
  }
  // What the agents ask for, and how often (agents ask for what they may not do too, but seldom).
  const scenarios: [Scenario, number][] = [
    [{ tool: 'ads', action: 'read_performance', resource: cMeta.id, summary: `Read yesterday's spend and first orders for "${cMeta.name}"`, facts: {} }, 3],
    [{ tool: 'ads', action: 'read_performance', resource: cGoogle.id, summary: `Read this week's cost per click for "${cGoogle.name}"`, facts: {} }, 2],
    [{ tool: 'ads', action: 'pause_campaign', resource: cInstagram.id, summary: `Pause "${cInstagram.name}" (frequency 4.8, cost per order up 41%)`, facts: {} }, 1.5],
    [budgetScenario(cMeta, 12_000, 10), 1.5],
    [budgetScenario(cGoogle, 9_000, 12), 1.5],
    [budgetScenario(cInstagram, 15_000, 15), 1],
    [budgetScenario(cMeta, 12_000, 18), 1.5],
    [budgetScenario(cMeta, 12_000, 25), 1],
    [{ tool: 'email', action: 'draft_campaign', resource: cSms.id, summary: 'Draft "Back in stock: Kenya Kiambu AA" for Coffee subscribers', facts: {} }, 2],
    [{ tool: 'email', action: 'draft_campaign', resource: cNewsletter.id, summary: 'Draft the monthly newsletter: spring origins', facts: {} }, 1.5],
    [{ tool: 'email', action: 'send_campaign', resource: lists[1].id, summary: 'Send "Your next bag ships Monday" to Coffee subscribers', facts: { recipients: 3_200 } }, 2],
    [{ tool: 'email', action: 'send_campaign', resource: lists[0].id, summary: 'Send "Spring origins are here" to the Newsletter list', facts: { recipients: 16_900 } }, 1],
    [{ tool: 'contacts', action: 'tag_contacts', resource: segments[0].id, summary: 'Tag 38 repeat buyers as vip', facts: { records: 38 } }, 2],
    [{ tool: 'contacts', action: 'tag_contacts', resource: lists[0].id, summary: 'Tag 112 contacts who bought espresso as espresso', facts: { records: 112 } }, 1],
    [{ tool: 'contacts', action: 'export_contacts', resource: lists[0].id, summary: 'Export the Newsletter list to the ads audience sync', facts: { records: 4_200 } }, 0.6],
    [{ tool: 'discounts', action: 'create_discount', resource: 'shopify', summary: 'Create code BREW10: 10% off for 14 days', facts: { amountPercent: 10 } }, 1],
  ]

  const requests: RequestInsert[] = []
  const approvals: ApprovalInsert[] = []
  const perAgent = agents.length ? Math.ceil(REQUESTS / agents.length) : 0
  const lastActed = new Map<string, Date>()
  agents.forEach((agent, ai) => {
    const permitted = permittedOf(agent.id)
    const weights = scenarios.map(([s, w]) => [s, permitted.has(`${s.tool}.${s.action}`) ? w : w * 0.12] as const)
    // The agent's latest request waits for a person, if anything it may do can need one.
    const waiting = scenarios.find(([s]) => permitted.has(`${s.tool}.${s.action}`) && judge(agent, s, ctx.now, null).decision === 'requires_approval')
    for (let k = 0; k < perAgent; k++) {
      const last = k === perAgent - 1
      const createdAt = last ? ago(r.float(0.1, 0.25) + ai * 0.05) : ago(Math.max(0.3, 28 * (1 - (k + 0.5) / perAgent) + r.float(-0.4, 0.4)))
      const s = last && waiting ? waiting[0] : r.weighted(weights)
      const push = (at: Date, approvedBy: Approved | null) => {
        const verdict = judge(agent, s, at, approvedBy)
        const row: RequestInsert = {
          id: newId('authorization', at), agentId: agent.id, tool: s.tool, action: s.action, resource: s.resource, summary: s.summary,
          facts: s.facts, paramsDigest: paramsDigest(secretKey, undefined),
          decision: verdict.decision, reason: verdict.reason, checks: verdict.checks, rules: verdict.rules, rulesVersion,
          approvalId: null, expiresAt: verdict.decision === 'allowed' ? new Date(at.getTime() + 15 * MINUTE) : null, createdAt: at,
        }
        requests.push(row)
        lastActed.set(agent.id, at)
        events.add('agent.request.decided', at, {
          request: { authorizationId: row.id, agentId: agent.id, agentName: agent.name, tool: s.tool, action: s.action, decision: row.decision, mayProceed: row.decision === 'allowed', reason: row.reason },
        })
        return row
      }
      const row = push(createdAt, null)
      if (row.decision === 'requires_approval') {
        const age = (now - createdAt.getTime()) / DAY
        const status = age < 0.8 ? 'pending' : r.chance(0.7) ? 'approved' : 'rejected'
        const decider = r.pick(PEOPLE)
        const decidedAt = status === 'pending' ? null : new Date(createdAt.getTime() + r.float(0.2, 5) * HOUR)
        const followUp = status === 'approved' && decidedAt ? new Date(decidedAt.getTime() + r.float(5, 40) * MINUTE) : null
        const approval = approvalRow(ctx, {
          kind: 'agent_request', status, summary: s.summary, subjectId: row.id, requestedBy: agent.name, decidedBy: decidedAt ? operatorDecision(decider.name) : null,
          createdAt, decidedAt, usedAt: followUp,
        })
        approvals.push(approval)
        row.approvalId = approval.id
        if (followUp) push(followUp, { id: approval.id, name: decider.login, expiresAt: approval.expires_at })
      }
    }
  })
  requests.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())
  const results = reportResults(ctx, requests, cGoogle, deps.googleFailingSince)

  await insertApprovals(tx, approvals)
  await insertRequestHistory(tx, workspaceId, requests)
  await insertResultHistory(tx, workspaceId, results)
  for (const [agentId, at] of lastActed) await touchAgent(tx, workspaceId, agentId, at)
  return requests
}

/**
 * What became of the allowed requests, as the agents reported it: most went through, some failed
 * or were stopped, changes to Google Ads since it stopped delivering failed; one in five (budget
 * changes aside) reported nothing.
 */
function reportResults(ctx: DemoContext, requests: RequestInsert[], cGoogle: CampaignInsert, googleFailingSince: Date) {
  const { r, events } = ctx
  const now = ctx.now.getTime()
  const results: Omit<ResultRow, 'verified'>[] = []
  const allowed = requests.filter((q) => q.decision === 'allowed')
  allowed.forEach((q, k) => {
    const at = new Date(q.createdAt.getTime() + r.float(1, 9) * MINUTE)
    if (at.getTime() > now || (k % 5 === 4 && q.action !== 'adjust_budget')) return
    const googleDown = q.resource === cGoogle.id && q.action !== 'read_performance' && at.getTime() > googleFailingSince.getTime()
    const provider = q.tool === 'ads' ? (q.resource === cGoogle.id ? 'Google Ads' : 'Meta Ads') : q.tool === 'discounts' ? 'Shopify' : 'Klaviyo'
    const status: ResultStatus = googleDown || (k % 7 === 3 && q.action !== 'read_performance') ? 'failed' : k % 9 === 7 ? 'cancelled' : 'completed'
    const error =
      googleDown ? 'Google Ads API: 401 UNAUTHENTICATED (the OAuth grant was revoked).'
      : status === 'failed' ? `${provider} did not answer within 30 seconds; nothing was changed.` : null
    const said = q.summary ?? ''
    const summary =
      status === 'cancelled' ? (q.tool === 'ads' ? 'Stopped: a person paused the campaign first.' : 'Stopped: the team asked to hold it until Monday.')
      : status === 'failed' ? 'The change did not go through.'
      : q.action === 'read_performance' ? 'Read 7 days of spend, clicks and first orders.'
      : `Done: ${said.charAt(0).toLowerCase()}${said.slice(1)}.`
    const res = { id: newId('result', at), authorization_id: q.id, agent_id: q.agentId, status, summary, error, created_at: at }
    results.push(res)
    events.add('agent.result.reported', at, { result: { id: res.id, authorizationId: q.id, agentId: q.agentId, status, summary, error: res.error, verified: false } })
  })
  return results
}
