import { beforeAll, describe, expect, test } from 'bun:test'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { agentIn, ruleIn } from '../agent-helpers.ts'
import { CLI_TIMEOUT, growthIn } from '../cli/run.ts'
import { call, getHarness, makeWorkspace, type Workspace } from '../harness.ts'
import { PACK_TIMEOUT, packedSdk, runScript, type Runtime, scriptInProject } from './support/pack.ts'

/**
 * `growth.agent.guard(request, fn, options)` black-box (CONTRACT: The SDK, agents): scripts import
 * the packed SDK and run under Node.js (Bun and Deno for a smoke case) against the test server; the
 * test reads what the guard did through the API (GET /agents/requests shows each decision and the
 * result reported against it) and decides approvals with the real `growth admin approval` command.
 */

/** Permitted to pause a campaign (low risk) and to send a campaign (high risk: a person decides). */
const AGENT = { allow: 'ads.pause_campaign,email.send_campaign', ceilings: { recipients: 20_000 } }
const PAUSE = { tool: 'ads', action: 'pause_campaign', resource: 'cmp_spring', summary: 'Pause the tired spring ad' }
/** Not among the agent's permissions (and using only data it may use, so permission alone fails). */
const RESUME = { tool: 'ads', action: 'resume_campaign', resource: 'cmp_spring' }
const SEND = { tool: 'email', action: 'send_campaign', resource: 'lst_news', summary: 'Send "Spring origins" to 3,200 subscribers', facts: { recipients: 3_200 }, params: { subject: 'Spring origins' } }

/** Small intervals so that waiting takes a second, not minutes (the defaults are 2 s growing to 30 s). */
const PACE = { intervalMs: 200, maxIntervalMs: 400 }
/** Set on every wait but the timeout case's own: a guard that never stops waiting fails, not hangs. */
const SAFETY = 15_000

/** What every scenario script starts with: the client from GROWTH_TOKEN and GROWTH_BASE_URL. */
const PRELUDE = `
import { AgentDeniedError, ApprovalExpiredError, ApprovalRejectedError, ApprovalRequiredError, Growth, GrowthError } from '@growth-service/sdk'
const growth = new Growth()
const print = (value) => console.log(JSON.stringify(value))
const described = (e) => e === null || typeof e !== 'object' ? { value: String(e) } : {
  name: e.name, message: e.message,
  growthError: e instanceof GrowthError, agentDenied: e instanceof AgentDeniedError, approvalRequired: e instanceof ApprovalRequiredError,
  approvalRejected: e instanceof ApprovalRejectedError, approvalExpired: e instanceof ApprovalExpiredError,
  authorizationId: e.authorizationId, approvalId: e.approvalId, reason: e.reason, checks: e.checks, rules: e.rules, expired: e.expired, timedOut: e.timedOut,
  decidedBy: e.decidedBy, decidedAt: e.decidedAt, decisionReason: e.decisionReason, gatewayReason: e.gatewayReason, expiredApprovalId: e.expiredApprovalId, requestId: e.requestId,
}
/** The last error attempt() caught, for a script to compare by identity. */
let lastError
/** One guarded call whose fn records each context it gets and returns something of its own. */
async function attempt(request, options) {
  const contexts = []
  const returned = { done: request.tool + '.' + request.action, ref: crypto.randomUUID() }
  const started = Date.now()
  try {
    const value = await growth.agent.guard(request, async (context) => {
      contexts.push({ keys: Object.keys(context).sort(), authorization: context.authorization, signal: context.signal instanceof AbortSignal, aborted: context.signal.aborted })
      await new Promise((resolve) => setTimeout(resolve, 5))
      return returned
    }, options)
    return { contexts, value, same: value === returned, elapsedMs: Date.now() - started }
  } catch (e) {
    lastError = e
    return { contexts, error: described(e), elapsedMs: Date.now() - started }
  }
}
`

const json = (value: unknown) => JSON.stringify(value)

let baseUrl: string
let dataDir: string
let growth: ReturnType<typeof growthIn>

beforeAll(async () => {
  const harness = await getHarness()
  baseUrl = `${harness.url}/api/v1`
  dataDir = harness.dataDir
  growth = growthIn(dataDir)
  await packedSdk()
}, PACK_TIMEOUT)

/** Writes the script into the packed project, runs it, and parses the one JSON line it prints last. */
async function scenario(name: string, body: string, credential: string, runtime: Runtime = 'node'): Promise<any> {
  const script = await scriptInProject(`guard-${name}-${runtime}.mjs`, PRELUDE + body)
  const run = await runScript(runtime, script, { GROWTH_TOKEN: credential, GROWTH_BASE_URL: baseUrl })
  if (run.code !== 0 || !run.stdout.trim()) throw new Error(`${name} under ${runtime} exited ${run.code}:\n${run.stderr}\n${run.stdout}`)
  return JSON.parse(run.stdout.trim().split('\n').at(-1)!)
}

async function setup() {
  const ws = await makeWorkspace()
  return { ws, agent: await agentIn(ws.id, AGENT) }
}

/** The agent's requests as the workspace reads them (GET /agents/requests), oldest first. */
async function requestsOf(ws: Workspace, agentId: string): Promise<any[]> {
  const r = await call('GET', `/api/v1/agents/requests?agentId=${agentId}&limit=100`, { token: ws.live })
  if (r.status !== 200) throw new Error(`GET /agents/requests: ${r.status} ${r.text}`)
  return [...r.body.data].reverse()
}

async function approvalsOf(ws: Workspace, status?: string): Promise<any[]> {
  const r = await call('GET', `/api/v1/approvals${status ? `?status=${status}` : ''}`, { token: ws.live })
  if (r.status !== 200) throw new Error(`GET /approvals: ${r.status} ${r.text}`)
  return r.body.data
}

/** Failed checks by name: what a denial names. */
const failing = (checks: { name: string; passed: boolean }[]) => checks.filter((c) => !c.passed).map((c) => c.name)

/**
 * Asks `probe` every 50 ms until it finds something, while the scenario runs; gives up when the
 * script ends first (it then failed, and its output says why).
 */
async function whileRunning<T>(running: Promise<unknown>, what: string, probe: () => Promise<T | undefined>): Promise<T> {
  let ended = false
  running.then(
    () => (ended = true),
    () => (ended = true),
  )
  for (;;) {
    const found = await probe()
    if (found !== undefined) return found
    if (ended) throw new Error(`the script ended without ${what}: ${json(await running)}`)
    await Bun.sleep(50)
  }
}

/** The approval the running guard waits on, as a person finds it (GET /approvals?status=pending). */
const pendingApproval = (ws: Workspace, running: Promise<unknown>): Promise<any> =>
  whileRunning(running, 'an approval to decide', async () => (await approvalsOf(ws, 'pending'))[0])

/**
 * The guard's asks keep to the schedule it was given: the gap after the k-th ask is at least the
 * k-th interval (intervalMs growing by half up to maxIntervalMs). Times are the server's own
 * createdAt of each request: an ask is answered (its time taken) before the guard starts sleeping,
 * so a gap can only be longer than the sleep. Only lower bounds: a slow machine never fails this.
 */
function expectPace(asks: { createdAt: string }[], wait: { intervalMs: number; maxIntervalMs: number }, opts: { lastMayBeShort?: boolean } = {}) {
  const times = asks.map((a) => Date.parse(a.createdAt))
  const tooSoon: string[] = []
  let interval = wait.intervalMs
  for (let i = 1; i < times.length; i++) {
    const gap = times[i]! - times[i - 1]!
    const last = i === times.length - 1
    // 5 ms: timers and millisecond timestamps round.
    if (!(last && opts.lastMayBeShort) && gap < interval - 5) tooSoon.push(`ask ${i + 1} came ${gap} ms after ask ${i}; the schedule allows no sooner than ${interval} ms`)
    interval = Math.min(wait.maxIntervalMs, interval * 1.5)
  }
  expect(tooSoon).toEqual([])
}

describe('agent.guard: allowed', () => {
  test('fn runs once with the authorization and a signal; completed is reported with what it returned; the guard returns it', async () => {
    const { ws, agent } = await setup()
    const out = await scenario('allowed', `print(await attempt(${json(PAUSE)}))`, agent.credential)
    expect(out.error).toBeUndefined()
    expect(out.contexts).toHaveLength(1)
    const [context] = out.contexts
    expect(context).toMatchObject({ keys: ['authorization', 'signal'], signal: true, aborted: false })
    expect(context.authorization).toMatchObject({ decision: 'allowed', mayProceed: true })
    expect(out.same).toBe(true)
    // The gateway's record: one request, the one fn ran under, with the result against it.
    const requests = await requestsOf(ws, agent.id)
    expect(requests.map((r) => r.authorizationId)).toEqual([context.authorization.authorizationId])
    const [request] = requests
    expect(context.authorization).toMatchObject({ reason: request.reason, checks: request.checks, expiresAt: request.expiresAt })
    expect(request.result).toMatchObject({ status: 'completed', summary: json(out.value), error: null, verified: false })
  })

  test('fn throws: failed is reported with its message, and the very same error is rethrown', async () => {
    const { ws, agent } = await setup()
    const out = await scenario(
      'throws',
      `
      const thrown = new Error('Meta Ads answered 503 for ' + crypto.randomUUID())
      let runs = 0, authorizationId
      try {
        await growth.agent.guard(${json(PAUSE)}, ({ authorization }) => { runs++; authorizationId = authorization.authorizationId; throw thrown })
        print({ resolved: true })
      } catch (e) {
        print({ runs, authorizationId, same: e === thrown, message: thrown.message, error: described(e) })
      }`,
      agent.credential,
    )
    expect(out).toMatchObject({ runs: 1, same: true })
    const requests = await requestsOf(ws, agent.id)
    expect(requests.map((r) => r.authorizationId)).toEqual([out.authorizationId])
    expect(requests[0].result).toMatchObject({ status: 'failed', summary: null })
    expect(requests[0].result.error).toContain(out.message)
  })

  test("fn aborted through the guard's signal: cancelled is reported, and the guard rejects with the abort", async () => {
    const { ws, agent } = await setup()
    const out = await scenario(
      'aborted',
      `
      const controller = new AbortController()
      let runs = 0, authorizationId
      try {
        await growth.agent.guard(${json(PAUSE)}, async ({ authorization, signal }) => {
          runs++
          authorizationId = authorization.authorizationId
          setTimeout(() => controller.abort(), 20)
          // work that stops when its signal aborts, as fetch does
          await new Promise((resolve, reject) => {
            const timer = setTimeout(resolve, 20000)
            signal.addEventListener('abort', () => { clearTimeout(timer); reject(signal.reason) }, { once: true })
          })
          return 'finished'
        }, { signal: controller.signal })
        print({ resolved: true })
      } catch (e) {
        print({ runs, authorizationId, isAbortReason: e === controller.signal.reason, error: described(e) })
      }`,
      agent.credential,
    )
    expect(out).toMatchObject({ runs: 1, isAbortReason: true, error: { name: 'AbortError' } })
    const requests = await requestsOf(ws, agent.id)
    expect(requests.map((r) => r.authorizationId)).toEqual([out.authorizationId])
    expect(requests[0].result).toMatchObject({ status: 'cancelled', error: null })
  })

  test('fn outlives its authorization and then throws: the result is refused, and the guard still rethrows the error fn threw', async () => {
    const { ws, agent } = await setup()
    const { project } = await packedSdk()
    const marker = join(project, `guard-marker-${crypto.randomUUID()}`)
    const running = scenario(
      'outlived',
      `
      import { existsSync } from 'node:fs'
      const thrown = new Error('The send stopped half way ' + crypto.randomUUID())
      try {
        await growth.agent.guard(${json(PAUSE)}, async () => {
          // long work: it goes on until the test has let the authorization run out
          while (!existsSync(${json(marker)})) await new Promise((resolve) => setTimeout(resolve, 20))
          throw thrown
        })
        print({ resolved: true })
      } catch (e) {
        print({ same: e === thrown, error: described(e) })
      }`,
      agent.credential,
    )
    const allowed = await whileRunning(running, 'an allowed request', async () => (await requestsOf(ws, agent.id)).find((r) => r.decision === 'allowed'))
    // An authorization is valid for 15 minutes; the test moves this one's expiry into the past
    // rather than waiting, so the guard's report of the failure is refused (409).
    const { sql } = await getHarness()
    await sql`UPDATE agent_requests SET expires_at = now() - interval '1 minute' WHERE workspace_id = ${ws.id} AND id = ${allowed.authorizationId}`
    writeFileSync(marker, '')
    const out = await running
    expect(out.error).toMatchObject({ name: 'Error', growthError: false })
    expect(out.same).toBe(true)
    // the guard did try to report it: the refusal is recorded, and nothing stands as its result
    const refusals = await sql<{ status: string }[]>`SELECT status FROM agent_result_refusals WHERE workspace_id = ${ws.id} AND authorization_id = ${allowed.authorizationId}`
    expect(refusals.length).toBeGreaterThanOrEqual(1)
    expect(refusals.every((r) => r.status === 'failed')).toBe(true)
    expect((await requestsOf(ws, agent.id)).map((r) => r.result)).toEqual([null])
  })

  test('fn outlives its authorization and then succeeds: the guard still resolves to its value (the work is done) and hands the lost report to onReportError', async () => {
    const { ws, agent } = await setup()
    const { project } = await packedSdk()
    const marker = join(project, `guard-marker-${crypto.randomUUID()}`)
    const running = scenario(
      'outlived-ok',
      `
      import { existsSync } from 'node:fs'
      const returned = { paused: crypto.randomUUID() }
      const lost = []
      const value = await growth.agent.guard(${json(PAUSE)}, async () => {
        while (!existsSync(${json(marker)})) await new Promise((resolve) => setTimeout(resolve, 20))
        return returned
      }, { onReportError: (error, authorizationId) => lost.push({ authorizationId, error: described(error) }), requestOptions: { maxRetries: 0 } })
      print({ same: value === returned, lost })`,
      agent.credential,
    )
    const allowed = await whileRunning(running, 'an allowed request', async () => (await requestsOf(ws, agent.id)).find((r) => r.decision === 'allowed'))
    const { sql } = await getHarness()
    await sql`UPDATE agent_requests SET expires_at = now() - interval '1 minute' WHERE workspace_id = ${ws.id} AND id = ${allowed.authorizationId}`
    writeFileSync(marker, '')
    const out = await running
    expect(out.same).toBe(true)
    expect(out.lost).toHaveLength(1)
    expect(out.lost[0]).toMatchObject({ authorizationId: allowed.authorizationId, error: { name: 'ConflictError', growthError: true } })
    expect((await requestsOf(ws, agent.id)).map((r) => r.result)).toEqual([null])
  })
})

describe('agent.guard: denied', () => {
  test('by permission or by a deny rule: fn never runs, AgentDeniedError carries the checks and reason, nothing is reported', async () => {
    const { ws, agent } = await setup()
    // "No agent may pause a campaign.": the low-risk action it is permitted, now refused by the owner's rule
    const rule = await ruleIn(ws.id, { match: [{ tool: 'ads', action: 'pause_campaign' }], when: [] }, 'deny')
    const out = await scenario('denied', `print([await attempt(${json(RESUME)}), await attempt(${json(PAUSE)})])`, agent.credential)
    const requests = await requestsOf(ws, agent.id)
    expect(requests.map((r) => r.decision)).toEqual(['denied', 'denied'])
    for (const [i, failed] of [['permission'], ['rules']].entries()) {
      const { contexts, error } = out[i]
      expect(contexts).toEqual([])
      expect(error).toMatchObject({ name: 'AgentDeniedError', agentDenied: true, growthError: true, approvalRequired: false })
      // what the gateway decided and recorded, carried whole
      const request = requests[i]
      expect(error).toMatchObject({ authorizationId: request.authorizationId, reason: request.reason, checks: request.checks, rules: request.rules })
      expect(error.message).toContain(request.reason)
      expect(failing(error.checks)).toEqual(failed)
      expect(request.result).toBeNull()
    }
    expect(out[1].error.rules.map((r: { id: string }) => r.id)).toEqual([rule.id])
    // The guard reported nothing: a result against a denial would have been refused, and recorded.
    const { sql } = await getHarness()
    const [refusals] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM agent_result_refusals WHERE workspace_id = ${ws.id}`
    expect(refusals!.n).toBe(0)
  })

  test('requires_approval without waitForApproval: ApprovalRequiredError with the approval a person finds, and fn never runs', async () => {
    const { ws, agent } = await setup()
    const out = await scenario('needs-person', `print(await attempt(${json(SEND)}))`, agent.credential)
    const requests = await requestsOf(ws, agent.id)
    expect(requests.map((r) => r.decision)).toEqual(['requires_approval'])
    const [approval] = await approvalsOf(ws, 'pending')
    expect(out.contexts).toEqual([])
    expect(out.error).toMatchObject({
      name: 'ApprovalRequiredError', approvalRequired: true, growthError: true, agentDenied: false, expired: false, timedOut: false,
      approvalId: approval.id, authorizationId: requests[0].authorizationId, reason: requests[0].reason,
    })
    expect(out.error.approvalId).toMatch(/^apr_/)
    // Nothing waited: the message says what must happen, not that the SDK is waiting.
    expect(out.error.message).toBe(`A person must decide approval ${approval.id} before this runs: ${requests[0].reason} (with waitForApproval the guard waits for the decision).`)
    expect(approval).toMatchObject({ kind: 'agent_request', subjectId: requests[0].authorizationId, summary: SEND.summary })
    expect(requests[0].result).toBeNull()
  })
})

describe('agent.guard: waitForApproval', () => {
  test(
    'approved by a person (growth admin approval approve): the guard asks again, then runs fn and reports completed',
    async () => {
      const { ws, agent } = await setup()
      const running = scenario('approve', `print(await attempt(${json(SEND)}, { waitForApproval: ${json({ ...PACE, timeoutMs: SAFETY })} }))`, agent.credential)
      const approval = await pendingApproval(ws, running)
      const decided = await growth(['admin', 'approval', 'approve', approval.id, '--by', 'Maya Chen', '--json'])
      expect({ code: decided.code, stderr: decided.stderr }).toEqual({ code: 0, stderr: '' })
      expect(JSON.parse(decided.stdout)).toMatchObject({ id: approval.id, status: 'approved' })
      const out = await running
      expect(out.error).toBeUndefined()
      expect(out.same).toBe(true)
      expect(out.contexts).toHaveLength(1)
      const asks = await requestsOf(ws, agent.id)
      const last = asks.at(-1)
      // waiting asks, all on the one approval, then the allowed one that uses it
      expect(asks.length).toBeGreaterThanOrEqual(2)
      expect(asks.slice(0, -1).map((a) => [a.decision, a.approvalId, a.result])).toEqual(asks.slice(0, -1).map(() => ['requires_approval', approval.id, null]))
      expect(last).toMatchObject({ decision: 'allowed', approvalId: approval.id })
      expect(out.contexts[0].authorization).toMatchObject({ authorizationId: last.authorizationId, decision: 'allowed', approvalId: approval.id })
      // the authorization fn acts under says whose approval it used
      expect(out.contexts[0].authorization.approvalDecision).toMatchObject({ approvalId: approval.id, status: 'approved', decidedBy: { kind: 'operator', note: 'Maya Chen' }, reason: null })
      expect(last.result).toMatchObject({ status: 'completed', summary: json(out.value) })
      expectPace(asks, PACE)
    },
    CLI_TIMEOUT,
  )

  test(
    'rejected with a reason (growth admin approval reject --reason): ApprovalRejectedError, still an AgentDeniedError, with the reason, who decided and the approval',
    async () => {
      const { ws, agent } = await setup()
      const running = scenario('reject', `print(await attempt(${json(SEND)}, { waitForApproval: ${json({ ...PACE, timeoutMs: SAFETY })} }))`, agent.credential)
      const approval = await pendingApproval(ws, running)
      const reason = 'Not before the spring catalogue is printed.'
      const decided = await growth(['admin', 'approval', 'reject', approval.id, '--reason', reason, '--by', 'Maya Chen', '--json'])
      expect({ code: decided.code, stderr: decided.stderr }).toEqual({ code: 0, stderr: '' })
      const rejected = JSON.parse(decided.stdout)
      expect(rejected).toMatchObject({ id: approval.id, status: 'rejected', decisionReason: reason })
      const out = await running
      expect(out.contexts).toEqual([])
      const asks = await requestsOf(ws, agent.id)
      const last = asks.at(-1)
      expect(asks.slice(0, -1).map((a) => a.decision)).toEqual(asks.slice(0, -1).map(() => 'requires_approval'))
      expect(last.decision).toBe('denied')
      // A denial like any other (catch AgentDeniedError keeps catching it), and more precisely a rejection.
      expect(out.error).toMatchObject({
        name: 'ApprovalRejectedError', approvalRejected: true, agentDenied: true, growthError: true, approvalRequired: false,
        authorizationId: last.authorizationId, approvalId: approval.id, checks: last.checks,
        reason, decisionReason: reason, gatewayReason: last.reason, decidedBy: rejected.decidedBy, decidedAt: rejected.decidedAt,
      })
      expect(out.error.decidedBy).toMatchObject({ kind: 'operator', note: 'Maya Chen' })
      expect(out.error.message).toBe(`${rejected.decidedBy.name} (operator) rejected approval ${approval.id}: ${reason}`)
      expect(out.error.requestId).toMatch(/\S/)
      // the gateway's own sentence names the rejection and quotes the reason
      expect(out.error.gatewayReason).toContain(approval.id)
      expect(out.error.gatewayReason).toContain(JSON.stringify(reason))
      expect(failing(out.error.checks)).toEqual(['risk'])
      expect(asks.every((a) => a.result === null)).toBe(true)
      expectPace(asks, PACE)

      // Asked again later without waiting, the same request meets the same rejection, and says so the same way.
      const again = await scenario('reject-again', `print(await attempt(${json(SEND)}))`, agent.credential)
      expect(again.error).toMatchObject({ name: 'ApprovalRejectedError', approvalId: approval.id, reason, decidedBy: rejected.decidedBy })
    },
    CLI_TIMEOUT,
  )

  test(
    'rejected without a reason (the CLI allows it): decisionReason is null and reason is the gateway sentence',
    async () => {
      const { ws, agent } = await setup()
      const running = scenario('reject-bare', `print(await attempt(${json(SEND)}, { waitForApproval: ${json({ ...PACE, timeoutMs: SAFETY })} }))`, agent.credential)
      const approval = await pendingApproval(ws, running)
      const decided = await growth(['admin', 'approval', 'reject', approval.id, '--json'])
      expect({ code: decided.code, stderr: decided.stderr }).toEqual({ code: 0, stderr: '' })
      const out = await running
      const last = (await requestsOf(ws, agent.id)).at(-1)
      expect(out.error).toMatchObject({ name: 'ApprovalRejectedError', agentDenied: true, approvalId: approval.id, decisionReason: null, reason: last.reason, gatewayReason: last.reason })
      expect(out.error.message).toEndWith(`rejected approval ${approval.id} without giving a reason.`)
    },
    CLI_TIMEOUT,
  )

  test('an approval that expires undecided: ApprovalExpiredError (an ApprovalRequiredError with expired), naming the approval now waiting', async () => {
    const { ws, agent } = await setup()
    const running = scenario('expires', `print(await attempt(${json(SEND)}, { waitForApproval: ${json({ ...PACE, timeoutMs: SAFETY })} }))`, agent.credential)
    const first = await pendingApproval(ws, running)
    // An approval is valid for a fixed 24 hours (APPROVAL_TTL_MS in the gateway; no setting makes
    // it shorter), so the test moves this one's expiry into the past, as 24 hours would.
    const { sql } = await getHarness()
    await sql`UPDATE approvals SET expires_at = now() - interval '1 minute' WHERE workspace_id = ${ws.id} AND id = ${first.id}`
    const out = await running
    expect(out.contexts).toEqual([])
    const pending = await approvalsOf(ws, 'pending')
    const next = pending.find((a) => a.id !== first.id)
    expect(pending.find((a) => a.id === first.id)).toMatchObject({ expired: true })
    expect(next).toMatchObject({ expired: false })
    expect(out.error).toMatchObject({
      name: 'ApprovalExpiredError', approvalExpired: true, approvalRequired: true, agentDenied: false, growthError: true, expired: true, timedOut: false,
      approvalId: next.id, expiredApprovalId: first.id,
    })
    expect(out.error.message).toBe(`Approval ${first.id} expired with nobody deciding it; the request now waits on approval ${next.id}.`)
    const asks = await requestsOf(ws, agent.id)
    expect(asks.map((a) => a.decision)).toEqual(asks.map(() => 'requires_approval'))
    expect(asks.at(-1).approvalId).toBe(next.id)
    expect(asks.slice(0, -1).map((a) => a.approvalId)).toEqual(asks.slice(0, -1).map(() => first.id))
    // it gave up at once: no ask on the new approval after the one that found it
    expect(asks.filter((a) => a.approvalId === next.id)).toHaveLength(1)
    expect(out.error.authorizationId).toBe(asks.at(-1).authorizationId)
  })

  test('timeoutMs: undecided in time, it gives up with ApprovalRequiredError, having asked no faster than its schedule', async () => {
    const { ws, agent } = await setup()
    const wait = { ...PACE, timeoutMs: 2_000 }
    const out = await scenario('timeout', `print(await attempt(${json(SEND)}, { waitForApproval: ${json(wait)} }))`, agent.credential)
    const [approval, ...others] = await approvalsOf(ws)
    expect(others).toEqual([])
    expect(out.contexts).toEqual([])
    expect(out.error).toMatchObject({ name: 'ApprovalRequiredError', approvalRequired: true, approvalExpired: false, expired: false, timedOut: true, approvalId: approval.id })
    expect(out.elapsedMs).toBeGreaterThanOrEqual(wait.timeoutMs)
    const asks = await requestsOf(ws, agent.id)
    expect(asks.map((a) => [a.decision, a.approvalId])).toEqual(asks.map(() => ['requires_approval', approval.id]))
    // it did ask again while waiting; the last sleep is cut short by the deadline
    expect(asks.length).toBeGreaterThanOrEqual(3)
    expectPace(asks, wait, { lastMayBeShort: true })
    // and it stopped at the deadline: every ask within the timeout of the first (with room for a slow answer)
    expect(Date.parse(asks.at(-1).createdAt) - Date.parse(asks[0].createdAt)).toBeLessThan(wait.timeoutMs + 5_000)
  })

  test('aborting the signal while it waits: the guard rejects with the abort, fn never runs, nothing is reported', async () => {
    const { ws, agent } = await setup()
    const out = await scenario(
      'abort-waiting',
      `
      const controller = new AbortController()
      setTimeout(() => controller.abort(), 600)
      const out = await attempt(${json(SEND)}, { waitForApproval: ${json({ ...PACE, timeoutMs: SAFETY })}, signal: controller.signal })
      print({ ...out, isAbortReason: lastError !== undefined && lastError === controller.signal.reason })`,
      agent.credential,
    )
    expect(out.contexts).toEqual([])
    expect(out.isAbortReason).toBe(true)
    expect(out.error).toMatchObject({ name: 'AbortError', approvalRequired: false, agentDenied: false })
    expect(out.elapsedMs).toBeLessThan(SAFETY)
    const asks = await requestsOf(ws, agent.id)
    expect(asks.length).toBeGreaterThanOrEqual(1)
    expect(asks.every((a) => a.decision === 'requires_approval' && a.result === null)).toBe(true)
  })
})

describe('agent.guard under Bun and Deno', () => {
  for (const runtime of ['bun', 'deno'] as const) {
    test(`${runtime}: allowed runs fn and reports completed; denied throws AgentDeniedError`, async () => {
      const { ws, agent } = await setup()
      const [allowed, denied] = await scenario('smoke', `print([await attempt(${json(PAUSE)}), await attempt(${json(RESUME)})])`, agent.credential, runtime)
      const requests = await requestsOf(ws, agent.id)
      expect(requests.map((r) => r.decision)).toEqual(['allowed', 'denied'])
      expect(allowed).toMatchObject({ same: true, contexts: [{ keys: ['authorization', 'signal'], signal: true, authorization: { authorizationId: requests[0].authorizationId } }] })
      expect(requests[0].result).toMatchObject({ status: 'completed', summary: json(allowed.value) })
      expect(denied.contexts).toEqual([])
      expect(denied.error).toMatchObject({ name: 'AgentDeniedError', agentDenied: true, growthError: true, authorizationId: requests[1].authorizationId, reason: requests[1].reason })
      expect(failing(denied.error.checks)).toEqual(['permission'])
      expect(requests[1].result).toBeNull()
    })
  }
})
