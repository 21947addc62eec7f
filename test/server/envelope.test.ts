import { describe, expect, test } from 'bun:test'
import { insertAbTest, insertDecisions, insertMission } from '../fixtures.ts'
import { call, expectError, makeWorkspace } from '../harness.ts'

const RATE_HEADERS = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'retry-after']

function expectCommonHeaders(headers: Headers) {
  expect(headers.get('x-request-id')).toMatch(/^req_[0-9a-z]{26}$/)
  for (const h of RATE_HEADERS) expect(headers.get(h)).toMatch(/^\d+$/)
}

describe('the envelope', () => {
  test('an answer is { data } only; meta is absent (never null) when there is no other page', async () => {
    const ws = await makeWorkspace()
    const m = await insertMission(ws.id)
    await insertDecisions(ws.id, m, 3)
    const r = await call('GET', '/api/v1/decisions?limit=10', { token: ws.live })
    expect(r.status).toBe(200)
    expect(Object.keys(r.body)).toEqual(['data'])
    expect(r.text).not.toContain('"meta"')
    expect(r.headers.get('content-type')).toContain('application/json')
  })

  test('unknown route and wrong method are 404 not_found in the envelope, with the usual headers', async () => {
    const unknown = await call('GET', '/api/v1/nope')
    expectError(unknown, 404, 'not_found', '/api/v1/nope')
    expectCommonHeaders(unknown.headers)
    const wrongMethod = await call('DELETE', '/api/v1/missions')
    expectError(wrongMethod, 404, 'not_found')
    const postToRead = await call('POST', '/api/v1/missions', { body: {} })
    expectError(postToRead, 404, 'not_found')
    expectError(await call('GET', '/'), 404, 'not_found')
  })

  test('every answer carries X-Request-Id and the four rate-limit headers: success, refusal, public', async () => {
    const ws = await makeWorkspace()
    const answers = [
      await call('GET', '/api/v1/missions', { token: ws.live }),
      await call('GET', '/api/v1/missions'),
      await call('GET', '/api/v1/missions', { token: ws.scoped }),
      await call('GET', '/api/v1/decisions?limit=0', { token: ws.live }),
      await call('GET', '/api/v1'),
      await call('GET', '/api/v1/openapi.json'),
    ]
    const ids = new Set<string>()
    for (const a of answers) {
      expectCommonHeaders(a.headers)
      ids.add(a.headers.get('x-request-id')!)
    }
    expect(ids.size).toBe(answers.length)
  })
})

describe('bad input', () => {
  const bodies: [string, string][] = [
    ['an array', '[1, 2]'],
    ['a number', '42'],
    ['null', 'null'],
    ['a string', '"hello"'],
    ['malformed JSON', '{"hypothesis": '],
    ['an empty body', ''],
  ]
  for (const [what, body] of bodies) {
    test(`a body that is ${what} is 400 invalid_body`, async () => {
      const ws = await makeWorkspace()
      expectError(await call('POST', '/api/v1/experiments', { token: ws.live, body }), 400, 'invalid_body')
    })
  }

  test('a POST without any body is 400 invalid_body', async () => {
    const ws = await makeWorkspace()
    expectError(await call('POST', '/api/v1/experiments', { token: ws.live }), 400, 'invalid_body')
  })

  test('a body over 1 MiB is 400 invalid_body, whether declared or streamed', async () => {
    const ws = await makeWorkspace()
    const big = JSON.stringify({ hypothesis: 'x'.repeat(1024 * 1024 + 10), kind: 'email_ab_test' })
    expectError(await call('POST', '/api/v1/experiments', { token: ws.live, body: big }), 400, 'invalid_body', '1 MiB')
    // streamed, with no Content-Length
    const { url } = await (await import('../harness.ts')).getHarness()
    const stream = new ReadableStream({
      start(c) {
        for (let i = 0; i < 20; i++) c.enqueue(new TextEncoder().encode('x'.repeat(64 * 1024)))
        c.close()
      },
    })
    const res = await fetch(`${url}/api/v1/experiments`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${ws.live}`, 'Content-Type': 'application/json' },
      body: stream,
      // @ts-ignore Bun streams request bodies
      duplex: 'half',
    })
    expect(res.status).toBe(400)
    expect((await res.json()).error.code).toBe('invalid_body')
  })

  test('an unknown body field is 400 invalid_request naming it', async () => {
    const ws = await makeWorkspace()
    const abt = await insertAbTest(ws.id, 'running')
    const r = await call('POST', '/api/v1/experiments', {
      token: ws.live,
      body: { hypothesis: 'Shorter subject lines win.', kind: 'email_ab_test', subjectId: abt, expectation: 'a_better', colour: 'red' },
    })
    expectError(r, 400, 'invalid_request', 'colour')
  })

  test('malformed, unknown and repeated query parameters are 400 invalid_parameter naming them', async () => {
    const ws = await makeWorkspace()
    for (const [query, name] of [
      ['limit=abc', 'limit'],
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=2.5', 'limit'],
      ['missionId=not-an-id', 'missionId'],
      ['cursor=', 'cursor'],
      ['colour=red', 'colour'],
      ['limit=1&limit=2', 'limit'],
    ]) {
      expectError(await call('GET', `/api/v1/decisions?${query}`, { token: ws.live }), 400, 'invalid_parameter', name!)
    }
    expectError(await call('GET', '/api/v1/missions?status=active', { token: ws.live }), 400, 'invalid_parameter', 'status')
  })

  test('a NUL character in any body string or query parameter is a 400 naming the field, never a 500', async () => {
    const ws = await makeWorkspace()
    const abt = await insertAbTest(ws.id, 'running')
    const body = { hypothesis: 'Naming the roast \u0000 lifts opens.', kind: 'email_ab_test', subjectId: abt, expectation: 'a_better' }
    expectError(await call('POST', '/api/v1/experiments', { token: ws.live, body }), 400, 'invalid_request', 'hypothesis')
    expectError(
      await call('POST', '/api/v1/experiments', { token: ws.live, body: { ...body, hypothesis: 'Naming the roast lifts opens.', subjectId: 'abt_\u0000' } }),
      400,
      'invalid_request',
      'subjectId',
    )
    expectError(await call('GET', '/api/v1/decisions?cursor=%00', { token: ws.live }), 400, 'invalid_parameter', 'cursor')
  })
})
