import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { McpError } from '@modelcontextprotocol/sdk/types.js'
import { createDemoWorkspace, type DemoWorkspace } from '../../server/src/demo/index.ts'
import { ROOT } from '../cli/run.ts'
import { call, getHarness } from '../harness.ts'
import { startFaultProxy } from '../sdk/support/fault-proxy.ts'
import { callTool, type Connected, connect, envFor, readAll, SECRET_LINE, textOf, TRANSPORTS } from './support.ts'

/**
 * `growth mcp` with a workspace token, over stdio and over Streamable HTTP, against the live test
 * server and a demo workspace: a read, a paged read, a live write and a test token's (simulated)
 * write, a refusal of the API, a bad argument; what each call did is read back through the API or
 * the database.
 */

let demo: DemoWorkspace

beforeAll(async () => {
  const { sql } = await getHarness()
  demo = await createDemoWorkspace(sql, { name: 'MCP workspace tools' })
}, 60_000)

const api = async (path: string, token = demo.tokens.live) => {
  const r = await call('GET', `/api/v1${path}`, { token })
  if (r.status !== 200) throw new Error(`GET ${path}: ${r.status} ${r.text}`)
  return r.body
}
const ids = (items: { id: string }[]) => items.map((i) => i.id)

function formatMoney(m: { amountMinor: number; currency: string }) {
  const f = new Intl.NumberFormat(undefined, { style: 'currency', currency: m.currency })
  return f.format(m.amountMinor / 10 ** (f.resolvedOptions().maximumFractionDigits ?? 2))
}

for (const transport of TRANSPORTS) {
  describe(`growth mcp over ${transport}, a workspace token`, () => {
    let live: Connected
    let testToken: Connected

    beforeAll(async () => {
      ;[live, testToken] = await Promise.all([connect(transport, demo.tokens.live), connect(transport, demo.tokens.test)])
    }, 30_000)

    afterAll(async () => {
      const codes = await Promise.all([live?.close(), testToken?.close()])
      // Over HTTP, SIGTERM is a clean stop (exit 0); over stdio, the client closing stdin ends it (checked in close()).
      if (transport === 'http') expect(codes).toEqual([0, 0])
    })

    test('the server says what it serves: its instructions, and one line on stderr naming the credential (masked) and the tools', () => {
      expect(live.client.getServerVersion()?.name).toBe('growth')
      expect(live.client.getInstructions()).toContain('live workspace token')
      expect(testToken.client.getInstructions()).toContain('This is a test token: reads are real, writes are checked and then only simulated')
      expect(live.stderr()).toMatch(/growth mcp: 22 tools for a live workspace token \(scopes: read:agents, .*write:experiments\); svc_live_…\w{4} from GROWTH_TOKEN, API at http:\/\/127\.0\.0\.1:\d+\/api\/v1/)
      expect(live.stderr()).not.toContain(demo.tokens.live)
      if (transport === 'http') expect(live.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/)
    })

    test('a read: the structured content is the API\'s data; the text shows money in each currency\'s format and keeps the ids', async () => {
      const r = await callTool(live, 'getRevenue')
      expect(r.isError).toBeFalsy()
      const fromApi = (await api('/revenue')).data
      expect(r.structuredContent.data.currencies).toEqual(fromApi.currencies)
      expect(r.structuredContent.requestId).toMatch(/^req_/)
      const text = textOf(r)
      expect(fromApi.currencies.length).toBeGreaterThan(1)
      for (const c of fromApi.currencies) expect(text).toContain(`total: ${formatMoney(c.total)}`)
      expect(text).not.toContain('amountMinor')

      const decisions = await callTool(live, 'listDecisions', { missionId: demo.fixtures.missionId })
      for (const d of decisions.structuredContent.data) expect(textOf(decisions)).toContain(`id: ${d.id}`)
    })

    test('a paged read: the nextCursor of one answer is the cursor of the next call, for lists paged by cursor, by after (events) and by before (agent requests)', async () => {
      for (const [tool, path, param] of [
        ['listDecisions', '/decisions', 'cursor'],
        ['listEvents', '/events', 'after'],
        ['listAgentRequests', '/agents/requests', 'before'],
      ] as const) {
        const first = await callTool(live, tool, { limit: 2 })
        const firstApi = await api(`${path}?limit=2`)
        expect(ids(first.structuredContent.data)).toEqual(ids(firstApi.data))
        expect(first.structuredContent.hasMore).toBe(true)
        const cursor = first.structuredContent.nextCursor
        expect(typeof cursor).toBe('string')
        expect(textOf(first)).toContain(`More: call ${tool} again with cursor "${cursor}" for the next page.`)
        const second = await callTool(live, tool, { limit: 2, cursor })
        const secondApi = await api(`${path}?limit=2&${param}=${cursor}`)
        expect({ tool, ids: ids(second.structuredContent.data) }).toEqual({ tool, ids: ids(secondApi.data) })
        expect(ids(second.structuredContent.data)).not.toEqual(ids(first.structuredContent.data))
      }
      // Without a limit, a list tool answers 20 (the API's default for customers is 500).
      const customers = await callTool(live, 'listCustomers')
      expect(customers.structuredContent.data.length).toBe(20)
      expect(customers.structuredContent.hasMore).toBe(true)
    })

    test('a live write: done once under an Idempotency-Key of its own, one per call', async () => {
      const { sql } = await getHarness()
      const emails = [`mcp.${transport}.1@example.com`, `mcp.${transport}.2@example.com`]
      const answers = []
      for (const email of emails) answers.push(await callTool(live, 'importContacts', { contacts: [{ email, firstName: 'Ada' }] }))
      const keys = answers.map((r) => r.structuredContent.idempotencyKey)
      for (const r of answers) {
        expect(r.isError).toBeFalsy()
        expect(r.structuredContent).toMatchObject({ simulated: false, replayed: false, data: { results: [{ status: 'created' }] } })
        expect(textOf(r)).toMatch(/^Add or update contacts: done\. Idempotency-Key mcp-[0-9a-f-]{36}\.\n/)
        expect(textOf(r)).toContain(`contactId: ${r.structuredContent.data.results[0].contactId}`)
      }
      expect(new Set(keys).size).toBe(2)
      const kept = await sql<{ key: string }[]>`SELECT key FROM idempotency_keys WHERE workspace_id = ${demo.workspace.id} AND key IN ${sql(keys)}`
      expect(kept.map((k) => k.key).sort()).toEqual([...keys].sort())
      const [made] = await sql<{ n: number }[]>`
        SELECT count(*)::int AS n FROM events WHERE workspace_id = ${demo.workspace.id} AND type = 'contact.created' AND data->'contact'->>'email' IN ${sql(emails)}`
      expect(made!.n).toBe(2)
    })

    test("a test token's write comes back simulated and says so; nothing is recorded", async () => {
      const { sql } = await getHarness()
      const count = async () => (await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM actions WHERE workspace_id = ${demo.workspace.id}`)[0]!.n
      const before = await count()
      const r = await callTool(testToken, 'createAction', { kind: 'pause_campaign', args: { campaignId: demo.fixtures.campaignId } })
      expect(r.isError).toBeFalsy()
      expect(r.structuredContent).toMatchObject({ data: { simulated: true }, simulated: true })
      expect(textOf(r)).toMatch(/^Simulated with a test token: every check passed and nothing was recorded \(Propose a change; Idempotency-Key mcp-[0-9a-f-]{36}\)\.$/)
      expect(await count()).toBe(before)
      const tool = (await testToken.client.listTools()).tools.find((t) => t.name === 'createAction')!
      expect(tool.description).toContain('With this test token the write is checked like a live one, then only simulated: nothing is recorded.')
    })

    test("a refusal of the API is a tool error carrying the envelope's code, message and request id", async () => {
      const missing = 'cmp_00000000000000000000000000'
      const r = await callTool(live, 'createAction', { kind: 'pause_campaign', args: { campaignId: missing } })
      expect(r.isError).toBe(true)
      const direct = await call('POST', '/api/v1/actions', { token: demo.tokens.live, body: { kind: 'pause_campaign', args: { campaignId: missing } } })
      expect(direct.status).toBe(404)
      const { error } = r.structuredContent
      expect(error).toEqual({ code: direct.body.error.code, message: direct.body.error.message, requestId: expect.stringMatching(/^req_/), status: 404 })
      expect(error.requestId).not.toBe(direct.body.error.requestId)
      expect(textOf(r)).toBe(`Refused by the API: ${direct.body.error.message} (404 not_found, request ${error.requestId})`)

      const unknownMission = await callTool(live, 'listDecisions', { missionId: 'msn_00000000000000000000000000' })
      expect(unknownMission.isError).toBe(true)
      expect(unknownMission.structuredContent.error).toMatchObject({ code: 'not_found', status: 404 })
    })

    test('a bad argument is named before anything is sent; an unknown tool is a protocol error; the server goes on answering', async () => {
      const cases: [string, Record<string, unknown>, string, string, string][] = [
        ['listDecisions', { limit: 'ten' }, 'limit', 'invalid_parameter', 'limit must be an integer; got "ten"'],
        ['listDecisions', { limit: 1000 }, 'limit', 'invalid_parameter', 'limit must be at most 100; got 1000'],
        ['listSignals', { status: 'closed' }, 'status', 'invalid_parameter', 'status must be one of open, resolved, dismissed; got "closed"'],
        ['listDecisions', { page: 2 }, 'page', 'invalid_parameter', 'listDecisions takes no argument page; it takes missionId, limit, cursor'],
        ['trackEvent', { event: 'signed_up' }, 'email', 'invalid_request', 'email is required'],
        ['createAction', { kind: 'pause_campaign', args: 'cmp_1' }, 'args', 'invalid_request', 'args must be a JSON object; got "cmp_1"'],
      ]
      for (const [tool, args, argument, code, message] of cases) {
        const r = await callTool(live, tool, args)
        expect(r.isError).toBe(true)
        expect(r.structuredContent.error).toEqual({ code, message, requestId: null, argument })
        expect(textOf(r)).toBe(`Bad argument ${argument}: ${message} (${code})`)
      }
      // What only the API can judge, it names: a field inside an object.
      const inner = await callTool(live, 'createAction', { kind: 'pause_campaign', args: { campaignId: 'not-an-id' } })
      expect(inner.structuredContent.error).toMatchObject({ code: 'invalid_request', status: 400 })
      expect(inner.structuredContent.error.message).toContain('args.campaignId')

      const unknown = await live.client.callTool({ name: 'dropDatabase', arguments: {} }).catch((e: unknown) => e)
      expect(unknown).toBeInstanceOf(McpError)
      expect((unknown as McpError).message).toContain('No tool dropDatabase')
      // The JSON-RPC error's message is the sentence alone: the client adds its own "MCP error -32602: " once.
      expect((unknown as McpError).code).toBe(-32602)
      expect((unknown as McpError).message).toMatch(/^MCP error -32602: No tool dropDatabase; tools\/list names the \d+ there are\.$/)
      const after = await callTool(live, 'getUsage')
      expect(after.isError).toBeFalsy()
    })
  })
}

describe('growth mcp: a write whose answer was lost', () => {
  test('fails saying it may have been done; the same call again goes under the same Idempotency-Key and is done once', async () => {
    const { sql, url } = await getHarness()
    const proxy = await startFaultProxy(url)
    const mcp = await connect('stdio', demo.tokens.live, [], { GROWTH_BASE_URL: `${proxy.url}/api/v1` })
    try {
      const email = 'mcp.lost.answer@example.com'
      const args = { contacts: [{ email, firstName: 'Lost' }] }
      // Every attempt of the SDK reaches the server and loses its answer.
      proxy.script([{ kind: 'drop', forward: true }, { kind: 'drop', forward: true }, { kind: 'drop', forward: true }])
      const lost = await callTool(mcp, 'importContacts', args)
      expect(lost.isError).toBe(true)
      const key = lost.structuredContent.error.idempotencyKey
      expect(key).toMatch(/^mcp-[0-9a-f-]{36}$/)
      expect(textOf(lost)).toContain(`It may or may not have been done. Calling this tool again with the same arguments sends it again under the same Idempotency-Key (${key}), so it is done at most once.`)
      // The same arguments, its members in another order (as a model may write them), are the same call.
      const again = await callTool(mcp, 'importContacts', { contacts: [{ firstName: 'Lost', email }] })
      expect(again.isError).toBeFalsy()
      expect(again.structuredContent).toMatchObject({ idempotencyKey: key, replayed: true })
      // Once answered, the same arguments are a new write again.
      const third = await callTool(mcp, 'importContacts', args)
      expect(third.structuredContent.idempotencyKey).not.toBe(key)
      const [made] = await sql<{ n: number }[]>`
        SELECT count(*)::int AS n FROM events WHERE workspace_id = ${demo.workspace.id} AND type = 'contact.created' AND data->'contact'->>'email' = ${email}`
      expect(made!.n).toBe(1)
    } finally {
      await mcp.close()
      await proxy.stop()
    }
  }, 60_000)
})

describe('growth mcp refuses to start', () => {
  async function start(token: string, args: string[] = []) {
    const proc = Bun.spawn([process.execPath, 'cli/bin/growth.ts', 'mcp', ...args], { cwd: ROOT, env: await envFor(token), stdin: 'pipe', stdout: 'pipe', stderr: 'pipe' })
    const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
    return { stdout, stderr, code }
  }

  test('with a token the API refuses, an unknown agent credential, or a bad --http: exit 1, why on stderr, nothing on stdout', async () => {
    const bogus = await start(`svc_live_${demo.workspace.id.slice(3)}_${'0'.repeat(48)}`)
    expect(bogus).toMatchObject({ code: 1, stdout: '' })
    expect(bogus.stderr).toMatch(/^error: the API at http:\/\/127\.0\.0\.1:\d+\/api\/v1 refused the token from GROWTH_TOKEN \(svc_live_…0000\): Missing or invalid credential/)
    const agent = await start(`svc_agt_${demo.workspace.id.slice(3)}_${'0'.repeat(48)}`)
    expect(agent).toMatchObject({ code: 1, stdout: '' })
    expect(agent.stderr).toMatch(/^error: the API at .* refused the token from GROWTH_TOKEN \(svc_agt_…0000\)/)
    const port = await start(demo.tokens.live, ['--http', 'eighty'])
    expect(port).toMatchObject({ code: 1, stdout: '' })
    expect(port.stderr).toBe('error: --http takes a port number, 0 to 65535 (0: any free port); got "eighty"\n')
  }, 30_000)

  test('with no server at the base URL: exit 2 and the sentence every command says, naming the URL and where it came from', async () => {
    const proc = Bun.spawn([process.execPath, 'cli/bin/growth.ts', 'mcp'], {
      cwd: ROOT,
      env: { ...(await envFor(demo.tokens.live)), GROWTH_BASE_URL: 'http://127.0.0.1:9/api/v1' },
      stdin: 'pipe',
      stdout: 'pipe',
      stderr: 'pipe',
    })
    const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
    expect({ code, stdout, stderr }).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: no answer from the API at http://127.0.0.1:9/api/v1 (from GROWTH_BASE_URL): the connection was refused; is the server running, and is that its address?\n',
    })
  }, 30_000)

  test('over HTTP, a session no request has used for --session-idle is ended (404, initialize again); one in use stays; a bad duration is refused', async () => {
    const bad = await start(demo.tokens.live, ['--http', '0', '--session-idle', 'soon'])
    expect(bad).toMatchObject({ code: 1, stdout: '' })
    expect(bad.stderr).toBe('error: --session-idle takes a duration of at least 1s, e.g. 30m, 2h, 90s; got "soon"\n')
    const proc = Bun.spawn([process.execPath, 'cli/bin/growth.ts', 'mcp', '--http', '0', '--session-idle', '1s'], { cwd: ROOT, env: await envFor(demo.tokens.live), stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' })
    const err = readAll(proc.stderr)
    try {
      const url = await err.waitFor(/at (http:\/\/127\.0\.0\.1:\d+\/mcp)/, proc)
      const secret = await err.waitFor(SECRET_LINE, proc)
      const rpc = (body: object, session?: string) =>
        fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18', authorization: `Bearer ${secret}`, ...(session ? { 'mcp-session-id': session } : {}) },
          body: JSON.stringify(body),
        })
      const open = async () => {
        const r = await rpc({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } })
        expect(r.status).toBe(200)
        await r.text()
        const id = r.headers.get('mcp-session-id')!
        const ready = await rpc({ jsonrpc: '2.0', method: 'notifications/initialized' }, id)
        expect(ready.status).toBe(202)
        return id
      }
      const list = (id: string) => rpc({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, id)
      const [idle, used] = [await open(), await open()]
      // `used` makes a request every 300 ms for 2.4 s; `idle` makes none.
      for (let i = 0; i < 8; i++) {
        await Bun.sleep(300)
        const r = await list(used)
        expect(r.status).toBe(200)
        await r.text()
      }
      const gone = await list(idle)
      expect(gone.status).toBe(404)
      expect((await gone.json()).error.message).toContain('was idle too long')
      // A new session works at once.
      const again = await list(await open())
      expect(again.status).toBe(200)
      await again.text()
    } finally {
      proc.kill('SIGTERM')
      expect(await proc.exited).toBe(0)
    }
  }, 30_000)

  test('over HTTP on 127.0.0.1, a request naming another host (DNS rebinding) or from a web page elsewhere is refused', async () => {
    const proc = Bun.spawn([process.execPath, 'cli/bin/growth.ts', 'mcp', '--http', '0'], { cwd: ROOT, env: await envFor(demo.tokens.live), stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' })
    const err = readAll(proc.stderr)
    try {
      const url = await err.waitFor(/at (http:\/\/127\.0\.0\.1:\d+\/mcp)/, proc)
      const secret = await err.waitFor(SECRET_LINE, proc)
      const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }
      const post = (headers: Record<string, string>) =>
        fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${secret}`, ...headers }, body: JSON.stringify(init) })
      const rebound = await post({ host: `attacker.example:${new URL(url).port}` })
      expect(rebound.status).toBe(403)
      expect((await rebound.json()).error.message).toContain('is not this machine')
      const page = await post({ origin: 'https://attacker.example' })
      expect(page.status).toBe(403)
      const sandboxed = await post({ origin: 'null' })
      expect(sandboxed.status).toBe(403)
      const local = await post({ origin: 'http://localhost:5173' })
      expect(local.status).toBe(200)
      expect(local.headers.get('mcp-session-id')).toBeTruthy()
    } finally {
      proc.kill('SIGTERM')
      expect(await proc.exited).toBe(0)
    }
  }, 30_000)
})
