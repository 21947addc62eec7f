import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { ConfigError, loadConfig } from '../../server/src/config.ts'
import { RequestLog } from '../../server/src/http/request-log.ts'
import { insertRequestLog, type LoggedCall, purgeRequestLog } from '../../server/src/store/request-log.ts'
import { createToken, revokeToken } from '../../server/src/domain/credentials.ts'
import { insertAbTest } from '../fixtures.ts'
import { type Answer, call, expectError, getHarness, makeWorkspace, type Workspace } from '../harness.ts'
import { withinOneWindow } from '../support/clock-window.ts'

/**
 * The request log (CONTRACT: Observability): GET /api/v1/logs, over HTTP against the shared server,
 * whose request log is flushed every 100 ms (CALL_COUNT_FLUSH_MS in the harness).
 */

type Entry = {
  id: string
  method: string
  path: string
  operation: string
  status: number
  code: string | null
  message: string | null
  durationMs: number
  credential: { id: string; kind: string | null; last4: string | null }
  idempotencyKey: string | null
  replayed: boolean
  createdAt: string
}

const logs = (token: string, query = '') => call('GET', `/api/v1/logs${query ? `?${query}` : ''}`, { token })

/** Every entry of the workspace's log (each page), once it holds every request id of `ids` (the log is written in batches). */
async function logHolding(token: string, ids: string[], query = 'limit=100'): Promise<Entry[]> {
  const deadline = Date.now() + 5_000
  for (;;) {
    const entries: Entry[] = []
    let answer = await logs(token, query)
    for (;;) {
      expect(answer.status).toBe(200)
      entries.push(...answer.body.data)
      const next = answer.body.meta?.nextBefore
      if (!next) break
      answer = await logs(token, `${query}&before=${encodeURIComponent(next)}`)
    }
    if (ids.every((id) => entries.some((e) => e.id === id))) return entries
    if (Date.now() > deadline) throw new Error(`the log never held ${ids.join(', ')}: ${answer.text.slice(0, 500)}`)
    await Bun.sleep(50)
  }
}

const idOf = (answer: Answer) => answer.headers.get('x-request-id')!

const experiment = (subjectId: string) => ({ hypothesis: 'Naming the roast in the subject line lifts opens.', kind: 'email_ab_test', subjectId, expectation: 'a_better' })

describe('the request log', () => {
  test('a batch the database refuses as data is dropped, not retried forever: the calls after it are written', async () => {
    const { sql } = await getHarness()
    const ws = await makeWorkspace()
    const log = new RequestLog(sql, 60_000)
    const entry = (id: string, durationMs: number) => ({
      workspaceId: ws.id, id, method: 'GET', path: '/api/v1/missions', operation: 'listMissions', status: 200, code: null,
      message: null, durationMs, credentialId: 'cred_none', idempotencyKey: null, replayed: false, createdAt: new Date(),
    })
    // numeric(10, 3) holds no duration of 10^9 ms: PostgreSQL refuses the batch (SQLSTATE 22003),
    // its first row, with pieces of the COPY's data still to come behind it (600 rows: three pieces).
    log.add(entry('req_refused_batch', 1e9))
    for (let i = 0; i < 599; i++) log.add(entry(`req_refused_batch_${i}`, 1))
    await expect(log.flush()).rejects.toMatchObject({ code: '22003' })
    // A NUL (PostgreSQL's text holds none) is kept as U+FFFD, not refused.
    log.add({ ...entry('req_after_batch', 1), message: 'bad \u0000 byte', code: 'invalid_request', status: 400 })
    await log.flush()
    const rows = await sql<{ id: string; message: string }[]>`SELECT id, message FROM request_log WHERE workspace_id = ${ws.id} ORDER BY id`
    expect([...rows]).toEqual([{ id: 'req_after_batch', message: 'bad \uFFFD byte' }])
  })

  test('a call is written as it was, whatever its texts hold (tabs, newlines, backslashes, \\N, quotes, any script), at the millisecond it was made', async () => {
    // A flush is one COPY (its data sent in pieces) in its text format, where a tab, a newline, a backslash and \N mean
    // something: every text must come back as it went in, on either database.
    const { sql } = await getHarness()
    const ws = await makeWorkspace()
    const special = fc.constantFrom('\t', '\n', '\r', '\\', '\\N', '\\t', 'N', "'", '"', ',', '\u00e9', '\u{1F600}', '\u7A7A', ' ')
    const textOf = fc.array(fc.oneof(special, fc.string({ unit: 'grapheme', maxLength: 6 })), { maxLength: 8 }).map((parts) => parts.join('').replaceAll('\u0000', ''))
    let n = 0
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ path: textOf, message: fc.option(textOf), idempotencyKey: fc.option(textOf), code: fc.option(textOf), durationMs: fc.integer({ min: 0, max: 9_999_999 }).map((x) => x / 1000), replayed: fc.boolean(), atMs: fc.integer({ min: -3_000, max: 3_000 }), idTail: textOf }), { minLength: 1, maxLength: 20 }),
        // The COPY's data goes in pieces of a few rows here (256 in a server): rows on either side of a piece's end.
        fc.integer({ min: 1, max: 7 }),
        async (calls, rowsPerChunk) => {
          const batch = `b${n++}`
          // An id with any text after its prefix: every column is escaped, not only those a caller can fill.
          // Times a few seconds either side of now, many within one second (the flush formats each second's part once).
          const now = Date.now()
          const entries: LoggedCall[] = calls.map((c, i) => ({
            workspaceId: ws.id, id: `req_copy_${batch}_${i}_${c.idTail}`, method: 'POST', path: c.path, operation: 'createContact', status: 400, code: c.code,
            message: c.message, durationMs: c.durationMs, credentialId: 'cred_none', idempotencyKey: c.idempotencyKey, replayed: c.replayed, createdAt: new Date(now + c.atMs),
          }))
          await insertRequestLog(sql, entries, { rowsPerChunk })
          const rows = await sql<{ id: string; path: string; code: string | null; message: string | null; idempotency_key: string | null; duration_ms: string; replayed: boolean; created_at: Date }[]>`
            SELECT id, path, code, message, idempotency_key, duration_ms::text, replayed, created_at FROM request_log
            WHERE workspace_id = ${ws.id} AND id = ANY(${entries.map((e) => e.id)}::text[])`
          const byId = new Map(rows.map((r) => [r.id, r]))
          expect(rows.length).toBe(entries.length)
          for (const e of entries) {
            const r = byId.get(e.id)!
            expect({ path: r.path, code: r.code, message: r.message, key: r.idempotency_key, ms: Number(r.duration_ms), replayed: r.replayed, at: r.created_at.getTime() })
              .toEqual({ path: e.path, code: e.code, message: e.message, key: e.idempotencyKey, ms: e.durationMs, replayed: e.replayed, at: e.createdAt.getTime() })
          }
        },
      ),
      { numRuns: 60 },
    )
  }, 60_000)

  test('a flush given back after a failure is written once: what the failed one did write is not written twice', async () => {
    const { sql } = await getHarness()
    const ws = await makeWorkspace()
    const log = new RequestLog(sql, 60_000)
    const entry = (id: string) => ({
      workspaceId: ws.id, id, method: 'GET', path: '/api/v1/missions', operation: 'listMissions', status: 200, code: null,
      message: null, durationMs: 2, credentialId: 'cred_none', idempotencyKey: null, replayed: false, createdAt: new Date(),
    })
    const first = entry('req_written_once')
    log.add(first)
    // Taken and written, as a flush does; then given back as a flush whose answer was lost is.
    const batch = (log as unknown as { take(): { entries: unknown[] } }).take()
    await (log as unknown as { write(b: unknown): Promise<void> }).write(batch)
    ;(log as unknown as { putBack(b: unknown): void }).putBack(batch)
    log.add(entry('req_after_given_back'))
    await log.flush()
    // A batch not given back is written as it is: the same call again is refused by the key.
    log.add(first)
    await expect(log.flush()).rejects.toMatchObject({ code: '23505' })
    const rows = await sql<{ id: string }[]>`SELECT id FROM request_log WHERE workspace_id = ${ws.id} ORDER BY id`
    expect(rows.map((r) => r.id)).toEqual(['req_after_given_back', 'req_written_once'])
  })

  test('shows a refused call with its code and message, under the request id the caller got', async () => {
    const ws = await makeWorkspace()
    const refused = await call('POST', '/api/v1/experiments', { token: ws.live, body: { hypothesis: 'short' }, headers: { 'Idempotency-Key': 'log-refused-1' } })
    expect(refused.status).toBe(400)
    const entries = await logHolding(ws.live, [idOf(refused)])
    const entry = entries.find((e) => e.id === idOf(refused))!
    expect(entry).toMatchObject({
      id: refused.body.error.requestId,
      method: 'POST',
      path: '/api/v1/experiments',
      operation: 'createExperiment',
      status: 400,
      code: refused.body.error.code,
      message: refused.body.error.message,
      credential: { kind: 'live', last4: ws.live.slice(-4) },
      idempotencyKey: 'log-refused-1',
      replayed: false,
    })
    expect(entry.credential.id).toMatch(/^cred_/)
    expect(entry.durationMs).toBeGreaterThan(0)
    expect(Date.now() - Date.parse(entry.createdAt)).toBeLessThan(60_000)
  })

  test('a credential pasted where it does not belong is kept in the log as its kind and last four, never whole', async () => {
    // Someone looking into a token they think leaked pastes the token where the log asks for its
    // credential id; the refusal echoes what it got. The log keeps calls 7 days and every console
    // role reads it: it holds the refusal, not the token.
    const ws = await makeWorkspace()
    const pasted = await logs(ws.live, `credentialId=${ws.test}`)
    expect(pasted.status).toBe(400)
    const inPath = await call('GET', `/api/v1/${ws.test}`, { token: ws.live })
    expect(inPath.status).toBe(404)
    const asKey = await call('POST', '/api/v1/experiments', { token: ws.live, body: { hypothesis: 'short' }, headers: { 'Idempotency-Key': ws.test } })
    expect(asKey.status).toBe(400)
    const entries = await logHolding(ws.live, [idOf(pasted), idOf(inPath), idOf(asKey)])
    const shown = `svc_test_\u2026${ws.test.slice(-4)}`
    for (const answer of [pasted, inPath, asKey]) {
      const entry = entries.find((e) => e.id === idOf(answer))!
      expect(JSON.stringify(entry)).not.toContain(ws.test)
      expect(JSON.stringify(entry)).toContain(shown)
    }
    expect(entries.find((e) => e.id === idOf(pasted))!.message).toContain(`(got "${shown}")`)
  })

  test('a call with a credential to no endpoint is that credential\'s call: its limit, its workspace\'s log; a credential that opens nothing is 401', async () => {
    const ws = await makeWorkspace()
    await withinOneWindow()
    const before = await call('GET', '/api/v1/missions', { token: ws.live })
    const typo = await call('GET', '/api/v1/mision', { token: ws.live })
    expect(typo.status).toBe(404)
    expect(typo.body.error.code).toBe('not_found')
    // The token's own limit (600 an hour), one more of its calls used, not the per-address one.
    expect(typo.headers.get('x-ratelimit-limit')).toBe('600')
    expect(Number(typo.headers.get('x-ratelimit-remaining'))).toBe(Number(before.headers.get('x-ratelimit-remaining')) - 1)
    const wrongMethod = await call('DELETE', '/api/v1/missions', { token: ws.live })
    expect(wrongMethod.status).toBe(405)
    expect(wrongMethod.headers.get('allow')).toBe('GET')
    const agent = await call('GET', '/api/v1/agent/nowhere', { token: ws.agent.credential })
    expect(agent.status).toBe(404)
    expect(agent.headers.get('x-ratelimit-limit')).toBe('1200')
    const entries = await logHolding(ws.live, [idOf(typo), idOf(wrongMethod), idOf(agent)])
    expect(entries.find((e) => e.id === idOf(typo))).toMatchObject({ method: 'GET', path: '/api/v1/mision', operation: 'unknown_route', status: 404, code: 'not_found', message: typo.body.error.message, credential: { kind: 'live', last4: ws.live.slice(-4) } })
    expect(entries.find((e) => e.id === idOf(wrongMethod))).toMatchObject({ method: 'DELETE', operation: 'method_not_allowed', status: 405, code: 'invalid_request' })
    expect(entries.find((e) => e.id === idOf(agent))).toMatchObject({ path: '/api/v1/agent/nowhere', status: 404, credential: { kind: 'agent' } })
    // A credential that opens nothing is refused as anywhere; none at all is limited per address, as before.
    expectError(await call('GET', '/api/v1/mision', { token: `${ws.live.slice(0, -4)}0000` }), 401, 'unauthorized')
    const anonymous = await call('GET', '/api/v1/mision', {})
    expect(anonymous.status).toBe(404)
    expect(anonymous.headers.get('x-ratelimit-limit')).toBe((await call('GET', '/api/v1', {})).headers.get('x-ratelimit-limit'))
  })

  test("a call with a revoked or expired token is still its workspace's, under that credential: 401 as any, in the log; a token that was never one is in none", async () => {
    const { sql } = await getHarness()
    const ws = await makeWorkspace()
    const leaked = await createToken(sql, { workspaceId: ws.id, scopes: 'read:growth' })
    const ended = await createToken(sql, { workspaceId: ws.id, scopes: 'read:growth', expiresAt: new Date(Date.now() + 3_600_000).toISOString() })
    await revokeToken(sql, leaked.id)
    await sql`UPDATE credentials SET expires_at = now() - interval '1 minute' WHERE workspace_id = ${ws.id} AND id = ${ended.id}`
    const revokedCall = await call('GET', '/api/v1/missions', { token: leaked.token })
    const expiredCall = await call('POST', '/api/v1/experiments', { token: ended.token, body: {}, headers: { 'Idempotency-Key': 'after-expiry' } })
    const typo = await call('GET', '/api/v1/mision', { token: leaked.token })
    const forged = await call('GET', '/api/v1/missions', { token: `${leaked.token.slice(0, -6)}000000` })
    for (const a of [revokedCall, expiredCall, typo, forged]) expectError(a, 401, 'unauthorized')
    // The same answer as any 401: nothing tells the caller the token was once good.
    expect(revokedCall.body.error.message).toBe(forged.body.error.message)
    const entries = await logHolding(ws.live, [idOf(revokedCall), idOf(expiredCall), idOf(typo)])
    expect(entries.find((e) => e.id === idOf(revokedCall))).toMatchObject({
      method: 'GET', path: '/api/v1/missions', operation: 'listMissions', status: 401, code: 'unauthorized', message: revokedCall.body.error.message,
      credential: { id: leaked.id, kind: 'live', last4: leaked.token.slice(-4) },
    })
    expect(entries.find((e) => e.id === idOf(expiredCall))).toMatchObject({ operation: 'createExperiment', status: 401, credential: { id: ended.id }, idempotencyKey: 'after-expiry' })
    expect(entries.find((e) => e.id === idOf(typo))).toMatchObject({ operation: 'unknown_route', status: 401, credential: { id: leaked.id } })
    expect(entries.some((e) => e.id === idOf(forged))).toBe(false)
    // What the leaked token kept trying, by its credential id.
    const theirs = await logs(ws.live, `credentialId=${leaked.id}`)
    expect(theirs.body.data.map((e: Entry) => e.id).sort()).toEqual([idOf(revokedCall), idOf(typo)].sort())
  })

  test('a success has no code or message, and a replayed write says so', async () => {
    const ws = await makeWorkspace()
    const abt = await insertAbTest(ws.id, 'running')
    const headers = { 'Idempotency-Key': 'log-replay-1' }
    const first = await call('POST', '/api/v1/experiments', { token: ws.live, body: experiment(abt), headers })
    const again = await call('POST', '/api/v1/experiments', { token: ws.live, body: experiment(abt), headers })
    expect([first.status, again.status]).toEqual([201, 201])
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    const entries = await logHolding(ws.live, [idOf(first), idOf(again)])
    const byId = new Map(entries.map((e) => [e.id, e]))
    expect(byId.get(idOf(first))).toMatchObject({ status: 201, code: null, message: null, idempotencyKey: 'log-replay-1', replayed: false })
    expect(byId.get(idOf(again))).toMatchObject({ status: 201, code: null, message: null, idempotencyKey: 'log-replay-1', replayed: true })
    // A read sends no key: none is recorded even if one is sent.
    const read = await call('GET', '/api/v1/missions', { token: ws.live, headers: { 'Idempotency-Key': 'not-for-reads' } })
    expect((await logHolding(ws.live, [idOf(read)])).find((e) => e.id === idOf(read))).toMatchObject({ idempotencyKey: null, path: '/api/v1/missions', operation: 'listMissions' })
  })

  test('newest first, paged with meta.nextBefore, each call once', async () => {
    const ws = await makeWorkspace()
    const sent: string[] = []
    for (let i = 0; i < 7; i++) sent.push(idOf(await call('GET', '/api/v1/missions', { token: ws.live })))
    await logHolding(ws.live, sent, 'operation=listMissions&limit=100')
    const seen: Entry[] = []
    let query = 'operation=listMissions&limit=3'
    for (let page = 0; page < 10; page++) {
      const answer = await logs(ws.live, query)
      expect(answer.status).toBe(200)
      seen.push(...answer.body.data)
      const next = answer.body.meta?.nextBefore
      if (!next) break
      expect(answer.body.data).toHaveLength(3)
      query = `operation=listMissions&limit=3&before=${encodeURIComponent(next)}`
    }
    expect(seen.map((e) => e.id)).toEqual([...sent].reverse())
    const times = seen.map((e) => Date.parse(e.createdAt))
    expect(times).toEqual([...times].sort((a, b) => b - a))
    // A cursor of another filter is refused, naming before.
    const first = await logs(ws.live, 'operation=listMissions&limit=3')
    expectError(await logs(ws.live, `status=2xx&limit=3&before=${encodeURIComponent(first.body.meta.nextBefore)}`), 400, 'invalid_parameter', 'before')
  })

  test('filters by status (a class or one status), operation and credential', async () => {
    const ws = await makeWorkspace()
    const ok = await call('GET', '/api/v1/missions', { token: ws.live })
    const missing = await call('POST', '/api/v1/experiments', { token: ws.live, body: experiment('abt_00000000000000000000000000') })
    const invalid = await call('GET', '/api/v1/decisions?limit=0', { token: ws.live })
    const byTest = await call('GET', '/api/v1/missions', { token: ws.test })
    expect([ok.status, missing.status, invalid.status, byTest.status]).toEqual([200, 404, 400, 200])
    const all = await logHolding(ws.live, [ok, missing, invalid, byTest].map(idOf))
    const ids = (entries: Entry[]) => entries.map((e) => e.id).filter((id) => [ok, missing, invalid, byTest].map(idOf).includes(id)).sort()

    const only = async (query: string) => ((await logs(ws.live, query)).body.data as Entry[])
    expect(ids(await only('status=4xx'))).toEqual([idOf(missing), idOf(invalid)].sort())
    expect(ids(await only('status=404'))).toEqual([idOf(missing)])
    expect(ids(await only('status=2xx'))).toEqual([idOf(ok), idOf(byTest)].sort())
    expect(await only('status=5xx')).toEqual([])
    expect(ids(await only('operation=listDecisions'))).toEqual([idOf(invalid)])
    expect(ids(await only('operation=createExperiment&status=4xx'))).toEqual([idOf(missing)])
    const testCredential = all.find((e) => e.id === idOf(byTest))!.credential
    expect(testCredential.kind).toBe('test')
    expect(ids(await only(`credentialId=${testCredential.id}`))).toEqual([idOf(byTest)])
    expect(ids(await only(`credentialId=${testCredential.id}&status=4xx`))).toEqual([])
  })

  test('a bad filter is 400 invalid_parameter naming it', async () => {
    const ws = await makeWorkspace()
    for (const [query, named] of [
      ['status=6xx', 'status'],
      ['status=abc', 'status'],
      ['status=4XX', 'status'],
      ['status=42', 'status'],
      ['credentialId=agt_1', 'credentialId'],
      ['operation=list%20missions', 'operation'],
      ['operation=nope', 'operation'], // well formed, but no operation of the API: not an empty page
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['before=nonsense', 'before'],
      ['colour=red', 'colour'],
    ]) {
      expectError(await logs(ws.live, query), 400, 'invalid_parameter', named)
    }
    expect((await logs(ws.live, 'operation=nope')).body.error.message).toBe('operation "nope" is not an operation of this API: give an operationId such as createExperiment or listMissions.')
    // A slip of a letter or two (a plural lost, a capital) is answered with the operation meant.
    expect((await logs(ws.live, 'operation=listDecision')).body.error.message).toBe('operation "listDecision" is not an operation of this API: did you mean listDecisions?')
    expect((await logs(ws.live, 'operation=ListMissions')).body.error.message).toBe('operation "ListMissions" is not an operation of this API: did you mean listMissions?')
    // The operations a refusal gives as examples are operations of this API, which the filter takes.
    const index = await call('GET', '/api/v1')
    const operationIds = index.body.data.endpoints.map((e: { operationId: string }) => e.operationId)
    const examples = (await logs(ws.live, 'operation=list%20missions')).body.error.message.match(/\b(?:create|list|get)[A-Z]\w+/g)
    expect(examples.length).toBeGreaterThan(0)
    for (const op of examples) {
      expect(operationIds).toContain(op)
      expect((await logs(ws.live, `operation=${op}`)).status).toBe(200)
    }
  })

  test('keeps nothing of another workspace, even asked by its credential id', async () => {
    const a = await makeWorkspace()
    const b = await makeWorkspace()
    const ofA = await call('GET', '/api/v1/missions', { token: a.live })
    const ofB = await call('GET', '/api/v1/missions', { token: b.live })
    const inA = await logHolding(a.live, [idOf(ofA)])
    const inB = await logHolding(b.live, [idOf(ofB)])
    expect(inA.some((e) => e.id === idOf(ofB))).toBe(false)
    expect(inB.some((e) => e.id === idOf(ofA))).toBe(false)
    const credentialOfB = inB.find((e) => e.id === idOf(ofB))!.credential.id
    // Another workspace's credential is no credential of this one: 404, as any id that names nothing here.
    expectError(await logs(a.live, `credentialId=${credentialOfB}`), 404, 'not_found', credentialOfB)
    // One of its own that made no call (yet): an empty list.
    const quiet = await makeWorkspace()
    const own = (await logHolding(quiet.live, [idOf(await call('GET', '/api/v1/missions', { token: quiet.live }))]))[0]!.credential.id
    expect((await logs(quiet.live, `credentialId=${own}&status=5xx`)).body.data).toEqual([])
  })

  test('needs read:logs: 403 forbidden without it, the log with it', async () => {
    const without: Workspace = await makeWorkspace({ scoped: 'read:growth' })
    expectError(await logs(without.scoped), 403, 'forbidden', 'read:logs')
    const withIt = await makeWorkspace({ scoped: 'read:logs' })
    expect((await logs(withIt.scoped)).status).toBe(200)
    // An agent credential opens only the agent endpoints.
    expectError(await logs(withIt.agent.credential), 403, 'forbidden')
  })

  test('calls older than 7 days are neither listed nor kept past the sweep', async () => {
    const { sql } = await getHarness()
    const ws = await makeWorkspace()
    const recent = await call('GET', '/api/v1/missions', { token: ws.live })
    const [entry] = await logHolding(ws.live, [idOf(recent)])
    await sql`
      INSERT INTO request_log (workspace_id, id, method, path, operation, status, duration_ms, credential_id, created_at)
      VALUES (${ws.id}, 'req_old', 'GET', '/api/v1/missions', 'listMissions', 200, 1, ${entry!.credential.id}, now() - interval '8 days')`
    expect(((await logs(ws.live)).body.data as Entry[]).some((e) => e.id === 'req_old')).toBe(false)
    expect(await purgeRequestLog(sql)).toBeGreaterThanOrEqual(1)
    const left = await sql`SELECT id FROM request_log WHERE workspace_id = ${ws.id}`
    expect(left.map((r) => r.id)).toContain(idOf(recent))
    expect(left.map((r) => r.id)).not.toContain('req_old')
  })
})

describe('the sweep', () => {
  test('finds every workspace that has calls past 7 days and takes them a batch at a time, keeping the recent ones', async () => {
    const { sql } = await getHarness()
    const [a, b] = [await makeWorkspace(), await makeWorkspace()]
    const row = (ws: string, id: string, age: string) => sql`
      INSERT INTO request_log (workspace_id, id, method, path, operation, status, duration_ms, credential_id, created_at)
      VALUES (${ws}, ${id}, 'GET', '/api/v1/missions', 'listMissions', 200, 1, 'cred_none', now() - ${age}::interval)`
    await row(a.id, 'req_sweep_a_old', '8 days')
    await row(a.id, 'req_sweep_a_older', '30 days')
    await row(b.id, 'req_sweep_b_old', '7 days 1 minute')
    await row(b.id, 'req_sweep_b_recent', '6 days')
    // A batch of one: the sweep goes round until a batch comes back short.
    expect(await purgeRequestLog(sql, 1)).toBeGreaterThanOrEqual(3)
    const left = await sql<{ id: string }[]>`SELECT id FROM request_log WHERE workspace_id IN (${a.id}, ${b.id}) ORDER BY id`
    expect(left.map((r) => r.id)).toEqual(['req_sweep_b_recent'])
  })
})

describe('settings', () => {
  test('REQUEST_LOG, LOG_FORMAT and LOG_LEVEL: a bad value stops the start naming it', () => {
    expect(loadConfig({ REQUEST_LOG: 'off' }).requestLog).toBe(false)
    expect(loadConfig({}).requestLog).toBe(true)
    expect(loadConfig({ LOG_FORMAT: 'pretty' }).logFormat).toBe('pretty')
    expect(loadConfig({}).logFormat).toBeUndefined()
    for (const [name, value, said] of [
      ['REQUEST_LOG', 'maybe', 'REQUEST_LOG must be on or off'],
      ['LOG_FORMAT', 'xml', 'LOG_FORMAT must be one of json, pretty'],
      ['LOG_LEVEL', 'loud', 'LOG_LEVEL must be one of debug, info, warn, error, silent'],
    ]) {
      expect(() => loadConfig({ [name!]: value })).toThrow(ConfigError)
      expect(() => loadConfig({ [name!]: value })).toThrow(said!)
    }
  })
})
