import { newId } from '../server/src/core/ids.ts'
import { getHarness } from './harness.ts'

/** Records the write endpoints act on, inserted straight into the test database. */

export async function insertConnection(workspaceId: string, opts: { kind?: string; name?: string; delivering?: boolean } = {}) {
  const { sql } = await getHarness()
  const id = newId('connection')
  const delivering = opts.delivering ?? true
  await sql`
    INSERT INTO connections (workspace_id, id, kind, provider, name, delivering, failing_since)
    VALUES (${workspaceId}, ${id}, ${opts.kind ?? 'ad_account'}, 'meta_ads', ${opts.name ?? 'Meta Ads – Test'}, ${delivering},
            ${delivering ? null : new Date('2026-11-20T09:30:00.000Z')})`
  return id
}

export async function insertCampaign(
  workspaceId: string,
  opts: { name?: string; channel?: string; status?: string; budget?: number | null; currency?: string | null; connectionId?: string | null } = {},
) {
  const { sql } = await getHarness()
  const id = newId('campaign')
  const channel = opts.channel ?? 'ads'
  const budget = opts.budget === undefined ? (channel === 'ads' ? 10_000 : null) : opts.budget
  await sql`
    INSERT INTO campaigns (workspace_id, id, name, channel, status, daily_budget_minor, currency, connection_id)
    VALUES (${workspaceId}, ${id}, ${opts.name ?? 'Prospecting'}, ${channel}, ${opts.status ?? 'active'}, ${budget},
            ${budget === null ? null : (opts.currency ?? 'USD')}, ${opts.connectionId ?? null})`
  return id
}

/** Contacts with the given addresses (tags optional), returning their ids in order. */
export async function insertContacts(workspaceId: string, people: { email: string; tags?: string[]; name?: string }[]) {
  const { sql } = await getHarness()
  if (!people.length) return []
  const rows = people.map((p) => ({
    workspace_id: workspaceId,
    id: newId('contact'),
    email: p.email,
    email_key: p.email.toLowerCase(),
    name: p.name ?? null,
    tags: p.tags ?? [],
  }))
  await sql`INSERT INTO contacts ${sql(rows)}`
  return rows.map((r) => r.id)
}

export async function insertList(workspaceId: string, memberIds: string[] = [], name = 'Newsletter') {
  const { sql } = await getHarness()
  const id = newId('list')
  await sql`INSERT INTO lists (workspace_id, id, name) VALUES (${workspaceId}, ${id}, ${name})`
  if (memberIds.length) {
    await sql`INSERT INTO list_members ${sql(memberIds.map((c) => ({ workspace_id: workspaceId, list_id: id, contact_id: c })))}`
  }
  return id
}

export async function insertSegment(workspaceId: string, tags: string[], name = 'VIP buyers') {
  const { sql } = await getHarness()
  const id = newId('segment')
  const definition = { match: 'all', conditions: tags.map((t) => ({ field: 'tags', op: 'contains', value: t })) }
  await sql`INSERT INTO segments (workspace_id, id, name, definition) VALUES (${workspaceId}, ${id}, ${name}, ${sql.json(definition)})`
  return id
}

export async function insertDoNotContact(workspaceId: string, email: string) {
  const { sql } = await getHarness()
  await sql`INSERT INTO do_not_contact (workspace_id, email_key, reason) VALUES (${workspaceId}, ${email.toLowerCase()}, 'Unsubscribed')`
}

export async function insertWorkflow(workspaceId: string, trigger: string, opts: { name?: string; status?: 'active' | 'paused' } = {}) {
  const { sql } = await getHarness()
  const id = newId('workflow')
  await sql`
    INSERT INTO workflows (workspace_id, id, name, trigger_event, status)
    VALUES (${workspaceId}, ${id}, ${opts.name ?? `On ${trigger}`}, ${trigger.toLowerCase()}, ${opts.status ?? 'active'})`
  return id
}

export async function setLimits(workspaceId: string, l: { quietStart?: number | null; quietEnd?: number | null; maxRecipients?: number }) {
  const { sql } = await getHarness()
  await sql`
    UPDATE workspace_limits SET quiet_hours_start = ${l.quietStart ?? null}, quiet_hours_end = ${l.quietEnd ?? null},
           max_send_recipients = COALESCE(${l.maxRecipients ?? null}::int, max_send_recipients)
    WHERE workspace_id = ${workspaceId}`
}

export async function setAllowance(workspaceId: string, name: string, amount: number) {
  const { sql } = await getHarness()
  await sql`
    INSERT INTO allowances (workspace_id, name, amount) VALUES (${workspaceId}, ${name}, ${amount})
    ON CONFLICT (workspace_id, name) DO UPDATE SET amount = EXCLUDED.amount`
}

/** Every event of the workspace, oldest first, straight from the outbox. */
export async function outbox(workspaceId: string) {
  const { sql } = await getHarness()
  return [...(await sql<{ seq: number; type: string; data: any }[]>`SELECT seq, type, data FROM events WHERE workspace_id = ${workspaceId} ORDER BY seq`)]
}
