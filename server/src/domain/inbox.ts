import type { Sql } from '../core/db.ts'
import { NotFoundError } from '../core/errors.ts'
import { idPattern } from '../core/ids.ts'
import { byCreation, type Positioned, type TimePosition } from '../core/paging.ts'
import type { Action } from '../schemas/actions.ts'
import type { Approval } from '../schemas/approvals.ts'
import * as store from '../store/inbox.ts'
import { workspaceExists } from '../store/workspaces.ts'
import { toAction } from './actions.ts'
import { toApproval } from './approvals.ts'

/**
 * Everything waiting for a person in a workspace (the console's inbox): pending approvals (an
 * agent's request needing approval, with what exactly it asked, every check and the rules that
 * bit) and proposed actions (with their planned effect), oldest first. Decisions on them go
 * through decideApproval and decideAction, as the operator commands' do.
 */

/** The agent request an approval is about: who asked, what exactly, and how it was judged. */
export type Asked = {
  agentId: string
  agentName: string
  tool: string
  action: string
  resource: string | null
  summary: string | null
  facts: Record<string, unknown>
  reason: string
  checks: { name: string; passed: boolean; detail: string }[]
  rules: { id: string; sentence: string; effect: string }[]
  rulesVersion: number
}

/** The email send an approval is about: its subject line, how many it goes to, its campaign. */
type SendAsked = { id: string; subject: string; recipients: number; campaignId: string | null; campaignName: string | null }

export type InboxItem = { kind: 'approval'; approval: Approval; asked: Asked | null; send: SendAsked | null } | { kind: 'action'; action: Action }

function toSend(r: store.SendRow | null): SendAsked | null {
  return r ? { id: r.id, subject: r.subject, recipients: Number(r.recipients), campaignId: r.campaign_id, campaignName: r.campaign_name } : null
}

function toAsked(r: store.AskedRow | null): Asked | null {
  if (!r) return null
  return {
    agentId: r.agent_id,
    agentName: r.agent_name,
    tool: r.tool,
    action: r.action,
    resource: r.resource,
    summary: r.summary,
    facts: r.facts ?? {},
    reason: r.reason,
    checks: r.checks ?? [],
    rules: r.rules ?? [],
    rulesVersion: r.rules_version,
  }
}

const approvalItem = (row: store.WaitingApprovalRow, now: Date): InboxItem => ({ kind: 'approval', approval: toApproval(row, now), asked: toAsked(row.asked), send: toSend(row.send) })

/** Oldest first by (created_at, id), as the two lists are each read. */
const older = (a: TimePosition, b: TimePosition) => (a.t === b.t ? (a.id < b.id ? -1 : a.id > b.id ? 1 : 0) : a.t < b.t ? -1 : 1)

/**
 * One page of the inbox: at most `limit` items after `after`, oldest first, and where the next
 * page starts (null on the last). Each list is read `limit + 1` deep after the same position and
 * the two are merged, so a page costs two index range reads whatever the inbox holds.
 */
export async function listInbox(
  sql: Sql,
  workspaceId: string,
  opts: { after?: TimePosition; limit: number; now?: Date },
): Promise<{ items: Positioned<InboxItem, TimePosition>[]; next: TimePosition | null }> {
  const now = opts.now ?? new Date()
  const [approvals, actions] = await Promise.all([
    store.selectWaitingApprovals(sql, workspaceId, { after: opts.after, now, limit: opts.limit + 1 }),
    store.selectProposedActions(sql, workspaceId, { after: opts.after, limit: opts.limit + 1 }),
  ])
  const merged: Positioned<InboxItem, TimePosition>[] = [
    ...approvals.map((r) => ({ position: byCreation(r), item: approvalItem(r, now) })),
    ...actions.map((r) => ({ position: byCreation(r), item: { kind: 'action' as const, action: toAction(r) } })),
  ].sort((a, b) => older(a.position, b.position))
  const items = merged.slice(0, opts.limit)
  return { items, next: merged.length > opts.limit ? items[items.length - 1]!.position : null }
}

/**
 * What waits for a person, for an operator's terminal (growth admin inbox): the inbox's first
 * `limit` items, oldest first, and whether more wait; a workspace the database does not hold is
 * refused as such rather than shown as one where nothing waits.
 */
export async function waitingIn(sql: Sql, workspaceId: string, limit: number): Promise<{ items: InboxItem[]; more: boolean }> {
  if (!(await workspaceExists(sql, workspaceId))) throw new NotFoundError('workspace', workspaceId, `No workspace ${workspaceId}.`)
  const page = await listInbox(sql, workspaceId, { limit })
  return { items: page.items.map((p) => p.item), more: page.next !== null }
}

/** One approval of this workspace with what it is about; null for an id it does not hold (or not an approval id). */
export async function approvalIn(sql: Sql, workspaceId: string, id: string, now = new Date()): Promise<Extract<InboxItem, { kind: 'approval' }> | null> {
  if (!idPattern('approval').test(id)) return null
  const row = await store.selectApprovalIn(sql, workspaceId, id)
  return row ? (approvalItem(row, now) as Extract<InboxItem, { kind: 'approval' }>) : null
}

/** One action of this workspace; null for an id it does not hold (or not an action id). */
export async function actionIn(sql: Sql, workspaceId: string, id: string): Promise<Action | null> {
  if (!idPattern('action').test(id)) return null
  const row = await store.selectActionIn(sql, workspaceId, id)
  return row ? toAction(row) : null
}
