import { expect, test } from 'bun:test'
import { call, makeWorkspace } from '../harness.ts'
import { insertDecisions, insertMission } from '../fixtures.ts'

test('smoke: missions and decisions over HTTP', async () => {
  const ws = await makeWorkspace()
  const m = await insertMission(ws.id)
  await insertDecisions(ws.id, m, 30)
  const missions = await call('GET', '/api/v1/missions', { token: ws.live })
  expect(missions.status).toBe(200)
  expect(missions.body.data).toHaveLength(1)
  const page = await call('GET', '/api/v1/decisions?limit=10', { token: ws.live })
  expect(page.status).toBe(200)
  expect(page.body.data).toHaveLength(10)
  expect(typeof page.body.meta.nextCursor).toBe('string')
})
