import type { Db, Sql } from '../core/db.ts'
import type { TimePosition } from '../core/paging.ts'
import type { ActionRow } from './actions.ts'
import type { ApprovalRow } from './approvals.ts'
import { newerThan } from './keyset.ts'
import type { RequestRow } from './agent-requests.ts'

/**
 * What waits for a person, read for the console: pending approvals (with the agent request or the
 * email send each one is about) and proposed actions, oldest first, keyset-paged on (created_at,
 * id) by the indexes (workspace_id, status, created_at, id) of both tables. Every read is scoped
 * by the workspace: an id of another workspace is simply not found.
 */

/** The agent request an approval is about, as the person deciding needs it. */
export type AskedRow = Pick<RequestRow, 'agent_id' | 'agent_name' | 'tool' | 'action' | 'resource' | 'summary' | 'facts' | 'reason' | 'checks' | 'rules' | 'rules_version'>

/** The email send an approval of kind send is about: what would go out, to how many, for which campaign. */
export type SendRow = { id: string; subject: string; recipients: number; campaign_id: string | null; campaign_name: string | null }

export type WaitingApprovalRow = ApprovalRow & { asked: AskedRow | null; send: SendRow | null }

const approvalColumns = (sql: Db) => sql`
  ap.id, ap.kind, ap.status, ap.summary, ap.subject_id, ap.requested_by, ap.decided_by, ap.decided_at, ap.decision_reason,
  ap.expires_at, ap.used_at, ap.created_at,
  CASE WHEN r.id IS NULL THEN NULL ELSE json_build_object(
    'agent_id', r.agent_id, 'agent_name', a.name, 'tool', r.tool, 'action', r.action, 'resource', r.resource,
    'summary', r.summary, 'facts', r.facts, 'reason', r.reason, 'checks', r.checks, 'rules', r.rules,
    'rules_version', r.rules_version) END AS asked,
  CASE WHEN s.id IS NULL THEN NULL ELSE json_build_object(
    'id', s.id, 'subject', s.subject, 'recipients', s.recipients, 'campaign_id', s.campaign_id, 'campaign_name', c.name) END AS send`

const approvalJoins = (sql: Db) => sql`
  FROM approvals ap
  LEFT JOIN agent_requests r ON ap.kind = 'agent_request' AND r.workspace_id = ap.workspace_id AND r.id = ap.subject_id
  LEFT JOIN agents a ON a.workspace_id = r.workspace_id AND a.id = r.agent_id
  LEFT JOIN email_sends s ON ap.kind = 'send' AND s.workspace_id = ap.workspace_id AND s.id = ap.subject_id
  LEFT JOIN campaigns c ON c.workspace_id = s.workspace_id AND c.id = s.campaign_id`

/** Pending approvals not yet expired at `now`, oldest first, after `after`. */
export async function selectWaitingApprovals(sql: Sql, workspaceId: string, opts: { after?: TimePosition; now: Date; limit: number }): Promise<WaitingApprovalRow[]> {
  return sql<WaitingApprovalRow[]>`
    SELECT ${approvalColumns(sql)} ${approvalJoins(sql)}
    WHERE ap.workspace_id = ${workspaceId} AND ap.status = 'pending' AND (ap.expires_at IS NULL OR ap.expires_at > ${opts.now})
      ${newerThan(sql, opts.after, 'ap')}
    ORDER BY ap.created_at, ap.id
    LIMIT ${opts.limit}`
}

/** One approval of this workspace, whatever its status; undefined when the workspace has none by that id. */
export async function selectApprovalIn(sql: Sql, workspaceId: string, id: string): Promise<WaitingApprovalRow | undefined> {
  const [row] = await sql<WaitingApprovalRow[]>`SELECT ${approvalColumns(sql)} ${approvalJoins(sql)} WHERE ap.workspace_id = ${workspaceId} AND ap.id = ${id}`
  return row
}

const actionColumns = (sql: Db) => sql`
  workspace_id, id, kind, args, status, planned_effect, limits_allowed, refusal_reason, proposed_by,
  decided_by, decided_at, decision_reason, outcome, applied_at, created_at`

/** Proposed actions, oldest first, after `after`. */
export async function selectProposedActions(sql: Sql, workspaceId: string, opts: { after?: TimePosition; limit: number }): Promise<ActionRow[]> {
  return sql<ActionRow[]>`
    SELECT ${actionColumns(sql)} FROM actions
    WHERE workspace_id = ${workspaceId} AND status = 'proposed' ${newerThan(sql, opts.after)}
    ORDER BY created_at, id
    LIMIT ${opts.limit}`
}

/** One action of this workspace, whatever its status. */
export async function selectActionIn(sql: Sql, workspaceId: string, id: string): Promise<ActionRow | undefined> {
  const [row] = await sql<ActionRow[]>`SELECT ${actionColumns(sql)} FROM actions WHERE workspace_id = ${workspaceId} AND id = ${id}`
  return row
}
