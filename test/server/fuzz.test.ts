// Fuzzing the API against its own OpenAPI document: for every operation of the table, requests the
// document calls valid (query parameters from their schemas, bodies from the request body schema),
// sent to the real test server with the right credential. Each must be answered (any status under
// 500 but 401, 403 and 429), and a 400 only by one of the rules the operation declares its schema
// cannot state (op.rules, named in its description). Every answer is also held against the document
// by the harness's call() (envelope, status, response model).
//
// Why: the SDK, the CLI and the agent tools are generated from the document and check a request
// before sending it. That is only true if the document states every rule JSON Schema can state; a
// 400 for a request the document allows means it does not (or the server refuses what it should take).
//
// How: one fc.assert over an fc.asyncProperty per operation, run one request at a time (fast-check
// awaits each run before the next), with a fixed seed per operation derived from FUZZ_SEED and the
// operationId (adding an operation changes no other operation's requests). A failure is shrunk
// (fast-check sends smaller requests that still fail) and reported with the seed to replay it:
//   FUZZ_SEED=<n> FUZZ_RUNS=<n> npx bun test test/server/fuzz.test.ts
// fc.assert rather than fc.sample: the counterexample it reports is the smallest failing request.
//
// Requests go to two kinds of workspace: an empty one (fresh every ~400 requests) and a demo
// workspace full of realistic data. Some generated ids, addresses, event names, currencies, tool
// actions and cursors are swapped for real ones of the target workspace, so requests reach the rules
// behind "404 not found"; a swapped request is checked to be still valid by the document.
import { afterAll, describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { createToken, mintToken } from '../../server/src/domain/credentials.ts'
import { createDemoWorkspace, type DemoWorkspace } from '../../server/src/demo/index.ts'
import { buildOpenApi } from '../../server/src/http/openapi/document.ts'
import { operations } from '../../server/src/http/operations.ts'
import { cursorNames, querySchemaOf } from '../../server/src/http/paging.ts'
import { EXAMPLE } from '../../server/src/routes/examples.ts'
import type { Operation } from '../../server/src/routes/operation.ts'
import { newId } from '../../server/src/core/ids.ts'
import { insertCredential } from '../../server/src/store/credentials.ts'
import { type Answer, call, getHarness, makeWorkspace } from '../harness.ts'
import { arbitraryOf, validatorFor } from '../support/arbitraries.ts'

type Json = Record<string, any>

/** The base seed (every operation's seed derives from it) and the runs per operation with inputs. */
const BASE_SEED = Number(process.env.FUZZ_SEED ?? 20_261_107)
const RUNS = Number(process.env.FUZZ_RUNS ?? 100)
/** An operation without any input (no query parameters, no body) has one valid request: a few runs do. */
const RUNS_WITHOUT_INPUT = Math.min(RUNS, 6)
/** Requests per workspace token before a new one (a token allows 600 an hour); an agent credential allows 1,200. */
const TOKEN_BUDGET = 400
const AGENT_BUDGET = 1000

const doc = buildOpenApi(operations) as Json
const validate = validatorFor(doc)

/** Requests sent and judged, requests of setup, and how often each operation answered each status (how deep they reached). */
let requestsSent = 0
let setupRequests = 0
const statuses: Record<string, Record<number, number>> = {}

// ---------------------------------------------------------------------------------------------
// What a request is made of, as the document describes it.

type QueryParameter = { name: string; required: boolean; schema: Json }

const deref = (v: Json): Json =>
  typeof v.$ref === 'string' ? v.$ref.slice(2).split('/').reduce((node: Json, part: string) => node[part.replace(/~1/g, '/').replace(/~0/g, '~')], doc) : v

function describedOf(op: Operation) {
  const item = doc.paths[`/api/v1${op.path}`][op.method.toLowerCase()]
  const parameters = ((item.parameters ?? []) as Json[]).map(deref)
  const query: QueryParameter[] = parameters.filter((p) => p.in === 'query').map((p) => ({ name: p.name, required: !!p.required, schema: p.schema }))
  const header = parameters.find((p) => p.in === 'header' && p.name === 'Idempotency-Key')
  const body: Json | undefined = item.requestBody?.content?.['application/json']?.schema
  const other = parameters.filter((p) => p.in !== 'query' && !(p.in === 'header' && p.name === 'Idempotency-Key'))
  if (other.length) throw new Error(`${op.operationId}: parameters the fuzzer does not generate: ${other.map((p) => `${p.in} ${p.name}`).join(', ')}`)
  return { query, idempotencyKey: header?.schema as Json | undefined, body }
}

/** One generated request, before it meets a workspace. */
type Generated = {
  query: Record<string, unknown>
  body?: unknown
  idempotencyKey?: string
  /** Which workspace: the demo one, or an empty one. */
  target: 'demo' | 'empty'
  /** A write with the test token (simulated) rather than the live one. */
  testToken: boolean
  /** Which of the target's agents calls (agent operations). */
  agent: number
  /** Swap the generated cursor for a real one of the same list and filter, when there is one. */
  realCursor: boolean
  /** Drawn numbers deciding which generated values are swapped for real ones, and for which. */
  choices: number[]
}

function requestArbitrary(op: Operation): fc.Arbitrary<Generated> {
  const described = describedOf(op)
  const query = fc.record(Object.fromEntries(described.query.map((p) => [p.name, arbitraryOf(p.schema, doc)])), {
    requiredKeys: described.query.filter((p) => p.required).map((p) => p.name),
  }) as fc.Arbitrary<Record<string, unknown>>
  const nothing = fc.constant(undefined)
  return fc.record({
    query,
    body: described.body ? arbitraryOf(described.body, doc) : nothing,
    // An Idempotency-Key on about one write in four.
    idempotencyKey: described.idempotencyKey
      ? fc.oneof({ weight: 3, arbitrary: nothing }, { weight: 1, arbitrary: arbitraryOf(described.idempotencyKey, doc) as fc.Arbitrary<string> })
      : nothing,
    target: fc.oneof({ weight: 2, arbitrary: fc.constant('demo' as const) }, { weight: 1, arbitrary: fc.constant('empty' as const) }),
    // Writes with the test token are simulated and cheaper; they meet the same rules.
    testToken: fc.oneof({ weight: 3, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
    agent: fc.nat({ max: 1 }),
    realCursor: fc.oneof({ weight: 3, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
    choices: fc.array(fc.nat({ max: 9_999 }), { minLength: 12, maxLength: 12 }),
  }) as fc.Arbitrary<Generated>
}

// ---------------------------------------------------------------------------------------------
// The workspaces requests go to: credentials that stay within the rate limits, and real values.

/** A credential used at most `budget` times, then replaced by a new one. */
class Rotating {
  private current: string | undefined
  private used = 0
  constructor(
    private readonly budget: number,
    private readonly mint: () => Promise<string>,
  ) {}
  async next(): Promise<string> {
    if (this.current === undefined || this.used >= this.budget) {
      this.current = await this.mint()
      this.used = 0
    }
    this.used++
    return this.current
  }
}

/** Real values of a workspace, to swap in for generated ones. */
type Pool = {
  /** Ids by prefix (msn, dec, abt, snd, cmp, lst, seg, agt); authorizations by agent. */
  ids: Record<string, string[]>
  authorizations: Record<string, string[]>
  emails: string[]
  events: string[]
  toolActions: { tool: string; action: string }[]
  currencies: string[]
}

type Target = {
  workspaceId: string
  live: Rotating
  test: Rotating
  agents: { id: string; credential: Rotating }[]
  pool: Pool
}

async function loadPool(workspaceId: string): Promise<Pool> {
  const { sql } = await getHarness()
  const ids = async (table: string) =>
    (await sql.unsafe<{ id: string }[]>(`SELECT id FROM ${table} WHERE workspace_id = $1 ORDER BY id LIMIT 50`, [workspaceId])).map((r) => r.id)
  const byPrefix: Record<string, string[]> = {}
  for (const table of ['missions', 'decisions', 'ab_tests', 'email_sends', 'campaigns', 'lists', 'segments', 'agents']) {
    for (const id of await ids(table)) (byPrefix[id.slice(0, id.indexOf('_'))] ??= []).push(id)
  }
  const authorizations: Record<string, string[]> = {}
  for (const r of await sql<{ id: string; agent_id: string }[]>`SELECT id, agent_id FROM agent_requests WHERE workspace_id = ${workspaceId} ORDER BY id LIMIT 500`) {
    ;(authorizations[r.agent_id] ??= []).push(r.id)
  }
  const contacts = await sql<{ email: string }[]>`SELECT email FROM contacts WHERE workspace_id = ${workspaceId} ORDER BY id LIMIT 30`
  const blocked = await sql<{ email_key: string }[]>`SELECT email_key FROM do_not_contact WHERE workspace_id = ${workspaceId} ORDER BY email_key LIMIT 5`
  const events = await sql<{ trigger_event: string }[]>`SELECT DISTINCT trigger_event FROM workflows WHERE workspace_id = ${workspaceId} ORDER BY trigger_event`
  const toolActions = await sql<{ tool: string; action: string }[]>`
    SELECT tool_key AS tool, key AS action FROM tool_actions WHERE workspace_id = ${workspaceId} ORDER BY tool_key, key`
  const currencies = await sql<{ currency: string }[]>`
    SELECT DISTINCT currency FROM campaigns WHERE workspace_id = ${workspaceId} AND currency IS NOT NULL ORDER BY currency`
  return {
    ids: byPrefix,
    authorizations,
    emails: [...contacts.map((c) => c.email), ...blocked.map((b) => b.email_key)],
    events: events.map((e) => e.trigger_event),
    toolActions: [...toolActions],
    currencies: currencies.map((c) => c.currency.trim()),
  }
}

/** Another credential for an existing agent (its first is used up). */
async function agentCredential(workspaceId: string, agentId: string): Promise<string> {
  const { sql } = await getHarness()
  const minted = mintToken('agent', workspaceId)
  await insertCredential(sql, { workspaceId, id: newId('credential'), kind: 'agent', agentId, hash: minted.hash, hint: minted.hint, scopes: [], expiresAt: null })
  return minted.token
}

async function tokenFor(workspaceId: string, test: boolean): Promise<string> {
  const { sql } = await getHarness()
  return (await createToken(sql, { workspaceId, scopes: 'all', test })).token
}

/** The first credential given, then new ones as each is used up. */
function rotating(budget: number, first: string, more: () => Promise<string>): Rotating {
  let given = false
  return new Rotating(budget, async () => (given ? more() : ((given = true), first)))
}

/**
 * Authorizations still valid, so that results reported for them reach past "expired": each agent of
 * the target asks for every action of the workspace's tools once (allowed, denied or waiting, as
 * its permissions say), and the answers join the pool. Setup, not fuzzing: these requests are fixed.
 */
async function freshAuthorizations(target: Target): Promise<void> {
  for (const agent of target.agents) {
    for (const { tool, action } of target.pool.toolActions) {
      setupRequests++
      const r = await call('POST', '/api/v1/agent/authorize', { token: await agent.credential.next(), body: { tool, action, summary: 'Fuzz setup' } })
      if (r.status !== 201) throw new Error(`setup: authorize ${tool}.${action} answered ${r.status} ${r.text}`)
      ;(target.pool.authorizations[agent.id] ??= []).push(r.body.data.authorizationId)
    }
  }
}

let demoSetup: Promise<{ demo: DemoWorkspace; target: Target }> | undefined

/** The demo workspace of this file (made once), with its credentials and real values. */
function demoTarget() {
  demoSetup ??= (async () => {
    const { sql } = await getHarness()
    const demo = await createDemoWorkspace(sql, { name: 'Fuzz demo' })
    const id = demo.workspace.id
    const target: Target = {
      workspaceId: id,
      live: rotating(TOKEN_BUDGET, demo.tokens.live, () => tokenFor(id, false)),
      test: rotating(TOKEN_BUDGET, demo.tokens.test, () => tokenFor(id, true)),
      agents: demo.agents.map((a) => ({ id: a.id, credential: rotating(AGENT_BUDGET, a.credential, () => agentCredential(id, a.id)) })),
      pool: await loadPool(id),
    }
    await freshAuthorizations(target)
    return { demo, target }
  })()
  return demoSetup
}

let empty: { target: Target; requests: number } | undefined

/** An empty workspace, a fresh one every TOKEN_BUDGET requests (so no credential of it passes its limit). */
async function emptyTarget(): Promise<Target> {
  if (!empty || empty.requests >= TOKEN_BUDGET) {
    const ws = await makeWorkspace()
    const fixed = (token: string) => new Rotating(Number.POSITIVE_INFINITY, async () => token)
    const target: Target = { workspaceId: ws.id, live: fixed(ws.live), test: fixed(ws.test), agents: [{ id: ws.agent.id, credential: fixed(ws.agent.credential) }], pool: await loadPool(ws.id) }
    await freshAuthorizations(target)
    empty = { target, requests: target.pool.toolActions.length }
  }
  empty.requests++
  return empty.target
}

// ---------------------------------------------------------------------------------------------
// Swapping generated values for real ones.

/** Draws from the generated choices, in turn (cycling). */
function chooser(choices: number[]) {
  let i = 0
  return {
    /** True two times in three. */
    coin: () => choices[i++ % choices.length]! % 3 !== 0,
    pick: <T>(from: T[]): T => from[choices[i++ % choices.length]! % from.length]!,
  }
}

type Chooser = ReturnType<typeof chooser>
const ID = /^([a-z]+)_[A-Za-z0-9_-]+$/
const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/
const DAY_OFFSETS = [-70, -45, -31, -30, -29, -7, -1, 0, 1, 2, 7, 29, 30, 31, 60]
const MINUTES = [-90, -5, 0, 1, 5, 90, 600]

/** `value` with some ids, addresses, event names, currencies and tool actions replaced by real ones of `pool`. */
function swapReal(value: unknown, pool: Pool, agentId: string | undefined, c: Chooser, key?: string): unknown {
  if (typeof value === 'string') {
    const prefix = ID.exec(value)?.[1]
    const ids = prefix === 'auth' ? (agentId ? pool.authorizations[agentId] : undefined) : prefix ? pool.ids[prefix] : undefined
    if (ids?.length && c.coin()) return c.pick(ids)
    // A time near now (within about two months either way) instead of one anywhere in 1970..2099:
    // spans and "in the future" rules are then met as often as not.
    if (ISO_TIME.test(value) && c.coin()) return new Date(Date.now() + (c.pick(DAY_OFFSETS) + c.pick(MINUTES) / 1440) * 86_400_000).toISOString()
    const real = key === 'email' ? pool.emails : key === 'event' ? pool.events : key === 'currency' ? pool.currencies : []
    if (real.length && c.coin()) return c.pick(real)
    return value
  }
  if (Array.isArray(value)) return value.map((v) => swapReal(v, pool, agentId, c))
  if (value && typeof value === 'object') {
    const out: Json = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, swapReal(v, pool, agentId, c, k)]))
    if (typeof out.tool === 'string' && typeof out.action === 'string' && pool.toolActions.length && c.coin()) {
      Object.assign(out, c.pick(pool.toolActions))
    }
    return out
  }
  return value
}

// ---------------------------------------------------------------------------------------------
// Sending a request and judging its answer.

const startedAt = Date.now()

type Sent = { method: string; path: string; credential: string; target: string; headers: Record<string, string>; body?: unknown }

const describeSent = (s: Sent) =>
  `${s.method} ${s.path} (${s.credential} credential, ${s.target} workspace)${Object.keys(s.headers).length ? ` headers ${JSON.stringify(s.headers)}` : ''}${s.body === undefined ? '' : ` body ${JSON.stringify(s.body)}`}`

const pathWith = (op: Operation, query: Record<string, unknown>) => {
  const qs = new URLSearchParams(
    Object.entries(query).map(([k, v]) => {
      if (v !== null && typeof v === 'object') throw new Error(`${op.operationId}: query parameter ${k} generated as ${JSON.stringify(v)}: arrays and objects are not serialized here`)
      return [k, String(v)]
    }),
  ).toString()
  return `/api/v1${op.path}${qs ? `?${qs}` : ''}`
}

/** Why the answer breaks the contract, or undefined when it keeps it. */
function judge(op: Operation, answer: Answer): string | undefined {
  if (answer.status >= 500) return `answered ${answer.status}: a failure on the server's side`
  if ([401, 403, 429].includes(answer.status)) return `answered ${answer.status} although the credential was right and within its rate limit`
  if (answer.status === 400) {
    const message = answer.body?.error?.message
    if (typeof message !== 'string' || !(op.rules ?? []).some((r) => r.message.test(message))) {
      const declared = op.rules?.length ? `its declared rules: ${op.rules.map((r) => r.message).join(', ')}` : 'it declares no rule its schema cannot state'
      return `refused with 400 a request its OpenAPI description calls valid, and not by a declared rule (${declared})`
    }
  }
  return undefined
}

/** Sends one request and fails (naming the operation, the request and the answer) unless the answer keeps the contract. */
async function sendAndJudge(op: Operation, sent: Sent, token: string | undefined): Promise<Answer> {
  let answer: Answer
  requestsSent++
  try {
    answer = await call(sent.method, sent.path, { token, body: sent.body, headers: sent.headers })
  } catch (err) {
    throw new Error(`${op.operationId}: ${describeSent(sent)}\n  failed: ${(err as Error).message}`)
  }
  const counts = (statuses[op.operationId] ??= {})
  counts[answer.status] = (counts[answer.status] ?? 0) + 1
  const problem = judge(op, answer)
  if (problem) throw new Error(`${op.operationId} ${problem}\n  sent: ${describeSent(sent)}\n  answer: ${answer.status} ${answer.text.slice(0, 1000)}`)
  return answer
}

/** Sends one generated request to its workspace with the right credential, and judges the answer. */
async function fuzzOnce(op: Operation, g: Generated): Promise<void> {
  const target = g.target === 'demo' ? (await demoTarget()).target : await emptyTarget()
  const agent = target.agents[g.agent % target.agents.length]!
  const c = chooser(g.choices)
  const described = describedOf(op)
  const query = swapReal(g.query, target.pool, agent.id, c) as Record<string, unknown>
  const body = g.body === undefined ? undefined : swapReal(g.body, target.pool, agent.id, c)
  // A swapped request must still be one the document calls valid, or the test is wrong.
  for (const p of described.query) {
    if (query[p.name] !== undefined && !validate(p.schema, query[p.name]).valid) throw new Error(`test bug: swapped ${p.name}=${query[p.name]} is invalid`)
  }
  if (body !== undefined && !validate(described.body!, body).valid) throw new Error(`test bug: swapped body is invalid: ${validate(described.body!, body).errors}`)

  const kind = op.auth.kind === 'public' ? 'no' : op.auth.kind === 'agent' ? 'agent' : op.kind === 'write' && g.testToken ? 'test' : 'live'
  const credential = () => (kind === 'agent' ? agent.credential.next() : kind === 'test' ? target.test.next() : kind === 'live' ? target.live.next() : Promise.resolve(undefined))
  const headers: Record<string, string> = g.idempotencyKey === undefined ? {} : { 'Idempotency-Key': g.idempotencyKey }

  // A real cursor, sometimes: the first page of the same list and filter, one item long.
  if (op.kind === 'list' && g.realCursor && g.target === 'demo') {
    const { param } = cursorNames(op.paging)
    if (query[param] !== undefined) {
      const { [param]: _, limit: __, ...filter } = query
      const first = { method: 'GET', path: pathWith(op, { ...filter, limit: 1 }), credential: kind, target: g.target, headers: {} }
      const page = await sendAndJudge(op, first, await credential())
      const next = page.body?.meta?.nextCursor ?? page.body?.meta?.nextBefore
      if (typeof next === 'string') query[param] = next
    }
  }
  const sent: Sent = { method: op.method, path: pathWith(op, query), credential: kind, target: g.target, headers, body }
  await sendAndJudge(op, sent, await credential())
}

const hash = (s: string) => [...s].reduce((h, ch) => (Math.imul(h, 31) + ch.charCodeAt(0)) | 0, 7)
const seedOf = (op: Operation) => (BASE_SEED ^ hash(op.operationId)) | 0
const hasInput = (op: Operation) => {
  const d = describedOf(op)
  return d.query.length > 0 || d.body !== undefined
}

afterAll(() => {
  const seconds = ((Date.now() - startedAt) / 1000).toFixed(1)
  const table = Object.entries(statuses).map(([id, counts]) => `  ${id}: ${Object.entries(counts).map(([s, n]) => `${s}×${n}`).join(' ')}`)
  console.log(`fuzz: ${requestsSent} requests judged (and ${setupRequests} of setup) in ${seconds} s (FUZZ_SEED=${BASE_SEED}, FUZZ_RUNS=${RUNS})\n${table.join('\n')}`)
})

// ---------------------------------------------------------------------------------------------

describe('the examples of the document', () => {
  /** The example ids (routes/examples.ts) and the demo workspace's real ones for them. */
  async function realIds(): Promise<Map<string, string>> {
    const { demo, target } = await demoTarget()
    const { sql } = await getHarness()
    const ws = demo.workspace.id
    const [campaign] = await sql<{ id: string }[]>`
      SELECT id FROM campaigns WHERE workspace_id = ${ws} AND status = 'active' AND daily_budget_minor > 0 ORDER BY id LIMIT 1`
    const [authorization] = await sql<{ id: string }[]>`
      SELECT r.id FROM agent_requests r WHERE r.workspace_id = ${ws} AND r.agent_id = ${demo.agents[0]!.id} AND r.decision = 'allowed'
        AND NOT EXISTS (SELECT 1 FROM agent_results x WHERE x.workspace_id = r.workspace_id AND x.authorization_id = r.id)
      ORDER BY r.id DESC LIMIT 1`
    const first = (prefix: string) => target.pool.ids[prefix]?.[0]
    const real: Record<keyof typeof EXAMPLE, string | undefined> = {
      mission: first('msn'),
      decision: demo.fixtures.decisionId,
      abTest: demo.fixtures.openAbTestId,
      emailSend: demo.fixtures.emailSendId,
      campaign: campaign?.id,
      list: demo.fixtures.listId,
      segment: first('seg'),
      agent: demo.agents[0]!.id,
      authorization: authorization?.id,
    }
    const map = new Map<string, string>()
    for (const [name, id] of Object.entries(EXAMPLE)) {
      const found = real[name as keyof typeof EXAMPLE]
      if (!found) throw new Error(`the demo workspace has no ${name} to stand in for the example id ${id}`)
      map.set(id, found)
    }
    return map
  }

  /** The example with real ids; a body's own `email` (track's: a contact of the workspace) becomes a real contact's. */
  const swapIds = (v: unknown, ids: Map<string, string>, demo: DemoWorkspace, top = true): unknown => {
    if (typeof v === 'string') return ids.get(v) ?? v
    if (Array.isArray(v)) return v.map((x) => swapIds(x, ids, demo, false))
    if (v && typeof v === 'object') {
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, top && k === 'email' ? demo.fixtures.contactEmail : swapIds(x, ids, demo, false)]))
    }
    return v
  }

  for (const op of operations) {
    test(`${op.operationId}: its example is valid by the document and, with real ids, not refused with 400`, async () => {
      const described = describedOf(op)
      const problems: string[] = []
      let query: Record<string, string> = {}
      let body: unknown
      if (op.kind === 'write') {
        const v = validate(described.body!, op.example.body)
        if (!v.valid) problems.push(`example body is invalid: ${v.errors}`)
        body = op.example.body
      } else {
        query = op.example?.query ?? {}
        for (const [name, raw] of Object.entries(query)) {
          const p = described.query.find((q) => q.name === name)
          if (!p) problems.push(`example query names ${name}, which is not a parameter`)
          // Query values are text; the parameter's schema describes the value they stand for.
          else if (!validate(p.schema, ['integer', 'number'].includes(p.schema.type) ? Number(raw) : raw).valid) problems.push(`example ${name}=${raw} is invalid: ${validate(p.schema, raw).errors}`)
        }
      }
      expect(problems).toEqual([])

      const { demo, target } = await demoTarget()
      const ids = await realIds()
      const realQuery = swapIds(query, ids, demo) as Record<string, string>
      const realBody = body === undefined ? undefined : swapIds(body, ids, demo)
      if (realBody !== undefined) expect(validate(described.body!, realBody).errors).toBe('')
      const kind = op.auth.kind === 'public' ? 'no' : op.auth.kind === 'agent' ? 'agent' : 'live'
      const token = kind === 'agent' ? await target.agents[0]!.credential.next() : kind === 'live' ? await target.live.next() : undefined
      const sent: Sent = { method: op.method, path: pathWith(op, realQuery), credential: kind, target: 'demo', headers: {}, body: realBody }
      const answer = await sendAndJudge(op, sent, token)
      if (answer.status === 400) throw new Error(`${op.operationId}: its example was refused: ${answer.text}`)
    })
  }
})

describe('requests the OpenAPI document calls valid', () => {
  for (const op of operations) {
    const runs = hasInput(op) ? RUNS : RUNS_WITHOUT_INPUT
    test(
      `${op.operationId}: answered, or refused only by a rule it declares (${runs} requests)`,
      async () => {
        const seed = seedOf(op)
        try {
          await fc.assert(
            fc.asyncProperty(requestArbitrary(op), (g) => fuzzOnce(op, g)),
            { seed, numRuns: runs },
          )
        } catch (err) {
          // fast-check keeps the failure of the smallest request as the cause: show it first.
          const cause = (err as Error).cause instanceof Error ? `${((err as Error).cause as Error).message}\n\n` : ''
          throw new Error(`${cause}${(err as Error).message}\n\nReplay: FUZZ_SEED=${BASE_SEED} FUZZ_RUNS=${RUNS} (seed of ${op.operationId}: ${seed})`)
        }
      },
      // Generous: a failing property shrinks, sending more requests.
      Math.max(60_000, runs * 1_000),
    )
  }
})

// The generator keeps strings short (test/support/arbitraries.ts), so the fuzzing above never sends
// text at the longest the document allows. Here, without a server, every string of generated requests
// (values and member names) is stretched as far as the document still allows, with an emoji (one code
// point, two UTF-16 units), a space (which the server trims) or a plain letter, and the server's own
// schemas (the body's, the query's) must take the result: lengths counted, and text trimmed, as the
// document says.
describe('text at the longest the OpenAPI document allows', () => {
  const PADS = ['😀', ' ', 'x']
  const LONGEST = 4096

  /** The largest k in 0..LONGEST for which ok(k) holds, given ok(0); validity only shrinks as text grows. */
  function largest(ok: (k: number) => boolean): number {
    if (ok(LONGEST)) return LONGEST
    let [lo, hi] = [0, LONGEST]
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1
      if (ok(mid)) lo = mid
      else hi = mid
    }
    return lo
  }

  /**
   * `root` with each string inside it (and, with `names`, each member name) in turn made as long as
   * `valid` allows by appending `pad`.
   */
  function stretched(root: unknown, valid: (v: unknown) => boolean, pad: string, names: boolean): unknown {
    const copy = structuredClone(root)
    const walk = (node: any) => {
      if (Array.isArray(node)) {
        node.forEach((v, i) => {
          if (typeof v !== 'string') return walk(v)
          node[i] = v + pad.repeat(largest((n) => ((node[i] = v + pad.repeat(n)), valid(copy))))
        })
      } else if (node && typeof node === 'object') {
        for (const name of Object.keys(node)) {
          const v = node[name]
          if (typeof v !== 'string') walk(v)
          else node[name] = v + pad.repeat(largest((n) => ((node[name] = v + pad.repeat(n)), valid(copy))))
        }
        if (!names) return
        for (const original of Object.keys(node)) {
          let current = original
          // Renamed in place (the order of members kept); never onto another member's name.
          const rename = (to: string) => {
            if (to !== current && Object.hasOwn(node, to)) return false
            const entries = Object.entries(node)
            for (const k of Object.keys(node)) delete node[k]
            for (const [k, v] of entries) node[k === current ? to : k] = v
            current = to
            return true
          }
          const k = largest((n) => rename(original + pad.repeat(n)) && valid(copy))
          rename(original + pad.repeat(k))
        }
      }
    }
    walk(copy)
    return copy
  }

  for (const op of operations) {
    const described = describedOf(op)
    if (!described.body && !described.query.some((p) => p.schema.type === 'string')) continue
    test(`${op.operationId}: the server's schemas take what the document takes`, () => {
      const seed = seedOf(op)
      const samples = fc.sample(requestArbitrary(op), { numRuns: 40, seed })
      const problems: string[] = []
      for (const [i, g] of samples.entries()) {
        for (const pad of PADS) {
          if (op.kind === 'write') {
            const body = stretched(g.body, (v) => validate(described.body!, v).valid, pad, true)
            const parsed = op.body.schema.safeParse(body)
            if (!parsed.success) problems.push(`sample ${i}, padded with ${JSON.stringify(pad)}: body ${JSON.stringify(body).slice(0, 300)}... refused: ${parsed.error.issues.map((x: { path: PropertyKey[]; message: string }) => `${x.path.join('.')}: ${x.message}`).join('; ')}`)
          } else {
            const schemaOf = (name: string) => described.query.find((p) => p.name === name)!.schema
            const query = stretched(g.query, (q) => Object.entries(q as Json).every(([k, v]) => validate(schemaOf(k), v).valid), pad, false) as Json
            const raw = Object.fromEntries(Object.entries(query).map(([k, v]) => [k, String(v)]))
            const parsed = querySchemaOf(op).safeParse(raw)
            if (!parsed.success) problems.push(`sample ${i}, padded with ${JSON.stringify(pad)}: query ${JSON.stringify(raw).slice(0, 300)} refused: ${parsed.error.issues.map((x: { path: PropertyKey[]; message: string }) => `${x.path.join('.')}: ${x.message}`).join('; ')}`)
          }
        }
      }
      if (problems.length) throw new Error(`${op.operationId}: the document allows what the server's schema refuses (seed ${seed}):\n${problems.slice(0, 5).join('\n')}`)
    }, 60_000)
  }
})
