import { beforeAll, describe, expect, test } from 'bun:test'
import { Agent, RunContext, tool as agentsTool } from '@openai/agents'
import { tool as aiTool } from 'ai'
import { z } from 'zod'
import { Growth } from '../../sdk/src/index.ts'
import { AgentDeniedError, ApprovalRequiredError, guarded } from '../../sdk/src/tools/index.ts'
import { guardTool } from '../../sdk/src/tools/ai.ts'
import { guardedTool } from '../../sdk/src/tools/openai-agents.ts'
import { agentIn } from '../agent-helpers.ts'
import { call, getHarness, makeWorkspace, type Workspace } from '../harness.ts'
import { PACK_TIMEOUT, packedSdk, RUNTIMES, runScript, scriptInProject } from './support/pack.ts'

/**
 * @growth-service/sdk/tools: guarded() and the adapters for the AI SDK and the OpenAI Agents SDK,
 * each wrapped tool executed directly (no language model) against the real test server; then the
 * packed subpath under Node.js, Bun and Deno. What the gateway decided and what was reported are
 * read back through GET /agents/requests.
 */
let ws: Workspace
let base: string

type Request = { authorizationId: string; decision: string; reason: string; resource: string | null; facts: Record<string, unknown>; result: { status: string; summary: string | null; error: string | null } | null }

async function requestsOf(agentId: string): Promise<Request[]> {
  const r = await call('GET', `/api/v1/agents/requests?agentId=${agentId}&limit=100`, { token: ws.live })
  expect(r.status).toBe(200)
  return r.body.data
}
const byResource = async (agentId: string, resource: string) => (await requestsOf(agentId)).filter((r) => r.resource === resource)

beforeAll(async () => {
  base = `${(await getHarness()).url}/api/v1`
  ws = await makeWorkspace()
}, 120_000)

describe('guarded(fn, spec)', () => {
  test('allowed: runs fn with its own arguments and this, returns its value, reports completed with it', async () => {
    const client = new Growth({ token: ws.agent.credential, baseUrl: base })
    const seen: unknown[] = []
    const pauser = {
      platform: 'Meta',
      pause(campaignId: string, reason: string) {
        seen.push([this.platform, campaignId, reason])
        return { paused: campaignId }
      },
    }
    pauser.pause = guarded(pauser.pause, { client, tool: 'ads', action: 'pause_campaign', resource: (id) => id }) as never
    expect(await pauser.pause('cmp_guarded', 'overspend')).toEqual({ paused: 'cmp_guarded' })
    expect(seen).toEqual([['Meta', 'cmp_guarded', 'overspend']])
    const [request] = await byResource(ws.agent.id, 'cmp_guarded')
    expect(request).toMatchObject({ decision: 'allowed', result: { status: 'completed', summary: '{"paused":"cmp_guarded"}' } })
  })

  test('a summary or resource of several lines is sent as one line, which the API takes', async () => {
    const client = new Growth({ token: ws.agent.credential, baseUrl: base })
    const pause = guarded((_id: string) => 'paused', { client, tool: 'ads', action: 'pause_campaign', resource: (id) => id })
    expect(await pause('cmp_two\nlines')).toBe('paused')
    const [request] = (await byResource(ws.agent.id, 'cmp_two\nlines')) as (Request & { summary: string })[]
    expect(request).toMatchObject({ decision: 'allowed', summary: 'ads.pause_campaign on cmp_two lines', result: { status: 'completed' } })
    const told = guarded((_id: string) => 'paused', { client, tool: 'ads', action: 'pause_campaign', resource: (id) => id, summary: 'Pause\r\nthe tired ad\u001b[2K' })
    expect(await told('cmp_told')).toBe('paused')
    expect(((await byResource(ws.agent.id, 'cmp_told')) as (Request & { summary: string })[])[0]).toMatchObject({ decision: 'allowed', summary: 'Pause the tired ad [2K' })
  })

  test('fn throws: the error is rethrown as it was, and reported failed with its message', async () => {
    const client = new Growth({ token: ws.agent.credential, baseUrl: base })
    const failing = guarded(async (_id: string) => {
      throw new RangeError('Ad platform answered 503')
    }, { client, tool: 'ads', action: 'pause_campaign', resource: (id) => id })
    const thrown = await failing('cmp_failing').catch((e) => e)
    expect(thrown).toBeInstanceOf(RangeError)
    expect(thrown.message).toBe('Ad platform answered 503')
    const [request] = await byResource(ws.agent.id, 'cmp_failing')
    expect(request).toMatchObject({ decision: 'allowed', result: { status: 'failed', error: 'RangeError: Ad platform answered 503' } })
  })

  test('denied: fn never runs; AgentDeniedError carries the reason and the checks', async () => {
    const client = new Growth({ token: ws.agent.credential, baseUrl: base })
    let runs = 0
    const send = guarded((to: string[]) => ++runs, { client, tool: 'email', action: 'send_campaign', resource: 'newsletter', facts: (to) => ({ recipients: to.length }) })
    const thrown = await send(['a@example.com']).catch((e) => e)
    expect(thrown).toBeInstanceOf(AgentDeniedError)
    expect(thrown.checks.find((c: { name: string }) => c.name === 'permission').passed).toBe(false)
    expect(runs).toBe(0)
    const [request] = await byResource(ws.agent.id, 'newsletter')
    expect(request).toMatchObject({ decision: 'denied', facts: { recipients: 1 }, result: null })
    expect(thrown.reason).toBe(request!.reason)
    expect(thrown.message).toBe(request!.reason)
  })

  test('requires approval: ApprovalRequiredError with the approvalId, fn not run', async () => {
    const agent = await agentIn(ws.id, { name: 'Careful sender', allow: 'email.send_campaign' })
    const client = new Growth({ token: agent.credential, baseUrl: base })
    let runs = 0
    const send = guarded((_to: string[]) => ++runs, { client, tool: 'email', action: 'send_campaign', resource: 'careful', facts: (to) => ({ recipients: to.length }) })
    const thrown = await send(['a@example.com']).catch((e) => e)
    expect(thrown).toBeInstanceOf(ApprovalRequiredError)
    expect(thrown.approvalId).toMatch(/^apr_/)
    expect(runs).toBe(0)
  })

  test('a spec without tool or action is refused when the tool is made, not when it is called', () => {
    expect(() => guarded(() => 1, { tool: 'ads' } as never)).toThrow('spec.tool and spec.action are required strings')
  })
})

describe('AI SDK: guardTool(tool({...}), spec)', () => {
  const sent: string[][] = []
  const definition = () =>
    aiTool({
      description: 'Send an e-mail',
      inputSchema: z.object({ to: z.array(z.string()), subject: z.string() }),
      execute: async ({ to, subject }) => {
        sent.push(to)
        return `Sent ${subject} to ${to.length}`
      },
    })

  test("execute is guarded: an allowed call runs and is reported, a denied one throws the gateway's reason and does not run", async () => {
    const mailer = await agentIn(ws.id, { name: 'AI SDK mailer', allow: 'email.send_campaign', maxUnattendedRisk: 'high', ceilings: { amounts: [], recipients: 2 } })
    const client = new Growth({ token: mailer.credential, baseUrl: base })
    const sendEmail = guardTool(definition(), { client, tool: 'email', action: 'send_campaign', resource: ({ subject }) => subject, facts: ({ to }) => ({ recipients: to.length }) })
    expect(sendEmail.description).toBe('Send an e-mail')
    const options = { toolCallId: 'call_1', messages: [], context: {} }
    expect(await sendEmail.execute!({ to: ['a@example.com'], subject: 'AI hello' }, options)).toBe('Sent AI hello to 1')
    const denied = await Promise.resolve(sendEmail.execute!({ to: ['a@x.com', 'b@x.com', 'c@x.com'], subject: 'AI too many' }, options)).catch((e) => e)
    expect(denied).toBeInstanceOf(AgentDeniedError)
    expect(denied.message).toContain('asked 3 recipients, ceiling 2 recipients')
    expect(sent).toEqual([['a@example.com']])
    expect((await byResource(mailer.id, 'AI hello'))[0]).toMatchObject({ decision: 'allowed', facts: { recipients: 1 }, result: { status: 'completed', summary: 'Sent AI hello to 1' } })
    expect((await byResource(mailer.id, 'AI too many'))[0]).toMatchObject({ decision: 'denied', result: null })
  })

  test('the call’s abortSignal aborts it: reported cancelled', async () => {
    const client = new Growth({ token: ws.agent.credential, baseUrl: base })
    const slow = guardTool(
      aiTool({ inputSchema: z.object({ id: z.string() }), execute: ({ id }, { abortSignal }) => new Promise<string>((_, reject) => abortSignal?.addEventListener('abort', () => reject(Object.assign(new Error(`stopped ${id}`), { name: 'AbortError' })))) }),
      { client, tool: 'ads', action: 'pause_campaign', resource: ({ id }) => id },
    )
    const controller = new AbortController()
    const running = Promise.resolve(slow.execute!({ id: 'cmp_aborted' }, { toolCallId: 'c', messages: [], abortSignal: controller.signal })).catch((e) => e)
    while (!(await byResource(ws.agent.id, 'cmp_aborted')).length) await Bun.sleep(20)
    controller.abort()
    expect((await running).name).toBe('AbortError')
    expect((await byResource(ws.agent.id, 'cmp_aborted'))[0]).toMatchObject({ decision: 'allowed', result: { status: 'cancelled' } })
  })
})

describe('AI SDK: a call waiting for a person', () => {
  test('throws ApprovalRequiredError whose message (what the AI SDK hands the model) says who decides, where, and that the model may not', async () => {
    const careful = await agentIn(ws.id, { name: 'AI SDK careful sender', allow: 'email.send_campaign' })
    const client = new Growth({ token: careful.credential, baseUrl: base })
    let runs = 0
    const sendEmail = guardTool(
      aiTool({ inputSchema: z.object({ to: z.array(z.string()) }), execute: async ({ to }) => (runs += to.length) }),
      { client, tool: 'email', action: 'send_campaign', resource: 'ai waiting', facts: ({ to }) => ({ recipients: to.length }) },
    )
    const thrown = await Promise.resolve(sendEmail.execute!({ to: ['a@example.com'] }, { toolCallId: 'call_w', messages: [] })).catch((e) => e)
    expect(thrown).toBeInstanceOf(ApprovalRequiredError)
    const [request] = await byResource(careful.id, 'ai waiting')
    const approvalId = (request as unknown as { approvalId: string }).approvalId
    expect(thrown.approvalId).toBe(approvalId)
    expect(thrown.message).toBe(
      `The tool was not run: a person must approve it first (approval ${approvalId}). ${request!.reason} A person of the workspace decides it, in the console's inbox: do not try to decide it yourself. Once it is approved, make the same call again and it runs once.`,
    )
    expect(thrown.message).not.toContain('waitForApproval')
    expect(runs).toBe(0)
  })
})

describe('OpenAI Agents SDK: guardedTool(tool, options, spec)', () => {
  test("invoke runs an allowed call and reports it; a denied call does not run, and the model is told the gateway's reason", async () => {
    const mailer = await agentIn(ws.id, { name: 'Agents SDK mailer', allow: 'email.send_campaign', maxUnattendedRisk: 'high', ceilings: { amounts: [], recipients: 2 } })
    const client = new Growth({ token: mailer.credential, baseUrl: base })
    const sent: string[][] = []
    const sendEmail = guardedTool(
      agentsTool,
      {
        name: 'send_email',
        description: 'Send an e-mail',
        parameters: z.object({ to: z.array(z.string()), subject: z.string() }),
        execute: async ({ to, subject }: { to: string[]; subject: string }) => {
          sent.push(to)
          return `Sent ${subject} to ${to.length}`
        },
      },
      { client, tool: 'email', action: 'send_campaign', resource: ({ subject }) => subject, facts: ({ to }) => ({ recipients: to.length }) },
    )
    expect(sendEmail.name).toBe('send_email')
    // An agent takes it as any function tool.
    expect(new Agent({ name: 'Mailer', tools: [sendEmail] }).tools.map((t) => t.name)).toEqual(['send_email'])
    const context = new RunContext()
    expect(await sendEmail.invoke(context, JSON.stringify({ to: ['a@example.com'], subject: 'Agents hello' }))).toBe('Sent Agents hello to 1')
    const refused = await sendEmail.invoke(context, JSON.stringify({ to: ['a@x.com', 'b@x.com', 'c@x.com'], subject: 'Agents too many' }))
    expect(String(refused)).toMatch(/^The tool was not run\. Denied: .*asked 3 recipients, ceiling 2 recipients/)
    expect(sent).toEqual([['a@example.com']])
    expect((await byResource(mailer.id, 'Agents hello'))[0]).toMatchObject({ decision: 'allowed', result: { status: 'completed', summary: 'Sent Agents hello to 1' } })
    expect((await byResource(mailer.id, 'Agents too many'))[0]).toMatchObject({ decision: 'denied', result: null })
  })
})

describe('OpenAI Agents SDK: a call waiting for a person', () => {
  test('the model is told the approval, the reason, that a person decides it in the console and that it may not; not the SDK option of waiting', async () => {
    const careful = await agentIn(ws.id, { name: 'Agents SDK careful sender', allow: 'email.send_campaign' })
    const client = new Growth({ token: careful.credential, baseUrl: base })
    let runs = 0
    const sendEmail = guardedTool(
      agentsTool,
      { name: 'send_email', description: 'Send an e-mail', parameters: z.object({ to: z.array(z.string()) }), execute: async ({ to }: { to: string[] }) => (runs += to.length) },
      { client, tool: 'email', action: 'send_campaign', resource: 'agents waiting', facts: ({ to }) => ({ recipients: to.length }) },
    )
    const told = String(await sendEmail.invoke(new RunContext(), JSON.stringify({ to: ['a@example.com'] })))
    const [request] = await byResource(careful.id, 'agents waiting')
    expect(request).toMatchObject({ decision: 'requires_approval', result: null })
    const approvalId = (request as unknown as { approvalId: string }).approvalId
    expect(approvalId).toMatch(/^apr_/)
    expect(told).toBe(
      `The tool was not run: a person must approve it first (approval ${approvalId}). ${request!.reason} A person of the workspace decides it, in the console's inbox: do not try to decide it yourself. Once it is approved, make the same call again and it runs once.`,
    )
    expect(told).not.toContain('waitForApproval')
    expect(runs).toBe(0)
  })
})

describe('OpenAI Agents SDK: the run’s signal', () => {
  test('details.signal aborts the call: reported cancelled, whatever error the aborted work throws', async () => {
    const client = new Growth({ token: ws.agent.credential, baseUrl: base })
    const slow = guardedTool(
      agentsTool,
      {
        name: 'slow_pause',
        description: 'Pause a campaign, slowly',
        parameters: z.object({ id: z.string() }),
        execute: ({ id }: { id: string }, _context?: unknown, details?: { signal?: AbortSignal }) =>
          // Aborted work often fails with an error of its own, not an AbortError: the signal says it was cancelled.
          new Promise<string>((_, reject) => details?.signal?.addEventListener('abort', () => reject(new Error(`connection closed while pausing ${id}`)))),
      },
      { client, tool: 'ads', action: 'pause_campaign', resource: ({ id }) => id },
    )
    const controller = new AbortController()
    const running = slow.invoke(new RunContext(), JSON.stringify({ id: 'cmp_agents_aborted' }), { signal: controller.signal }).catch((e) => e)
    while (!(await byResource(ws.agent.id, 'cmp_agents_aborted')).length) await Bun.sleep(20)
    controller.abort()
    await running
    expect((await byResource(ws.agent.id, 'cmp_agents_aborted'))[0]).toMatchObject({ decision: 'allowed', result: { status: 'cancelled' } })
  })
})

describe('the packed @growth-service/sdk/tools under each runtime', () => {
  let source = ''
  beforeAll(async () => {
    await packedSdk()
    source = await Bun.file(`${import.meta.dir}/runtime/tools.mjs`).text()
  }, PACK_TIMEOUT)

  for (const runtime of RUNTIMES) {
    test(
      `${runtime}: guarded() asks with GROWTH_TOKEN, runs and reports the allowed call, rethrows a failure, throws AgentDeniedError; the adapters' subpaths load without their frameworks`,
      async () => {
        const agent = await agentIn(ws.id, { name: `Runtime ${runtime}`, allow: 'ads.pause_campaign' })
        const script = await scriptInProject(`tools-${runtime}.mjs`, source)
        const run = await runScript(runtime, script, { GROWTH_TOKEN: agent.credential, GROWTH_BASE_URL: base })
        if (run.code !== 0) throw new Error(`${runtime} exited ${run.code}: ${run.stderr}`)
        const report = JSON.parse(run.stdout.trim().split('\n').at(-1)!)
        expect(report).toMatchObject({
          adapters: ['function', 'function'],
          allowed: 'Paused cmp_runtime',
          failed: 'Ad platform timed out pausing cmp_broken',
          denied: { name: 'AgentDeniedError', isAgentDenied: true },
          ran: ['pause cmp_runtime', 'broken cmp_broken'],
        })
        expect(report.denied.failedChecks).toContain('permission')
        const requests = await requestsOf(agent.id)
        expect(requests.find((r) => r.resource === 'cmp_runtime')).toMatchObject({ decision: 'allowed', result: { status: 'completed', summary: 'Paused cmp_runtime' } })
        expect(requests.find((r) => r.resource === 'cmp_broken')).toMatchObject({ decision: 'allowed', result: { status: 'failed', error: 'Error: Ad platform timed out pausing cmp_broken' } })
        expect(requests.find((r) => r.resource === 'Not permitted')).toMatchObject({ decision: 'denied', reason: report.denied.reason, facts: { recipients: 2 }, result: null })
      },
      PACK_TIMEOUT,
    )
  }
})
