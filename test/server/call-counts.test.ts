import { expect, test } from 'bun:test'
import { insertAbTest } from '../fixtures.ts'
import { call, getHarness, makeWorkspace } from '../harness.ts'

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
  const ws = await makeWorkspace()
  const { sql, server } = await getHarness()
  await call('GET', '/api/v1/missions', { token: ws.live })
  await sql`UPDATE rate_limit_counters SET count = 600 WHERE workspace_id = ${ws.id}`
  expect((await call('GET', '/api/v1/missions', { token: ws.live })).status).toBe(429)
  await server.counter.flush()
  const rows = await sql`SELECT status FROM call_counts WHERE workspace_id = ${ws.id} AND status = 429`
  expect(rows).toHaveLength(1)
})
