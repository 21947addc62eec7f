import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { agentIn } from '../agent-helpers.ts'
import { CLI_TIMEOUT, expectRefused, growthIn } from '../cli/run.ts'
import { call, getHarness, makeWorkspace, type Workspace } from '../harness.ts'
import { startFaultProxy } from '../sdk/support/fault-proxy.ts'
import { type Connected, startGuard, tempDir, textOf, upstreamCalls } from './support/guard.ts'

/**
 * growth mcp guard, black-box: an MCP client (the official SDK's, over stdio) starts the guard, which
 * starts the test's upstream MCP server (test/mcp/support/upstream.ts, which writes down every call it
 * receives). What the gateway decided and what was reported are read back through the API.
 */
let ws: Workspace
let base: string

type Request = { authorizationId: string; decision: string; resource: string | null; summary: string | null; approvalId: string | null; decidedBy?: { kind: string; name: string } | null; result: { status: string; summary: string | null; error: string | null } | null }

async function requestsOf(agentId: string): Promise<Request[]> {
  const r = await call('GET', `/api/v1/agents/requests?agentId=${agentId}&limit=100`, { token: ws.live })
  expect(r.status).toBe(200)
  return r.body.data
}

/** Polls until `find` returns something (reports are sent after the answer, so they land a moment later). */
async function eventually<T>(what: string, find: () => Promise<T | undefined>, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms
  for (;;) {
    const found = await find()
    if (found !== undefined) return found
    if (Date.now() > deadline) throw new Error(`no ${what} within ${ms} ms`)
    await Bun.sleep(100)
  }
}

const meta = (result: unknown) => (result as { _meta?: Record<string, any> })._meta?.['growth-service/guard']

beforeAll(async () => {
  const h = await getHarness()
  base = `${h.url}/api/v1`
  ws = await makeWorkspace()
}, 120_000) // the first test file of a process starts the shared server and its database

describe('growth mcp guard in front of an MCP server', () => {
  let mailer: { id: string; credential: string }
  let guard: Connected
  const logFile = join(tempDir('growth-guard-upstream-'), 'calls.jsonl')

  beforeAll(async () => {
    // May send campaigns unattended (high risk), to at most 5 people at a time.
    mailer = await agentIn(ws.id, { name: 'Mailer', allow: 'email.send_campaign', maxUnattendedRisk: 'high', ceilings: { amounts: [], recipients: 5 } })
    guard = await startGuard({ credential: mailer.credential, baseUrl: base, logFile })
  }, CLI_TIMEOUT)
  afterAll(async () => {
    await guard?.close()
  })

  test('lists the upstream tools unchanged, and says at start which are guarded as what and which are refused', async () => {
    const { tools } = await guard.client.listTools()
    expect(tools.map((t) => t.name)).toEqual(['send_email', 'bounce', 'slow_email', 'delete_contacts', 'create_issue'])
    expect(tools[0]!.inputSchema).toMatchObject({ type: 'object', required: ['to', 'subject'] })
    expect(guard.client.getInstructions()).toBe('A test mail server.')
    expect(guard.stderr()).toContain('guarding ')
    expect(guard.stderr()).toContain('send_email as email.send_campaign, bounce as email.send_campaign')
    expect(guard.stderr()).toMatch(/refusing delete_contacts, create_issue: not mapped in \S+guard\.json, so never passed through/)
  })

  test('an allowed call reaches the upstream once, its answer comes back unchanged, and it is reported completed', async () => {
    const before = upstreamCalls(logFile).length
    const result = await guard.client.callTool({ name: 'send_email', arguments: { to: ['a@example.com', 'b@example.com'], subject: 'Winter sale' } })
    expect(result.isError).toBeFalsy()
    expect(textOf(result)).toBe('Sent "Winter sale" to 2 recipient(s).')
    expect(upstreamCalls(logFile).slice(before)).toEqual([{ name: 'send_email', args: { to: ['a@example.com', 'b@example.com'], subject: 'Winter sale' } }])
    const request = await eventually('the completed report', async () => (await requestsOf(mailer.id)).find((r) => r.resource === 'Winter sale' && r.result))
    expect(request).toMatchObject({ decision: 'allowed', summary: 'send_email through growth mcp guard on Winter sale', result: { status: 'completed', summary: 'Sent "Winter sale" to 2 recipient(s).' } })
  })

  test('a denied call never reaches the upstream; the client gets the reason and the check that failed', async () => {
    const before = upstreamCalls(logFile).length
    const to = Array.from({ length: 6 }, (_, i) => `p${i}@example.com`)
    const result = await guard.client.callTool({ name: 'send_email', arguments: { to, subject: 'Too many' } })
    expect(result.isError).toBe(true)
    expect(textOf(result)).toMatch(/^The agent gateway denied send_email; it was not run\. Denied/)
    expect(textOf(result)).toContain('- limits: ')
    const { decision, authorizationId } = meta(result)
    expect(`${decision} ${authorizationId}`).toMatch(/^denied auth_/)
    expect(upstreamCalls(logFile).length).toBe(before)
    const requests = await requestsOf(mailer.id)
    expect(requests.find((r) => r.authorizationId === authorizationId)).toMatchObject({ decision: 'denied', resource: 'Too many', result: null })
  })

  test('a tool the config does not map is refused and never reaches the upstream, nor the gateway', async () => {
    const before = upstreamCalls(logFile).length
    const asked = (await requestsOf(mailer.id)).length
    const result = await guard.client.callTool({ name: 'delete_contacts', arguments: {} })
    expect(result.isError).toBe(true)
    expect(textOf(result)).toMatch(/^The tool delete_contacts is not mapped in the guard's configuration, so it is refused/)
    expect(meta(result)).toEqual({ decision: 'unmapped' })
    expect(upstreamCalls(logFile).length).toBe(before)
    expect((await requestsOf(mailer.id)).length).toBe(asked)
  })

  test('an argument a fact is read from is missing: refused, named, not run', async () => {
    const before = upstreamCalls(logFile).length
    const result = await guard.client.callTool({ name: 'send_email', arguments: { subject: 'No recipients' } })
    expect(result.isError).toBe(true)
    expect(textOf(result)).toBe("The guard cannot ask the gateway about send_email: the fact recipients is read from $.to.length, and the call's arguments have nothing there.")
    expect(upstreamCalls(logFile).length).toBe(before)
  })

  test('a resource path that finds an object, not a name: refused, named, not run', async () => {
    const own = join(tempDir('growth-guard-upstream-'), 'calls.jsonl')
    const config = { tools: { send_email: { tool: 'email', action: 'send_campaign', resource: '$.to', facts: { recipients: '$.to.length' } } } }
    const g = await startGuard({ credential: mailer.credential, baseUrl: base, logFile: own, config })
    try {
      const result = await g.client.callTool({ name: 'send_email', arguments: { to: ['x@example.com'], subject: 'List as resource' } })
      expect(result.isError).toBe(true)
      expect(textOf(result)).toBe("The guard cannot ask the gateway about send_email: the resource is read from $.to, and the call's arguments hold a list there, not a name.")
      expect(upstreamCalls(own)).toEqual([])
    } finally {
      await g.close()
    }
  })

  test('an upstream failure comes back to the client as the upstream said it, and is reported failed with its error', async () => {
    const result = await guard.client.callTool({ name: 'bounce', arguments: { to: ['full@example.com'], subject: 'Bounced' } })
    expect(result.isError).toBe(true)
    expect(textOf(result)).toBe('Mail server refused the message: mailbox of full@example.com is full.')
    expect(upstreamCalls(logFile).at(-1)).toEqual({ name: 'bounce', args: { to: ['full@example.com'], subject: 'Bounced' } })
    const request = await eventually('the failed report', async () => (await requestsOf(mailer.id)).find((r) => r.resource === 'Bounced' && r.result))
    expect(request).toMatchObject({ decision: 'allowed', result: { status: 'failed', error: 'Mail server refused the message: mailbox of full@example.com is full.' } })
  })

  test('a call the client cancels is cancelled upstream too, and reported cancelled', async () => {
    const controller = new AbortController()
    const call = guard.client.callTool({ name: 'slow_email', arguments: { to: ['s@example.com'], subject: 'Cancelled send' } }, undefined, { signal: controller.signal }).catch((e) => e)
    await eventually('the call upstream', async () => (upstreamCalls(logFile).some((c) => c.name === 'slow_email') ? true : undefined))
    controller.abort()
    expect(await call).toBeInstanceOf(Error)
    await eventually('the upstream told', async () => (upstreamCalls(logFile).some((c) => (c as { cancelled?: boolean }).cancelled === true) ? true : undefined))
    const request = await eventually('the cancelled report', async () => (await requestsOf(mailer.id)).find((r) => r.resource === 'Cancelled send' && r.result))
    expect(request).toMatchObject({ decision: 'allowed', result: { status: 'cancelled' } })
  })

  test('a call still running past --flush-timeout when the client has gone is cancelled, and reported so before the guard exits', async () => {
    const own = join(tempDir('growth-guard-upstream-'), 'calls.jsonl')
    const g = await startGuard({ credential: mailer.credential, baseUrl: base, logFile: own, flags: ['--flush-timeout', '1000'] })
    const call = g.client.callTool({ name: 'slow_email', arguments: { to: ['c@example.com'], subject: 'Cut off send' } }).catch((e) => e)
    await eventually('the call upstream', async () => (upstreamCalls(own).some((c) => c.name === 'slow_email') ? true : undefined))
    await g.close()
    await call
    const request = await eventually('the report of the cut-off call', async () => (await requestsOf(mailer.id)).find((r) => r.resource === 'Cut off send' && r.result))
    expect(request).toMatchObject({ decision: 'allowed', result: { status: 'cancelled' } })
  })

  test('a report the API does not take at once is tried again, with one Idempotency-Key, until it is recorded once', async () => {
    const { url } = await getHarness()
    const proxy = await startFaultProxy(url)
    const own = join(tempDir('growth-guard-upstream-'), 'calls.jsonl')
    const g = await startGuard({ credential: mailer.credential, baseUrl: `${proxy.url}/api/v1`, logFile: own })
    try {
      // The authorize passes; the report meets three 503s (the SDK's own attempts), then a lost answer
      // after the server recorded it, then passes: the guard's retry is answered from the first record.
      proxy.script([{ kind: 'pass' }, { kind: 'status', status: 503 }, { kind: 'status', status: 503 }, { kind: 'status', status: 503 }, { kind: 'drop', forward: true }])
      const result = await g.client.callTool({ name: 'send_email', arguments: { to: ['r@example.com'], subject: 'Retried report' } })
      expect(textOf(result)).toBe('Sent "Retried report" to 1 recipient(s).')
      const request = await eventually('the retried report', async () => (await requestsOf(mailer.id)).find((r) => r.resource === 'Retried report' && r.result))
      expect(request.result).toMatchObject({ status: 'completed' })
      const reports = await eventually('the answered retry', async () => {
        const seen = proxy.seen.filter((r) => r.path === '/api/v1/agent/result')
        return seen.length >= 5 && seen.at(-1)!.action === 'pass' ? seen : undefined
      })
      expect(reports.map((r) => r.action)).toEqual(['status', 'status', 'status', 'drop', 'pass'])
      expect(new Set(reports.map((r) => r.idempotencyKey)).size).toBe(1)
      expect(g.stderr()).not.toContain('could not be recorded')
    } finally {
      await g.close()
      await proxy.stop()
    }
  }, CLI_TIMEOUT)

  test('a report still on its way when the client goes is sent before the guard exits', async () => {
    const { url } = await getHarness()
    const proxy = await startFaultProxy(url)
    const own = join(tempDir('growth-guard-upstream-'), 'calls.jsonl')
    const g = await startGuard({ credential: mailer.credential, baseUrl: `${proxy.url}/api/v1`, logFile: own })
    try {
      // The report is held for 1.5 s on its way: the client has long closed the guard's stdin by then.
      proxy.script([{ kind: 'pass' }, { kind: 'delay', ms: 1500 }])
      const result = await g.client.callTool({ name: 'send_email', arguments: { to: ['c@example.com'], subject: 'Last words' } })
      expect(result.isError).toBeFalsy()
      expect((await requestsOf(mailer.id)).find((r) => r.resource === 'Last words')!.result).toBeNull()
      await g.close() // closes the guard's stdin, and waits for the process to end
      // Recorded by the time the guard has exited: nothing to wait for.
      expect((await requestsOf(mailer.id)).find((r) => r.resource === 'Last words')!.result).toMatchObject({ status: 'completed' })
    } finally {
      await proxy.stop()
    }
  }, CLI_TIMEOUT)
})

describe('a call that needs a person', () => {
  let cautious: { id: string; credential: string }
  beforeAll(async () => {
    // High-risk sends wait for a person (maxUnattendedRisk medium, the default).
    cautious = await agentIn(ws.id, { name: 'Cautious mailer', allow: 'email.send_campaign' })
  })

  test('is answered at once with the approvalId and the reason, and not run', async () => {
    const logFile = join(tempDir('growth-guard-upstream-'), 'calls.jsonl')
    const g = await startGuard({ credential: cautious.credential, baseUrl: base, logFile })
    try {
      const result = await g.client.callTool({ name: 'send_email', arguments: { to: ['a@example.com'], subject: 'Needs a person' } })
      expect(result.isError).toBe(true)
      const { approvalId } = meta(result)
      expect(approvalId).toMatch(/^apr_/)
      expect(textOf(result)).toStartWith(`send_email was not run: a person must approve it first (approval ${approvalId}).`)
      // Who decides, where, and that the model must not: as request_permission of growth mcp says it.
      expect(textOf(result)).toContain("A person of the workspace decides it, in the console's inbox: do not try to decide it yourself.")
      expect(upstreamCalls(logFile)).toEqual([])
    } finally {
      await g.close()
    }
  }, CLI_TIMEOUT)

  test('with --wait-for-approval waits, and runs once when approved with growth admin approval approve; the approver\'s note follows the answer', async () => {
    const { dataDir } = await getHarness()
    const logFile = join(tempDir('growth-guard-upstream-'), 'calls.jsonl')
    const g = await startGuard({ credential: cautious.credential, baseUrl: base, logFile, flags: ['--wait-for-approval', '--approval-interval', '250'] })
    try {
      const pending = g.client.callTool({ name: 'send_email', arguments: { to: ['a@example.com'], subject: 'Approved send' } }, undefined, { timeout: 60_000 })
      const waiting = await eventually('the pending request', async () => (await requestsOf(cautious.id)).find((r) => r.resource === 'Approved send' && r.approvalId))
      expect(upstreamCalls(logFile)).toEqual([])
      const approved = await growthIn(dataDir)(['admin', 'approval', 'approve', waiting.approvalId!, '--by', 'Maya Chen', '--reason', 'Only to the test list.'])
      expect(`${approved.code} ${approved.stderr}`).toBe('0 ')
      const result = await pending
      expect(result.isError).toBeFalsy()
      // An operator's decision names their login, as the audit list does.
      const decided = (await requestsOf(cautious.id)).find((r) => r.approvalId === waiting.approvalId && r.decidedBy)!.decidedBy!
      expect(result.content).toEqual([
        { type: 'text', text: 'Sent "Approved send" to 1 recipient(s).' },
        { type: 'text', text: `${decided.name} (operator) approved this call (approval ${waiting.approvalId}) with the note "Only to the test list.".` },
      ])
      expect(upstreamCalls(logFile)).toEqual([{ name: 'send_email', args: { to: ['a@example.com'], subject: 'Approved send' } }])
      const ran = await eventually('the report', async () => (await requestsOf(cautious.id)).find((r) => r.resource === 'Approved send' && r.result))
      expect(ran).toMatchObject({ decision: 'allowed', approvalId: waiting.approvalId, result: { status: 'completed' } })
    } finally {
      await g.close()
    }
  }, 60_000)

  test("with --wait-for-approval: a rejection comes back as a tool error with who rejected it and their reason; an expiry says it expired", async () => {
    const { dataDir, sql } = await getHarness()
    const logFile = join(tempDir('growth-guard-upstream-'), 'calls.jsonl')
    const g = await startGuard({ credential: cautious.credential, baseUrl: base, logFile, flags: ['--wait-for-approval', '--approval-interval', '250'] })
    try {
      // Rejected by an operator with a reason: the model reads the reason and who gave it.
      const pending = g.client.callTool({ name: 'send_email', arguments: { to: ['a@example.com'], subject: 'Rejected send' } }, undefined, { timeout: 60_000 })
      const waiting = await eventually('the pending request', async () => (await requestsOf(cautious.id)).find((r) => r.resource === 'Rejected send' && r.approvalId))
      const reason = 'The list was not cleaned after the bounce storm; wait for Monday.'
      const rejected = await growthIn(dataDir)(['admin', 'approval', 'reject', waiting.approvalId!, '--reason', reason])
      expect(`${rejected.code} ${rejected.stderr}`).toBe('0 ')
      const result = await pending
      expect(result.isError).toBe(true)
      expect(textOf(result)).toEndWith(` rejected it (approval ${waiting.approvalId}). Their reason: ${JSON.stringify(reason)}. Do not make the same call again: it stays refused until the approval would have expired, 24 hours after it was asked. Tell the user, or ask for something else.`)
      expect(textOf(result)).toMatch(/^send_email was not run: \S+ \(operator\) rejected it/)
      expect(meta(result)).toMatchObject({ decision: 'denied', rejected: true, approvalId: waiting.approvalId, decisionReason: reason, decidedBy: { kind: 'operator' } })
      expect(upstreamCalls(logFile)).toEqual([])

      // Nobody decides, and the approval runs out: the model is told it expired and what waits now.
      const later = g.client.callTool({ name: 'send_email', arguments: { to: ['a@example.com'], subject: 'Expiring send' } }, undefined, { timeout: 60_000 })
      const first = await eventually('the pending request', async () => (await requestsOf(cautious.id)).find((r) => r.resource === 'Expiring send' && r.approvalId))
      // An approval is valid for a fixed 24 hours: its expiry is moved into the past, as 24 hours would.
      await sql`UPDATE approvals SET expires_at = now() - interval '1 minute' WHERE workspace_id = ${ws.id} AND id = ${first.approvalId}`
      const expired = await later
      expect(expired.isError).toBe(true)
      const next = meta(expired).approvalId
      expect(next).not.toBe(first.approvalId)
      expect(textOf(expired)).toBe(`send_email was not run: Approval ${first.approvalId} expired with nobody deciding it; the request now waits on approval ${next}. Ask again to keep waiting for a person.`)
      expect(meta(expired)).toMatchObject({ expired: true, timedOut: false, expiredApprovalId: first.approvalId })
      expect(upstreamCalls(logFile)).toEqual([])
    } finally {
      await g.close()
    }
  }, 60_000)
})

describe('a mapping the agent may not use', () => {
  test('is named at start with what the agent may do: every call of it would be denied', async () => {
    const agent = await agentIn(ws.id, { name: 'Pauser', allow: 'ads.pause_campaign' })
    const config = { tools: { send_email: { tool: 'email', action: 'send_campaign', facts: { recipients: '$.to.length' } }, bounce: { tool: 'ads', action: 'pause_campaign' } } }
    const guard = await startGuard({ credential: agent.credential, baseUrl: base, logFile: join(tempDir('growth-guard-unpermitted-'), 'calls.jsonl'), config })
    try {
      await guard.client.listTools()
      expect(guard.stderr()).toMatch(/growth mcp guard: \S+guard\.json maps send_email to email\.send_campaign, which Pauser is not permitted \(it may ads\.pause_campaign\): the gateway denies every such call until an owner permits it\n/)
      expect(guard.stderr()).not.toContain('bounce to ads.pause_campaign')
    } finally {
      await guard.close()
    }
  }, CLI_TIMEOUT)
})

describe('a fact the gateway refuses', () => {
  test("is tied to the call's argument it was read from, so the model knows what to change; not run", async () => {
    const agent = await agentIn(ws.id, { name: 'Counter', allow: 'email.send_campaign', maxUnattendedRisk: 'high', ceilings: { amounts: [], recipients: 5 } })
    const logFile = join(tempDir('growth-guard-bad-fact-'), 'calls.jsonl')
    const config = { tools: { send_email: { tool: 'email', action: 'send_campaign', facts: { recipients: '$.subject' } } } }
    const guard = await startGuard({ credential: agent.credential, baseUrl: base, logFile, config })
    try {
      const result = await guard.client.callTool({ name: 'send_email', arguments: { to: ['a@example.com'], subject: 'many' } })
      expect(result.isError).toBe(true)
      expect(textOf(result)).toMatch(/^The agent gateway refused the request \(400 invalid_request\): facts\.recipients must be [^.]+ \(request req_\w+\)\. The guard reads facts\.recipients from the call's argument \$\.subject\. send_email was not run\.$/)
      expect(upstreamCalls(logFile)).toEqual([])
    } finally {
      await guard.close()
    }
  }, CLI_TIMEOUT)
})

describe('refused at start', () => {
  const run = (args: string[], env: Record<string, string> = {}) => growthIn(tempDir('growth-guard-data-'))(['mcp', 'guard', ...args], { GROWTH_CONFIG_DIR: tempDir('growth-guard-profiles-'), ...env })
  const configWith = (config: unknown) => {
    const file = join(tempDir('growth-guard-config-'), 'guard.json')
    Bun.write(file, JSON.stringify(config))
    return file
  }

  test('no --config: a usage error, exit 1', async () => {
    const r = await run(['--', 'true'])
    expect(r.code).toBe(1)
    expect(r.stdout).toBe('')
    expect(r.stderr).toContain("error: required option '--config <file>' not specified")
  }, CLI_TIMEOUT)

  test('a bad config names the field', async () => {
    const fact = configWith({ tools: { send_email: { tool: 'email', action: 'send_campaign', facts: { recipients: '$.to..length' } } } })
    expectRefused(await run(['--config', fact, '--', 'true']), /tools\.send_email\.facts\.recipients: must be a path such as \$\.to\.length/)
    const unknownFact = configWith({ tools: { send_email: { tool: 'email', action: 'send_campaign', facts: { people: '$.to.length' } } } })
    expectRefused(await run(['--config', unknownFact, '--', 'true']), /unknown field people in tools\.send_email\.facts \(facts are amountMinor, currency/)
    // A fact given as a value is what the gateway takes for it, checked at start, not on every call.
    const textCount = configWith({ tools: { send_email: { tool: 'email', action: 'send_campaign', facts: { recipients: '5' } } } })
    expectRefused(await run(['--config', textCount, '--', 'true']), /tools\.send_email\.facts\.recipients: must be a path such as \$\.to\.length, or an integer >= 0/)
    const yes = configWith({ tools: { send_email: { tool: 'email', action: 'send_campaign', facts: { increase: 'yes' } } } })
    expectRefused(await run(['--config', yes, '--', 'true']), /tools\.send_email\.facts\.increase: must be a path such as \$\.to\.length, or true or false/)
    // The currencies are the gateway's own (from the OpenAPI document), not any three capitals.
    const madeUp = configWith({ tools: { refund: { tool: 'billing', action: 'refund', facts: { amountMinor: '$.amount', currency: 'XYZ' } } } })
    expectRefused(await run(['--config', madeUp, '--', 'true']), /tools\.refund\.facts\.currency: must be a path such as \$\.to\.length, or ISO 4217 code in capitals, e\.g\. USD \(one of the \d+ the gateway takes\)/)
    const noAction = configWith({ tools: { send_email: { tool: 'email' } } })
    expectRefused(await run(['--config', noAction, '--', 'true']), /tools\.send_email\.action: /)
    // A misspelt key is named as such, with the one meant, not only as the key it left missing.
    const misspelt = configWith({ tools: { send_email: { tool: 'email', acton: 'send_campaign' } } })
    const typo = await run(['--config', misspelt, '--', 'true'])
    expectRefused(typo, /tools\.send_email\.action: is required; unknown field acton in tools\.send_email, did you mean action\? \(fields are tool, action, resource, summary, facts\)/)
    expectRefused(await run(['--config', configWith({ tools: { send_email: { tool: 'email', action: 'send_campaign', facts: { recipient: '$.to.length' } } } }), '--', 'true']), /unknown field recipient in tools\.send_email\.facts, did you mean recipients\? \(facts are amountMinor, /)
    expectRefused(await run(['--config', '/nonexistent/guard.json', '--', 'true']), /cannot read --config \/nonexistent\/guard\.json/)
  }, CLI_TIMEOUT)

  test('a workspace token is refused: the guard acts as an agent', async () => {
    const file = configWith({ tools: {} })
    expectRefused(await run(['--config', file, '--', 'true'], { GROWTH_TOKEN: ws.live, GROWTH_BASE_URL: base }), /give it an agent credential \(svc_agt_/)
  }, CLI_TIMEOUT)
})
