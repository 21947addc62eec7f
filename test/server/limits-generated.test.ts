import { describe, expect, test } from 'bun:test'
import type { z } from 'zod'
import { operations } from '../../server/src/routes/index.ts'
import { call, expectError, makeWorkspace } from '../harness.ts'

/** Every workspace GET whose query takes `limit` (spec: Limits, page size 1 to 100), from the route table. */
const paged = operations.filter(
  (op) => op.method === 'GET' && op.auth.kind === 'workspace' && (op.query as z.ZodObject | undefined)?.shape?.limit !== undefined,
)

describe('limit, on every list that takes it', () => {
  test('the table has lists with a limit (so the tests below test something)', () => {
    expect(paged.map((op) => op.operationId)).toEqual(expect.arrayContaining(['listDecisions', 'listApprovals', 'listActions', 'listCustomers', 'listEvents']))
  })

  for (const op of paged) {
    test(`GET ${op.path} (${op.operationId}) refuses limit=0 and limit=101 naming limit, and answers limit=100`, async () => {
      const ws = await makeWorkspace()
      for (const limit of ['0', '101']) {
        expectError(await call('GET', `/api/v1${op.path}?limit=${limit}`, { token: ws.live }), 400, 'invalid_parameter', 'limit')
      }
      const r = await call('GET', `/api/v1${op.path}?limit=100`, { token: ws.live })
      expect(r.status).toBe(200)
      expect(Array.isArray(r.body.data)).toBe(true)
    })
  }
})
