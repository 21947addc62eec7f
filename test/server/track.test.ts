import { describe, expect, test } from 'bun:test'
import { call, expectError, getHarness, makeWorkspace, type Workspace } from '../harness.ts'
import { insertContacts, insertWorkflow, outbox, setAllowance } from '../write-fixtures.ts'

const track = (ws: Workspace, body: unknown, opts: { token?: string; key?: string } = {}) =>
  call('POST', '/api/v1/track', { token: opts.token ?? ws.live, body, headers: opts.key ? { 'Idempotency-Key': opts.key } : {} })

async function runsOf(workspaceId: string) {
  const { sql } = await getHarness()
  return [...(await sql<{ workflow_id: string; contact_id: string; event: string; properties: Record<string, unknown> }[]>`
    SELECT workflow_id, contact_id, event, properties FROM workflow_runs WHERE workspace_id = ${workspaceId} ORDER BY id`)]
}

async function trackedEventsUsed(workspaceId: string) {
  const { sql } = await getHarness()
  const [row] = await sql<{ used: number }[]>`
    SELECT COALESCE(sum(used), 0)::int AS used FROM usage_counters WHERE workspace_id = ${workspaceId} AND name = 'trackedEvents'`
  return row!.used
}

describe('POST /track', () => {
  test('starts every active workflow listening for the event (capitals ignored), one run each with the properties', async () => {
    const ws = await makeWorkspace()
    const [contact] = await insertContacts(ws.id, [{ email: 'Olivia@Example.com' }])
    const rescue = await insertWorkflow(ws.id, 'checkout.abandoned', { name: 'Abandoned checkout rescue' })
    const nudge = await insertWorkflow(ws.id, 'Checkout.Abandoned', { name: 'Second nudge' })
    await insertWorkflow(ws.id, 'checkout.abandoned', { name: 'Paused one', status: 'paused' })
    await insertWorkflow(ws.id, 'order.placed')
    const properties = { cartValueMinor: 4_800, currency: 'USD', firstOrder: true, coupon: null, step: 'shipping' }
    const r = await track(ws, { event: 'CHECKOUT.abandoned', email: 'olivia@example.COM', properties })
    expect(r.status).toBe(201)
    expect(r.body.data).toEqual({
      event: 'checkout.abandoned',
      contactId: contact,
      workflowsStarted: 2,
      runs: expect.arrayContaining([
        { id: expect.stringMatching(/^run_/), workflowId: rescue, workflowName: 'Abandoned checkout rescue' },
        { id: expect.stringMatching(/^run_/), workflowId: nudge, workflowName: 'Second nudge' },
      ]),
    })
    const runs = await runsOf(ws.id)
    expect(runs.map((x) => x.workflow_id).sort()).toEqual([rescue, nudge].sort())
    for (const run of runs) expect(run).toMatchObject({ contact_id: contact, event: 'checkout.abandoned', properties })
    const events = await outbox(ws.id)
    expect(events.map((e) => e.type)).toEqual(['workflow.started', 'workflow.started'])
    expect(events[0]!.data.run).toMatchObject({ contactId: contact, event: 'checkout.abandoned', properties, id: expect.stringMatching(/^run_/) })
    expect(events.map((e) => e.data.run.workflowName).sort()).toEqual(['Abandoned checkout rescue', 'Second nudge'])
    expect(await trackedEventsUsed(ws.id)).toBe(1)
  })

  test('an event no workflow listens for starts nothing, answers 0 and still counts as tracked', async () => {
    const ws = await makeWorkspace()
    await insertContacts(ws.id, [{ email: 'a@example.com' }])
    const r = await track(ws, { event: 'page_viewed', email: 'a@example.com' })
    expect(r.status).toBe(201)
    expect(r.body.data).toMatchObject({ event: 'page_viewed', workflowsStarted: 0, runs: [] })
    expect(await outbox(ws.id)).toEqual([])
    expect(await trackedEventsUsed(ws.id)).toBe(1)
  })

  test('the email must be a contact of this workspace: 404 otherwise', async () => {
    const ws = await makeWorkspace()
    const other = await makeWorkspace()
    await insertContacts(other.id, [{ email: 'theirs@example.com' }])
    await insertWorkflow(ws.id, 'signup')
    expectError(await track(ws, { event: 'signup', email: 'theirs@example.com' }), 404, 'not_found', 'theirs@example.com')
    expect(await runsOf(ws.id)).toEqual([])
    expect(await trackedEventsUsed(ws.id)).toBe(0)
  })

  test('bad input is 400 invalid_request naming it', async () => {
    const ws = await makeWorkspace()
    await insertContacts(ws.id, [{ email: 'a@example.com' }])
    const ok = { event: 'signup', email: 'a@example.com' }
    expectError(await track(ws, { ...ok, event: 'x'.repeat(65) }), 400, 'invalid_request', 'event must be 1 to 64')
    expectError(await track(ws, { ...ok, event: 'signed up' }), 400, 'invalid_request', 'event')
    expectError(await track(ws, { ...ok, event: '' }), 400, 'invalid_request', 'event')
    expect((await track(ws, { ...ok, event: 'a'.repeat(64) })).status).toBe(201)
    expect((await track(ws, { ...ok, event: 'Order_Placed-v2.web' })).status).toBe(201)
    expectError(await track(ws, { ...ok, email: 'nobody' }), 400, 'invalid_request', 'email')
    expectError(await track(ws, { event: 'signup' }), 400, 'invalid_request', 'email is required')
    expectError(await track(ws, { ...ok, properties: { cart: { items: 2 } } }), 400, 'invalid_request', 'properties.cart')
    expectError(await track(ws, { ...ok, properties: { skus: ['a', 'b'] } }), 400, 'invalid_request', 'properties.skus')
    expectError(await track(ws, { ...ok, properties: [1, 2] }), 400, 'invalid_request', 'properties')
    expectError(await track(ws, { ...ok, properties: { '': 1 } }), 400, 'invalid_request', 'properties')
    const twentyOne = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`p${i}`, i]))
    expectError(await track(ws, { ...ok, properties: twentyOne }), 400, 'invalid_request', 'at most 20')
    const twenty = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`p${i}`, i]))
    expect((await track(ws, { ...ok, properties: twenty })).status).toBe(201)
    expectError(await track(ws, { ...ok, userId: 'u1' }), 400, 'invalid_request', 'userId')
  })

  test('a property value is at most 1000 characters and a property name at most 64, each refused by name', async () => {
    const ws = await makeWorkspace()
    await insertContacts(ws.id, [{ email: 'a@example.com' }])
    const ok = { event: 'signup', email: 'a@example.com' }
    const long = await track(ws, { ...ok, properties: { note: 'x'.repeat(1001) } })
    expectError(long, 400, 'invalid_request', 'properties.note')
    expect(long.body.error.message).toContain('at most 1000 characters')
    expect((await track(ws, { ...ok, properties: { note: 'x'.repeat(1000) } })).status).toBe(201)
    const name = 'n'.repeat(65)
    const named = await track(ws, { ...ok, properties: { [name]: 1 } })
    expectError(named, 400, 'invalid_request', 'properties')
    expect(named.body.error.message).toContain('1 to 64 characters')
    expect(named.body.error.message).toContain(name)
    expect((await track(ws, { ...ok, properties: { ['n'.repeat(64)]: 1 } })).status).toBe(201)
  })

  test('the trackedEvents allowance: past it is 402 naming it, and nothing starts', async () => {
    const ws = await makeWorkspace()
    await insertContacts(ws.id, [{ email: 'a@example.com' }])
    await insertWorkflow(ws.id, 'signup')
    await setAllowance(ws.id, 'trackedEvents', 2)
    expect((await track(ws, { event: 'signup', email: 'a@example.com' })).status).toBe(201)
    expect((await track(ws, { event: 'signup', email: 'a@example.com' })).status).toBe(201)
    const r = await track(ws, { event: 'signup', email: 'a@example.com' })
    expectError(r, 402, 'plan_required', 'trackedEvents')
    expect(r.body.error.message).toContain('0 remain')
    expect(await runsOf(ws.id)).toHaveLength(2)
    expect((await outbox(ws.id)).length).toBe(2)
  })

  test('a replayed key starts nothing twice; a reused key is 422; a test token checks everything and starts nothing', async () => {
    const ws = await makeWorkspace()
    await insertContacts(ws.id, [{ email: 'a@example.com' }])
    await insertWorkflow(ws.id, 'signup')
    const body = { event: 'signup', email: 'a@example.com', properties: { source: 'popup' } }
    const first = await track(ws, body, { key: 'track-1' })
    const again = await track(ws, body, { key: 'track-1' })
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    expect(again.body).toEqual(first.body)
    expect(await runsOf(ws.id)).toHaveLength(1)
    expect(await trackedEventsUsed(ws.id)).toBe(1)
    expectError(await track(ws, { ...body, properties: { source: 'quiz' } }, { key: 'track-1' }), 422, 'idempotency_key_reused')

    const sim = await track(ws, body, { token: ws.test })
    expect(sim.status).toBe(200)
    expect(sim.body).toEqual({ data: { simulated: true } })
    expect(await runsOf(ws.id)).toHaveLength(1)
    expect(await trackedEventsUsed(ws.id)).toBe(1)
    expect((await outbox(ws.id)).length).toBe(1)
    expectError(await track(ws, { event: 'signup', email: 'nobody@example.com' }, { token: ws.test }), 404, 'not_found')
    await setAllowance(ws.id, 'trackedEvents', 1)
    expectError(await track(ws, body, { token: ws.test }), 402, 'plan_required', 'trackedEvents')
  })
})
