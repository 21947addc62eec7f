import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020'
import addFormats from 'ajv-formats'
import { EVENT_TYPES } from '../../server/src/core/event-types.ts'
import { createDemoWorkspace } from '../../server/src/demo/index.ts'
import { sendTestEvent } from '../../server/src/domain/webhooks.ts'
import { call, getHarness } from '../harness.ts'
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

  test('the schemas refuse a body of another type, a missing field and a field the emitters never send', () => {
    const event = { id: 'evt_1', event: 'webhook.test', createdAt: '2026-11-20T09:30:00.000Z', workspaceId: 'ws_1', data: { endpoint: { id: 'whe_1', url: 'https://x.example/h' } } }
    expect(problemsOf(event)).toBe('')
    expect(validatorOf('contact.created')(event)).toBe(false)
    expect(problemsOf({ ...event, data: { endpoint: { id: 'whe_1' } } })).toContain('url')
    expect(problemsOf({ ...event, data: { endpoint: { ...event.data.endpoint, secret: 'x' } } })).toContain('additional')
  })
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
