import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020'
import addFormats from 'ajv-formats'
import { EVENT_TYPES } from '../../server/src/core/event-types.ts'
import { createDemoWorkspace } from '../../server/src/demo/index.ts'
import { sendTestEvent } from '../../server/src/domain/webhooks.ts'
import { authorize, report, ruleIn } from '../agent-helpers.ts'
import { growthIn, jsonOf } from '../cli/run.ts'
import { insertAbTest } from '../fixtures.ts'
import { call, getHarness, makeWorkspace } from '../harness.ts'
import { eventProblems } from '../support/event-models.ts'
import { endpoint, importContacts, receiver, rig, type Rig, until } from '../webhooks/support.ts'

/**
 * Every event type's body (CONTRACT: the OpenAPI document's top-level `webhooks`), checked black box:
 * the document served at /api/v1/openapi.json is compiled by a JSON Schema validator (ajv, draft
 * 2020-12), and every event the demo workspace emitted (as GET /events returns it) and a few real
 * deliveries (as a receiver gets them) must validate against the schema of their type. An emitter
 * that renames, drops or adds a field fails here.
 */

let doc: any
const ajv = new Ajv2020({ strict: false, allErrors: true })
addFormats(ajv)
const validators = new Map<string, ValidateFunction>()

function validatorOf(type: string): ValidateFunction {
  let v = validators.get(type)
  if (!v) {
    const ref = doc.webhooks[type]?.post?.requestBody?.content?.['application/json']?.schema?.$ref as string | undefined
    if (!ref) throw new Error(`the OpenAPI document has no webhooks entry for ${type}`)
    v = ajv.getSchema(`openapi${ref}`)!
    validators.set(type, v)
  }
  return v
}

/** The errors of one event against its type's schema, readable in a failure ('' when valid). */
function problemsOf(event: any): string {
  const v = validatorOf(event.event)
  return v(event) ? '' : `${event.event} ${event.id}: ${ajv.errorsText(v.errors, { dataVar: 'event' })}`
}

async function allEvents(token: string) {
  const out: any[] = []
  let after: string | undefined
  do {
    const page = await call('GET', `/api/v1/events?limit=100${after ? `&after=${encodeURIComponent(after)}` : ''}`, { token })
    expect(page.status).toBe(200)
    out.push(...page.body.data)
    after = page.body.data.length === 100 ? page.body.meta.nextCursor : undefined
  } while (after)
  return out
}

let r: Rig
beforeAll(async () => {
  const got = await call('GET', '/api/v1/openapi.json')
  expect(got.status).toBe(200)
  doc = got.body
  ajv.addSchema(doc, 'openapi')
  r = await rig({ WEBHOOK_RETRY_SCHEDULE: '100ms' })
})
afterAll(() => r?.done())

describe('the OpenAPI document names every event type with its body', () => {
  test('one webhooks entry per event type, a POST whose body is the event object with its own type and payload', () => {
    expect(Object.keys(doc.webhooks).sort()).toEqual([...EVENT_TYPES].sort())
    for (const type of EVENT_TYPES) {
      const schema = doc.components.schemas[doc.webhooks[type].post.requestBody.content['application/json'].schema.$ref.split('/').pop()]
      expect(schema.required).toEqual(['id', 'event', 'createdAt', 'workspaceId', 'data'])
      expect(schema.properties.event.const).toBe(type)
      expect(schema.properties.data.type).toBe('object')
    }
  })

  test('every event type has an example, captured from a real emission, that validates against its own schema', () => {
    for (const type of EVENT_TYPES) {
      const example = doc.webhooks[type].post.requestBody.content['application/json'].example
      expect(example?.event).toBe(type)
      expect(example.id).toMatch(/^evt_/)
      expect(problemsOf(example)).toBe('')
    }
  })

  test('the schemas refuse a body of another type, a missing field and a field the emitters never send', () => {
    const event = { id: 'evt_1', event: 'webhook.test', createdAt: '2026-11-20T09:30:00.000Z', workspaceId: 'ws_1', data: { endpoint: { id: 'whe_1', url: 'https://x.example/h' } } }
    expect(problemsOf(event)).toBe('')
    expect(validatorOf('contact.created')(event)).toBe(false)
    expect(problemsOf({ ...event, data: { endpoint: { id: 'whe_1' } } })).toContain('url')
    expect(problemsOf({ ...event, data: { endpoint: { ...event.data.endpoint, secret: 'x' } } })).toContain('additional')
  })
})

describe('the API reference tells a receiver what a delivery carries and how to check it', () => {
  const headerNames = ['X-Service-Signature', 'X-Service-Event-Id', 'X-Service-Delivery-Id', 'webhook-id', 'webhook-timestamp', 'webhook-signature']
  /** The header parameters of one webhooks entry, $refs followed. */
  const headersOf = (type: string) =>
    (doc.webhooks[type].post.parameters ?? []).map((p: any) => (p.$ref ? doc.components.parameters[p.$ref.split('/').pop()] : p)).filter((p: any) => p.in === 'header')

  test("every webhooks entry declares the delivery's headers, required, each with what it holds; 410 Gone is told apart from other answers", () => {
    for (const type of EVENT_TYPES) {
      const headers = headersOf(type)
      expect([type, headers.map((h: any) => h.name)]).toEqual([type, headerNames])
      for (const h of headers) {
        expect(h.required).toBe(true)
        expect(h.description.length).toBeGreaterThan(20)
        expect(h.schema.pattern).toBeString()
      }
      expect(doc.webhooks[type].post.responses['410'].description).toContain('disables the endpoint')
    }
  })

  test('a real delivery carries every declared header, each matching its pattern', async () => {
    const rx = receiver()
    try {
      const e = await endpoint(r, rx.url, 'webhook.test')
      await sendTestEvent((await getHarness()).sql, e.id)
      await until('the delivery', () => rx.got.length >= 1)
      expect(headersOf('webhook.test')).toHaveLength(headerNames.length)
      for (const h of headersOf('webhook.test')) expect([h.name, new RegExp(h.schema.pattern).test(rx.got[0]!.headers[h.name.toLowerCase()] ?? '')]).toEqual([h.name, true])
    } finally {
      rx.stop()
    }
  })

  test("the document's description has a Webhooks section: both signatures and their keys, the tolerance, deduplication, retries, 410, test mode, the SDK", () => {
    const text: string = doc.info.description
    const section = text.slice(text.indexOf('## Webhooks'))
    expect(text).toContain('## Webhooks')
    for (const fact of ['X-Service-Signature', 'webhook-signature', 'whsec_', 'raw body', '5 minutes', 'webhook-id', '5s, 5m, 30m, 2h, 5h, 10h and 10h', 'Retry-After', '410 Gone', 'test token', 'Webhooks.verify', 'growth admin webhook'])
      expect([fact, section.includes(fact)]).toEqual([fact, true])
  })
})

test("the receivers' check (test/support/event-models.ts) passes a valid body and names the type and the difference of any other", () => {
  const event = { id: 'evt_1', event: 'webhook.test', createdAt: '2026-11-20T09:30:00.000Z', workspaceId: 'ws_1', data: { endpoint: { id: 'whe_1', url: 'https://x.example/h' } } }
  expect(eventProblems(JSON.stringify(event))).toBe('')
  expect(eventProblems(JSON.stringify({ ...event, data: { endpoint: { ...event.data.endpoint, secret: 'x' } } }))).toStartWith(
    "a webhook.test event (evt_1) that its schema in the OpenAPI document's webhooks does not allow: event/data/endpoint must NOT have additional properties",
  )
  expect(eventProblems(JSON.stringify({ ...event, event: 'contact.created' }))).toContain('a contact.created event (evt_1)')
  expect(eventProblems(JSON.stringify({ ...event, event: 'contact.deleted' }))).toStartWith("a webhook body of an event type the OpenAPI document's webhooks do not name (\"contact.deleted\")")
  expect(eventProblems('{"id":')).toStartWith('a webhook body that is not JSON')
})

describe('every emitted event validates against the schema of its type', () => {
  test('the demo workspace: every event type but the ones only an operator emits, each event valid', async () => {
    const { sql } = await getHarness()
    const demo = await createDemoWorkspace(sql)
    const events = await allEvents(demo.tokens.live)
    const problems = events.map(problemsOf).filter(Boolean)
    expect(problems.slice(0, 5)).toEqual([])
    const seen = new Set(events.map((e) => e.event))
    expect(EVENT_TYPES.filter((t) => !seen.has(t))).toEqual(['agent.policy.changed', 'webhook.test'])
  }, 60_000)

  test('real deliveries: the body a receiver gets validates, for a test delivery and for contacts added through the API', async () => {
    const rx = receiver()
    try {
      const e = await endpoint(r, rx.url, 'contact.created,webhook.test')
      await importContacts(r.ws, 2, 'payload')
      await sendTestEvent((await getHarness()).sql, e.id)
      await until('three deliveries', () => rx.got.length >= 3)
      const bodies = rx.got.map((d) => JSON.parse(d.body))
      expect(bodies.map((b) => b.event).sort()).toEqual(['contact.created', 'contact.created', 'webhook.test'])
      expect(bodies.map(problemsOf).filter(Boolean)).toEqual([])
    } finally {
      rx.stop()
    }
  })
})

describe('the events only the API, the gateway and an operator emit, caused from outside and received by a real receiver', () => {
  test('experiment.created, agent.request.decided (allowed, denied, waiting for a person), agent.result.reported, approval.approved, agent.policy.changed and webhook.test', async () => {
    const h = await getHarness()
    const growth = growthIn(h.dataDir)
    const ws = await makeWorkspace()
    const types = ['experiment.created', 'agent.request.decided', 'agent.result.reported', 'approval.requested', 'approval.approved', 'agent.policy.changed', 'webhook.test']
    const rx = receiver()
    const own: Rig = { ...r, ws } // the rig's workers and endpoint list, this workspace
    try {
      const e = await endpoint(own, rx.url, types.join(','))
      // Over the API: an experiment, and an agent's three kinds of answer and a result.
      const abt = await insertAbTest(ws.id, 'running')
      const exp = await call('POST', '/api/v1/experiments', { token: ws.live, body: { hypothesis: 'Naming the roast in the subject line lifts opens.', kind: 'email_ab_test', subjectId: abt, expectation: 'a_better' } })
      expect(exp.status).toBe(201)
      await ruleIn(ws.id, { match: [{ tool: 'ads', action: 'pause_campaign' }], when: [{ fact: 'records', op: '>', value: 100 }] }, 'require_approval')
      const allowed = await authorize(ws.agent.credential, { tool: 'ads', action: 'pause_campaign', resource: 'cmp_1', facts: { records: 5 } })
      expect(allowed.body.data.decision).toBe('allowed')
      expect((await report(ws.agent.credential, { authorizationId: allowed.body.data.authorizationId, status: 'completed', summary: 'Paused on Meta Ads.' })).status).toBe(201)
      const denied = await authorize(ws.agent.credential, { tool: 'email', action: 'send_campaign' })
      expect(denied.body.data.decision).toBe('denied')
      const waiting = await authorize(ws.agent.credential, { tool: 'ads', action: 'pause_campaign', resource: 'cmp_2', facts: { records: 500 } })
      expect(waiting.body.data.decision).toBe('requires_approval')
      // As an operator: the approval decided, a policy applied, a test delivery.
      const cli = (args: string[]) => growth(args, { WEBHOOK_ALLOW_PRIVATE_NETWORKS: '127.0.0.0/8' })
      expect((await cli(['admin', 'approval', 'approve', waiting.body.data.approvalId, '--reason', 'Small campaign'])).code).toBe(0)
      const text = (await cli(['admin', 'policy', 'export', '--workspace', ws.id])).stdout.replace(
        /^tools:\n/m,
        'tools:\n  - key: github\n    name: GitHub\n    description: Issues of the connected repositories.\n    actions:\n      - { key: create_issue, name: Open an issue, risk: low, dataUsed: [ repositories ], reversible: true }\n',
      )
      const file = join(mkdtempSync(join(tmpdir(), 'growth-payloads-')), 'policy.yaml')
      await Bun.write(file, text)
      const plan = jsonOf(await cli(['admin', 'policy', 'plan', '--workspace', ws.id, file, '--json']), 'admin policy plan')
      jsonOf(await cli(['admin', 'policy', 'apply', '--workspace', ws.id, file, '--plan', plan.planId, '--json']), 'admin policy apply')
      jsonOf(await cli(['admin', 'webhook', 'test', e.id, '--json']), 'admin webhook test')

      const want = ['agent.policy.changed', 'agent.request.decided', 'agent.request.decided', 'agent.request.decided', 'agent.result.reported', 'approval.approved', 'approval.requested', 'experiment.created', 'webhook.test']
      await until('every event at the receiver', () => rx.got.length >= want.length, 20_000)
      const bodies = rx.got.map((d) => JSON.parse(d.body))
      expect(bodies.map((b) => b.event).sort()).toEqual(want)
      expect(bodies.map(problemsOf).filter(Boolean)).toEqual([])
      // The API's experiment says when it was written; the decisions carry what each kind carries.
      expect(bodies.find((b) => b.event === 'experiment.created').data.experiment.createdAt).toBeString()
      const decided = bodies.filter((b) => b.event === 'agent.request.decided').map((b) => b.data.request)
      expect(decided.map((d) => d.decision).sort()).toEqual(['allowed', 'denied', 'requires_approval'])
      expect(decided.find((d) => d.decision === 'requires_approval').approvalId).toBe(waiting.body.data.approvalId)
    } finally {
      rx.stop()
    }
  }, 90_000)
})
