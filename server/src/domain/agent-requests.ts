import type { Sql } from '../core/db.ts'
import type { ApprovalStatus, GatewayDecision } from '../core/enums.ts'
import { NotFoundError } from '../core/errors.ts'
import { byCreation, type Positioned, type TimePosition } from '../core/paging.ts'
import { iso, isoOrNull } from '../core/time.ts'
import type { AgentRequest } from '../schemas/agent-requests.ts'
import * as store from '../store/agent-requests.ts'
import { agentExists } from '../store/agents.ts'

/** The gateway's record as the workspace reads it (GET /agents/requests): every decision, refusals included. */

function toAgentRequest(r: store.RequestRow): AgentRequest {
  return {
    id: r.id,
    authorizationId: r.id,
    agentId: r.agent_id,
    agentName: r.agent_name,
    tool: r.tool,
    action: r.action,
    resource: r.resource,
    summary: r.summary,
    facts: r.facts,
    decision: r.decision,
    status: r.decision,
    mayProceed: r.decision === 'allowed',
    reason: r.reason,
    checks: r.checks as AgentRequest['checks'],
    rules: r.rules,
    rulesVersion: r.rules_version,
    approvalId: r.approval_id,
    decidedBy: r.decided_by,
    decidedAt: isoOrNull(r.decided_at),
    decisionReason: r.decision_reason,
    expiresAt: isoOrNull(r.expires_at),
    result: r.result
      ? {
          id: r.result.id,
          status: r.result.status,
          summary: r.result.summary,
          error: r.result.error,
          verified: false,
          createdAt: iso(r.result.created_at),
        }
      : null,
    createdAt: iso(r.created_at),
  }
}

/** A request as listed, with the status of the approval it waited for (null: it waited for none), which the console words. */
export type ListedRequest = Positioned<AgentRequest, TimePosition> & { approvalStatus: ApprovalStatus | null }

/**
 * Agent requests newest first; an unknown agentId is 404 rather than a silently empty list. Only an
 * empty page can hide an unknown agent, so only then is the agent looked up.
 */
export async function listRequests(
  sql: Sql,
  workspaceId: string,
  opts: { decision?: GatewayDecision; agentId?: string; after?: TimePosition; limit: number },
): Promise<ListedRequest[]> {
  const rows = await store.selectRequests(sql, workspaceId, opts)
  if (rows.length === 0 && opts.agentId && !(await agentExists(sql, workspaceId, opts.agentId))) throw new NotFoundError('agent', opts.agentId)
  return rows.map((r) => ({ position: byCreation(r), item: toAgentRequest(r), approvalStatus: r.approval_status }))
}
