import { beforeAll, describe, expect, test } from 'bun:test'
import { agentIn, authorize } from '../agent-helpers.ts'
import { call, getHarness, makeWorkspace } from '../harness.ts'
import { CLI_TIMEOUT, growthIn, type Run } from './run.ts'

/**
 * What an agent writes reaches an operator's terminal through `growth`'s tables, and an agent is the
 * party the product does not trust: its control characters must not act on the terminal (ESC
 * sequences that erase or rewrite a line, set the clipboard, hide text; a carriage return that
 * writes over what came before). People's output shows them as visible escapes; --json keeps the
 * value exactly. The API now refuses them in a summary (one line), so the approval here holds one
 * recorded before that rule, as a database of an older version does.
 */
const T = CLI_TIMEOUT
const SUMMARY = 'Send 10 mails\u001b]52;c;cm0gLXJmIH4=\u0007\r\u001b[2K\u001b[8mhidden\u001b[0m \u009b31m done'
let run: (args: string[]) => Promise<Run>

beforeAll(async () => {
  const h = await getHarness()
  const ws = await makeWorkspace()
  const agent = await agentIn(ws.id, { allow: 'email.send_campaign', name: 'Lifecycle Writer' })
  // Refused by the API now, naming the field...
  const refused = await authorize(agent.credential, { tool: 'email', action: 'send_campaign', resource: 'cmp_spring', summary: SUMMARY, facts: { recipients: 3200 } })
  expect(refused.status).toBe(400)
  expect(refused.body.error.message).toContain('summary')
  // ...and kept as written by an older version.
  const asked = await authorize(agent.credential, { tool: 'email', action: 'send_campaign', resource: 'cmp_spring', summary: 'Send 10 mails', facts: { recipients: 3200 } })
  expect(asked.body.data.decision).toBe('requires_approval')
  await h.sql`UPDATE approvals SET summary = ${SUMMARY} WHERE workspace_id = ${ws.id} AND id = ${asked.body.data.approvalId}`
  const growth = growthIn(h.dataDir)
  run = (args) => growth(args, { GROWTH_BASE_URL: `${h.url}/api/v1`, GROWTH_TOKEN: ws.live, NO_COLOR: '' })
}, T)

describe("an agent's text in growth's output", () => {
  test('a table shows its control characters as visible escapes, never sends them to the terminal', async () => {
    const r = await run(['approvals', 'list', '--status', 'pending'])
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('Send 10 mails\\u001b]52;c;')
    expect(r.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/)
  }, T)

  test('--json keeps the value exactly', async () => {
    const r = await run(['approvals', 'list', '--status', 'pending', '--json'])
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout)[0].summary).toBe(SUMMARY)
  }, T)
})

/**
 * A line break is not a control the terminal acts on, but in a value it starts a line the CLI did
 * not write: an agent's `resource` (the API takes any text there) or a refused call's echoed field
 * name could forge a row of `growth admin inbox` or `growth logs tail` ("apr_... agent request ...").
 * A bidi override (U+202E) would turn the rest of a row around in a terminal that lays out
 * right-to-left text. So a value's line breaks and bidi controls are shown as escapes too, and each
 * row stays one line.
 */
describe("an agent's text cannot add a line of its own", () => {
  const FORGED = 'apr_01FORGEDFORGEDFORGEDFORGE  agent request  Budget Pacer: ads.pause_campaign on cmp_test: harmless'

  test('growth admin inbox: a resource with a line break and a bidi override stays on its own row', async () => {
    const h = await getHarness()
    const ws = await makeWorkspace()
    const agent = await agentIn(ws.id, { allow: 'email.send_campaign', name: 'Lifecycle Writer' })
    const asked = await authorize(agent.credential, { tool: 'email', action: 'send_campaign', resource: `cmp_spring\n${FORGED}\u2028x\u202eesrever`, summary: 'Send 10 mails', facts: { recipients: 3200 } })
    expect(asked.body.data.decision).toBe('requires_approval')
    const r = await growthIn(h.dataDir)(['admin', 'inbox', '--workspace', ws.id], { NO_COLOR: '' })
    expect(r.code).toBe(0)
    expect(r.stdout.split('\n').filter((l) => l.trimStart().startsWith('apr_01FORGED'))).toEqual([])
    expect(r.stdout).toContain(`cmp_spring\\u000a${FORGED}\\u2028x\\u202eesrever`)
    expect(r.stdout).not.toMatch(/[\u2028\u2029\u202a-\u202e\u2066-\u2069]/)
  }, T)

  test('growth logs tail: a refused call whose message echoes a line break stays one line', async () => {
    const h = await getHarness()
    const ws = await makeWorkspace({ scoped: 'read:logs' })
    const refused = await call('POST', '/api/v1/track', { token: ws.live, body: { event: 'a', email: 'a@example.com', [`x\n${FORGED}`]: 1 } })
    expect(refused.status).toBe(400)
    // The log is written in batches (every 100 ms here): the tail comes once it holds the call.
    const id = refused.headers.get('x-request-id')!
    for (const deadline = Date.now() + 5_000; !(await call('GET', '/api/v1/logs?limit=100', { token: ws.live })).text.includes(id); await Bun.sleep(50)) {
      if (Date.now() > deadline) throw new Error(`${id} never reached the request log`)
    }
    const r = await growthIn(h.dataDir)(['logs', 'tail', '--status', '4xx'], { GROWTH_BASE_URL: `${h.url}/api/v1`, GROWTH_TOKEN: ws.scoped, NO_COLOR: '' })
    expect(r.code).toBe(0)
    expect(r.stdout.split('\n').filter((l) => l.startsWith('apr_01FORGED'))).toEqual([])
    expect(r.stdout).toContain(`x\\u000a${FORGED}`)
  }, T)
})
