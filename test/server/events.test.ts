import { describe, expect, test } from 'bun:test'
import { createDemoWorkspace } from '../../server/src/demo/index.ts'
import { ACTION_KIND_ARGS, ACTION_KINDS, type ActionKind } from '../../server/src/schemas/actions.ts'
import { EVENT_TYPES } from '../../server/src/core/event-types.ts'
import { call, expectError, getHarness, makeWorkspace } from '../harness.ts'
import { insertContacts, insertWorkflow, outbox } from '../write-fixtures.ts'

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

const poll = (token: string, query: Record<string, string | undefined>) => {
  const qs = Object.entries(query)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${encodeURIComponent(v!)}`)
    .join('&')
  return call('GET', `/api/v1/events${qs ? `?${qs}` : ''}`, { token })
}

describe('GET /events', () => {
  test('oldest first, each item exactly the contract event object; after = the last meta.nextCursor', async () => {
    const ws = await makeWorkspace()
    await insertContacts(ws.id, [{ email: 'a@example.com' }])
    await insertWorkflow(ws.id, 'signup')
    await call('POST', '/api/v1/contacts', { token: ws.live, body: { contacts: [{ email: 'b@example.com' }, { email: 'c@example.com' }] } })
    await call('POST', '/api/v1/track', { token: ws.live, body: { event: 'signup', email: 'a@example.com' } })

    const empty = await makeWorkspace()
    expect((await poll(empty.live, {})).body).toEqual({ data: [] })

    const first = await poll(ws.live, { limit: '2' })
    expect(first.status).toBe(200)
    expect(first.body.data.map((e: any) => e.event)).toEqual(['contact.created', 'contact.created'])
    const e = first.body.data[0]
    expect(Object.keys(e).sort()).toEqual(['createdAt', 'data', 'event', 'id', 'workspaceId'])
    expect(e).toMatchObject({ id: expect.stringMatching(/^evt_/), workspaceId: ws.id, createdAt: expect.stringMatching(ISO_MS) })
    expect(e.data.contact.email).toBe('b@example.com')

    const second = await poll(ws.live, { limit: '2', after: first.body.meta.nextCursor })
    expect(second.body.data.map((x: any) => x.event)).toEqual(['workflow.started'])
    // Caught up: the cursor of the last event seen, so polling again resumes from there.
    const cursor = second.body.meta.nextCursor
    const idle = await poll(ws.live, { limit: '2', after: cursor })
    expect(idle.body).toEqual({ data: [], meta: { nextCursor: cursor } })
    await call('POST', '/api/v1/track', { token: ws.live, body: { event: 'signup', email: 'a@example.com' } })
    const fresh = await poll(ws.live, { limit: '2', after: cursor })
    expect(fresh.body.data).toHaveLength(1)
    expect(fresh.body.data[0].event).toBe('workflow.started')
    expect(fresh.body.meta.nextCursor).not.toBe(cursor)
  })

  test('type filters; an unknown type, a bad limit or a cursor of another filter is 400 invalid_parameter', async () => {
    const ws = await makeWorkspace()
    await insertContacts(ws.id, [{ email: 'a@example.com' }])
    await insertWorkflow(ws.id, 'signup')
    await call('POST', '/api/v1/contacts', { token: ws.live, body: { contacts: [{ email: 'b@example.com' }] } })
    await call('POST', '/api/v1/track', { token: ws.live, body: { event: 'signup', email: 'a@example.com' } })
    await call('POST', '/api/v1/contacts', { token: ws.live, body: { contacts: [{ email: 'c@example.com' }] } })
    const only = await poll(ws.live, { type: 'contact.created' })
    expect(only.body.data.map((e: any) => e.data.contact.email)).toEqual(['b@example.com', 'c@example.com'])
    expectError(await poll(ws.live, { type: 'contact.deleted' }), 400, 'invalid_parameter', 'type')
    expectError(await poll(ws.live, { limit: '0' }), 400, 'invalid_parameter', 'limit')
    expectError(await poll(ws.live, { after: 'abc.def' }), 400, 'invalid_parameter', 'after')
    expectError(await poll(ws.live, { after: only.body.meta.nextCursor }), 400, 'invalid_parameter', 'after')
    const other = await makeWorkspace()
    expectError(await poll(other.live, { type: 'contact.created', after: only.body.meta.nextCursor }), 400, 'invalid_parameter', 'after')
  })

  test('a poller from its last cursor sees every event exactly once, in commit order, while writes run concurrently', async () => {
    const ws = await makeWorkspace()
    const emails = Array.from({ length: 6 }, (_, i) => `w${i}@example.com`)
    await insertContacts(ws.id, emails.map((email) => ({ email })))
    await insertWorkflow(ws.id, 'ping')
    let writing = true
    const writers = (async () => {
      const jobs: Promise<unknown>[] = []
      for (let round = 0; round < 5; round++) {
        for (const email of emails) jobs.push(call('POST', '/api/v1/track', { token: ws.live, body: { event: 'ping', email } }))
        jobs.push(call('POST', '/api/v1/contacts', { token: ws.live, body: { contacts: [{ email: `new${round}a@example.com` }, { email: `new${round}b@example.com` }] } }))
        await Promise.all(jobs.splice(0))
      }
      writing = false
    })()
    const seen: string[] = []
    let after: string | undefined
    for (;;) {
      const stillWriting = writing
      const page = await poll(ws.live, { limit: '3', after })
      expect(page.status).toBe(200)
      seen.push(...page.body.data.map((e: any) => e.id))
      after = page.body.meta?.nextCursor ?? after
      if (!stillWriting && page.body.data.length < 3) break
    }
    await writers
    const all = await outbox(ws.id)
    expect(all).toHaveLength(5 * (6 + 2))
    const { sql } = await getHarness()
    const ids = await sql<{ id: string }[]>`SELECT id FROM events WHERE workspace_id = ${ws.id} ORDER BY seq`
    expect(seen).toEqual(ids.map((r) => r.id))
    expect(new Set(seen).size).toBe(seen.length)
  })

  test('a write that fails leaves no event behind', async () => {
    const ws = await makeWorkspace()
    await insertWorkflow(ws.id, 'signup')
    await call('POST', '/api/v1/contacts', { token: ws.live, body: { contacts: [{ email: 'x@example.com' }, { email: 'X@example.com' }] } })
    await call('POST', '/api/v1/track', { token: ws.live, body: { event: 'signup', email: 'nobody@example.com' } })
    expect(await outbox(ws.id)).toEqual([])
    expect((await poll(ws.live, {})).body).toEqual({ data: [] })
  })
})

describe('demo data', () => {
  test('includes a history of events of the catalogue, in time order, and actions that read like new ones', async () => {
    const { sql } = await getHarness()
    const demo = await createDemoWorkspace(sql)
    const token = demo.tokens.live
    const types = new Set<string>()
    let last = ''
    let after: string | undefined
    let total = 0
    do {
      const page = await poll(token, { limit: '100', after })
      for (const e of page.body.data) {
        expect(EVENT_TYPES).toContain(e.event)
        expect(e.createdAt >= last).toBe(true)
        last = e.createdAt
        types.add(e.event)
      }
      total += page.body.data.length
      after = page.body.data.length === 100 ? page.body.meta.nextCursor : undefined
    } while (after)
    expect(total).toBeGreaterThan(200)
    for (const t of ['action.proposed', 'action.refused', 'action.rejected', 'action.applied', 'action.failed', 'contact.created', 'workflow.started']) {
      expect(types.has(t)).toBe(true)
    }

    // Every status is seeded; every seeded action's args are exactly what its kind declares.
    const actions = (await call('GET', '/api/v1/actions?limit=100', { token })).body.data
    expect(new Set(actions.map((a: any) => a.status))).toEqual(new Set(['proposed', 'approved', 'applying', 'applied', 'rejected', 'refused', 'failed']))
    for (const a of actions) expect(ACTION_KIND_ARGS[a.kind as ActionKind].args.safeParse(a.args).success).toBe(true)
    // A waiting proposal, proposed again through the API, plans to the same effect.
    for (const seeded of actions.filter((a: any) => a.status === 'proposed')) {
      const again = await call('POST', '/api/v1/actions', { token, body: { kind: seeded.kind, args: seeded.args } })
      expect(again.status).toBe(201)
      expect(again.body.data.plannedEffect).toEqual(seeded.plannedEffect)
      expect(again.body.data.limits).toEqual(seeded.limits)
    }
  })
})

describe('the OpenAPI document', () => {
  test('documents every event type on Event.event, and every action kind with its args', async () => {
    const doc = (await call('GET', '/api/v1/openapi.json')).body
    const event = doc.components.schemas.Event.properties.event
    expect(event.enum).toEqual(EVENT_TYPES)
    for (const t of EVENT_TYPES) expect(event.description).toContain(`\`${t}\``)
    // one shape per kind, its args stated as that kind declares them
    const shapes = doc.components.schemas.CreateActionRequest.oneOf
    expect(shapes.map((s: any) => s.properties.kind.const)).toEqual(ACTION_KINDS)
    for (const shape of shapes) {
      expect(shape.properties.kind.description).toBe(ACTION_KIND_ARGS[shape.properties.kind.const as ActionKind].description)
      expect(shape.properties.args.additionalProperties).toBe(false)
      expect(shape.required).toEqual(['kind', 'args'])
    }
    expect(doc.paths['/api/v1/events'].get.parameters.find((p: any) => p.name === 'type').schema.enum).toEqual(EVENT_TYPES)
  })
})
