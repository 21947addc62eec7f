import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createDemoWorkspace, type DemoWorkspace } from '../../server/src/demo/index.ts'
import { operations } from '../../server/src/http/operations.ts'
import { exampleRequest } from '../../scripts/example-requests.ts'
import { getHarness } from '../harness.ts'
import { ROOT, type ServerProcess, startServerProcess } from '../support/server-process.ts'

/**
 * The server's logs, read from a real server process started as npm start starts it, its stdout a
 * pipe (so JSON lines, CONTRACT: Observability): one line per request with the contract's fields,
 * and, after every operation of the API, refusals and failed authentications among them, not one
 * token, credential, email address, fact value or body of the run anywhere in what it printed.
 * On PostgreSQL the process serves the test database with a demo workspace made here; embedded, it
 * seeds its own demo, and its start banner is a log entry too, naming the file with the demo's
 * credentials (server/src/start-banner.ts): the scan reads everything it printed.
 */
const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g
/** What no route answered: its line names the path, which its message cannot. */
const UNROUTED = ['unknown_route', 'method_not_allowed']

let server: ServerProcess
/** The server's own address (its banner names the API's, /api/v1). */
let root: string
let demo: DemoWorkspace
let dataDir: string
/** Every answer of the run: its request id, operation, status and error code. */
const answers: { requestId: string; operation: string; status: number; code: string | null }[] = []
/** Everything secret or personal the run sent or received: none of it may be logged. */
const secrets = new Set<string>()
/** A token that is none, sent where a token goes and where none does. */
let forged: string

async function send(operation: string, path: string, init: RequestInit) {
  const res = await fetch(`${root}${path}`, init)
  const text = await res.text()
  for (const m of text.matchAll(EMAIL)) secrets.add(m[0])
  for (const m of String(init.body ?? '').matchAll(EMAIL)) secrets.add(m[0])
  const code = res.status >= 400 ? (JSON.parse(text).error.code as string) : null
  answers.push({ requestId: res.headers.get('x-request-id')!, operation, status: res.status, code })
  return res
}

/** The JSON lines the server printed after its banner. */
function logLines(): Record<string, unknown>[] {
  return server
    .stdout()
    .slice(server.out.length)
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l))
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'growth-log-lines-'))
  const env = { LOG_LEVEL: 'info', LOG_FORMAT: undefined, WEBHOOK_WORKERS: '0', DATA_DIR: dataDir }
  if (process.env.DATABASE_URL) {
    demo = await createDemoWorkspace((await getHarness()).sql)
    server = await startServerProcess({ ...env, DATABASE_URL: process.env.DATABASE_URL })
  } else {
    server = await startServerProcess({ ...env, DATABASE_URL: undefined })
    demo = JSON.parse(readFileSync(join(dataDir, 'demo.json'), 'utf8'))
  }
  root = server.base.replace(/\/api\/v1$/, '')
  for (const t of [demo.tokens.live, demo.tokens.test, ...demo.agents.map((a) => a.credential)]) secrets.add(t)

  // Every operation's documented example, on the demo's credentials.
  const context = { demo, base: root }
  for (const op of operations) {
    const req = await exampleRequest(op, context)
    await send(op.operationId, `/api/v1${req.path}`, req.init)
  }
  // Refusals that carry what must not be logged: a token that is none, an address, a fact's value, a key.
  forged = `svc_live_${crypto.randomUUID().replaceAll('-', '')}`
  const address = `log.scan.${Date.now()}@example.org`
  const factValue = `fact-value-${crypto.randomUUID()}`
  const key = `idem-${crypto.randomUUID()}`
  for (const s of [forged, address, factValue]) secrets.add(s)
  const json = (token: string, body: unknown, headers: Record<string, string> = {}) => ({
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  })
  await send('listMissions', '/api/v1/missions', { headers: { Authorization: `Bearer ${forged}` } })
  await send('trackEvent', '/api/v1/track', json(demo.tokens.live, { event: 'checkout.abandoned', email: address }, { 'Idempotency-Key': key }))
  await send('importContacts', '/api/v1/contacts', json(demo.tokens.live, { contacts: [{ email: address, colour: factValue }] }))
  await send('authorizeAgentAction', '/api/v1/agent/authorize', json(demo.agents[0]!.credential, { tool: 'ads', action: 'pause_campaign', resource: demo.fixtures.campaignId, facts: { spend: factValue } }))
  await send('createExperiment', '/api/v1/experiments', json(demo.tokens.test, { hypothesis: factValue }))
  await send('unknown_route', `/api/v1/nowhere?token=${forged}&email=${encodeURIComponent(address)}`, { headers: { Authorization: `Bearer ${demo.tokens.live}` } })
  // A token and an address pasted into the path of no endpoint.
  await send('unknown_route', `/api/v1/contacts/${encodeURIComponent(address)}/${forged}?limit=5`, { headers: { Authorization: `Bearer ${demo.tokens.live}` } })
  await send('method_not_allowed', '/api/v1/missions?limit=2', { method: 'DELETE', headers: { Authorization: `Bearer ${demo.tokens.live}` } })
  await send('listMissions', '/api/v1/missions', { headers: { Authorization: `Bearer ${demo.tokens.live}`, 'X-Secret': factValue } })
  // Every answer's line is out before the answer: wait for the last of them to be read.
  const last = answers.at(-1)!.requestId
  const deadline = Date.now() + 10_000
  while (!server.stdout().includes(last) && Date.now() < deadline) await Bun.sleep(20)
}, 180_000)

afterAll(async () => {
  server?.proc.kill('SIGKILL')
  await server?.proc.exited
  rmSync(dataDir, { recursive: true, force: true })
})

describe('the server log', () => {
  test('one JSON line per request, with the fields of the contract', () => {
    const lines = logLines()
    const byRequest = new Map(lines.filter((l) => typeof l.requestId === 'string' && 'durationMs' in l).map((l) => [l.requestId as string, l]))
    expect(answers.length).toBeGreaterThan(operations.length)
    for (const a of answers) {
      const line = byRequest.get(a.requestId)
      expect(line, `no log line for ${a.operation} ${a.status} ${a.requestId}`).toBeDefined()
      // A request no route answered also names the path it asked for (the message cannot).
      const unrouted = UNROUTED.includes(a.operation) ? ['path'] : []
      expect(Object.keys(line!).sort()).toEqual(['code', 'credentialId', 'durationMs', 'level', 'msg', 'operation', 'requestId', 'status', 'time', 'traceId', 'workspaceId', ...unrouted].sort())
      const { time: _t, durationMs: _d, msg: _m, credentialId: _c, workspaceId: _w, path: _p, ...rest } = line!
      expect(rest).toEqual({ level: a.status >= 500 ? 'error' : 'info', requestId: a.requestId, traceId: null, operation: a.operation, status: a.status, code: a.code })
      expect(Date.now() - Date.parse(line!.time as string)).toBeLessThan(180_000)
      expect(line!.durationMs).toBeGreaterThanOrEqual(0)
      expect(line!.msg).toMatch(/^(GET|POST|DELETE) \S+ \d{3}$/)
      // A call to no endpoint sent the demo's token: it is that credential's call (pipeline.ts noRoute).
      const anonymous = a.status === 401 || operations.find((o) => o.operationId === a.operation)?.auth.kind === 'public'
      if (anonymous) {
        expect([line!.workspaceId, line!.credentialId]).toEqual([null, null])
      } else {
        expect(line!.workspaceId).toBe(demo.workspace.id)
        expect(line!.credentialId).toMatch(/^cred_/)
      }
    }
  })

  test('a request to no endpoint (or not with its method): its line names the path, without the query string, a token of ours as its last four, an address as [email]', () => {
    const paths = logLines()
      .filter((l) => UNROUTED.includes(l.operation as string))
      .map((l) => [l.msg, l.path])
    expect(paths).toEqual([
      ['GET unknown_route 404', '/api/v1/nowhere'],
      ['GET unknown_route 404', `/api/v1/contacts/[email]/svc_live_…${forged.slice(-4)}`],
      ['DELETE method_not_allowed 405', '/api/v1/missions'],
    ])
  })

  test('holds no token, credential, email address, fact value or body of the run', () => {
    const printed = `${server.stdout()}\n${server.stderr()}`
    expect(secrets.size).toBeGreaterThan(10)
    // The contacts' addresses the answers held are among them (customers, contacts, events).
    expect([...secrets].filter((s) => s.includes('@')).length).toBeGreaterThan(3)
    const found = [...secrets].filter((s) => printed.includes(s))
    expect(found).toEqual([])
    // And no body: nothing the requests sent beyond their ids is there.
    expect(printed).not.toContain('checkout.abandoned')
    expect(printed).not.toContain('X-Secret')
  })
})

test('LOG_FORMAT=pretty: readable lines, one per entry, not JSON', async () => {
  const script = "import { createLogger } from './server/src/core/log.ts'; createLogger('info', { to: 'stdout', format: 'pretty' }).info('GET /api/v1/missions 200', { requestId: 'req_1', status: 200 })"
  const proc = Bun.spawn([process.execPath, '-e', script], { cwd: ROOT, stdout: 'pipe', stderr: 'pipe' })
  const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited])
  expect(code).toBe(0)
  const lines = out.trim().split('\n')
  expect(lines).toHaveLength(1)
  expect(lines[0]).toMatch(/^\[\d{2}:\d{2}:\d{2}\.\d{3}\] INFO: GET \/api\/v1\/missions 200 \{"requestId":"req_1","status":200\}$/)
})
