import { describe, expect, test } from 'bun:test'
import { operations } from '../../server/src/http/operations.ts'
import { cursorNames } from '../../server/src/http/paging.ts'
import { insertDecisions, insertMission } from '../fixtures.ts'
import { call, expectError, makeWorkspace } from '../harness.ts'

/**
 * Every list of the route table pages as it declares: `limit` within its bounds (1..100 on the lists
 * the spec pages, 1..500 on the others, CONTRACT: Shapes), and its cursor parameter. Taken from the
 * table, so a new list is covered as it is added.
 */
const lists = operations.flatMap((op) => (op.kind === 'list' ? [op] : []))

describe('limit and cursor, on every list', () => {
  test('the table has lists of both sizes (so the tests below test something)', () => {
    const bySize = (max: number) => lists.filter((op) => op.paging.maxLimit === max).map((op) => op.operationId)
    expect(bySize(100)).toEqual(expect.arrayContaining(['listDecisions', 'listApprovals', 'listActions', 'listEvents', 'listAgentRequests']))
    expect(bySize(500)).toEqual(
      expect.arrayContaining(['listMissions', 'listExperiments', 'listSignals', 'listOpportunities', 'listCustomers', 'listConnections', 'listAgents', 'listAgentTools', 'listAgentRules']),
    )
  })

  for (const op of lists) {
    const max = op.paging.maxLimit
    test(`GET ${op.path} (${op.operationId}) refuses limit=0, ${max + 1}, 0x10 and 5.0 naming limit, answers limit=${max}, and checks its cursor`, async () => {
      const ws = await makeWorkspace()
      const token = op.auth.kind === 'agent' ? ws.agent.credential : ws.live
      for (const limit of ['0', String(max + 1), '0x10', '5.0', '1e1', '+5']) {
        expectError(await call('GET', `/api/v1${op.path}?limit=${limit}`, { token }), 400, 'invalid_parameter', 'limit')
      }
      const r = await call('GET', `/api/v1${op.path}?limit=${max}`, { token })
      expect(r.status).toBe(200)
      expect(Array.isArray(r.body.data)).toBe(true)
      const { param } = cursorNames(op.paging)
      expectError(await call('GET', `/api/v1${op.path}?${param}=not-a-cursor`, { token }), 400, 'invalid_parameter', param)
    })
  }

  test('a list the spec leaves unpaged answers at most 500 items and a cursor to the rest', async () => {
    const ws = await makeWorkspace()
    // 501 experiments would take long to write through the API; missions are read-only, so rows.
    const mission = await insertMission(ws.id)
    await insertDecisions(ws.id, mission, 3)
    for (let i = 0; i < 501; i += 167) await Promise.all(Array.from({ length: Math.min(167, 501 - i) }, () => insertMission(ws.id)))
    const first = await call('GET', '/api/v1/missions', { token: ws.live })
    expect(first.body.data).toHaveLength(500)
    expect(typeof first.body.meta.nextCursor).toBe('string')
    const rest = await call('GET', `/api/v1/missions?cursor=${encodeURIComponent(first.body.meta.nextCursor)}`, { token: ws.live })
    expect(rest.body.data).toHaveLength(2)
    expect(rest.body.meta).toBeUndefined()
    const ids = new Set([...first.body.data, ...rest.body.data].map((m: { id: string }) => m.id))
    expect(ids.size).toBe(502)
  })
})
