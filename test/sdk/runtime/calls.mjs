// A user's program, in plain JavaScript: every SDK method against a running server, under Node.js,
// Bun or Deno. It asserts nothing itself: it prints one JSON object with what each call gave
// (data, statuses, codes, request ids, ids of every page), and test/sdk/package.test.ts compares.
// Input: the SCENARIO environment variable (JSON): baseUrl, credentials and the demo's fixtures.
import * as sdk from '@growth-service/sdk'

const { Growth, Page, PagePromise, APIPromise, isSimulated } = sdk

const env = (name) => (globalThis.Deno ? globalThis.Deno.env.get(name) : globalThis.process.env[name])
const S = JSON.parse(env('SCENARIO'))
const { baseUrl, fixtures: F } = S

/**
 * Every error class the SDK exports, read from its exports (so a new one is among them), the most
 * general first: an error's classes read from GrowthError down to its own.
 */
const depth = (cls) => (cls === Error ? 0 : 1 + depth(Object.getPrototypeOf(cls)))
const ERROR_CLASSES = Object.keys(sdk)
  .filter((name) => typeof sdk[name] === 'function' && sdk[name].prototype instanceof Error)
  .sort((a, b) => depth(sdk[a]) - depth(sdk[b]) || a.localeCompare(b))

/** What an error is: every SDK error class it is an instance of, and what it carries. */
function describeError(e) {
  if (!(e instanceof Error)) return { thrown: String(e) }
  return {
    name: e.name,
    classes: ERROR_CLASSES.filter((n) => e instanceof sdk[n]),
    status: e.status,
    code: e.code,
    message: e.message,
    requestId: e.requestId,
    headerRequestId: e.headers?.['x-request-id'],
    retryAfter: e.retryAfter,
    retryAfterHeader: e.headers?.['retry-after'],
  }
}

/** The refusal a call ends in (or what it resolved to, which the test reports as a failure). */
async function refusal(fn) {
  try {
    const value = await fn()
    return { resolved: value instanceof Page ? { page: value.data } : value }
  } catch (e) {
    return describeError(e)
  }
}

/** The same GET without the SDK. */
async function bare(path, query = {}, token = S.live) {
  const params = new URLSearchParams(Object.entries(query).filter(([, v]) => v !== undefined).map(([k, v]) => [k, String(v)]))
  const text = params.toString()
  const response = await fetch(`${baseUrl}${path}${text ? `?${text}` : ''}`, { headers: { Authorization: `Bearer ${token}` } })
  const body = await response.json()
  return { status: response.status, body, headers: Object.fromEntries(response.headers) }
}

const idOf = (item) => item.id ?? item.key
const growth = new Growth({ token: S.live, baseUrl })
const testGrowth = new Growth({ token: S.test, baseUrl })
const agentGrowth = new Growth({ token: S.agent, baseUrl })
/** For refusals that are retried by default (409, 429): one attempt. */
const once = new Growth({ token: S.live, baseUrl, maxRetries: 0 })
const out = { runtime: S.runtime, versions: { node: globalThis.process?.versions?.node, bun: globalThis.Bun?.version, deno: globalThis.Deno?.version?.deno } }

// ---------------------------------------------------------------------------------------------
// 3. Paging: every list, walked with for await, with hasNextPage()/nextPage(), and with
// iterPages(), at a limit that makes at least three pages, against one unpaged fetch.
// Done first, before anything below adds to the lists.

/** Decisions page at most 100 a time: a mission with fewer than 100 of them. */
async function smallMission() {
  for (const m of (await bare('/missions')).body.data) {
    const page = await bare('/decisions', { missionId: m.id, limit: 100 })
    if (!page.body.meta?.nextCursor && page.body.data.length >= 3) return m.id
  }
  throw new Error('no mission with 3..100 decisions')
}

const LISTS = {
  'missions.list': { call: (q) => growth.missions.list(q), path: '/missions', max: 500 },
  'decisions.list': { call: (q) => growth.decisions.list(q), path: '/decisions', max: 100, query: { missionId: await smallMission() } },
  'experiments.list': { call: (q) => growth.experiments.list(q), path: '/experiments', max: 500 },
  'signals.list': { call: (q) => growth.signals.list(q), path: '/signals', max: 500 },
  'opportunities.list': { call: (q) => growth.opportunities.list(q), path: '/opportunities', max: 500 },
  'approvals.list': { call: (q) => growth.approvals.list(q), path: '/approvals', max: 100 },
  'actions.list': { call: (q) => growth.actions.list(q), path: '/actions', max: 100 },
  'customers.list': { call: (q) => growth.customers.list(q), path: '/customers', max: 500 },
  'connections.list': { call: (q) => growth.connections.list(q), path: '/connections', max: 500 },
  'events.list': { call: (q) => growth.events.list(q), path: '/events', max: 100, query: { type: 'signal.created' } },
  'agents.list': { call: (q) => growth.agents.list(q), path: '/agents', max: 500 },
  'agents.tools': { call: (q) => growth.agents.tools(q), path: '/agents/tools', max: 500 },
  'agents.rules': { call: (q) => growth.agents.rules(q), path: '/agents/rules', max: 500 },
  'agents.requests': { call: (q) => growth.agents.requests(q), path: '/agents/requests', max: 100 },
  // The request log grows with every call, this walk's own too: walked over the missions calls made above.
  'logs.list': { call: (q) => growth.logs.list(q), path: '/logs', max: 100, query: { operation: 'listMissions' } },
}

async function walk({ call, path, max, query = {} }) {
  const unpaged = await bare(path, { ...query, limit: max })
  const unpagedIds = unpaged.body.data.map(idOf)
  const limit = Math.max(1, Math.floor(unpagedIds.length / 3))
  const q = { ...query, limit }
  // A walk that has not ended after more pages than there are items never will (the same position
  // served again): stop it, and report it, rather than spend the hour's calls.
  const most = unpagedIds.length + 2
  let runaway = false

  const forAwait = []
  for await (const item of call(q)) {
    forAwait.push(idOf(item))
    if (forAwait.length > most * limit) {
      runaway = true
      break
    }
  }

  const first = await call(q)
  const manual = []
  const manualSizes = []
  let page = first
  for (;;) {
    manualSizes.push(page.data.length)
    manual.push(...page.data.map(idOf))
    if (!page.hasNextPage()) break
    if (manualSizes.length > most) {
      runaway = true
      break
    }
    page = await page.nextPage()
  }
  let lastNextPage = 'resolved'
  try {
    page.nextPage()
  } catch (e) {
    lastNextPage = e.message
  }

  const iterated = []
  const iterSizes = []
  for await (const p of (await call(q)).iterPages()) {
    iterSizes.push(p.data.length)
    iterated.push(...p.data.map(idOf))
    if (iterSizes.length > most) {
      runaway = true
      break
    }
  }
  return {
    status: unpaged.status,
    unpagedIds,
    unpagedMeta: unpaged.body.meta ?? null,
    limit,
    runaway,
    forAwait,
    manual,
    manualSizes,
    iterated,
    iterSizes,
    firstIsPage: first instanceof Page,
    firstHasNextPage: first.hasNextPage(),
    lastHasNextPage: page.hasNextPage(),
    lastNextPage,
  }
}

out.paging = {}
for (const [name, list] of Object.entries(LISTS)) out.paging[name] = await walk(list)

// ---------------------------------------------------------------------------------------------
// 1. Every method's happy path, resolving to the answer's data (beside the same GET without the SDK).

const revenueRange = { from: '2026-01-01T00:00:00.000Z', to: '2026-12-31T00:00:00.000Z' }
const READS = {
  'missions.list': [() => growth.missions.list(), '/missions'],
  'decisions.list': [() => growth.decisions.list({ limit: 5 }), '/decisions', { limit: 5 }],
  'experiments.list': [() => growth.experiments.list(), '/experiments'],
  'signals.list': [() => growth.signals.list({ status: 'resolved' }), '/signals', { status: 'resolved' }],
  'opportunities.list': [() => growth.opportunities.list({ status: 'actioned' }), '/opportunities', { status: 'actioned' }],
  'outcomes.get': [() => growth.outcomes.get(), '/outcomes'],
  'approvals.list': [() => growth.approvals.list({ status: 'pending' }), '/approvals', { status: 'pending' }],
  'actions.list': [() => growth.actions.list(), '/actions'],
  'customers.list': [() => growth.customers.list({ stage: 'repeat' }), '/customers', { stage: 'repeat' }],
  'revenue.get': [() => growth.revenue.get(revenueRange), '/revenue', revenueRange],
  'usage.get': [() => growth.usage.get(), '/usage'],
  'connections.list': [() => growth.connections.list(), '/connections'],
  'events.list': [() => growth.events.list({ type: 'decision.recorded', limit: 7 }), '/events', { type: 'decision.recorded', limit: 7 }],
  'agents.list': [() => growth.agents.list(), '/agents'],
  'agents.tools': [() => growth.agents.tools(), '/agents/tools'],
  'agents.rules': [() => growth.agents.rules(), '/agents/rules'],
  'agents.requests': [() => growth.agents.requests({ status: 'allowed', limit: 4 }), '/agents/requests', { status: 'allowed', limit: 4 }],
  'agent.me': [() => agentGrowth.agent.me(), '/agent/me', {}, S.agent],
  'logs.list': [() => growth.logs.list({ operation: 'listMissions', status: '2xx', limit: 3 }), '/logs', { operation: 'listMissions', status: '2xx', limit: 3 }],
}
out.reads = {}
for (const [name, [fn, path, query, token]] of Object.entries(READS)) {
  const promise = fn()
  const value = await promise
  const isList = value instanceof Page
  const direct = await bare(path, query, token)
  out.reads[name] = {
    promiseKind: promise instanceof PagePromise ? 'PagePromise' : promise instanceof APIPromise ? 'APIPromise' : typeof promise,
    isList,
    data: isList ? value.data : value,
    meta: isList ? (value.meta ?? null) : undefined,
    bare: { status: direct.status, data: direct.body.data, meta: direct.body.meta ?? null },
  }
}

// Writes with the live token and the agent credential.
const experimentBody = {
  hypothesis: `Subject line A wins on opens (${S.runtime}).`,
  kind: 'email_ab_test',
  subjectId: F.openAbTestId,
  expectation: 'a_better',
}
const newEmail = `sdk-${S.runtime}-${Date.now()}@example.com`
const authorized = await agentGrowth.agent.authorize({ tool: 'ads', action: 'pause_campaign', resource: F.campaignId, summary: 'Pause the campaign overnight.' })
out.writes = {
  'experiments.create': await growth.experiments.create(experimentBody),
  'actions.create': await growth.actions.create({ kind: 'pause_campaign', args: { campaignId: F.campaignId } }),
  'contacts.import': await growth.contacts.import({ contacts: [{ email: newEmail, name: 'Sam Example', tags: ['sdk'] }] }),
  track: await growth.track({ event: F.trackedEvent, email: F.contactEmail, properties: { runtime: S.runtime } }),
  'agent.authorize': authorized,
  'agent.result': await agentGrowth.agent.result({ authorizationId: authorized.authorizationId, status: 'completed', summary: 'Paused.' }),
}
out.afterWrites = {
  experimentIds: (await bare('/experiments')).body.data.map(idOf),
  actionIds: (await bare('/actions', { limit: 100 })).body.data.map(idOf),
  newEmail,
  contactEvents: (await bare('/events', { type: 'contact.created', limit: 100 })).body.data.map((e) => e.data?.contact?.email),
  requestIds: (await bare('/agents/requests', { agentId: S.agentId, limit: 100 })).body.data.map(idOf),
}

// Each method's typical refusal.
out.refusals = {
  'missions.list': await refusal(() => growth.missions.list({ limit: 0 })),
  'decisions.list': await refusal(() => growth.decisions.list({ missionId: 'dec_01notamission' })),
  'experiments.list': await refusal(() => growth.experiments.list({ cursor: 'not-a-cursor-this-api-issued' })),
  'experiments.create': await refusal(() => growth.experiments.create({ ...experimentBody, hypothesis: 'short' })),
  'signals.list': await refusal(() => growth.signals.list({ status: 'ignored' })),
  'opportunities.list': await refusal(() => growth.opportunities.list({ status: 'maybe' })),
  'outcomes.get': await refusal(() => new Growth({ token: S.scoped, baseUrl }).outcomes.get()),
  'approvals.list': await refusal(() => growth.approvals.list({ status: 'waiting' })),
  'actions.list': await refusal(() => growth.actions.list({ limit: 101 })),
  'actions.create': await refusal(() => growth.actions.create({ kind: 'launch_rocket', args: {} })),
  'contacts.import': await refusal(() => growth.contacts.import({ contacts: [{ email: 'someone@example.com', colour: 'blue' }] })),
  track: await refusal(() => growth.track({ event: F.trackedEvent, email: 'nobody-at-all@example.com' })),
  'customers.list': await refusal(() => growth.customers.list({ stage: 'vip' })),
  'revenue.get': await refusal(() => growth.revenue.get({ from: 'yesterday' })),
  'usage.get': await refusal(() => agentGrowth.usage.get()),
  'connections.list': await refusal(() => new Growth({ token: S.scopedGrowth, baseUrl }).connections.list()),
  'events.list': await refusal(() => growth.events.list({ type: 'no.such.event' })),
  'agents.list': await refusal(() => new Growth({ token: S.scoped, baseUrl }).agents.list()),
  'agents.tools': await refusal(() => agentGrowth.agents.tools()),
  'agents.rules': await refusal(() => growth.agents.rules({ limit: 501 })),
  'agents.requests': await refusal(() => growth.agents.requests({ agentId: 'agt_doesnotexist' })),
  'agent.authorize': await refusal(() => agentGrowth.agent.authorize({ tool: 'ads', action: 'pause_campaign', facts: { colour: 'red' } })),
  'agent.result': await refusal(() => agentGrowth.agent.result({ authorizationId: 'auth_doesnotexist', status: 'completed' })),
  'agent.me': await refusal(() => growth.agent.me()),
  'logs.list': await refusal(() => growth.logs.list({ status: '6xx' })),
}

// ---------------------------------------------------------------------------------------------
// 2. Each error class, with status, code, message and request id.

const idemKey = `caller-${S.runtime}-${crypto.randomUUID()}`
const pauseBody = { kind: 'pause_campaign', args: { campaignId: F.campaignId } }
const actionsBefore = (await bare('/actions', { limit: 100 })).body.data.map(idOf)
const firstWrite = await growth.actions.create(pauseBody, { idempotencyKey: idemKey }).withResponse()
const secondWrite = await growth.actions.create(pauseBody, { idempotencyKey: idemKey }).withResponse()
const actionsAfter = (await bare('/actions', { limit: 100 })).body.data.map(idOf)
const summary = (w) => ({ status: w.response.status, replayed: w.replayed, id: w.data.id, requestId: w.requestId, headerRequestId: w.response.headers.get('x-request-id') })
out.idempotency = { key: idemKey, first: summary(firstWrite), second: summary(secondWrite), actionsBefore, actionsAfter }

out.errors = {
  badRequest: await refusal(() => growth.experiments.create({ ...experimentBody, colour: 'blue' })),
  authentication: await refusal(() => new Growth({ token: 'svc_live_thisisnotatoken', baseUrl }).missions.list()),
  planRequired: await refusal(() => new Growth({ token: S.starter, baseUrl }).missions.list()),
  permissionDenied: await refusal(() => new Growth({ token: S.scoped, baseUrl }).missions.list()),
  notFound: await refusal(() => growth.decisions.list({ missionId: 'msn_doesnotexist' })),
  conflict: await refusal(() => once.experiments.create({ ...experimentBody, subjectId: F.decidedAbTestId })),
  conflictResult: await refusal(() => agentGrowth.agent.result({ authorizationId: authorized.authorizationId, status: 'completed' }, { maxRetries: 0 })),
  idempotencyKeyReused: await refusal(() => growth.actions.create({ kind: 'resume_campaign', args: { campaignId: F.campaignId } }, { idempotencyKey: idemKey })),
}

// ---------------------------------------------------------------------------------------------
// 4. A test token's writes: { simulated: true }, and nothing recorded.

/** The position after the newest event: what comes after it is what was recorded since. */
async function eventsEnd() {
  let position
  for await (const p of (await growth.events.list({ limit: 100 })).iterPages()) position = p.meta?.nextCursor ?? position
  return position
}
const allowances = async () => (await growth.usage.get()).allowances.map(({ name, used }) => ({ name, used }))
const before = {
  experiments: (await bare('/experiments')).body.data.map(idOf),
  actions: (await bare('/actions', { limit: 100 })).body.data.map(idOf),
  allowances: await allowances(),
  eventsEnd: await eventsEnd(),
}
const simulatedEmail = `simulated-${S.runtime}-${Date.now()}@example.com`
const simulatedWrite = await testGrowth.experiments.create(experimentBody).withResponse()
out.simulated = {
  'experiments.create': simulatedWrite.data,
  experimentsCreateStatus: simulatedWrite.response.status,
  experimentsCreateMode: simulatedWrite.response.headers.get('x-service-mode'),
  'actions.create': await testGrowth.actions.create(pauseBody),
  'contacts.import': await testGrowth.contacts.import({ contacts: [{ email: simulatedEmail }] }),
  track: await testGrowth.track({ event: F.trackedEvent, email: F.contactEmail }),
  isSimulated: isSimulated(simulatedWrite.data),
  // Checked exactly as a live write: a refusal is still a refusal.
  refused: await refusal(() => testGrowth.experiments.create({ ...experimentBody, subjectId: F.decidedAbTestId }, { maxRetries: 0 })),
  // A test token reads what a live one reads.
  reads: (await testGrowth.missions.list()).data.map(idOf),
}
out.simulated.before = before
out.simulated.after = {
  experiments: (await bare('/experiments')).body.data.map(idOf),
  actions: (await bare('/actions', { limit: 100 })).body.data.map(idOf),
  allowances: await allowances(),
  eventsSince: (await bare('/events', { after: before.eventsEnd, limit: 100 })).body.data.map((e) => e.event),
}
// The same writes with the live token are recorded: what the check above would have seen.
await growth.contacts.import({ contacts: [{ email: simulatedEmail }] })
out.simulated.liveAfter = {
  allowances: await allowances(),
  eventsSince: (await bare('/events', { after: before.eventsEnd, limit: 100 })).body.data.map((e) => e.event),
}

// ---------------------------------------------------------------------------------------------
// 5. withResponse(): data with the Response, request id, rate limit and replayed.

const rateOf = (w) => ({
  requestId: w.requestId,
  status: w.response.status,
  bodyUsed: w.response.bodyUsed,
  replayed: w.replayed,
  rateLimit: w.rateLimit && { limit: w.rateLimit.limit, remaining: w.rateLimit.remaining, resetAt: w.rateLimit.resetAt.toISOString(), isDate: w.rateLimit.resetAt instanceof Date },
  headers: {
    requestId: w.response.headers.get('x-request-id'),
    limit: w.response.headers.get('x-ratelimit-limit'),
    remaining: w.response.headers.get('x-ratelimit-remaining'),
    reset: w.response.headers.get('x-ratelimit-reset'),
  },
})
const usageWith = await growth.usage.get().withResponse()
const listWith = await growth.missions.list({ limit: 2 }).withResponse()
const agentWith = await agentGrowth.agent.me().withResponse()
out.withResponse = {
  usage: { ...rateOf(usageWith), dataKeys: Object.keys(usageWith.data).sort() },
  missions: { ...rateOf(listWith), isPage: listWith.data instanceof Page, ids: listWith.data.data.map(idOf), hasNextPage: listWith.data.hasNextPage() },
  agentMe: { ...rateOf(agentWith), agentId: agentWith.data.agent.id },
  // Awaiting the same call gives its data alone.
  awaitedUsageKeys: Object.keys(await growth.usage.get()).sort(),
}

console.log(JSON.stringify(out))
