import { beforeAll, describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { OPERATIONS } from '../../sdk/src/generated/operations.ts'
import { createDemoWorkspace, type DemoWorkspace } from '../../server/src/demo/index.ts'
import { createToken } from '../../server/src/domain/credentials.ts'
import { LIMITS } from '../../server/src/http/rate-limit.ts'
import { agentIn, CHECK_ORDER } from '../agent-helpers.ts'
import { awayFromMonthEnd, call, getHarness, makeWorkspace } from '../harness.ts'
import { PACK_TIMEOUT, packedSdk, RUNTIMES, type Runtime, runScript, type ScriptRun, scriptInProject } from './support/pack.ts'
import { HOUR_MS, withinOneWindow } from '../support/clock-window.ts'

/**
 * The SDK as a user gets it, black-box: the packed package installed into an empty project, driven
 * by plain JavaScript programs (test/sdk/runtime/*.mjs) under Node.js, Bun and Deno against the real
 * test server. Each runtime has a demo workspace of its own. The programs only report (data, ids of
 * every page, statuses, codes, request ids, rate-limit headers); every assertion is here, so that a
 * failure says what differed and under which runtime.
 */

const RUNTIME_DIR = join(import.meta.dir, 'runtime')
/** Each scenario makes about 250 calls; the three runtimes run at once, after the package is packed. */
const SCENARIO_TIMEOUT = PACK_TIMEOUT + 120_000
/** The last minutes of a month are waited out: the scenarios compare the month's allowances. */
const MONTH_MARGIN = 120_000

type Json = any

/** A program of test/sdk/runtime, copied into the packed project, so that it imports the installed package. */
async function programInProject(name: string): Promise<string> {
  return scriptInProject(`package-test-${name}`, readFileSync(join(RUNTIME_DIR, name), 'utf8'))
}

/** The one JSON object a program printed, or a failure that shows what it printed instead. */
function reportOf(run: ScriptRun, what: string): Json {
  const line = run.stdout.trim().split('\n').at(-1) ?? ''
  try {
    if (run.code !== 0) throw new Error(`exit ${run.code}`)
    return JSON.parse(line)
  } catch (e) {
    throw new Error(`${what}: ${(e as Error).message}\nstdout: ${run.stdout.slice(0, 2000)}\nstderr: ${run.stderr.slice(0, 4000)}`)
  }
}

type Setup = {
  demo: DemoWorkspace
  baseUrl: string
  /** Added to the demo's two agents, so that the agents list has at least three pages. */
  extraAgents: { id: string }[]
  report: Json
}

/** Each runtime's demo workspace, made one after the other (one transaction each), then its program run. */
const setups = new Map<Runtime, Promise<Setup>>()
let previous: Promise<unknown> = Promise.resolve()

function setupFor(runtime: Runtime): Promise<Setup> {
  let setup = setups.get(runtime)
  if (!setup) {
    const made = previous.then(() => workspaceFor(runtime))
    previous = made.catch(() => undefined)
    setup = made.then(async (ws) => {
      const run = await runScript(runtime, await programInProject('calls.mjs'), { SCENARIO: JSON.stringify(ws.scenario) })
      return { demo: ws.demo, baseUrl: ws.scenario.baseUrl, extraAgents: ws.extraAgents, report: reportOf(run, `calls.mjs under ${runtime}`) }
    })
    setups.set(runtime, setup)
  }
  return setup
}

async function workspaceFor(runtime: Runtime) {
  const { sql, url } = await getHarness()
  const demo = await createDemoWorkspace(sql, { name: `SDK package test (${runtime})` })
  const extraAgents = [
    await agentIn(demo.workspace.id, { allow: 'ads.pause_campaign', name: 'Paging agent one' }),
    await agentIn(demo.workspace.id, { allow: 'ads.read_performance', name: 'Paging agent two' }),
  ]
  const starter = await makeWorkspace({ plan: 'starter' })
  const scoped = await createToken(sql, { workspaceId: demo.workspace.id, scopes: 'read:analytics' })
  const scopedGrowth = await createToken(sql, { workspaceId: demo.workspace.id, scopes: 'read:growth' })
  const scenario = {
    runtime,
    baseUrl: `${url}/api/v1`,
    live: demo.tokens.live,
    test: demo.tokens.test,
    agent: demo.agents[0]!.credential,
    agentId: demo.agents[0]!.id,
    scoped: scoped.token,
    scopedGrowth: scopedGrowth.token,
    starter: starter.live,
    fixtures: demo.fixtures,
  }
  return { demo, extraAgents, scenario }
}

/** Every SDK method, as the OpenAPI document's x-sdk-method names it. */
const METHODS = Object.values(OPERATIONS).map((op) => op.sdk.join('.'))
const LIST_METHODS = Object.values(OPERATIONS)
  .filter((op) => op.kind === 'list')
  .map((op) => op.sdk.join('.'))
const WRITE_METHODS = Object.values(OPERATIONS)
  .filter((op) => op.kind === 'write')
  .map((op) => op.sdk.join('.'))

const REQUEST_ID = /^req_[0-9a-z]+$/

/** An error the program reported: its class (and GrowthError), status, code, message and request id. */
function expectRefusal(where: string, e: Json, expected: { error: string; status: number; code: string; message: (string | RegExp)[] }) {
  const got = { where, classes: e.classes, status: e.status, code: e.code }
  expect(got).toEqual({ where, classes: ['GrowthError', expected.error], status: expected.status, code: expected.code })
  expect(e.name).toBe(expected.error)
  for (const part of expected.message) {
    if (typeof part === 'string') expect(`${where}: ${e.message}`).toContain(part)
    else expect(`${where}: ${e.message}`).toMatch(part)
  }
  expect(e.requestId).toMatch(REQUEST_ID)
  // The request id is the answer's own: the envelope's requestId, which is its X-Request-Id.
  expect(`${where} ${e.requestId}`).toBe(`${where} ${e.headerRequestId}`)
}

beforeAll(async () => {
  // The scenarios compare monthly allowances before and after: all of it in one month.
  await awayFromMonthEnd(MONTH_MARGIN)
  await packedSdk()
  // The three runtimes' programs run at once: each against a workspace of its own.
  for (const runtime of RUNTIMES) setupFor(runtime).catch(() => undefined)
}, PACK_TIMEOUT + MONTH_MARGIN + 10_000)

describe.each(RUNTIMES)('the packed SDK under %s, against the test server', (runtime) => {
  test(
    'every method resolves to the answer’s data: reads as a GET without the SDK gives it, writes as recorded',
    async () => {
      const { report, demo } = await setupFor(runtime)
      const F = demo.fixtures
      expect(Object.keys({ ...report.reads, ...report.writes }).sort()).toEqual([...METHODS].sort())

      for (const [name, read] of Object.entries<Json>(report.reads)) {
        const list = LIST_METHODS.includes(name)
        expect(`${name}: ${read.promiseKind} ${read.isList}`).toBe(`${name}: ${list ? 'PagePromise' : 'APIPromise'} ${list}`)
        expect(`${name}: ${read.bare.status}`).toBe(`${name}: 200`)
        if (list) {
          expect(read.data.length).toBeGreaterThan(0)
          expect({ name, meta: read.meta }).toEqual({ name, meta: read.bare.meta })
        }
        if (name === 'usage.get') {
          // The calls counted move on between the two reads; the allowances do not.
          expect(read.data.allowances).toEqual(read.bare.data.allowances)
          expect(Object.keys(read.data.apiCalls).sort()).toEqual(Object.keys(read.bare.data.apiCalls).sort())
        } else if (name === 'agent.me') {
          // The GET without the SDK came one call later: one fewer left in the hour.
          const { limits, ...rest } = read.data
          const { limits: bareLimits, ...bareRest } = read.bare.data
          expect(rest).toEqual(bareRest)
          expect(limits.requestsPerHour).toBe(LIMITS.agent)
          // (unless the hour turned between the two: then it is the new hour's first call)
          expect(bareLimits.remaining).toBe(bareLimits.resetAt === limits.resetAt ? limits.remaining - 1 : LIMITS.agent - 1)
        } else {
          expect({ name, data: read.data }).toEqual({ name, data: read.bare.data })
        }
      }
      // The filters reached the server.
      const reads = report.reads
      expect(reads['decisions.list'].data).toHaveLength(5)
      expect(new Set(reads['signals.list'].data.map((s: Json) => s.status))).toEqual(new Set(['resolved']))
      expect(new Set(reads['opportunities.list'].data.map((s: Json) => s.status))).toEqual(new Set(['actioned']))
      expect(new Set(reads['approvals.list'].data.map((s: Json) => s.status))).toEqual(new Set(['pending']))
      expect(new Set(reads['customers.list'].data.map((s: Json) => s.stage))).toEqual(new Set(['repeat']))
      expect(new Set(reads['events.list'].data.map((s: Json) => s.event))).toEqual(new Set(['decision.recorded']))
      expect(reads['events.list'].data).toHaveLength(7)
      expect(new Set(reads['agents.requests'].data.map((s: Json) => s.decision))).toEqual(new Set(['allowed']))
      expect(reads['agents.requests'].data).toHaveLength(4)
      expect(reads['agents.requests'].meta.nextBefore).toEqual(expect.any(String))
      expect(reads['logs.list'].data).toHaveLength(3)
      expect(new Set(reads['logs.list'].data.map((e: Json) => `${e.operation} ${e.status}`))).toEqual(new Set(['listMissions 200']))
      expect(reads['revenue.get'].data.from).toBe('2026-01-01T00:00:00.000Z')
      expect(reads['agent.me'].data.agent).toEqual({ id: demo.agents[0]!.id, name: demo.agents[0]!.name, owner: 'workspace' })

      // Writes: each resolved to what was recorded, and the record is there.
      const w = report.writes
      const after = report.afterWrites
      expect(w['experiments.create']).toMatchObject({ kind: 'email_ab_test', subjectId: F.openAbTestId, expectation: 'a_better', hypothesis: `Subject line A wins on opens (${runtime}).` })
      expect(w['experiments.create'].id).toMatch(/^exp_/)
      expect(after.experimentIds[0]).toBe(w['experiments.create'].id)
      expect(w['actions.create']).toMatchObject({ kind: 'pause_campaign', args: { campaignId: F.campaignId } })
      expect(w['actions.create'].id).toMatch(/^act_/)
      expect(after.actionIds[0]).toBe(w['actions.create'].id)
      expect(w['contacts.import'].totals).toEqual({ created: 1, updated: 0, skipped: 0 })
      expect(w['contacts.import'].results).toMatchObject([{ index: 0, email: after.newEmail, status: 'created', reason: null }])
      expect(w['contacts.import'].results[0].contactId).toMatch(/^ctc_/)
      expect(after.contactEvents).toContain(after.newEmail)
      expect(w.track.event).toBe(F.trackedEvent.toLowerCase())
      expect(w.track.workflowsStarted).toBeGreaterThanOrEqual(1)
      expect(w.track.runs).toHaveLength(w.track.workflowsStarted)
      expect(w['agent.authorize']).toMatchObject({ decision: 'allowed', mayProceed: true })
      expect(w['agent.authorize'].authorizationId).toMatch(/^auth_/)
      expect(w['agent.authorize'].checks.map((c: Json) => c.name)).toEqual(CHECK_ORDER)
      expect(w['agent.result']).toMatchObject({ authorizationId: w['agent.authorize'].authorizationId, agentId: demo.agents[0]!.id, status: 'completed', summary: 'Paused.', verified: false })
      expect(w['agent.result'].id).toMatch(/^res_/)
      expect(after.requestIds[0]).toBe(w['agent.authorize'].authorizationId)
    },
    SCENARIO_TIMEOUT,
  )

  test(
    'each method’s typical refusal: its error class, status, code, a message naming what was wrong, and the request id',
    async () => {
      const { report } = await setupFor(runtime)
      const r = report.refusals
      expect(Object.keys(r).sort()).toEqual([...METHODS].sort())
      const bad = (code: string, ...message: (string | RegExp)[]) => ({ error: 'BadRequestError', status: 400, code, message })
      const denied = (...message: string[]) => ({ error: 'PermissionDeniedError', status: 403, code: 'forbidden', message })
      const missing = (...message: string[]) => ({ error: 'NotFoundError', status: 404, code: 'not_found', message })
      const expected: Record<string, Parameters<typeof expectRefusal>[2]> = {
        'missions.list': bad('invalid_parameter', 'limit', 'at least 1'),
        'decisions.list': bad('invalid_parameter', 'missionId', 'msn_'),
        'experiments.list': bad('invalid_parameter', 'cursor'),
        'experiments.create': bad('invalid_request', 'hypothesis', '10 characters'),
        'signals.list': bad('invalid_parameter', 'status', '"ignored"'),
        'opportunities.list': bad('invalid_parameter', 'status', '"maybe"'),
        'outcomes.get': denied('read:growth'),
        'approvals.list': bad('invalid_parameter', 'status', '"waiting"'),
        'actions.list': bad('invalid_parameter', 'limit', 'at most 100'),
        'actions.create': bad('invalid_request', 'kind', 'pause_campaign'),
        'contacts.import': bad('invalid_request', 'contacts.0.colour'),
        track: missing('nobody-at-all@example.com'),
        'customers.list': bad('invalid_parameter', 'stage', '"vip"'),
        'revenue.get': bad('invalid_parameter', 'from', '"yesterday"'),
        'usage.get': denied('workspace token'),
        'connections.list': denied('read:analytics'),
        'events.list': bad('invalid_parameter', 'type', '"no.such.event"'),
        'agents.list': denied('read:agents'),
        'agents.tools': denied('workspace token'),
        'agents.rules': bad('invalid_parameter', 'limit', 'at most 500'),
        'agents.requests': missing('agt_doesnotexist'),
        'agent.authorize': bad('invalid_request', 'facts.colour'),
        'agent.result': missing('auth_doesnotexist'),
        'agent.me': denied('agent credential'),
        'logs.list': bad('invalid_parameter', 'status', '2xx, 4xx, 5xx'),
      }
      for (const [method, e] of Object.entries<Json>(r)) expectRefusal(method, e, expected[method]!)
    },
    SCENARIO_TIMEOUT,
  )

  test(
    'every error class by status, with code, message and the answer’s request id',
    async () => {
      const { report, demo } = await setupFor(runtime)
      const e = report.errors
      expectRefusal('BadRequestError', e.badRequest, { error: 'BadRequestError', status: 400, code: 'invalid_request', message: ['colour'] })
      expectRefusal('AuthenticationError', e.authentication, { error: 'AuthenticationError', status: 401, code: 'unauthorized', message: ['Bearer'] })
      expectRefusal('PlanRequiredError', e.planRequired, { error: 'PlanRequiredError', status: 402, code: 'plan_required', message: ['plan', 'API access'] })
      expectRefusal('PermissionDeniedError', e.permissionDenied, { error: 'PermissionDeniedError', status: 403, code: 'forbidden', message: ['read:growth'] })
      expectRefusal('NotFoundError', e.notFound, { error: 'NotFoundError', status: 404, code: 'not_found', message: ['msn_doesnotexist'] })
      expectRefusal('ConflictError', e.conflict, { error: 'ConflictError', status: 409, code: 'conflict', message: [demo.fixtures.decidedAbTestId, 'decided'] })
      expectRefusal('ConflictError (a second result)', e.conflictResult, { error: 'ConflictError', status: 409, code: 'conflict', message: ['already reported'] })
      expectRefusal('IdempotencyKeyReusedError', e.idempotencyKeyReused, { error: 'IdempotencyKeyReusedError', status: 422, code: 'idempotency_key_reused', message: ['Idempotency-Key'] })
      // No two refusals share a request id.
      const ids = Object.values<Json>(e).map((x) => x.requestId)
      expect(new Set(ids).size).toBe(ids.length)
    },
    SCENARIO_TIMEOUT,
  )

  test(
    'paging: every list walked with for await, with hasNextPage()/nextPage() and with iterPages() over three pages or more gives exactly one unpaged fetch',
    async () => {
      const { report, extraAgents } = await setupFor(runtime)
      expect(Object.keys(report.paging).sort()).toEqual([...LIST_METHODS].sort())
      for (const [method, p] of Object.entries<Json>(report.paging)) {
        expect(`${method} ${p.status}`).toBe(`${method} 200`)
        // The unpaged fetch held the whole list (a stream always names its position, on a short page).
        if (method === 'events.list') expect(p.unpagedIds.length).toBeLessThan(100)
        else expect({ method, meta: p.unpagedMeta }).toEqual({ method, meta: null })
        expect(new Set(p.unpagedIds).size).toBe(p.unpagedIds.length)
        // (runaway: a walk that went on past every item, the same page served again and again)
        expect({ method, runaway: p.runaway }).toEqual({ method, runaway: false })
        expect({ method, walk: p.forAwait }).toEqual({ method, walk: p.unpagedIds })
        expect({ method, walk: p.manual }).toEqual({ method, walk: p.unpagedIds })
        expect({ method, walk: p.iterated }).toEqual({ method, walk: p.unpagedIds })
        expect({ method, pages: p.manualSizes.length >= 3 }).toEqual({ method, pages: true })
        expect(p.iterSizes).toEqual(p.manualSizes)
        // Every page but the last is full.
        expect(p.manualSizes.slice(0, -1).every((n: number) => n === p.limit)).toBe(true)
        expect(p.manualSizes.at(-1)).toBeLessThanOrEqual(p.limit)
        expect(p.firstIsPage).toBe(true)
        expect(p.firstHasNextPage).toBe(true)
        expect(p.lastHasNextPage).toBe(false)
        expect(`${method}: ${p.lastNextPage}`).toContain('last page')
      }
      for (const agent of extraAgents) expect(report.paging['agents.list'].unpagedIds).toContain(agent.id)
    },
    SCENARIO_TIMEOUT,
  )

  test(
    'a test token’s writes resolve to { simulated: true }, are checked as live ones, and record nothing',
    async () => {
      const { report } = await setupFor(runtime)
      const s = report.simulated
      for (const method of WRITE_METHODS.filter((m) => !m.startsWith('agent.'))) expect({ method, data: s[method] }).toEqual({ method, data: { simulated: true } })
      expect(s.experimentsCreateStatus).toBe(200)
      expect(s.experimentsCreateMode).toBe('test')
      expect(s.isSimulated).toBe(true)
      expectRefusal('a test token’s write is refused as a live one', s.refused, { error: 'ConflictError', status: 409, code: 'conflict', message: ['decided'] })
      expect(s.reads).toEqual(report.reads['missions.list'].data.map((m: Json) => m.id))
      expect(s.after.experiments).toEqual(s.before.experiments)
      expect(s.after.actions).toEqual(s.before.actions)
      expect(s.after.allowances).toEqual(s.before.allowances)
      expect(s.before.eventsEnd).toEqual(expect.any(String))
      expect(s.after.eventsSince).toEqual([])
      // The same import with the live token is recorded, where the checks above look.
      const contacts = (list: Json[]) => list.find((a) => a.name === 'contacts').used
      expect(contacts(s.liveAfter.allowances)).toBe(contacts(s.before.allowances) + 1)
      expect(s.liveAfter.eventsSince).toEqual(['contact.created'])
    },
    SCENARIO_TIMEOUT,
  )

  test(
    '.withResponse(): data, Response, request id, rate limit as the X-RateLimit-* headers, replayed for a repeated key with one effect',
    async () => {
      const { report, demo } = await setupFor(runtime)
      const w = report.withResponse
      for (const [name, x] of Object.entries<Json>({ usage: w.usage, missions: w.missions, agentMe: w.agentMe })) {
        expect(`${name} ${x.status}`).toBe(`${name} 200`)
        expect(x.requestId).toMatch(REQUEST_ID)
        expect(x.requestId).toBe(x.headers.requestId)
        expect(x.rateLimit).toEqual({
          limit: Number(x.headers.limit),
          remaining: Number(x.headers.remaining),
          resetAt: new Date(Number(x.headers.reset) * 1000).toISOString(),
          isDate: true,
        })
        expect(x.replayed).toBe(false)
        expect(x.bodyUsed).toBe(true)
      }
      expect(w.usage.rateLimit.limit).toBe(LIMITS.workspace)
      expect(w.agentMe.rateLimit.limit).toBe(LIMITS.agent)
      expect(w.agentMe.agentId).toBe(demo.agents[0]!.id)
      // One call later, one fewer left (unless the hour turned between the two: the new hour's first call).
      const sameHour = w.missions.rateLimit.resetAt === w.usage.rateLimit.resetAt
      expect(w.missions.rateLimit.remaining).toBe(sameHour ? w.usage.rateLimit.remaining - 1 : LIMITS.workspace - 1)
      // The hour's window: resets on the hour, within the hour.
      const resetAt = Date.parse(w.usage.rateLimit.resetAt)
      expect(resetAt % 3_600_000).toBe(0)
      expect(w.usage.dataKeys).toEqual(['allowances', 'apiCalls'])
      expect(w.awaitedUsageKeys).toEqual(w.usage.dataKeys)
      expect(w.missions.isPage).toBe(true)
      expect(w.missions.ids).toEqual(report.reads['missions.list'].data.slice(0, 2).map((m: Json) => m.id))
      expect(w.missions.hasNextPage).toBe(true)
      // The scenario kept well within the token's hour.
      expect(w.missions.rateLimit.remaining).toBeGreaterThan(LIMITS.workspace / 4)

      // The caller's own Idempotency-Key, twice with the same body: one action, the second answer replayed.
      const i = report.idempotency
      expect(i.first).toMatchObject({ status: 201, replayed: false })
      expect(i.second).toMatchObject({ status: 201, replayed: true, id: i.first.id })
      expect(i.first.id).toMatch(/^act_/)
      expect(i.first.requestId).toBe(i.first.headerRequestId)
      expect(i.second.requestId).toBe(i.second.headerRequestId)
      expect(i.second.requestId).not.toBe(i.first.requestId)
      expect(i.actionsAfter).toEqual([i.first.id, ...i.actionsBefore])
    },
    SCENARIO_TIMEOUT,
  )

  test(
    'client options: GROWTH_TOKEN and GROWTH_BASE_URL without options, the defaults, refused options, headers sent',
    async () => {
      const { demo, baseUrl } = await setupFor(runtime)
      const program = await programInProject('options.mjs')
      const scenario = JSON.stringify({ token: demo.tokens.live, baseUrl, contactEmail: demo.fixtures.contactEmail })
      const [withEnv, bare] = await Promise.all([
        runScript(runtime, program, { GROWTH_TOKEN: demo.tokens.live, GROWTH_BASE_URL: baseUrl, SCENARIO: scenario }),
        runScript(runtime, program, {}),
      ])
      const env = reportOf(withEnv, `options.mjs under ${runtime} with GROWTH_TOKEN`)
      const none = reportOf(bare, `options.mjs under ${runtime} without environment`)
      const missions = await call('GET', '/api/v1/missions', { token: demo.tokens.live })

      // From the environment.
      expect(env.environment).toEqual({ GROWTH_TOKEN: true, GROWTH_BASE_URL: baseUrl })
      expect(env.noOptions).toEqual({ ok: true, baseUrl, maxRetries: 2, timeout: 60_000 })
      expect(env.fromEnvironment).toEqual({ status: 200, ids: missions.body.data.map((m: Json) => m.id) })
      expect(env.tokenOnly).toMatchObject({ ok: true, baseUrl })
      expect(env.optionBeatsEnvironment).toEqual({ name: 'AuthenticationError', status: 401 })
      // Without it: the default base URL, and no token is refused before any call.
      expect(none.environment).toEqual({ GROWTH_TOKEN: false, GROWTH_BASE_URL: null })
      expect(none.DEFAULT_BASE_URL).toBe('http://127.0.0.1:4000/api/v1')
      expect(none.tokenOnly).toEqual({ ok: true, baseUrl: 'http://127.0.0.1:4000/api/v1', maxRetries: 2, timeout: 60_000 })
      expect(none.trailingSlash).toMatchObject({ ok: true, baseUrl: 'http://127.0.0.1:4000/api/v1' })
      expect(none.noOptions).toMatchObject({ ok: false, name: 'GrowthError', isGrowthError: true })
      expect(none.noOptions.message).toContain('GROWTH_TOKEN')

      // Refused options, the same with or without the environment: a GrowthError naming the option.
      for (const report of [env, none]) {
        const i = report.invalid
        for (const [name, r] of Object.entries<Json>(i)) expect({ name, ok: r.ok, name_: r.name, isGrowthError: r.isGrowthError, status: r.status }).toEqual({ name, ok: false, name_: 'GrowthError', isGrowthError: true, status: undefined })
        expect(i.maxRetriesNegative.message).toContain('maxRetries')
        expect(i.maxRetriesNegative.message).toContain('-1')
        expect(i.maxRetriesFraction.message).toContain('maxRetries')
        expect(i.baseUrlFtp.message).toContain('baseUrl')
        expect(i.baseUrlFtp.message).toContain('ftp://x')
        expect(i.baseUrlRelative.message).toContain('baseUrl')
        expect(i.timeoutZero.message).toContain('timeout')
        expect(i.emptyToken.message).toContain('token')
      }

      // Headers, as handed to fetch: the client's defaults, the call's own (winning over a default
      // of the same name), the client's token always, and a write's Idempotency-Key.
      const h = env.headers
      // (A second Authorization, in whatever case, would have made the token unreadable: 401.)
      expect(h.statuses).toEqual([200, 200, 200, 200, 201])
      const sent = h.sent.map((s: Json) => s.headers)
      expect(h.sent).toHaveLength(5)
      for (const headers of sent) {
        expect(headers['x-client-name']).toBe('sdk-test')
        expect(headers.authorization).toBe(`Bearer ${demo.tokens.live}`)
        expect(headers.accept).toBe('application/json')
      }
      const perCall = env.perCall
      expect(perCall.timeoutZero).toEqual({ name: 'GrowthError', message: expect.any(String) })
      expect(perCall.timeoutZero.message).toContain('timeout')
      expect(perCall.maxRetriesNegative).toEqual({ name: 'GrowthError', message: expect.any(String) })
      expect(perCall.maxRetriesNegative.message).toContain('maxRetries')
      expect(perCall.sentForRefused).toBe(0)
      expect(perCall.writes).toEqual([201, 201])
      expect(perCall.keysSent).toHaveLength(2)
      expect(perCall.keysSent[0]).toBe(perCall.headerKey)
      expect(perCall.keysSent[1]).toMatch(/^sdk-[0-9a-f-]{36}$/)
      expect(sent[0]['x-call']).toBe('one')
      expect(sent[0]['x-both']).toBe('call')
      expect(sent[1]['x-call']).toBeUndefined()
      expect(sent[1]['x-both']).toBe('default')
      expect(sent[4]['idempotency-key']).toMatch(/^header-check-/)
      expect(sent[4]['content-type']).toBe('application/json')
      expect(h.sent[4].method).toBe('POST')
      expect(h.sent[0].url).toBe(`${baseUrl}/missions?limit=1`)
    },
    SCENARIO_TIMEOUT,
  )
})

describe('the packed SDK under Deno without --allow-env', () => {
  test(
    'a token only in GROWTH_TOKEN, which Deno will not read: the error says Deno refused and which flag lets it',
    async () => {
      const { project } = await packedSdk()
      const script = await scriptInProject('no-env.mjs', "import { Growth } from '@growth-service/sdk'\ntry { new Growth() } catch (e) { console.log(e.message) }\n")
      const proc = Bun.spawn([join(import.meta.dir, '../../node_modules/.bin/deno'), 'run', '--allow-read', '--no-prompt', script], {
        cwd: project,
        stdout: 'pipe',
        stderr: 'pipe',
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1', GROWTH_TOKEN: 'svc_test_set_but_unread' },
      })
      const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
      expect({ code, stderr }).toEqual({ code: 0, stderr: '' })
      expect(stdout.trim()).toBe('No token: pass new Growth({ token }), or let the runtime read GROWTH_TOKEN: Deno refused to read the environment (run with --allow-env=GROWTH_TOKEN,GROWTH_BASE_URL).')
    },
    PACK_TIMEOUT,
  )
})

describe('the rate limit, under Node.js', () => {
  test(
    'a fresh token’s 600 calls in the hour pass, each leaving one fewer; the next is a RateLimitError with retryAfter, retried or not',
    async () => {
      const { sql, url } = await getHarness()
      const ws = await makeWorkspace()
      const { token } = await createToken(sql, { workspaceId: ws.id, scopes: 'all' })
      // Calls are counted per hour on the clock: all of them in one hour.
      await withinOneWindow(HOUR_MS, 150_000)
      const run = await runScript('node', await programInProject('rate-limit.mjs'), { SCENARIO: JSON.stringify({ baseUrl: `${url}/api/v1`, token, limit: LIMITS.workspace }) })
      const r = reportOf(run, 'rate-limit.mjs under node')
      expect(r.refusals).toEqual([])
      // Every call of the hour counted exactly once, however many were in flight.
      expect(r.remaining).toEqual(Array.from({ length: LIMITS.workspace }, (_, i) => i))
      for (const [name, e] of [['maxRetries 0', r.past], ['default retries', r.pastWithRetries]] as const) {
        expect({ name, error: e.name, isGrowthError: e.isGrowthError, isRateLimitError: e.isRateLimitError, status: e.status, code: e.code }).toEqual({
          name,
          error: 'RateLimitError',
          isGrowthError: true,
          isRateLimitError: true,
          status: 429,
          code: 'rate_limited',
        })
        expect(e.message).toContain(`${LIMITS.workspace} requests per hour`)
        expect(e.requestId).toMatch(REQUEST_ID)
        expect(e.requestId).toBe(e.headerRequestId)
        // Retry-After: until the hour's window resets.
        expect(e.retryAfter).toBe(Number(e.retryAfterHeader))
        // More than the SDK waits by itself (60 s): even with retries on, it is the caller's to act on.
        expect(e.retryAfter).toBeGreaterThan(60)
        expect(e.retryAfter).toBeLessThanOrEqual(3600)
        expect(e.remainingHeader).toBe('0')
        expect(Number(e.resetHeader) % 3600).toBe(0)
      }
      expect(r.past.requestId).not.toBe(r.pastWithRetries.requestId)
    },
    PACK_TIMEOUT + 120_000,
  )
})
