import { expect, test } from 'bun:test'
import { insertAbTest } from '../fixtures.ts'
import { CallCounter } from '../../server/src/http/count.ts'
import { call, getHarness, makeWorkspace } from '../harness.ts'
import { withinOneWindow } from '../support/clock-window.ts'

test('every call is counted where it was answered, per workspace, credential, operation and status', async () => {
  const ws = await makeWorkspace({ scoped: 'read:analytics' })
  const { sql, server } = await getHarness()
  const abt = await insertAbTest(ws.id, 'decided')
  await call('GET', '/api/v1/missions', { token: ws.live })
  await call('GET', '/api/v1/missions', { token: ws.live })
  await call('GET', '/api/v1/missions', { token: ws.scoped }) // 403
  await call('GET', '/api/v1/decisions?limit=0', { token: ws.live }) // 400
  await call('POST', '/api/v1/experiments', {
    token: ws.live,
    body: { hypothesis: 'Naming the roast lifts opens.', kind: 'email_ab_test', subjectId: abt, expectation: 'a_better' },
  }) // 409
  await server.counter.flush()
  const rows = await sql<{ operation: string; status: number; count: number; credential_id: string }[]>`
    SELECT operation, status, count::int AS count, credential_id FROM call_counts WHERE workspace_id = ${ws.id} ORDER BY operation, status`
  const summary = rows.map((r) => `${r.operation} ${r.status} ${r.count}`)
  expect(summary).toEqual(['createExperiment 409 1', 'listDecisions 400 1', 'listMissions 200 2', 'listMissions 403 1'])
  expect(new Set(rows.map((r) => r.credential_id)).size).toBe(2)
})

test('rate-limited calls are counted too', async () => {
  await withinOneWindow()
  const ws = await makeWorkspace()
  const { sql, server } = await getHarness()
  await call('GET', '/api/v1/missions', { token: ws.live })
  await sql`UPDATE rate_limit_counters SET count = 600 WHERE workspace_id = ${ws.id}`
  expect((await call('GET', '/api/v1/missions', { token: ws.live })).status).toBe(429)
  await server.counter.flush()
  const rows = await sql`SELECT status FROM call_counts WHERE workspace_id = ${ws.id} AND status = 429`
  expect(rows).toHaveLength(1)
})

test("a call moves its credential's last use forward (credentials.last_used_at, at most a minute behind); a token not used has none", async () => {
  const ws = await makeWorkspace()
  const { sql, server } = await getHarness()
  const before = Date.now()
  await call('GET', '/api/v1/missions', { token: ws.live })
  await server.counter.flush()
  const [caller] = await sql<{ credential_id: string }[]>`SELECT DISTINCT credential_id FROM call_counts WHERE workspace_id = ${ws.id}`
  const rows = await sql<{ id: string; last_used_at: Date | null }[]>`SELECT id, last_used_at FROM credentials WHERE workspace_id = ${ws.id}`
  const used = rows.find((r) => r.id === caller!.credential_id)!.last_used_at
  expect(used).toBeInstanceOf(Date)
  expect(used!.getTime()).toBeGreaterThanOrEqual(before - 1)
  expect(used!.getTime()).toBeLessThanOrEqual(Date.now())
  // The workspace's other credentials (a test token, a scoped one, its agent's) made no call.
  expect(rows.filter((r) => r.id !== caller!.credential_id).map((r) => r.last_used_at)).toEqual([null, null, null])
})

test('the last use is written at most once a minute by a process, and never moved back', async () => {
  const ws = await makeWorkspace()
  const { sql } = await getHarness()
  const [cred] = await sql<{ id: string }[]>`SELECT id FROM credentials WHERE workspace_id = ${ws.id} LIMIT 1`
  const lastUsed = async () => (await sql<{ last_used_at: Date }[]>`SELECT last_used_at FROM credentials WHERE workspace_id = ${ws.id} AND id = ${cred!.id}`)[0]!.last_used_at.getTime()
  const counter = new CallCounter(sql, 60_000)
  const t0 = Date.now() - 10 * 60_000
  counter.count(ws.id, cred!.id, 'listMissions', 200, t0)
  counter.count(ws.id, cred!.id, 'listMissions', 200, t0 + 1_000)
  await counter.flush()
  expect(await lastUsed()).toBe(t0 + 1_000)
  // Within the minute after the use written: counted, not written.
  counter.count(ws.id, cred!.id, 'listMissions', 200, t0 + 30_000)
  await counter.flush()
  expect(await lastUsed()).toBe(t0 + 1_000)
  // A minute on: written.
  counter.count(ws.id, cred!.id, 'getMission', 404, t0 + 62_000)
  await counter.flush()
  expect(await lastUsed()).toBe(t0 + 62_000)
  // Another process's older use does not move it back.
  const other = new CallCounter(sql, 60_000)
  other.count(ws.id, cred!.id, 'listMissions', 200, t0 + 5_000)
  await other.flush()
  expect(await lastUsed()).toBe(t0 + 62_000)
  // Every call was counted all the same.
  const [n] = await sql<{ n: number }[]>`SELECT sum(count)::int AS n FROM call_counts WHERE workspace_id = ${ws.id} AND credential_id = ${cred!.id}`
  expect(n!.n).toBe(5)
})
