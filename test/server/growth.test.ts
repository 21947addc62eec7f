import { describe, expect, test } from 'bun:test'
import { insertAbTest, insertDecisions, insertEmailSend, insertMission } from '../fixtures.ts'
import { call, expectError, getHarness, makeWorkspace } from '../harness.ts'

const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

describe('GET /missions', () => {
  test('lists the missions with measured progress and their automations', async () => {
    const ws = await makeWorkspace()
    const older = await insertMission(ws.id, { name: 'Older', createdAt: new Date(Date.now() - 86_400_000) })
    const newer = await insertMission(ws.id, { name: 'Newer' })
    const r = await call('GET', '/api/v1/missions', { token: ws.live })
    expect(r.status).toBe(200)
    expect(r.body.data.map((m: any) => m.id)).toEqual([newer, older])
    const m = r.body.data[0]
    expect(m.id).toMatch(/^msn_/)
    expect(m.createdAt).toMatch(ISO_MS)
    expect(m.metric).toEqual({ name: 'repeat_purchase_rate', unit: 'percent', baseline: 20, current: 26, target: 30, measuredAt: expect.stringMatching(ISO_MS) })
    expect(m.progress).toBe(0.6)
    expect(m.automations).toEqual([{ id: expect.stringMatching(/^aut_/), name: 'Win-back flow', kind: 'winback_flow', status: 'running' }])
  })

  test('an empty workspace lists nothing, as { data: [] }', async () => {
    const ws = await makeWorkspace()
    const r = await call('GET', '/api/v1/missions', { token: ws.live })
    expect(r.body).toEqual({ data: [] })
  })
})

describe('GET /decisions', () => {
  test('newest first, paged with signed cursors, every decision exactly once', async () => {
    const ws = await makeWorkspace()
    const m1 = await insertMission(ws.id)
    const m2 = await insertMission(ws.id)
    const ids = [...(await insertDecisions(ws.id, m1, 25)), ...(await insertDecisions(ws.id, m2, 20, new Date(Date.now() - 30_000)))]
    const seen: string[] = []
    const times: string[] = []
    let cursor: string | undefined
    let pages = 0
    do {
      const r = await call('GET', `/api/v1/decisions?limit=7${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { token: ws.live })
      expect(r.status).toBe(200)
      pages++
      for (const d of r.body.data) {
        seen.push(d.id)
        times.push(d.createdAt)
      }
      cursor = r.body.meta?.nextCursor
      if (!cursor) expect(r.body.meta).toBeUndefined()
    } while (cursor)
    expect(pages).toBe(7)
    expect(new Set(seen).size).toBe(45)
    expect(seen.sort()).toEqual([...ids].sort())
    expect([...times].sort().reverse()).toEqual(times)
  })

  test('the default page is 20, a full last page says nothing more', async () => {
    const ws = await makeWorkspace()
    const m = await insertMission(ws.id)
    await insertDecisions(ws.id, m, 20)
    const r = await call('GET', '/api/v1/decisions', { token: ws.live })
    expect(r.body.data).toHaveLength(20)
    expect(r.body.meta).toBeUndefined()
    const r2 = await call('GET', '/api/v1/decisions?limit=100', { token: ws.live })
    expect(r2.body.data).toHaveLength(20)
  })

  test('missionId filters; an unknown mission is 404, a malformed id 400', async () => {
    const ws = await makeWorkspace()
    const m1 = await insertMission(ws.id)
    const m2 = await insertMission(ws.id)
    await insertDecisions(ws.id, m1, 3)
    const mine = await insertDecisions(ws.id, m2, 4)
    const r = await call('GET', `/api/v1/decisions?missionId=${m2}`, { token: ws.live })
    expect(r.body.data.map((d: any) => d.id).sort()).toEqual(mine.sort())
    expect(r.body.data.every((d: any) => d.missionId === m2)).toBe(true)
    const d = r.body.data[0]
    expect(Object.keys(d).sort()).toEqual(['author', 'createdAt', 'id', 'missionId', 'outcome', 'prediction', 'rationale', 'status', 'title'])
    expectError(await call('GET', '/api/v1/decisions?missionId=msn_01jd0000000000000000000000', { token: ws.live }), 404, 'not_found', 'msn_01jd0000000000000000000000')
    expectError(await call('GET', '/api/v1/decisions?missionId=dec_x', { token: ws.live }), 400, 'invalid_parameter', 'missionId')
  })

  test('a measured decision carries its outcome; a recorded one has outcome null', async () => {
    const ws = await makeWorkspace()
    const m = await insertMission(ws.id)
    await insertDecisions(ws.id, m, 2)
    const r = await call('GET', '/api/v1/decisions', { token: ws.live })
    const [measured, recorded] = r.body.data
    expect(measured.status).toBe('measured')
    expect(measured.outcome).toEqual({ change: 6.5, held: true, measuredAt: expect.stringMatching(ISO_MS) })
    expect(measured.prediction).toEqual({ measure: 'roas', change: 5, confidence: 0.7 })
    expect(recorded.status).toBe('recorded')
    expect(recorded.outcome).toBeNull()
  })
})

describe('cursors', () => {
  test('a cursor the API did not issue, tampered with, from another filter or another workspace is 400 invalid_parameter', async () => {
    const a = await makeWorkspace()
    const b = await makeWorkspace()
    const ma = await insertMission(a.id)
    const mb = await insertMission(b.id)
    await insertDecisions(a.id, ma, 5)
    await insertDecisions(b.id, mb, 5)
    const page = await call('GET', '/api/v1/decisions?limit=2', { token: a.live })
    const cursor: string = page.body.meta.nextCursor
    const filtered = await call('GET', `/api/v1/decisions?limit=2&missionId=${ma}`, { token: a.live })
    const filteredCursor: string = filtered.body.meta.nextCursor
    // the genuine one works
    expect((await call('GET', `/api/v1/decisions?limit=2&cursor=${encodeURIComponent(cursor)}`, { token: a.live })).status).toBe(200)
    const [body, sig] = cursor.split('.')
    const payload = JSON.parse(Buffer.from(body!, 'base64url').toString())
    const forged = Buffer.from(JSON.stringify({ ...payload, p: { ...payload.p, t: '2999-01-01T00:00:00.000Z' } })).toString('base64url')
    for (const bad of [
      'abc',
      'eyJsIjoiZGVjaXNpb25zIn0.AAAA',
      `${forged}.${sig}`,
      `${body}.${sig!.slice(0, -2)}xx`,
      filteredCursor, // issued for another filter
      // Texts that decode to the same signature but are not the one issued: the last character's
      // bits that base64url drops flipped, padding and a character the decoder skips appended.
      `${body}.${sig!.slice(0, -1)}${B64URL[B64URL.indexOf(sig!.at(-1)!) ^ 1]}`,
      `${cursor}==`,
      `${cursor}~`,
    ]) {
      expectError(await call('GET', `/api/v1/decisions?limit=2&cursor=${encodeURIComponent(bad)}`, { token: a.live }), 400, 'invalid_parameter', 'cursor')
    }
    // issued to workspace A, presented by workspace B
    expectError(await call('GET', `/api/v1/decisions?limit=2&cursor=${encodeURIComponent(cursor)}`, { token: b.live }), 400, 'invalid_parameter', 'cursor')
  })
})

describe('experiments', () => {
  const body = (subjectId: string, extra: Record<string, unknown> = {}) => ({
    hypothesis: 'Naming the roast in the subject line lifts opens.',
    kind: 'email_ab_test',
    subjectId,
    expectation: 'a_better',
    ...extra,
  })

  test('POST records a hypothesis against an open test: 201 with the experiment, listed by GET, event written', async () => {
    const ws = await makeWorkspace()
    const { sql } = await getHarness()
    const abt = await insertAbTest(ws.id, 'running')
    const m = await insertMission(ws.id)
    const [dec] = await insertDecisions(ws.id, m, 1)
    const r = await call('POST', '/api/v1/experiments', { token: ws.live, body: body(abt, { decisionId: dec }) })
    expect(r.status).toBe(201)
    expect(Object.keys(r.body)).toEqual(['data'])
    expect(r.body.data).toEqual({
      id: expect.stringMatching(/^exp_[0-9a-z]{26}$/),
      hypothesis: 'Naming the roast in the subject line lifts opens.',
      kind: 'email_ab_test',
      subjectId: abt,
      expectation: 'a_better',
      decisionId: dec,
      status: 'open',
      result: null,
      createdAt: expect.stringMatching(ISO_MS),
    })
    const list = await call('GET', '/api/v1/experiments', { token: ws.live })
    expect(list.body.data).toEqual([r.body.data])
    const events = await sql`SELECT type, data FROM events WHERE workspace_id = ${ws.id}`
    expect(events.map((e) => e.type)).toEqual(['experiment.created'])
    expect(events[0]!.data.experiment.id).toBe(r.body.data.id)
  })

  test('a hold-back hypothesis takes an email send', async () => {
    const ws = await makeWorkspace()
    const snd = await insertEmailSend(ws.id, 'open')
    for (const kind of ['email_holdout', 'sms_holdout']) {
      const r = await call('POST', '/api/v1/experiments', { token: ws.live, body: body(snd, { kind, expectation: 'send_adds' }) })
      expect(r.status).toBe(201)
      expect(r.body.data.kind).toBe(kind)
    }
  })

  test('once the test is decided, the experiment shows what it said', async () => {
    const ws = await makeWorkspace()
    const { sql } = await getHarness()
    const abt = await insertAbTest(ws.id, 'running')
    const r = await call('POST', '/api/v1/experiments', { token: ws.live, body: body(abt) })
    await sql`UPDATE ab_tests SET status = 'decided', winner = 'b', decided_at = now() WHERE workspace_id = ${ws.id} AND id = ${abt}`
    const [e] = (await call('GET', '/api/v1/experiments', { token: ws.live })).body.data
    expect(e.id).toBe(r.body.data.id)
    expect(e.status).toBe('decided')
    expect(e.result).toEqual({ observed: 'b_better', held: false, decidedAt: expect.stringMatching(ISO_MS) })
  })

  test('every rule of the body is refused with 400 invalid_request naming the field', async () => {
    const ws = await makeWorkspace()
    const abt = await insertAbTest(ws.id, 'running')
    const cases: [Record<string, unknown>, string][] = [
      [body(abt, { hypothesis: 'too short' }), 'hypothesis'],
      [body(abt, { hypothesis: '         x          ' }), 'hypothesis'],
      [body(abt, { hypothesis: 42 }), 'hypothesis'],
      [body(abt, { kind: 'sms_ab_test' }), 'kind'],
      [body(abt, { expectation: 'maybe' }), 'expectation'],
      [body(abt, { expectation: 'send_adds' }), 'expectation'],
      [body(abt, { subjectId: '' }), 'subjectId'],
      [body(abt, { decisionId: 7 }), 'decisionId'],
      [{ kind: 'email_ab_test', subjectId: abt, expectation: 'a_better' }, 'hypothesis'],
      [{ hypothesis: 'Naming the roast lifts opens.', subjectId: abt, expectation: 'a_better' }, 'kind'],
    ]
    for (const [b, field] of cases) {
      expectError(await call('POST', '/api/v1/experiments', { token: ws.live, body: b }), 400, 'invalid_request', field)
    }
    const holdout = await insertEmailSend(ws.id, 'open')
    expectError(
      await call('POST', '/api/v1/experiments', { token: ws.live, body: body(holdout, { kind: 'email_holdout', expectation: 'a_better' }) }),
      400,
      'invalid_request',
      'expectation',
    )
  })

  test('an unknown test, email send or decision is 404 naming it; an id of another kind is 400 naming the prefix it needs', async () => {
    const ws = await makeWorkspace()
    const abt = await insertAbTest(ws.id, 'running')
    const snd = await insertEmailSend(ws.id, 'open')
    // ids are opaque: only the prefix is checked, so a well-prefixed id that names nothing is 404
    // Nothing else of its shape either (CONTRACT): a dot, accents or 101 characters after the prefix name nothing too.
    for (const missing of ['abt_01jd0000000000000000000000', 'abt_doesnotexist', 'abt_a.b', 'abt_été', `abt_${'x'.repeat(101)}`]) {
      expectError(await call('POST', '/api/v1/experiments', { token: ws.live, body: body(missing) }), 404, 'not_found', missing)
    }
    expectError(
      await call('POST', '/api/v1/experiments', { token: ws.live, body: body('snd_doesnotexist', { kind: 'email_holdout', expectation: 'send_adds' }) }),
      404,
      'not_found',
      'snd_doesnotexist',
    )
    // an email send is not an A/B test, and the other way round: the prefix says so
    expectError(await call('POST', '/api/v1/experiments', { token: ws.live, body: body(snd) }), 400, 'invalid_request', 'subjectId must be an A/B test id (abt_...)')
    expectError(
      await call('POST', '/api/v1/experiments', { token: ws.live, body: body(abt, { kind: 'email_holdout', expectation: 'send_adds' }) }),
      400,
      'invalid_request',
      'subjectId must be an email send id (snd_...)',
    )
    // an expectation the kind of test cannot show
    expectError(
      await call('POST', '/api/v1/experiments', { token: ws.live, body: body(abt, { expectation: 'send_adds' }) }),
      400,
      'invalid_request',
      'expectation must be one of: a_better, b_better, no_difference',
    )
    expectError(
      await call('POST', '/api/v1/experiments', { token: ws.live, body: body(abt, { decisionId: 'dec_01jd0000000000000000000000' }) }),
      404,
      'not_found',
      'dec_01jd0000000000000000000000',
    )
  })

  test('a test already decided refuses a hypothesis: 409 conflict, nothing written', async () => {
    const ws = await makeWorkspace()
    const decided = await insertAbTest(ws.id, 'decided')
    const snd = await insertEmailSend(ws.id, 'decided')
    expectError(await call('POST', '/api/v1/experiments', { token: ws.live, body: body(decided) }), 409, 'conflict', decided)
    expectError(
      await call('POST', '/api/v1/experiments', { token: ws.live, body: body(snd, { kind: 'email_holdout', expectation: 'send_adds' }) }),
      409,
      'conflict',
      snd,
    )
    expect((await call('GET', '/api/v1/experiments', { token: ws.live })).body.data).toEqual([])
  })
})

describe('test mode', () => {
  const body = (subjectId: string) => ({
    hypothesis: 'Naming the roast in the subject line lifts opens.',
    kind: 'email_ab_test',
    subjectId,
    expectation: 'a_better',
  })

  test('a test-token write passes every check, answers 200 { data: { simulated: true } } and records nothing', async () => {
    const ws = await makeWorkspace()
    const { sql } = await getHarness()
    const abt = await insertAbTest(ws.id, 'running')
    const r = await call('POST', '/api/v1/experiments', { token: ws.test, body: body(abt) })
    expect(r.status).toBe(200)
    expect(r.body).toEqual({ data: { simulated: true } })
    expect(r.headers.get('x-service-mode')).toBe('test')
    expect((await call('GET', '/api/v1/experiments', { token: ws.live })).body.data).toEqual([])
    expect(await sql`SELECT 1 FROM events WHERE workspace_id = ${ws.id}`).toHaveLength(0)
  })

  test('a test-token write meets every refusal a live write meets', async () => {
    const ws = await makeWorkspace()
    const decided = await insertAbTest(ws.id, 'decided')
    expectError(await call('POST', '/api/v1/experiments', { token: ws.test, body: body('abt_01jd0000000000000000000000') }), 404, 'not_found')
    expectError(await call('POST', '/api/v1/experiments', { token: ws.test, body: body(decided) }), 409, 'conflict')
    expectError(await call('POST', '/api/v1/experiments', { token: ws.test, body: { ...body(decided), hypothesis: 'short' } }), 400, 'invalid_request', 'hypothesis')
    expectError(await call('POST', '/api/v1/experiments', { token: ws.test, body: '[]' }), 400, 'invalid_body')
  })
})

describe('workspace isolation', () => {
  test("nothing of another workspace is readable or writable", async () => {
    const a = await makeWorkspace()
    const b = await makeWorkspace()
    const ma = await insertMission(a.id)
    await insertDecisions(a.id, ma, 3)
    const abtA = await insertAbTest(a.id, 'running')
    const sndA = await insertEmailSend(a.id, 'open')
    const exp = await call('POST', '/api/v1/experiments', {
      token: a.live,
      body: { hypothesis: 'Naming the roast lifts opens.', kind: 'email_ab_test', subjectId: abtA, expectation: 'a_better' },
    })
    expect(exp.status).toBe(201)
    for (const path of ['/api/v1/missions', '/api/v1/decisions', '/api/v1/experiments']) {
      const r = await call('GET', path, { token: b.live })
      expect(r.status).toBe(200)
      expect(r.body.data).toEqual([])
    }
    expectError(await call('GET', `/api/v1/decisions?missionId=${ma}`, { token: b.live }), 404, 'not_found')
    const cross = { hypothesis: 'Naming the roast lifts opens.', kind: 'email_ab_test', subjectId: abtA, expectation: 'a_better' }
    expectError(await call('POST', '/api/v1/experiments', { token: b.live, body: cross }), 404, 'not_found')
    expectError(
      await call('POST', '/api/v1/experiments', { token: b.live, body: { ...cross, kind: 'email_holdout', subjectId: sndA, expectation: 'send_adds' } }),
      404,
      'not_found',
    )
  })
})
