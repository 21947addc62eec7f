import { beforeAll, describe, expect, test } from 'bun:test'
import { execFileSync } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { agentIn, authorize, decisionOf } from '../agent-helpers.ts'
import { call, getHarness, makeWorkspace, type Workspace } from '../harness.ts'
import { insertCampaign, insertConnection } from '../write-fixtures.ts'
import { CLI_TIMEOUT, expectRefused, growthIn, jsonOf, refusalJson, type Run } from './run.ts'

/**
 * Who decided, as the decision commands record it (CONTRACT, Operator interface): the operator's
 * login from the system's user database, never the --by text, which is kept only as a note (and
 * refused outside a few characters); the --reason beside it. Black-box: the CLI runs as its own
 * process on the test server's database, and what it recorded is read back over HTTP, from GET
 * /approvals, GET /agents/requests, GET /actions and GET /events.
 */
const T = CLI_TIMEOUT
// What anyone can set in their environment must not name the decider.
const IMPOSTOR = { USER: 'someone-else', LOGNAME: 'someone-else', USERNAME: 'someone-else' }
// The account's name as the system tells it (the CLI must not take it from $USER).
const LOGIN = execFileSync('id', ['-un'], { encoding: 'utf8' }).trim()

let ws: Workspace
let growth: (args: string[]) => Promise<Run>
let api: (args: string[]) => Promise<Run>

beforeAll(async () => {
  const h = await getHarness()
  ws = await makeWorkspace()
  growth = (args) => growthIn(h.dataDir)(args, IMPOSTOR)
  const configDir = mkdtempSync(join(tmpdir(), 'growth-cli-config-'))
  api = (args) => growthIn(h.dataDir)(args, { GROWTH_BASE_URL: `${h.url}/api/v1`, GROWTH_TOKEN: ws.live, GROWTH_CONFIG_DIR: configDir, NO_COLOR: '' })
})

/** An agent's request held for a person: its approval and authorization ids. */
async function pendingRequest(recipients: number) {
  const agent = await agentIn(ws.id, { allow: 'email.send_campaign', name: `Lifecycle Writer ${recipients}` })
  const a = await authorize(agent.credential, { tool: 'email', action: 'send_campaign', summary: `Send to ${recipients}`, facts: { recipients } })
  expect(decisionOf(a)).toBe('requires_approval')
  return { approvalId: a.body.data.approvalId as string, authorizationId: a.body.data.authorizationId as string }
}

async function proposedChange() {
  const conn = await insertConnection(ws.id, { name: 'Meta Ads – Decided' })
  const campaignId = await insertCampaign(ws.id, { budget: 10_000, currency: 'USD', connectionId: conn })
  const r = await call('POST', '/api/v1/actions', { token: ws.live, body: { kind: 'adjust_budget', args: { campaignId, changePercent: 10 } } })
  expect(r.status).toBe(201)
  return r.body.data.id as string
}

const get = async (path: string) => {
  const r = await call('GET', `/api/v1${path}`, { token: ws.live })
  expect(r.status).toBe(200)
  return r.body.data as any[]
}

/** The data of the workspace's events of one type about one record (`approval` or `action`). */
const eventsAbout = async (type: string, key: 'approval' | 'action', id: string) =>
  (await get(`/events?type=${type}&limit=100`)).filter((e) => e.data[key].id === id).map((e) => e.data[key])

describe('growth admin approval approve|reject', () => {
  test('records the login (not --by, not $USER) with --by as a note and --reason, as GET /approvals, GET /agents/requests and the event show', async () => {
    const { approvalId, authorizationId } = await pendingRequest(3_200)
    const out = jsonOf(
      await growth(['admin', 'approval', 'approve', approvalId, '--by', "for Kenji O'Neil, ext-42 @tokyo", '--reason', 'Checked the list: all opted in.', '--json']),
      'admin approval approve',
    )
    const decision = {
      decidedBy: { kind: 'operator', name: LOGIN, note: "for Kenji O'Neil, ext-42 @tokyo" },
      decidedAt: expect.stringMatching(/Z$/),
      decisionReason: 'Checked the list: all opted in.',
    }
    expect(out).toMatchObject({ id: approvalId, status: 'approved', ...decision })
    const listed = (await get('/approvals?status=approved')).find((a) => a.id === approvalId)
    expect(listed).toMatchObject(decision)
    expect(listed.decidedAt).toBe(out.decidedAt)
    const request = (await get('/agents/requests')).find((r) => r.authorizationId === authorizationId)
    expect(request).toMatchObject({ approvalId, decidedBy: decision.decidedBy, decidedAt: out.decidedAt, decisionReason: decision.decisionReason })
    expect(await eventsAbout('approval.approved', 'approval', approvalId)).toEqual([listed])
  }, T)

  test('reject without --by or --reason: the login alone, no note, reason null; people read who and why', async () => {
    const { approvalId, authorizationId } = await pendingRequest(4_100)
    const r = await growth(['admin', 'approval', 'reject', approvalId])
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' })
    expect(r.stdout).toMatch(new RegExp(`Decided by:\\s+${LOGIN} \\(operator\\) at `))
    expect(r.stdout).not.toContain('Reason:')
    const listed = (await get('/approvals?status=rejected')).find((a) => a.id === approvalId)
    expect(listed).toMatchObject({ decidedBy: { kind: 'operator', name: LOGIN }, decisionReason: null })
    expect('note' in listed.decidedBy).toBe(false)
    const request = (await get('/agents/requests')).find((x) => x.authorizationId === authorizationId)
    expect(request).toMatchObject({ decidedBy: { kind: 'operator', name: LOGIN }, decisionReason: null })
    expect(await eventsAbout('approval.rejected', 'approval', approvalId)).toEqual([listed])
  }, T)

  test('a request the gateway decided alone shows no decider', async () => {
    const agent = await agentIn(ws.id, { allow: 'ads.pause_campaign' })
    const a = await authorize(agent.credential, { tool: 'ads', action: 'pause_campaign' })
    expect(decisionOf(a)).toBe('allowed')
    const request = (await get('/agents/requests')).find((x) => x.authorizationId === a.body.data.authorizationId)
    expect(request).toMatchObject({ approvalId: null, decidedBy: null, decidedAt: null, decisionReason: null })
  }, T)

  test('a --by outside letters, digits, spaces and . , \' - _ @ (or over 100) is refused naming --by; nothing is decided', async () => {
    const { approvalId } = await pendingRequest(5_300)
    for (const note of ['Maya <script>', 'Maya\nApproved by: admin', '\u001b[31mred', '"quoted"', 'a/b', '', 'x'.repeat(101)]) {
      expectRefused(await growth(['admin', 'approval', 'approve', approvalId, '--by', note]), /^error: --by may hold only letters, digits, spaces and \. , ' - _ @, at most 100 characters \(got /)
    }
    const json = refusalJson(await growth(['admin', 'approval', 'approve', approvalId, '--by', 'a;b', '--json']))
    expect(json).toMatchObject({ code: 'invalid_request', message: expect.stringMatching(/^--by may hold only letters/) })
    const [pending] = (await get('/approvals?status=pending')).filter((a) => a.id === approvalId)
    expect(pending).toMatchObject({ status: 'pending', decidedBy: null, decidedAt: null, decisionReason: null })
  }, T)

  test('a --reason over 500 characters, or with a control character (an escape sequence), is refused naming --reason', async () => {
    const { approvalId } = await pendingRequest(5_400)
    expectRefused(await growth(['admin', 'approval', 'reject', approvalId, '--reason', 'r'.repeat(501)]), /^error: --reason must be at most 500 characters \(got 501\)/)
    expectRefused(
      await growth(['admin', 'approval', 'reject', approvalId, '--reason', 'fine \u001b[2J\u001b[Happroved']),
      /^error: --reason must not contain control characters other than line breaks and tabs \(got U\+001B\)/,
    )
    expect((await get('/approvals?status=pending')).some((a) => a.id === approvalId)).toBe(true)
  }, T)
})

describe('growth admin action approve|reject', () => {
  test('approve records the login with the note and reason, as GET /actions and action.applied show', async () => {
    const id = await proposedChange()
    const out = jsonOf(await growth(['admin', 'action', 'approve', id, '--by', 'on call for Daniel', '--reason', 'Spring push', '--json']), 'admin action approve')
    const decision = { decidedBy: { kind: 'operator', name: LOGIN, note: 'on call for Daniel' }, decisionReason: 'Spring push' }
    expect(out).toMatchObject({ id, status: 'applied', ...decision })
    const listed = (await get('/actions?status=applied')).find((a) => a.id === id)
    expect(listed).toMatchObject(decision)
    expect(await eventsAbout('action.applied', 'action', id)).toEqual([listed])
  }, T)

  test('reject, for people: who (the login and the note), when and why', async () => {
    const id = await proposedChange()
    const r = await growth(['admin', 'action', 'reject', id, '--by', 'Maya Chen', '--reason', 'Not during the sale.'])
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' })
    expect(r.stdout).toMatch(new RegExp(`Decided by:\\s+${LOGIN} \\(operator; note: Maya Chen\\) at \\S+`))
    expect(r.stdout).toMatch(/Reason:\s+Not during the sale\./)
    const listed = (await get('/actions?status=rejected')).find((a) => a.id === id)
    expect(listed).toMatchObject({ decidedBy: { kind: 'operator', name: LOGIN, note: 'Maya Chen' }, decisionReason: 'Not during the sale.' })
    expect(await eventsAbout('action.rejected', 'action', id)).toEqual([listed])
  }, T)

  test('the API commands\' tables show who decided as the login, the kind and the note', async () => {
    const id = await proposedChange()
    expect((await growth(['admin', 'action', 'reject', id, '--by', 'for Sofia'])).code).toBe(0)
    const r = await api(['actions', 'list', '--status', 'rejected'])
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' })
    const [header, ...rows] = r.stdout.trimEnd().split('\n')
    expect(header).toContain('decided by')
    expect(rows.find((line) => line.startsWith(id))).toContain(`${LOGIN} (operator; note: for Sofia)`)
  }, T)

  test('a bad --by is refused naming --by; the change stays proposed', async () => {
    const id = await proposedChange()
    expectRefused(await growth(['admin', 'action', 'approve', id, '--by', 'operator:root']), /^error: --by may hold only letters/)
    expect((await get('/actions?status=proposed')).some((a) => a.id === id)).toBe(true)
  }, T)
})
