import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { loadConfig } from '../../server/src/config.ts'
import { createLogger } from '../../server/src/core/log.ts'
import { startServer, type RunningServer } from '../../server/src/server.ts'
import { openDatabase, type Database } from '../../server/src/store/driver/db.ts'
import { agentIn } from '../agent-helpers.ts'
import { getHarness, makeWorkspace } from '../harness.ts'

/**
 * What one POST /agent/authorize costs the database: every statement the server sends for it, on
 * every pool (the credential check and rate-limit count, BEGIN and COMMIT included), counted by a
 * server of its own on the shared database whose connections report each statement.
 */
let server: RunningServer
let db: Database
let sent: string[] = []

beforeAll(async () => {
  const { dataDir } = await getHarness()
  // The driver's own look-up of array types, once per new connection, is not the request's.
  // Each statement is written down with the pool that sent it (on a server the counters have their own).
  const hook = (pool: string) => (_connection: number, query: string) => {
    if (!query.includes('pg_catalog.pg_type')) sent.push(`${pool}: ${query.replace(/\s+/g, ' ').trim().slice(0, 120)}`)
  }
  // Embedded: a client of the harness's database (this process owns it); on a server: a pool of its own.
  db = await openDatabase({ databaseUrl: process.env.DATABASE_URL || undefined, dataDir, poolMax: 2, debug: hook('main') })
  // Call counts are flushed once an hour here, so no flush falls inside a counted request.
  const config = loadConfig({ ...process.env, DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', CALL_COUNT_FLUSH_MS: '3600000', WEBHOOK_WORKERS: '0' })
  server = await startServer(config, { db, log: createLogger('silent'), debug: hook('counters') })
}, 90_000) // the first start of the shared server (and of the embedded database) may be slow on a busy machine

afterAll(async () => {
  await server?.stop()
  await db?.close()
})

async function statementsOf(credential: string, body: unknown): Promise<{ status: number; decision: string; statements: string[] }> {
  sent = []
  const res = await fetch(`${server.url}/api/v1/agent/authorize`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${credential}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  })
  const answer = (await res.json()) as { data: { decision: string } }
  return { status: res.status, decision: answer.data?.decision, statements: sent }
}

describe('POST /agent/authorize: statements per request', () => {
  test('an allowed and a denied request each take at most 5 statements, and are recorded', async () => {
    const ws = await makeWorkspace()
    const agent = await agentIn(ws.id, { allow: 'ads.pause_campaign' })
    const pause = { tool: 'ads', action: 'pause_campaign', resource: 'cmp_1' }
    await statementsOf(agent.credential, pause) // the first request of a connection may prepare its statements
    const allowed = await statementsOf(agent.credential, pause)
    expect(allowed.status).toBe(201)
    expect(allowed.decision).toBe('allowed')
    expect(allowed.statements.length, allowed.statements.join('\n')).toBeLessThanOrEqual(5)
    const denied = await statementsOf(agent.credential, { tool: 'ads', action: 'adjust_budget', resource: 'cmp_1', facts: { amountPercent: 5, increase: true } })
    expect(denied.status).toBe(201)
    expect(denied.decision).toBe('denied')
    expect(denied.statements.length, denied.statements.join('\n')).toBeLessThanOrEqual(5)

    if (db.kind === 'server') {
      // The decision is recorded through the counters' pool (its commit does not wait for the WAL
      // flush, so the workspace's shared rows are let go at once), and answered only after a flush
      // barrier on the durable pool that covers it (docs/agent-gateway.md).
      const recordAt = allowed.statements.findIndex((q) => /^counters: WITH item AS/.test(q))
      const barrierAt = allowed.statements.findIndex((q) => q === 'main: SELECT pg_current_xact_id()')
      expect(recordAt, allowed.statements.join('\n')).toBeGreaterThanOrEqual(0)
      expect(barrierAt, allowed.statements.join('\n')).toBeGreaterThan(recordAt)
    }

    // Every one of them was recorded, with its event, and counted against the allowance.
    const { sql } = await getHarness()
    const [row] = await sql<{ requests: number; events: number; used: number }[]>`
      SELECT (SELECT count(*)::int FROM agent_requests WHERE workspace_id = ${ws.id}) AS requests,
             (SELECT count(*)::int FROM events WHERE workspace_id = ${ws.id} AND type = 'agent.request.decided') AS events,
             (SELECT used::int FROM usage_counters WHERE workspace_id = ${ws.id} AND name = 'agentRequests') AS used`
    expect(row).toEqual({ requests: 3, events: 3, used: 3 })
  })

  test('asked again, a decision is judged against the view kept from the last read: no read of its own; after a change, one read and one record', async () => {
    const ws = await makeWorkspace()
    const agent = await agentIn(ws.id, { allow: 'ads.pause_campaign' })
    const pause = { tool: 'ads', action: 'pause_campaign', resource: 'cmp_2' }
    const reads = (q: string[]) => q.filter((x) => / SELECT q\.n, v\.view, /.test(` ${x.replace(/^\w+: /, '')}`))
    const records = (q: string[]) => q.filter((x) => /^\w+: WITH item AS/.test(x))
    const first = await statementsOf(agent.credential, pause)
    expect(first.decision).toBe('allowed')
    expect(reads(first.statements), first.statements.join('\n')).toHaveLength(1)
    const again = await statementsOf(agent.credential, pause)
    expect(again.decision).toBe('allowed')
    expect(reads(again.statements), again.statements.join('\n')).toHaveLength(0)
    expect(records(again.statements), again.statements.join('\n')).toHaveLength(1)
    expect(again.statements.length).toBeLessThan(first.statements.length)
    // A change the kept view does not hold: the record on it writes nothing, then one read and one record.
    const { sql } = await getHarness()
    await sql`UPDATE tools SET name = 'Ads, renamed' WHERE workspace_id = ${ws.id} AND key = 'ads'`
    const changed = await statementsOf(agent.credential, pause)
    expect(changed.decision).toBe('allowed')
    expect(reads(changed.statements), changed.statements.join('\n')).toHaveLength(1)
    expect(records(changed.statements), changed.statements.join('\n')).toHaveLength(2)
    const [row] = await sql<{ requests: number; used: number }[]>`
      SELECT (SELECT count(*)::int FROM agent_requests WHERE workspace_id = ${ws.id}) AS requests,
             (SELECT used::int FROM usage_counters WHERE workspace_id = ${ws.id} AND name = 'agentRequests') AS used`
    expect(row).toEqual({ requests: 3, used: 3 })
  })
})
