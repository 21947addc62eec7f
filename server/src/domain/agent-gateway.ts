import { createHmac } from 'node:crypto'
import { canonicalJson } from '../core/canonical-json.ts'
import type { Db, Sql, Tx } from '../core/db.ts'
import { inTransaction } from '../store/driver/db.ts'
import type { Counted, RecordDecision, Ruling } from '../store/agent-gateway-recorder.ts'
import { ConflictError, NotFoundError } from '../core/errors.ts'
import { newId } from '../core/ids.ts'
import { formatCountOf, formatMoney } from '../core/money.ts'
import { iso } from '../core/time.ts'
import type { AgentAuthorization, AgentResult, AgentSelf, AuthorizeInput, Facts, ResultInput } from '../schemas/agent-gateway.ts'
import * as requests from '../store/agent-requests.ts'
import { selectTools, type ToolRow } from '../store/agent-tools.ts'
import * as agents from '../store/agents.ts'
import * as approvals from '../store/approvals.ts'
import { appendEvent, type EventAppend } from '../store/events.ts'
import * as gateway from '../store/agent-gateway.ts'
import { selectWorkspaceGate } from '../store/workspaces.ts'
import { type ActionDef, decide, type PriorApproval, type Verdict } from './agent-decision.ts'
import { decisionInputOf } from './agent-decision-input.ts'
import { actionVerb } from './agent-tools.ts'
import { ceilingsView, parseCeilings, permissionsView } from './agents.ts'
import { monthlyAllowanceError, periodOf } from './allowances.ts'
import { toApproval } from './approvals.ts'
import { loadWorkspaceLimits, type WorkspaceLimits } from './limits.ts'
import { observeDecision } from '../core/metrics.ts'
import { activeTraceparent, inSpan } from '../core/tracing.ts'
import { noticeWaiting } from './notices.ts'

/**
 * The agent gateway (POST /agent/authorize, POST /agent/result, GET /agent/me). The product's own
 * agents and the workspace's come through here alike. Every decision is recorded with what was
 * asked, what was decided, the checks, the rules that bit and the rules version; the decision
 * itself is the pure `decide` of agent-decision.ts.
 */
export type { RecordDecision } from '../store/agent-gateway-recorder.ts'

const AUTHORIZATION_TTL_MS = 15 * 60_000
export const APPROVAL_TTL_MS = 24 * 3_600_000

/**
 * The workspace's whole catalogue and its limits, for judging many requests at once (the demo's
 * seeded history); a live request reads only what bears on its own tool action (`authorize`).
 */
type GatewayWorld = {
  tools: Map<string, string[]>
  actions: Map<string, ActionDef>
  toolNames: Record<string, string>
  limits: WorkspaceLimits
}

export async function loadWorld(sql: Db, workspaceId: string): Promise<GatewayWorld> {
  const [rows, limits] = await Promise.all([selectTools(sql, workspaceId), loadWorkspaceLimits(sql, workspaceId)])
  return worldOf(rows, limits)
}

function worldOf(rows: ToolRow[], limits: WorkspaceLimits): GatewayWorld {
  const actions = new Map<string, ActionDef>()
  for (const t of rows) for (const a of t.actions) actions.set(`${t.key}.${a.key}`, { tool: t.key, ...a })
  return {
    tools: new Map(rows.map((t) => [t.key, t.actions.map((a) => a.key)])),
    actions,
    toolNames: Object.fromEntries(rows.map((t) => [t.key, t.name])),
    limits,
  }
}

/** The keyed digest of an action's params: recognises the same params again, reveals nothing of them. */
export function paramsDigest(secretKey: string, params: Record<string, unknown> | undefined): string {
  return createHmac('sha256', secretKey).update(`agent-params\n${canonicalJson(params ?? {})}`).digest('hex')
}

function priorOf(row: requests.PriorApprovalRow | undefined, at: Date): PriorApproval | null {
  if (!row) return null
  if (row.used_at) return { state: 'used', id: row.id, usedAt: row.used_at }
  const live = row.expires_at.getTime() > at.getTime()
  if (row.status === 'rejected') {
    return live
      ? { state: 'rejected', id: row.id, decidedBy: row.decided_by?.name ?? 'a person', decidedAt: row.decided_at ?? row.expires_at, expiresAt: row.expires_at, reason: row.decision_reason }
      : null
  }
  if (!live) return { state: 'expired', id: row.id, expiresAt: row.expires_at }
  return row.status === 'approved'
    ? { state: 'approved', id: row.id, decidedBy: row.decided_by?.name ?? 'a person', expiresAt: row.expires_at }
    : { state: 'pending', id: row.id, expiresAt: row.expires_at }
}

/**
 * The decision a person (or an operator) made on this same request's approval, when it settled the
 * answer: the approval the request used (allowed once), or the rejection that denies it. This is how
 * a waiting agent learns who decided and why, through the one call it already makes.
 */
function approvalDecisionOf(row: requests.PriorApprovalRow | undefined, prior: PriorApproval | null, judged: Verdict): AgentAuthorization['approvalDecision'] {
  if (!row?.decided_by || !row.decided_at) return null
  const settled = judged.approvalUsed === row.id ? 'approved' : prior?.state === 'rejected' && judged.decision === 'denied' ? 'rejected' : null
  if (!settled) return null
  return { approvalId: row.id, status: settled, decidedBy: row.decided_by, decidedAt: iso(row.decided_at), reason: row.decision_reason }
}

/** The line a person reads on the approval when the agent gave no summary. */
function defaultSummary(agentName: string, body: AuthorizeInput, facts: Facts, actionName: string): string {
  const parts: string[] = []
  if (facts.amountMinor !== undefined && facts.currency) parts.push(formatMoney({ amountMinor: facts.amountMinor, currency: facts.currency }))
  if (facts.amountPercent !== undefined) parts.push(`${facts.increase === false ? '-' : facts.increase ? '+' : ''}${facts.amountPercent}%`)
  if (facts.recipients !== undefined) parts.push(formatCountOf(facts.recipients, 'recipient', 'recipients'))
  if (facts.records !== undefined) parts.push(formatCountOf(facts.records, 'record', 'records'))
  return `${agentName} asks to ${actionVerb(body.tool, body.action, actionName)} (${body.tool}.${body.action})${body.resource ? ` on ${body.resource}` : ''}${parts.length ? `: ${parts.join(', ')}` : ''}.`
}

/** Who asks: an agent of a workspace, as its credential established, with the workspace's digest key. */
type AgentCaller = { workspaceId: string; agentId: string; secretKey: string }

/**
 * Decides one request of an agent and records it: `recordDecision` (store/agent-gateway-recorder.ts,
 * built once at start) finds the view the request is judged against, and records what `rule` made
 * of it; where the view comes from (a read, or the view kept from the last one), which pool it
 * writes through and whether it batches are its own business. On the common path (no check needs a
 * person) that is two statements and needs no transaction: one read of everything the decision is
 * judged against, the pure `decide`, and one statement recording it (the allowance, the request,
 * the agent's last act, the events), atomic by itself. The allowance counter and the event
 * sequence, which every decision of the workspace locks, are taken only in that statement, so they
 * are held until it commits and no longer.
 *
 * Only a request that needs a person reads the latest approval of the same request, since only then
 * can an approval change the verdict: in a transaction, under the same-request lock (so that two of
 * the same request at once open one approval between them), with the approval locked.
 */
export function authorize(db: Db, caller: AgentCaller, body: AuthorizeInput, recordDecision: RecordDecision, at = new Date()): Promise<AgentAuthorization> {
  const asked = { agentId: caller.agentId, tool: body.tool, action: body.action }
  // In a span of its own (with the decision), counted by decision and by the checks that did not pass.
  return inSpan('authorize', async (span) => {
    const answer = await recordDecision(db, caller.workspaceId, asked, (view) => rule(db, caller, body, at, view))
    span?.setAttributes({ 'growth.decision': answer.decision, 'growth.tool': body.tool, 'growth.action': body.action })
    observeDecision(answer.decision, answer.checks)
    return answer
  })
}

/** The gateway's rule: the request judged against `view`; a decision to record, or one that needs a person, taken in a transaction. */
async function rule(db: Db, caller: AgentCaller, body: AuthorizeInput, at: Date, view: gateway.GatewayView): Promise<Ruling<AgentAuthorization>> {
  const ws = caller.workspaceId
  const agentId = caller.agentId
  const facts: Facts = body.facts ?? {}
  const digest = paramsDigest(caller.secretKey, body.params)
  const resource = body.resource ?? null
  const input = await decisionInputOf(db, ws, view, { agentId, tool: body.tool, action: body.action, facts, params: body.params }, at)
  const { agent, actionDef: def } = input
  // The facts judged are kept beside those stated only when the params changed them (the params themselves never are).
  const judgedFacts = canonicalJson(input.facts) === canonicalJson(facts) ? null : input.facts
  const ask = { id: newId('authorization', at), agentId, agentName: agent.name, body, facts, judgedFacts, resource, digest, rulesVersion: input.rulesVersion, at }
  const verdict = decide({ ...input, prior: null })
  if (!def || !verdict.asksPerson) return toRecord(ask, verdict, null, [], null, countsUsedOf(verdict, view))

  return {
    withPerson: () =>
      inTransaction(db, async (tx) => {
        await requests.lockSameRequest(tx, ws, [agentId, body.tool, body.action, resource ?? '', canonicalJson(facts), digest].join('\u0001'))
        const priorRow = await requests.lockPriorApproval(tx, ws, { agentId, tool: body.tool, action: body.action, resource, facts, paramsDigest: digest })
        const prior = priorOf(priorRow, at)
        const judged = prior ? decide({ ...input, prior }) : verdict
        const events: EventAppend[] = []
        let approvalId: string | null = null
        if (judged.approvalUsed) {
          if (!(await approvals.useApproval(tx, ws, judged.approvalUsed, at))) throw new ConflictError('The approval for this request was used at this moment by another request; ask again.')
          approvalId = judged.approvalUsed
        } else if (judged.decision === 'requires_approval') {
          if (prior?.state === 'pending') approvalId = prior.id
          else {
            const approval = await approvals.insertApproval(tx, ws, {
              id: newId('approval', at),
              kind: 'agent_request',
              summary: body.summary ?? defaultSummary(agent.name, body, input.facts, def.name),
              subjectId: ask.id,
              requestedBy: agent.name,
              expiresAt: new Date(at.getTime() + APPROVAL_TTL_MS),
              createdAt: at,
            })
            approvalId = approval.id
            events.push({ type: 'approval.requested', data: { approval: toApproval(approval, at) } })
            // Its owners and approvers are told by mail (sent later, never awaited here).
            await noticeWaiting(tx, ws, { kind: 'approval', id: approval.id }, at)
          }
        }
        const r = toRecord(ask, judged, approvalId, events, approvalDecisionOf(priorRow, prior, judged))
        const outcome = await gateway.recordDecisions(tx, ws, r.periodStart, [{ ...r.decision, viewDigest: null }])
        if (!outcome.recorded && outcome.stale) throw new Error('a decision recorded without a view digest was refused as stale')
        return r.answer(outcome)
      }),
  }
}

/** The counts `verdict` read, as `view` had them and with where each stopped: what recording checks of them (DecisionToRecord). */
function countsUsedOf(verdict: Verdict, view: gateway.GatewayView): gateway.DecisionToRecord['countsUsed'] {
  if (!verdict.countsRead.length) return null
  return Object.fromEntries(
    verdict.countsRead.map((w) => {
      const n = view.allowedCounts[w] ?? 0
      // A window the view did not count (no rule of this agent names it) is checked to be still empty past n.
      return [w, { n, cap: view.countCaps?.[w] ?? n + 1 }]
    }),
  )
}

type Ask = {
  id: string; agentId: string; agentName: string; body: AuthorizeInput; facts: Facts; judgedFacts: Facts | null; resource: string | null; digest: string
  rulesVersion: number; at: Date
}

/** The answer as its decision shapes it: only an allowed one may proceed, until expiresAt; one needing a person names its approval. */
function answerOf(
  common: Omit<AgentAuthorization, 'decision' | 'mayProceed' | 'approvalId' | 'expiresAt' | 'approvalDecision'>,
  decision: AgentAuthorization['decision'],
  approvalId: string | null,
  expiresAt: Date | null,
  approvalDecision: AgentAuthorization['approvalDecision'],
): AgentAuthorization {
  if (decision === 'allowed') return { ...common, decision, mayProceed: true, approvalId, expiresAt: iso(expiresAt!), approvalDecision }
  if (decision === 'denied') return { ...common, decision, mayProceed: false, approvalId: null, expiresAt: null, approvalDecision }
  if (!approvalId) throw new Error('A decision that needs a person is answered with its approval.')
  return { ...common, decision, mayProceed: false, approvalId, expiresAt: null, approvalDecision: null }
}

/**
 * A decision and its event (after `events`), as one statement records it, and its answer once
 * recorded. Past the agentRequests allowance the statement writes nothing and `answer` throws an
 * AllowanceError (in a transaction, which then rolls back, approval included).
 */
function toRecord(
  ask: Ask,
  verdict: Verdict,
  approvalId: string | null,
  events: EventAppend[],
  approvalDecision: AgentAuthorization['approvalDecision'] = null,
  countsUsed: gateway.DecisionToRecord['countsUsed'] = null,
): Extract<Ruling<AgentAuthorization>, { decision: unknown }> {
  const { id, at, body } = ask
  const expiresAt = verdict.decision === 'allowed' ? new Date(at.getTime() + AUTHORIZATION_TTL_MS) : null
  const common = { id, authorizationId: id, reason: verdict.reason, checks: verdict.checks, rules: verdict.rules, rulesVersion: ask.rulesVersion, createdAt: iso(at) }
  const answer = answerOf(common, verdict.decision, approvalId, expiresAt, approvalDecision)
  events.push({
    // Recorded in a batch with other requests' decisions: the trace is this request's, taken now.
    traceparent: activeTraceparent(),
    type: 'agent.request.decided',
    data: {
      request: {
        authorizationId: id, agentId: ask.agentId, agentName: ask.agentName, tool: body.tool, action: body.action,
        decision: verdict.decision, mayProceed: answer.mayProceed, reason: verdict.reason, approvalId, rulesVersion: ask.rulesVersion,
      },
    },
  })
  return {
    periodStart: periodOf(at).startDate,
    decision: {
      id,
      agentId: ask.agentId,
      tool: body.tool,
      action: body.action,
      resource: ask.resource,
      summary: body.summary ?? null,
      facts: ask.facts,
      judgedFacts: ask.judgedFacts,
      paramsDigest: ask.digest,
      decision: verdict.decision,
      reason: verdict.reason,
      checks: verdict.checks,
      rules: verdict.rules,
      rulesVersion: ask.rulesVersion,
      approvalId,
      expiresAt,
      createdAt: at,
      events,
      countsUsed,
    },
    answer: (outcome: Counted) => {
      if (!outcome.recorded) throw monthlyAllowanceError('agentRequests', outcome.limit, outcome.limit - outcome.usedBefore, 1)
      return answer
    },
  }
}

/**
 * A result against one of this agent's authorizations, kept as unverified. Refused (409, and the
 * refusal recorded) when the authorization was not allowed, already has a result, or has expired.
 */
export async function reportResult(tx: Tx, caller: Pick<AgentCaller, 'workspaceId' | 'agentId'>, body: ResultInput, at = new Date()): Promise<AgentResult> {
  const ws = caller.workspaceId
  const agentId = caller.agentId
  const auth = await requests.lockAuthorization(tx, ws, agentId, body.authorizationId)
  // The same words whether the authorization is another agent's, another workspace's, or nobody's.
  if (!auth) throw new NotFoundError('authorization', body.authorizationId, `No authorization ${body.authorizationId} was given to this agent.`)
  const refusal =
    auth.decision !== 'allowed'
      ? `Authorization ${auth.id} was ${auth.decision === 'denied' ? 'denied' : 'not allowed (it requires approval)'}; a result is taken only for an allowed authorization.`
      : auth.result
        ? `A result (${auth.result.status}, ${auth.result.id}) was already reported for authorization ${auth.id} at ${iso(auth.result.created_at)}; a result is final.`
        : auth.expires_at && auth.expires_at.getTime() <= at.getTime()
          ? `Authorization ${auth.id} expired at ${iso(auth.expires_at)}; a result is taken only while its authorization is valid.`
          : null
  if (refusal) {
    await requests.insertResultRefusal(tx, ws, {
      id: newId('result', at), authorizationId: auth.id, agentId, status: body.status, summary: body.summary ?? null, error: body.error ?? null, reason: refusal, createdAt: at,
    })
    throw new ConflictError(refusal, { recorded: true })
  }
  const result = { id: newId('result', at), authorization_id: auth.id, agent_id: agentId, status: body.status, summary: body.summary ?? null, error: body.error ?? null, created_at: at }
  await requests.insertResult(tx, ws, result)
  await agents.touchAgent(tx, ws, agentId, at)
  const answer: AgentResult = {
    id: result.id,
    authorizationId: auth.id,
    agentId,
    status: body.status,
    summary: result.summary,
    error: result.error,
    verified: false,
    createdAt: iso(at),
  }
  await appendEvent(tx, ws, 'agent.result.reported', { result: answer })
  return answer
}

/** GET /agent/me: the agent's permissions in words, its ceilings, its rate limit, the stop switch. */
export async function agentSelf(
  sql: Sql,
  caller: Pick<AgentCaller, 'workspaceId' | 'agentId'> & { rateLimit: { limit: number; remaining: number; resetAt: Date } },
): Promise<AgentSelf> {
  const [row, gate] = await Promise.all([agents.selectAgent(sql, caller.workspaceId, caller.agentId), gateOf(sql, caller.workspaceId)])
  if (!row) throw new Error(`agent ${caller.agentId} of a valid credential is missing`)
  return {
    agent: { id: row.id, name: row.name, owner: row.owner },
    permissions: permissionsView(row.name, row.permissions),
    dataAccess: row.data_access,
    maxUnattendedRisk: row.max_unattended_risk,
    ceilings: ceilingsView(parseCeilings(row.ceilings)),
    limits: { requestsPerHour: caller.rateLimit.limit, remaining: caller.rateLimit.remaining, resetAt: iso(caller.rateLimit.resetAt) },
    agentsStopped: gate.agents_stopped,
    ...(gate.agents_stopped ? { stoppedReason: gate.stopped_reason ?? 'No reason was recorded.', ...(gate.stopped_at ? { stoppedAt: iso(gate.stopped_at) } : {}) } : {}),
  }
}

/** The workspace's stop switch and rules version; a credential's workspace always has them. */
async function gateOf(sql: Db, workspaceId: string) {
  const gate = await selectWorkspaceGate(sql, workspaceId)
  if (!gate) throw new Error(`workspace ${workspaceId} of a valid credential is missing`)
  return gate
}
