import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createDemoWorkspace } from '../../server/src/demo/index.ts'
import { openDatabase, type Database } from '../../server/src/store/driver/db.ts'
import { migrate } from '../../server/src/store/driver/migrate.ts'
import { CLI_TIMEOUT, growthIn } from './run.ts'

/**
 * `growth admin action approve|reject ID`, spawned as an operator runs it, against the demo
 * workspace's seeded proposals. This process holds the database (the PostgreSQL server at
 * DATABASE_URL, or an embedded one it owns, as a running server would) to set up and check.
 */

const dataDir = mkdtempSync(join(tmpdir(), 'growth-cli-action-'))
const T = CLI_TIMEOUT
let db: Database
let proposed: { id: string; kind: string }[]
let workspaceId: string

const growth = growthIn(dataDir)

beforeAll(async () => {
  db = await openDatabase({ databaseUrl: process.env.DATABASE_URL, dataDir })
  await migrate(db.sql)
  const demo = await createDemoWorkspace(db.sql)
  workspaceId = demo.workspace.id
  proposed = [...(await db.sql<{ id: string; kind: string }[]>`
    SELECT id, kind FROM actions WHERE workspace_id = ${workspaceId} AND status = 'proposed' ORDER BY kind`)]
}, T)

afterAll(async () => {
  await db?.close()
  rmSync(dataDir, { recursive: true, force: true })
})

describe('growth admin action', () => {
  test('approve --json carries the change out and prints the action as one object', async () => {
    const budget = proposed.find((a) => a.kind === 'adjust_budget')!
    const r = await growth(['admin', 'action', 'approve', budget.id, '--json'])
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' })
    const a = JSON.parse(r.stdout)
    expect(a).toMatchObject({
      id: budget.id,
      status: 'applied',
      decidedBy: { kind: 'operator', name: execFileSync('id', ['-un'], { encoding: 'utf8' }).trim() },
      outcome: { ok: true, detail: 'Daily budget set to 138.00 USD on Meta Ads – Northwind US.', error: null },
    })
    const [row] = await db.sql<{ status: string }[]>`SELECT status FROM actions WHERE workspace_id = ${workspaceId} AND id = ${budget.id}`
    expect(row!.status).toBe('applied')
    const [event] = await db.sql<{ type: string }[]>`
      SELECT type FROM events WHERE workspace_id = ${workspaceId} AND data->'action'->>'id' = ${budget.id} ORDER BY seq DESC LIMIT 1`
    expect(event!.type).toBe('action.applied')

    // A second decision is a refusal: exit 1, the reason on stderr, nothing on stdout.
    const again = await growth(['admin', 'action', 'reject', budget.id])
    expect(again.code).toBe(1)
    expect(again.stdout).toBe('')
    expect(again.stderr).toMatch(/^error: Action act_\S+ was already approved by \S+ \(operator\) at \S+ and applied\./)
  }, T)

  test('approve finishes a change whose carrying out was interrupted (left applying), keeping who decided', async () => {
    const [stuck] = await db.sql<{ id: string; decided_by: unknown }[]>`
      SELECT id, decided_by FROM actions WHERE workspace_id = ${workspaceId} AND status = 'applying' LIMIT 1`
    const refused = await growth(['admin', 'action', 'reject', stuck!.id])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain('is being carried out; if that was interrupted, approve it again to finish it.')
    const r = await growth(['admin', 'action', 'approve', stuck!.id, '--json'])
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' })
    const a = JSON.parse(r.stdout)
    // The seeded Google Ads connection is failing, so the change fails with the reason, not stuck.
    expect(a).toMatchObject({ id: stuck!.id, status: 'failed', decidedBy: stuck!.decided_by, outcome: { ok: false, error: expect.stringContaining('is not delivering') } })
    const [row] = await db.sql<{ status: string }[]>`SELECT status FROM actions WHERE workspace_id = ${workspaceId} AND id = ${stuck!.id}`
    expect(row!.status).toBe('failed')
  }, T)

  test('reject tells a person what was rejected', async () => {
    const send = proposed.find((a) => a.kind === 'send_campaign')!
    const r = await growth(['admin', 'action', 'reject', send.id])
    expect(r.code).toBe(0)
    expect(r.stdout).toContain(`Rejected ${send.id} (send_campaign): Send "Ethiopia Guji washed launch" to`)
    expect(r.stdout).toMatch(/Decided by:\s+\S+ \(operator\) at /)
    const [row] = await db.sql<{ status: string }[]>`SELECT status FROM actions WHERE workspace_id = ${workspaceId} AND id = ${send.id}`
    expect(row!.status).toBe('rejected')
  }, T)

  test('an unknown action, or one the limits refused, is refused with exit 1', async () => {
    const unknown = await growth(['admin', 'action', 'approve', 'act_01jd0000000000000000000000', '--json'])
    expect({ code: unknown.code, stdout: unknown.stdout }).toEqual({ code: 1, stdout: '' })
    expect(unknown.stderr).toContain('No action act_01jd0000000000000000000000')
    const [refused] = await db.sql<{ id: string }[]>`SELECT id FROM actions WHERE workspace_id = ${workspaceId} AND status = 'refused' LIMIT 1`
    const r = await growth(['admin', 'action', 'approve', refused!.id])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain("refused by the workspace's limits")
  }, T)
})
