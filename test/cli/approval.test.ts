import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createAgent } from '../../server/src/domain/agents.ts'
import { createWorkspace } from '../../server/src/domain/workspaces.ts'
import { authorize } from '../../server/src/domain/agent-gateway.ts'
import { decisionRecorder } from '../../server/src/store/agent-gateway-recorder.ts'
import { openDatabase, type Database } from '../../server/src/store/driver/db.ts'
import { migrate } from '../../server/src/store/driver/migrate.ts'
import { CLI_TIMEOUT, growthIn, refusalJson } from './run.ts'

/**
 * `growth admin approval approve|reject ID`, black-box: the CLI runs as its own process against the
 * database this file also holds open (DATABASE_URL, or an embedded database it owns, which the CLI
 * reaches through the owner's socket, as it would a running server's).
 */
const dataDir = mkdtempSync(join(tmpdir(), 'growth-cli-approval-'))
const T = CLI_TIMEOUT
let db: Database
let workspaceId: string
let agentId: string
let secretKey: string

const growth = growthIn(dataDir)
// The account's name as the system tells it (the CLI must not take it from $USER).
const LOGIN = execFileSync('id', ['-un'], { encoding: 'utf8' }).trim()
const MAYA_NOTE = { kind: 'operator', name: LOGIN, note: 'Maya Chen' }

/** A new pending approval: the agent asks for a high-risk send. */
async function pendingApproval(recipients: number): Promise<{ approvalId: string; authorizationId: string }> {
  const answer = await db.sql.begin((tx) =>
    authorize(tx, { workspaceId, agentId, secretKey }, { tool: 'email', action: 'send_campaign', summary: `Send the newsletter to ${recipients}`, facts: { recipients } }, decisionRecorder()),
  )
  expect(answer.decision).toBe('requires_approval')
  return { approvalId: answer.approvalId!, authorizationId: answer.authorizationId }
}

beforeAll(async () => {
  db = await openDatabase({ databaseUrl: process.env.DATABASE_URL, dataDir, poolMax: 2 })
  await migrate(db.sql)
  workspaceId = (await createWorkspace(db.sql, { name: 'Approval CLI test' })).id
  agentId = (await createAgent(db.sql, { workspaceId, name: 'Lifecycle Writer', allow: 'email.send_campaign' })).id
  secretKey = (await db.sql<{ secret_key: string }[]>`SELECT secret_key FROM workspaces WHERE workspace_id = ${workspaceId}`)[0]!.secret_key
}, T)

afterAll(async () => {
  await db.close()
  rmSync(dataDir, { recursive: true, force: true })
})

describe('growth admin approval approve|reject', () => {
  test('approve records who (the login, --by a note) and when, emits approval.approved; a second decision is refused with exit 1', async () => {
    const { approvalId, authorizationId } = await pendingApproval(3_200)
    const r = await growth(['admin', 'approval', 'approve', approvalId, '--by', 'Maya Chen', '--json'])
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' })
    const out = JSON.parse(r.stdout)
    expect(out).toMatchObject({ id: approvalId, workspaceId, kind: 'agent_request', status: 'approved', subjectId: authorizationId, requestedBy: 'Lifecycle Writer', decidedBy: MAYA_NOTE })
    expect(Date.now() - new Date(out.decidedAt).getTime()).toBeLessThan(60_000)
    const [row] = await db.sql<any[]>`SELECT status, decided_by, decided_at FROM approvals WHERE workspace_id = ${workspaceId} AND id = ${approvalId}`
    expect(row).toMatchObject({ status: 'approved', decided_by: MAYA_NOTE })
    const events = await db.sql<any[]>`SELECT data FROM events WHERE workspace_id = ${workspaceId} AND type = 'approval.approved'`
    expect(events.map((e) => e.data.approval.id)).toContain(approvalId)

    for (const verb of ['approve', 'reject']) {
      const again = await growth(['admin', 'approval', verb, approvalId, '--json'])
      const error = refusalJson(again)
      expect(error.code).toBe('conflict')
      expect(error.message).toMatch(new RegExp(`^Approval apr_\\w+ was already approved by ${LOGIN} \\(operator; note: Maya Chen\\) at .*; a decision is final\\.`))
    }
  }, T)

  test('reject, for people: says what was rejected, by the operator by default', async () => {
    const { approvalId } = await pendingApproval(4_100)
    const r = await growth(['admin', 'approval', 'reject', approvalId])
    expect(r.code).toBe(0)
    expect(r.stdout).toContain(`Rejected ${approvalId} in workspace ${workspaceId}`)
    expect(r.stdout).toContain('Send the newsletter to 4100')
    const [row] = await db.sql<any[]>`SELECT status, decided_by FROM approvals WHERE workspace_id = ${workspaceId} AND id = ${approvalId}`
    expect(row.status).toBe('rejected')
    expect(row.decided_by).toEqual({ kind: 'operator', name: LOGIN })
  }, T)

  test('an expired approval cannot be decided: exit 1 with a clear message; an unknown one neither', async () => {
    const { approvalId } = await pendingApproval(5_000)
    await db.sql`UPDATE approvals SET expires_at = now() - interval '1 minute' WHERE workspace_id = ${workspaceId} AND id = ${approvalId}`
    const r = await growth(['admin', 'approval', 'approve', approvalId, '--json'])
    expect(r.code).toBe(1)
    expect(r.stdout).toBe('')
    expect(r.stderr).toMatch(/expired at .* it can no longer be decided\. If Lifecycle Writer asks again, a new approval will wait for a person\./)
    const [row] = await db.sql<any[]>`SELECT status FROM approvals WHERE workspace_id = ${workspaceId} AND id = ${approvalId}`
    expect(row.status).toBe('pending')
    const unknown = await growth(['admin', 'approval', 'reject', 'apr_00000000000000000000000000'])
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toContain('No approval apr_00000000000000000000000000.')
    const malformed = await growth(['admin', 'approval', 'approve', 'nope'])
    expect(malformed.code).toBe(1)
    expect(malformed.stderr).toContain('apr_')
  }, T)
})
