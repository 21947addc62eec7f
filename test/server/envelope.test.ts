import { describe, expect, test } from 'bun:test'
import { insertAbTest, insertDecisions, insertMission } from '../fixtures.ts'
import { call, expectError, getHarness, makeWorkspace } from '../harness.ts'

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

  test('an unknown route is 404 not_found in the envelope, with the usual headers', async () => {
    const unknown = await call('GET', '/api/v1/nope')
    expectError(unknown, 404, 'not_found', '/api/v1/nope')
    expectCommonHeaders(unknown.headers)
    expectError(await call('GET', '/'), 404, 'not_found')
    expectError(await call('DELETE', '/api/v1/nope'), 404, 'not_found')
  })

  test('a known path with a method it does not have is 405 with Allow, in the envelope', async () => {
    const wrongMethod = await call('DELETE', '/api/v1/missions')
    expectError(wrongMethod, 405, 'invalid_request', 'GET')
    expect(wrongMethod.headers.get('allow')).toBe('GET')
    expectCommonHeaders(wrongMethod.headers)
    const postToRead = await call('POST', '/api/v1/missions', { body: {} })
    expectError(postToRead, 405, 'invalid_request')
    expect(postToRead.headers.get('allow')).toBe('GET')
    // a path with both methods lists both
    const put = await call('PUT', '/api/v1/experiments', { body: {} })
    expectError(put, 405, 'invalid_request')
    expect(put.headers.get('allow')).toBe('GET, POST')
    expect((await call('PATCH', '/api/v1/reference')).headers.get('allow')).toBe('GET')
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

  test('the reference page and the files it loads, under /api/v1 too, carry an X-Request-Id of their own', async () => {
    const page = await call('GET', '/api/v1/reference')
    expect(page.status).toBe(200)
    const files = [...page.text.matchAll(/src="(\/api\/v1\/reference\/[^"]+)"/g)].map((m) => m[1]!)
    expect(files.length).toBeGreaterThan(0)
    const ids = new Set([page.headers.get('x-request-id')])
    for (const file of files) {
      const a = await call('GET', file)
      expect(a.status).toBe(200)
      ids.add(a.headers.get('x-request-id'))
    }
    for (const id of ids) expect(id).toMatch(/^req_[0-9a-z]{26}$/)
    expect(ids.size).toBe(files.length + 1)
  })

  test('every JSON answer says nosniff: an error quoting what was sent is never read by a browser as HTML', async () => {
    const ws = await makeWorkspace()
    const answers = [
      await call('GET', '/api/v1/missions', { token: ws.live }),
      await call('GET', `/api/v1/decisions?limit=${encodeURIComponent('<img src=x onerror=alert(1)>')}`, { token: ws.live }),
      await call('GET', '/api/v1/missions'),
      await call('GET', '/api/v1/no-such-thing'),
      await call('POST', '/api/v1/experiments', { token: ws.live, body: '{"hypothesis": ' }),
      await call('GET', '/api/v1/openapi.json'),
    ]
    for (const a of answers) {
      expect(a.headers.get('content-type')).toStartWith('application/json')
      expect(a.headers.get('x-content-type-options')).toBe('nosniff')
    }
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
    // The message reads as a sentence: what is wrong, then what was sent.
    const zero = await call('GET', '/api/v1/decisions?limit=0', { token: ws.live })
    expect(zero.body.error.message).toBe('Invalid query parameter: limit must be at least 1 (got "0").')
    // Past 2^53 the bound told is the list's, not the largest safe integer's.
    const huge = await call('GET', '/api/v1/decisions?limit=99999999999999999999', { token: ws.live })
    expect(huge.body.error.message).toBe('Invalid query parameter: limit must be at most 100 (got "99999999999999999999").')
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

describe('text PostgreSQL cannot hold, keys schemas would drop, and bodies too deep to walk', () => {
  /** POST a body given as raw text or bytes, exactly as written. */
  async function post(path: string, token: string, body: string | Uint8Array<ArrayBuffer>, headers: Record<string, string> = {}) {
    const { url } = await getHarness()
    const res = await fetch(`${url}${path}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', ...headers },
      body,
    })
    const text = await res.text()
    return { status: res.status, headers: res.headers, body: JSON.parse(text), text }
  }

  test('an unpaired surrogate escape (\\ud800) in any string or key is 400 invalid_request naming the field, never a 500', async () => {
    const ws = await makeWorkspace()
    const email = 'surrogate@example.com'
    expect((await call('POST', '/api/v1/contacts', { token: ws.live, body: { contacts: [{ email }] } })).status).toBe(201)
    // JSON.stringify writes a lone surrogate as the escape \ud800.
    const track = await call('POST', '/api/v1/track', { token: ws.live, body: { event: 'visited', email, properties: { page: 'home\ud800' } } })
    expectError(track, 400, 'invalid_request', 'properties.page contains an unpaired UTF-16 surrogate (\\ud800)')
    expectError(
      await call('POST', '/api/v1/contacts', { token: ws.live, body: { contacts: [{ email: 'b@example.com', name: 'Ada \udfff' }] } }),
      400,
      'invalid_request',
      'contacts[0].name contains an unpaired UTF-16 surrogate (\\udfff)',
    )
    expectError(
      await call('POST', '/api/v1/agent/authorize', { token: ws.agent.credential, body: { tool: 'ads\udbff', action: 'pause_campaign' } }),
      400,
      'invalid_request',
      'tool contains an unpaired UTF-16 surrogate',
    )
    // in a key, written in capitals
    expectError(
      await post('/api/v1/track', ws.live, `{"event":"visited","email":"${email}","properties":{"p\\uD834":"x"}}`),
      400,
      'invalid_request',
      'A field name in properties contains an unpaired UTF-16 surrogate (\\ud834)',
    )
    // a pair of surrogates is one character, and welcome
    const paired = await post('/api/v1/track', ws.live, `{"event":"visited","email":"${email}","properties":{"mood":"\\ud83d\\ude00"}}`)
    expect(paired.status).toBe(201)
  })

  test('a body that is not valid UTF-8 is 400 invalid_body, not read with replacement characters', async () => {
    const ws = await makeWorkspace()
    const enc = new TextEncoder()
    const bytes = new Uint8Array([...enc.encode('{"contacts":[{"email":"latin1@example.com","name":"Ren'), 0xe9, ...enc.encode('"}]}')])
    expectError(await post('/api/v1/contacts', ws.live, bytes), 400, 'invalid_body', 'The request body is not valid UTF-8.')
    const { sql } = await getHarness()
    expect(await sql`SELECT name FROM contacts WHERE workspace_id = ${ws.id}`).toHaveLength(0)
    // the same name in UTF-8 is welcome
    const utf8 = await post('/api/v1/contacts', ws.live, enc.encode('{"contacts":[{"email":"utf8@example.com","name":"René"}]}'))
    expect(utf8.status).toBe(201)
    expect((await sql`SELECT name FROM contacts WHERE workspace_id = ${ws.id}`).map((r) => r.name)).toEqual(['René'])
  })

  test('a key named __proto__ anywhere is 400 invalid_request naming where, not silently dropped', async () => {
    const ws = await makeWorkspace()
    expectError(
      await post('/api/v1/track', ws.live, '{"event":"visited","email":"proto@example.com","properties":{"page":"home","__proto__":"x"}}'),
      400,
      'invalid_request',
      'properties.__proto__ is the reserved name __proto__',
    )
    // spelled with escapes, it is the same key
    expectError(
      await post('/api/v1/track', ws.live, '{"event":"visited","email":"proto@example.com","properties":{"_\\u005fpr\\u006fto__":"x"}}'),
      400,
      'invalid_request',
      'properties.__proto__ is the reserved name __proto__',
    )
    expectError(
      await post('/api/v1/actions', ws.live, '{"kind":"pause_campaign","args":{"campaignId":"cmp_01jd0000000000000000000000","__proto__":{"force":true}}}'),
      400,
      'invalid_request',
      'args.__proto__ is the reserved name __proto__',
    )
    expectError(await post('/api/v1/contacts', ws.live, '{"__proto__":{},"contacts":[]}'), 400, 'invalid_request', '__proto__ is the reserved name')
  })

  test('a field given twice in one object is 400 invalid_request naming where, not the last one taken silently', async () => {
    const ws = await makeWorkspace()
    const email = 'twice@example.com'
    expectError(await post('/api/v1/track', ws.live, `{"event":"visited","email":"${email}","event":"purchased"}`), 400, 'invalid_request', 'event is given more than once in the body; give each field once.')
    expectError(await post('/api/v1/track', ws.live, `{"event":"visited","email":"${email}","properties":{"plan":"pro","page":"home", "plan" :"free"}}`), 400, 'invalid_request', 'properties.plan is given more than once')
    // spelled with escapes, it is the same name
    expectError(await post('/api/v1/track', ws.live, `{"event":"visited","email":"${email}","properties":{"plan":"pro","pl\\u0061n":"free"}}`), 400, 'invalid_request', 'properties.plan is given more than once')
    expectError(
      await post('/api/v1/contacts', ws.live, `{"contacts":[{"email":"a@example.com"},{"email":"b@example.com","name":"B","email":"c@example.com"}]}`),
      400,
      'invalid_request',
      'contacts[1].email is given more than once',
    )
    const { sql } = await getHarness()
    expect(await sql`SELECT email FROM contacts WHERE workspace_id = ${ws.id}`).toHaveLength(0)
    // The same name in different objects, a name that is also a value, and quotes and colons inside strings are welcome.
    expect((await post('/api/v1/contacts', ws.live, `{"contacts":[{"email":"${email}"}]}`)).status).toBe(201)
    const fine = await post('/api/v1/track', ws.live, `{"event":"visited","email":"${email}","properties":{"event":"email","note":"\\"event\\": 1, {\\"a\\":2}"}}`)
    expect(fine.status, JSON.stringify(fine.body)).toBe(201)
    const nested = await post('/api/v1/agent/authorize', ws.agent.credential, '{"tool":"ads","action":"pause_campaign","params":{"tool":"x","nested":{"tool":"y"},"list":[{"tool":1},{"tool":2}]}}')
    expect(nested.status, JSON.stringify(nested.body)).toBe(201)
    expectError(await post('/api/v1/agent/authorize', ws.agent.credential, '{"tool":"ads","action":"pause_campaign","params":{"list":[{"a":1},{"b":2,"b":3}]}}'), 400, 'invalid_request', 'params.list[1].b is given more than once')
  })

  test('a body nested more than 64 levels deep is 400 invalid_body, never a 500, whatever field it is in', async () => {
    const ws = await makeWorkspace()
    const nested = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`
    // 20,000 levels of arrays in params: request hash and params digest would recurse through it.
    for (const headers of [{}, { 'Idempotency-Key': 'deep-1' }] as Record<string, string>[]) {
      expectError(
        await post('/api/v1/agent/authorize', ws.agent.credential, `{"tool":"ads","action":"pause_campaign","params":{"x":${nested(20_000)}}}`, headers),
        400,
        'invalid_body',
        'more than 64 levels deep',
      )
    }
    // The body is level 1: params (2) holding 62 arrays is 64 levels, and answered; 63 arrays is not.
    const at64 = await post('/api/v1/agent/authorize', ws.agent.credential, `{"tool":"ads","action":"pause_campaign","params":{"x":${nested(62)}}}`, { 'Idempotency-Key': 'deep-2' })
    expect(at64.status).toBe(201)
    expectError(
      await post('/api/v1/agent/authorize', ws.agent.credential, `{"tool":"ads","action":"pause_campaign","params":{"x":${nested(63)}}}`),
      400,
      'invalid_body',
      'more than 64 levels deep',
    )
    // brackets inside strings are text, not nesting
    const inText = await post('/api/v1/agent/authorize', ws.agent.credential, `{"tool":"ads","action":"pause_campaign","summary":"${'['.repeat(100)}\\"]"}`)
    expect(inText.status).toBe(201)
  })
})
