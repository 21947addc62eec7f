import { expect, test } from 'bun:test'
import { loadConfig } from '../../server/src/config.ts'
import { decodeCursor, encodeCursor } from '../../server/src/core/paging.ts'
import { createLogger } from '../../server/src/core/log.ts'
import { startServer } from '../../server/src/server.ts'
import { openDatabase } from '../../server/src/store/driver/db.ts'
import { purgeExpiredKeys } from '../../server/src/store/idempotency.ts'
import { RuleError } from '../../server/src/core/errors.ts'
import { z } from 'zod'
import { createPipeline } from '../../server/src/http/pipeline.ts'
import { decisionRecorder } from '../../server/src/store/agent-gateway-recorder.ts'
import { defineItem, model } from '../../server/src/routes/operation.ts'
import { call, expectError, getHarness, makeWorkspace } from '../harness.ts'
import { insertAbTest } from '../fixtures.ts'

test('a failure on our side is 500 internal with the request id, recorded, and no stack trace', async () => {
  const ws = await makeWorkspace()
  const { dataDir } = await getHarness()
  // A server whose database connection is gone: every credential lookup fails.
  const db = await openDatabase({ databaseUrl: process.env.DATABASE_URL, dataDir, poolMax: 1 })
  const logged: unknown[] = []
  const log = { ...createLogger('silent'), error: (msg: string, fields?: Record<string, unknown>) => logged.push({ msg, ...fields }) }
  const server = await startServer(loadConfig({ ...process.env, PORT: '0', HOST: '127.0.0.1' }), { db, log })
  try {
    await db.sql.end({ timeout: 1 })
    const res = await fetch(`${server.url}/api/v1/missions`, { headers: { Authorization: `Bearer ${ws.live}` } })
    const text = await res.text()
    expect(res.status).toBe(500)
    const requestId = res.headers.get('x-request-id')!
    const body = JSON.parse(text)
    expect(body.error.code).toBe('internal')
    expect(body.error.message).toContain(requestId)
    expect(text).not.toMatch(/at .*\.ts:\d+|Error:|CONNECTION/)
    expect(logged).toContainEqual(expect.objectContaining({ requestId, operationId: 'listMissions' }))
  } finally {
    await server.stop().catch(() => {})
    await db.close().catch(() => {})
  }
})

test('expired idempotency records are purged', async () => {
  const ws = await makeWorkspace()
  const { sql } = await getHarness()
  const abt = await insertAbTest(ws.id, 'running')
  for (const key of ['old', 'young']) {
    const r = await call('POST', '/api/v1/experiments', {
      token: ws.live,
      headers: { 'Idempotency-Key': key },
      body: { hypothesis: `Hypothesis under key ${key}.`, kind: 'email_ab_test', subjectId: abt, expectation: 'a_better' },
    })
    expect(r.status).toBe(201)
  }
  await sql`UPDATE idempotency_keys SET expires_at = now() - interval '1 minute' WHERE workspace_id = ${ws.id} AND key = 'old'`
  expect(await purgeExpiredKeys(sql)).toBeGreaterThanOrEqual(1)
  const left = await sql`SELECT key FROM idempotency_keys WHERE workspace_id = ${ws.id}`
  expect(left.map((r) => r.key)).toEqual(['young'])
})

test('a cursor issued for another list is refused', () => {
  const ctx = { workspaceId: 'ws_a', secretKey: 'k', filter: {} }
  const cursor = encodeCursor({ ...ctx, list: 'actions' }, { t: '2026-01-01T00:00:00.000Z', id: 'act_x' })
  expect(decodeCursor({ ...ctx, list: 'actions' }, cursor, 'cursor')).toEqual({ t: '2026-01-01T00:00:00.000Z', id: 'act_x' })
  expect(() => decodeCursor({ ...ctx, list: 'decisions' }, cursor, 'cursor')).toThrow(RuleError)
  expect(() => decodeCursor({ ...ctx, list: 'actions', secretKey: 'other' }, cursor, 'cursor')).toThrow(RuleError)
})

test('query parameters on a write are refused too', async () => {
  const ws = await makeWorkspace()
  expectError(await call('POST', '/api/v1/experiments?dryRun=1', { token: ws.live, body: {} }), 400, 'invalid_parameter', 'dryRun')
})

test('an agent-only operation refuses a workspace token (403) and answers an agent credential within its 1200 limit', async () => {
  const ws = await makeWorkspace()
  const { sql, server } = await getHarness()
  // No agent endpoint exists yet (the gateway is a later issue): a probe operation through the real pipeline.
  const probe = defineItem({
    method: 'GET',
    path: '/agent/probe',
    operationId: 'probeAgent',
    sdk: null,
    summary: 'probe',
    description: 'A probe operation of this test.',
    tag: 'Test',
    auth: { kind: 'agent' },
    response: model('Probe', z.object({ agentId: z.string().nullable() })),
    handler: async ({ caller }) => ({ agentId: caller.agentId }),
  })
  const pipeline = createPipeline({ sql, counterSql: sql, counter: server.counter, log: createLogger('silent'), services: { recordDecision: decisionRecorder() } })
  const ask = (token: string) =>
    pipeline.handle(probe, new Request('http://localhost/api/v1/agent/probe', { headers: { Authorization: `Bearer ${token}` } }), () => '127.0.0.1')
  const refused = await ask(ws.live)
  expect(refused.status).toBe(403)
  const body = (await refused.json()) as any
  expect(body.error.code).toBe('forbidden')
  expect(body.error.message).toContain('agent credential')
  const allowed = await ask(ws.agent.credential)
  expect(allowed.status).toBe(200)
  expect(await allowed.json()).toEqual({ data: { agentId: ws.agent.id } })
  expect(allowed.headers.get('x-ratelimit-limit')).toBe('1200')
})
