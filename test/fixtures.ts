import { newId } from '../server/src/core/ids.ts'
import { getHarness } from './harness.ts'

/** Growth records inserted straight into the test database, for a workspace the test made. */

export async function insertMission(workspaceId: string, opts: { name?: string; createdAt?: Date } = {}) {
  const { sql } = await getHarness()
  const createdAt = opts.createdAt ?? new Date()
  const id = newId('mission', createdAt)
  await sql`
    INSERT INTO missions (workspace_id, id, name, objective, status, metric_name, metric_unit,
                          baseline_value, current_value, target_value, measured_at, started_at, created_at)
    VALUES (${workspaceId}, ${id}, ${opts.name ?? 'Grow repeat purchases'}, 'Bring first-time buyers back for a second order.',
            'active', 'repeat_purchase_rate', 'percent', 20, 26, 30, ${createdAt}, ${createdAt}, ${createdAt})`
  await sql`
    INSERT INTO automations (workspace_id, id, mission_id, name, kind, status)
    VALUES (${workspaceId}, ${newId('automation')}, ${id}, 'Win-back flow', 'winback_flow', 'running')`
  return id
}

/** `count` decisions for a mission, one minute apart going back from `from` (newest first). */
export async function insertDecisions(workspaceId: string, missionId: string, count: number, from = new Date()) {
  const { sql } = await getHarness()
  const rows = Array.from({ length: count }, (_, i) => {
    const createdAt = new Date(from.getTime() - i * 60_000)
    const measured = i % 3 === 0
    return {
      workspace_id: workspaceId,
      id: newId('decision', createdAt),
      mission_id: missionId,
      author: 'Budget Pacer',
      author_kind: 'agent',
      title: `Decision ${i}`,
      rationale: 'Shift budget to the better-converting ad set.',
      measure: 'roas',
      predicted_change: 5,
      confidence: 0.7,
      status: measured ? 'measured' : 'recorded',
      actual_change: measured ? 6.5 : null,
      held: measured ? true : null,
      measured_at: measured ? createdAt : null,
      created_at: createdAt,
    }
  })
  for (let i = 0; i < rows.length; i += 500) await sql`INSERT INTO decisions ${sql(rows.slice(i, i + 500))}`
  return rows.map((r) => r.id)
}

export async function insertAbTest(workspaceId: string, status: 'running' | 'decided') {
  const { sql } = await getHarness()
  const id = newId('abTest')
  await sql`
    INSERT INTO ab_tests (workspace_id, id, name, variant_a, variant_b, status, winner, decided_at)
    VALUES (${workspaceId}, ${id}, 'Subject line test', 'Fresh roast Friday', '20% off this week', ${status},
            ${status === 'decided' ? 'b' : null}, ${status === 'decided' ? new Date() : null})`
  return id
}

export async function insertEmailSend(workspaceId: string, holdout: 'open' | 'decided') {
  const { sql } = await getHarness()
  const id = newId('emailSend')
  await sql`
    INSERT INTO email_sends (workspace_id, id, subject, recipients, holdout_status, holdout_lift, decided_at, sent_at)
    VALUES (${workspaceId}, ${id}, 'Your beans are getting lonely', 4200, ${holdout},
            ${holdout === 'decided' ? 3.2 : null}, ${holdout === 'decided' ? new Date() : null}, now())`
  return id
}
