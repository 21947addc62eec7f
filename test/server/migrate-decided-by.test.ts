import { expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import postgres from 'postgres'
import { listActions } from '../../server/src/domain/actions.ts'
import { listApprovals } from '../../server/src/domain/approvals.ts'
import { openDatabase, type Database } from '../../server/src/store/driver/db.ts'
import { migrate } from '../../server/src/store/driver/migrate.ts'
import { MIGRATION_FILES, migratedAsOlderRelease } from '../support/older-schema.ts'

/**
 * Migration 0014: decisions recorded before it kept who decided as text (the CLI's --by, by default
 * `operator:<login>`). On a database made by the migrations before it, with such rows and events,
 * they become operator decisions of that name (without the `operator:` prefix the kind now says),
 * with no reason; the events of approvals and actions take the same shape.
 */
const BEFORE = MIGRATION_FILES.filter((f) => f < '0014')

/** A fresh database of its own: a new database on the PostgreSQL server, or a new embedded one. */
async function freshDatabase(): Promise<{ db: Database; drop: () => Promise<void> }> {
  if (!process.env.DATABASE_URL) {
    const dataDir = mkdtempSync(join(tmpdir(), 'growth-migrate-decided-'))
    const db = await openDatabase({ dataDir })
    return { db, drop: async () => rmSync(dataDir, { recursive: true, force: true }) }
  }
  const admin = postgres(process.env.DATABASE_URL, { max: 1, onnotice: () => {} })
  const name = `growth_decided_${Date.now()}_${Math.floor(Math.random() * 1e6)}`
  await admin.unsafe(`CREATE DATABASE ${name}`)
  const url = new URL(process.env.DATABASE_URL)
  url.pathname = `/${name}`
  const db = await openDatabase({ databaseUrl: url.toString(), dataDir: '', poolMax: 2 })
  return {
    db,
    drop: async () => {
      await admin.unsafe(`DROP DATABASE ${name}`)
      await admin.end()
    },
  }
}

test('text deciders become operator decisions, in the rows and in the events', async () => {
  const { db, drop } = await freshDatabase()
  const { sql } = db
  try {
    await migratedAsOlderRelease(sql, BEFORE)
    const ws = 'ws_01m8decided00000000000000000'
    const at = new Date('2026-11-20T10:00:00.000Z')
    await sql`INSERT INTO workspaces (workspace_id, name, plan, secret_key) VALUES (${ws}, 'Before 0014', 'growth', 'k')`
    const approval = { workspace_id: ws, kind: 'send', summary: 'Send "Spring"', requested_by: 'API', expires_at: new Date('2026-11-21T10:00:00Z') }
    await sql`INSERT INTO approvals ${sql([
      { ...approval, id: 'apr_01m8aaaaaaaaaaaaaaaaaaaaaa', status: 'approved', decided_by: 'operator:maya', decided_at: at, created_at: new Date('2026-11-20T09:00:00Z') },
      { ...approval, id: 'apr_01m8bbbbbbbbbbbbbbbbbbbbbb', status: 'rejected', decided_by: 'Kenji Watanabe', decided_at: at, created_at: new Date('2026-11-20T08:00:00Z') },
      { ...approval, id: 'apr_01m8cccccccccccccccccccccc', status: 'pending', decided_by: null, decided_at: null, created_at: new Date('2026-11-20T07:00:00Z') },
    ])}`
    await sql`
      INSERT INTO actions (workspace_id, id, kind, args, status, planned_effect, limits_allowed, proposed_by, decided_by, decided_at)
      VALUES (${ws}, 'act_01m8aaaaaaaaaaaaaaaaaaaaaa', 'pause_campaign', '{}', 'rejected', '{"summary":"Pause"}', true,
              '{"kind":"api","id":null,"name":"API"}', 'operator:kim', ${at})`
    const events: [number, string, unknown][] = [
      [1, 'approval.requested', { approval: { id: 'apr_01m8aaaaaaaaaaaaaaaaaaaaaa', decidedBy: null, decidedAt: null } }],
      [2, 'approval.approved', { approval: { id: 'apr_01m8aaaaaaaaaaaaaaaaaaaaaa', decidedBy: 'operator:maya', decidedAt: at.toISOString() } }],
      [3, 'action.rejected', { action: { id: 'act_01m8aaaaaaaaaaaaaaaaaaaaaa', decidedBy: 'operator:kim', decidedAt: at.toISOString() } }],
      [4, 'contact.created', { contact: { id: 'con_1', decidedBy: 'left alone' } }],
    ]
    for (const [seq, type, data] of events) {
      await sql`INSERT INTO events (workspace_id, seq, id, type, data) VALUES (${ws}, ${seq}, ${`evt_${seq}`}, ${type}, ${sql.json(data as never)})`
    }

    const result = await migrate(sql)
    expect(result.applied[0]).toBe('0014_decided_by.sql')

    const approvals = (await listApprovals(sql, ws, { limit: 10 })).map((p) => p.item)
    expect(approvals.map((a) => [a.id, a.decidedBy, a.decisionReason])).toEqual([
      ['apr_01m8aaaaaaaaaaaaaaaaaaaaaa', { kind: 'operator', name: 'maya' }, null],
      ['apr_01m8bbbbbbbbbbbbbbbbbbbbbb', { kind: 'operator', name: 'Kenji Watanabe' }, null],
      ['apr_01m8cccccccccccccccccccccc', null, null],
    ])
    expect(approvals[0]!.decidedAt).toBe(at.toISOString())
    const [action] = (await listActions(sql, ws, { limit: 10 })).map((p) => p.item)
    expect(action).toMatchObject({ decidedBy: { kind: 'operator', name: 'kim' }, decidedAt: at.toISOString(), decisionReason: null })

    const data = (await sql<{ data: any }[]>`SELECT data FROM events WHERE workspace_id = ${ws} ORDER BY seq`).map((e) => e.data)
    expect(data).toEqual([
      { approval: { id: 'apr_01m8aaaaaaaaaaaaaaaaaaaaaa', decidedBy: null, decidedAt: null, decisionReason: null } },
      { approval: { id: 'apr_01m8aaaaaaaaaaaaaaaaaaaaaa', decidedBy: { kind: 'operator', name: 'maya' }, decidedAt: at.toISOString(), decisionReason: null } },
      { action: { id: 'act_01m8aaaaaaaaaaaaaaaaaaaaaa', decidedBy: { kind: 'operator', name: 'kim' }, decidedAt: at.toISOString(), decisionReason: null } },
      { contact: { id: 'con_1', decidedBy: 'left alone' } },
    ])
    // A decider of another kind is refused by the table itself.
    await expect(sql`UPDATE approvals SET decided_by = '{"kind":"robot","name":"x"}' WHERE workspace_id = ${ws}`).rejects.toThrow(/approvals_decided_by_kind/)
  } finally {
    await db.close()
    await drop()
  }
}, 60_000)
