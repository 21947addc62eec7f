import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { authorize } from '../../server/src/domain/agent-gateway.ts'
import { proposeAction } from '../../server/src/domain/actions.ts'
import { createAgent } from '../../server/src/domain/agents.ts'
import { createWorkspace } from '../../server/src/domain/workspaces.ts'
import { decisionRecorder } from '../../server/src/store/agent-gateway-recorder.ts'
import { openDatabase, type Database } from '../../server/src/store/driver/db.ts'
import { migrate } from '../../server/src/store/driver/migrate.ts'
import { CLI_TIMEOUT, growthIn, refusalJson } from './run.ts'

/**
 * `growth admin inbox --workspace ID`, black-box: what waits for a person, oldest first, as the
 * console's inbox has it (an agent's request needing approval, a proposed change), with the
 * commands that decide each kind; another workspace's items never; what was decided no longer.
 */
const dataDir = mkdtempSync(join(tmpdir(), 'growth-cli-inbox-'))
const T = CLI_TIMEOUT
const growth = growthIn(dataDir)
let db: Database
let workspaceId: string
let otherId: string

async function ask(ws: string, recipients: number, summary: string): Promise<string> {
  const agentId = (await db.sql<{ id: string }[]>`SELECT id FROM agents WHERE workspace_id = ${ws} LIMIT 1`)[0]!.id
  const secretKey = (await db.sql<{ secret_key: string }[]>`SELECT secret_key FROM workspaces WHERE workspace_id = ${ws}`)[0]!.secret_key
  const answer = await db.sql.begin((tx) => authorize(tx, { workspaceId: ws, agentId, secretKey }, { tool: 'email', action: 'send_campaign', resource: 'cmp_spring', summary, facts: { recipients } }, decisionRecorder()))
  expect(answer.decision).toBe('requires_approval')
  return answer.approvalId!
}

beforeAll(async () => {
  db = await openDatabase({ databaseUrl: process.env.DATABASE_URL, dataDir, poolMax: 2 })
  await migrate(db.sql)
  workspaceId = (await createWorkspace(db.sql, { name: 'Inbox CLI test' })).id
  otherId = (await createWorkspace(db.sql, { name: 'Another workspace' })).id
  for (const ws of [workspaceId, otherId]) await createAgent(db.sql, { workspaceId: ws, name: 'Lifecycle Writer', allow: 'email.send_campaign' })
}, T)

afterAll(async () => {
  await db.close()
  rmSync(dataDir, { recursive: true, force: true })
})

describe('growth admin inbox', () => {
  test('what waits, oldest first, with who asked what and the commands that decide it; the JSON is the inbox items; decided, an item leaves it', async () => {
    const empty = await growth(['admin', 'inbox', '--workspace', workspaceId])
    expect({ code: empty.code, stdout: empty.stdout.trim() }).toEqual({ code: 0, stdout: `Nothing waits for a person in workspace ${workspaceId}.` })

    const first = await ask(workspaceId, 3_200, 'Send the spring newsletter to 3,200')
    const expiresAt = new Date(Date.now() + 7 * 86_400_000).toISOString()
    const proposed = await db.sql.begin((tx) => proposeAction(tx, workspaceId, { kind: 'create_discount', args: { code: 'SPRING10', percentOff: 10, expiresAt } } as never, { kind: 'api', id: null, name: 'API' }))
    const second = await ask(workspaceId, 9_000, 'Send the autumn newsletter to 9,000')
    await ask(otherId, 5_000, 'Another workspace asks')

    const r = await growth(['admin', 'inbox', '--workspace', workspaceId])
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' })
    const lines = r.stdout.trimEnd().split('\n')
    expect(lines[0]).toBe(`3 items waiting for a person in workspace ${workspaceId}, oldest first:`)
    expect(lines[1]).toMatch(/^ {2}ID +KIND +WAITING SINCE +EXPIRES +WHAT$/)
    expect(lines[2]).toMatch(new RegExp(`^  ${first} +agent request +\\S+Z +\\S+Z +Lifecycle Writer: email\\.send_campaign on cmp_spring: Send the spring newsletter to 3,200$`))
    expect(lines[3]).toMatch(new RegExp(`^  ${proposed.id} +proposed change +\\S+Z +API: create_discount: `))
    expect(lines[4]).toMatch(new RegExp(`^  ${second} +agent request .*Send the autumn newsletter to 9,000$`))
    expect(lines.slice(5)).toEqual([
      'Decide a request or send: growth admin approval approve|reject apr_... [--reason TEXT]',
      'Decide a proposed change: growth admin action approve|reject act_... [--reason TEXT]',
    ])
    expect(r.stdout).not.toContain('Another workspace asks')

    const limited = await growth(['admin', 'inbox', '--workspace', workspaceId, '--limit', '1'])
    expect(limited.stdout).toContain(`The 1 oldest item waiting for a person in workspace ${workspaceId}, oldest first:`)
    expect(limited.stdout).toContain(first)
    expect(limited.stdout).not.toContain(second)
    expect(limited.stdout).toContain("More wait: --limit 2 shows more, or see the console's inbox.")
    expect(limited.stdout).not.toContain('growth admin action approve')

    expect((await growth(['admin', 'approval', 'approve', first, '--reason', 'Fine'])).code).toBe(0)
    const json = JSON.parse((await growth(['admin', 'inbox', '--workspace', workspaceId, '--json'])).stdout)
    expect(json.more).toBe(false)
    expect(json.items.map((i: any) => (i.kind === 'action' ? i.action.id : i.approval.id))).toEqual([proposed.id, second])
    expect(json.items[1]).toMatchObject({ kind: 'approval', approval: { id: second, kind: 'agent_request', status: 'pending' }, asked: { agentName: 'Lifecycle Writer', tool: 'email', action: 'send_campaign', facts: { recipients: 9000 } } })
  }, 4 * T)

  test('a workspace the database does not hold, and a bad --limit, are refused naming them', async () => {
    const none = await growth(['admin', 'inbox', '--workspace', 'ws_01nothere000000000000000', '--json'])
    expect(none.code).toBe(1)
    expect(refusalJson(none).message).toMatch(/^No workspace ws_01nothere000000000000000 in the /)
    const bad = await growth(['admin', 'inbox', '--workspace', workspaceId, '--limit', '0'])
    expect(bad.code).toBe(1)
    expect(bad.stderr.trim()).toBe('error: --limit must be a whole number from 1 to 500 (got 0).')
  }, 2 * T)
})
