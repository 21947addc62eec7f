import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { openPool, type Sql } from '../../server/src/store/driver/db.ts'
import {
  type AttemptRecord,
  claimDeliveries,
  disableLongFailing,
  reapLeases,
  recordFailure,
  recordSuccesses,
  releaseLeases,
} from '../../server/src/store/webhook-deliveries.ts'
import { getHarness, makeWorkspace, type Workspace } from '../harness.ts'
import { oneLine, readPlans, scans } from '../support/statement-plans.ts'

/**
 * What the webhook workers send costs what is out of the ordinary (endpoints with pending work, in a
 * half-open circuit, draining or failing; leases that ran out), not what every endpoint or delivery
 * of the service costs: a worker claims every 200 ms and every server process keeps house every
 * second, so a statement that read every endpoint would keep a database core busy with nothing to
 * send (the claim once took 37 ms at 10,000 idle endpoints and 455 ms at 50,000; the housekeeping
 * 26 ms a second at 50,000). Each statement is sent as a worker sends it, recorded, then read with
 * EXPLAIN (ANALYZE), custom and generic plans, as the query-cost test reads the API's statements.
 * On the PostgreSQL server only (a prepared statement's plans need a connection of their own).
 */
const url = process.env.DATABASE_URL
if (!url) console.warn('worker-cost.test.ts: skipped, it needs DATABASE_URL (a PostgreSQL server) for a connection of its own to read plans on')

const IDLE_ENDPOINTS = 3_000
/** What a statement may read: every other test's deliveries count too, far fewer than the idle rows. */
const BOUND = IDLE_ENDPOINTS / 10

type Sent = { query: string; params: unknown[]; types: number[] }

/** Every table or index read in `sent`'s plans that scans sequentially or reads more than BOUND rows. */
async function costly(probe: Sql, sent: Sent[]): Promise<string[]> {
  const failures: string[] = []
  for (const s of sent) {
    for (const reading of await readPlans(probe, s.query, s.params, s.types)) {
      for (const { node, examined } of scans(reading.plan)) {
        const what = `${node['Node Type']} of ${node['Relation Name'] ?? node['Index Name']} (${reading.mode} plan${reading.analyzed ? '' : ', estimated'}) in ${oneLine(s.query).slice(0, 160)}`
        if (node['Node Type'] === 'Seq Scan' && /^webhook_/.test(node['Relation Name'] ?? '')) failures.push(`a sequential scan: ${what}`)
        else if (examined > BOUND) failures.push(`${examined} rows: ${what}`)
      }
    }
  }
  return failures
}

describe.skipIf(!url)('the webhook workers\' statements and idle endpoints (PostgreSQL server)', () => {
  const sent: Sent[] = []
  const probe: Sql | undefined = url
    ? openPool(url, { max: 1, name: 'growth-worker-cost', timeouts: { statementMs: 0 }, debug: (_c, query, params, types) => void sent.push({ query, params, types }) })
    : undefined
  let sql: Sql
  let idle: Workspace
  let busy: Workspace

  beforeAll(async () => {
    sql = (await getHarness()).sql
    idle = await makeWorkspace()
    busy = await makeWorkspace()
    // Endpoints with nothing to send, each with a delivered history.
    await sql`
      INSERT INTO webhook_endpoints (workspace_id, id, url, events, last_success_at)
      SELECT ${idle.id}, 'whe_idle' || n, 'https://example.com/hooks/' || n, ARRAY['contact.created'], now()
      FROM generate_series(1, ${IDLE_ENDPOINTS}) n`
    await sql`
      INSERT INTO webhook_deliveries (workspace_id, id, endpoint_id, event_id, event_seq, status, attempts, delivered_at)
      SELECT ${idle.id}, 'dlv_idle' || n, 'whe_idle' || n, 'evt_idle' || n, n, 'succeeded', 1, now()
      FROM generate_series(1, ${IDLE_ENDPOINTS}) n`
    // One endpoint with work: a due delivery, events for it and the next.
    await sql`INSERT INTO webhook_endpoints (workspace_id, id, url, events) VALUES (${busy.id}, 'whe_busy', 'https://example.com/hooks/busy', ARRAY['contact.created'])`
    await sql`
      INSERT INTO events (workspace_id, seq, id, type, data)
      VALUES (${busy.id}, 1000000, 'evt_workercost1', 'contact.created', '{}'), (${busy.id}, 1000001, 'evt_workercost2', 'contact.created', '{}')`
    await sql`
      INSERT INTO webhook_deliveries (workspace_id, id, endpoint_id, event_id, event_seq)
      VALUES (${busy.id}, 'dlv_workercost1', 'whe_busy', 'evt_workercost1', 1000000), (${busy.id}, 'dlv_workercost2', 'whe_busy', 'evt_workercost2', 1000001)`
    await sql`ANALYZE webhook_endpoints`
    await sql`ANALYZE webhook_deliveries`
  })

  afterAll(async () => {
    if (url) {
      await sql`DELETE FROM webhook_attempts WHERE workspace_id IN (${idle.id}, ${busy.id})`
      await sql`DELETE FROM webhook_deliveries WHERE workspace_id IN (${idle.id}, ${busy.id})`
      await sql`DELETE FROM events WHERE workspace_id = ${busy.id} AND id LIKE 'evt_workercost%'`
      await sql`DELETE FROM webhook_endpoints WHERE workspace_id IN (${idle.id}, ${busy.id})`
    }
    await probe?.end({ timeout: 5 })
  })

  test(`with ${IDLE_ENDPOINTS.toLocaleString('en-US')} endpoints that have nothing to send, a claim reads only the endpoints that do`, async () => {
    sent.length = 0
    // The statement as a worker sends it, taken inside a transaction that is then undone.
    await probe!
      .begin(async (tx) => {
        const claimed = await claimDeliveries(tx as unknown as Sql, { owner: 'worker-cost', leaseMs: 30_000, perEndpoint: 4, endpoints: 64, paceMs: 100, limit: 100 })
        expect(claimed.map((c) => c.id)).toContain('dlv_workercost1')
        throw new Error('undo')
      })
      .catch((err: Error) => {
        if (err.message !== 'undo') throw err
      })
    const claim = sent.filter((s) => s.query.includes('webhook_endpoints') && s.query.includes('lease_owner'))
    expect(claim).toHaveLength(1)
    expect(await costly(probe!, claim)).toEqual([])
  })

  test('recording attempts, housekeeping and giving leases back read only the rows they concern', async () => {
    const attempt = (id: string, eventId: string, statusCode: number): AttemptRecord => ({
      workspaceId: busy.id, deliveryId: id, endpointId: 'whe_busy', eventId, eventType: 'contact.created', attempt: 1,
      url: 'https://example.com/hooks/busy', address: '93.184.216.34', statusCode, error: statusCode >= 300 ? `HTTP ${statusCode}` : null, durationMs: 12,
    })
    // Out of the ordinary, so that every housekeeping question has an answer: a lease that ran out, a
    // half-open endpoint whose probe is gone, a draining one with nothing left, one failing for a week.
    await sql`INSERT INTO webhook_endpoints (workspace_id, id, url, events, circuit, probe_delivery_id) VALUES (${busy.id}, 'whe_halfopen', 'https://example.com/h', ARRAY['contact.created'], 'half_open', 'dlv_gone')`
    await sql`INSERT INTO webhook_endpoints (workspace_id, id, url, events, draining) VALUES (${busy.id}, 'whe_draining', 'https://example.com/d', ARRAY['contact.created'], true)`
    await sql`INSERT INTO webhook_endpoints (workspace_id, id, url, events, failing_since) VALUES (${busy.id}, 'whe_failing', 'https://example.com/f', ARRAY['contact.created'], now() - interval '7 days')`
    await sql`UPDATE webhook_deliveries SET status = 'delivering', lease_owner = 'gone', lease_until = now() - interval '1 minute' WHERE workspace_id = ${busy.id} AND id = 'dlv_workercost2'`
    sent.length = 0
    const expired = await reapLeases(probe!)
    const disabled = await disableLongFailing(probe!, 3 * 86_400_000)
    const [states] = await sql<{ lease: string; halfopen: string; draining: boolean; failing: string }[]>`
      SELECT (SELECT status FROM webhook_deliveries WHERE workspace_id = ${busy.id} AND id = 'dlv_workercost2') AS lease,
             (SELECT circuit FROM webhook_endpoints WHERE workspace_id = ${busy.id} AND id = 'whe_halfopen') AS halfopen,
             (SELECT draining FROM webhook_endpoints WHERE workspace_id = ${busy.id} AND id = 'whe_draining') AS draining,
             (SELECT status FROM webhook_endpoints WHERE workspace_id = ${busy.id} AND id = 'whe_failing') AS failing`
    // Housekeeping did what it is for (the expired lease may be another test's too).
    expect(expired).toBeGreaterThanOrEqual(1)
    expect(disabled).toBeGreaterThanOrEqual(1)
    expect(states).toEqual({ lease: 'pending', halfopen: 'open', draining: false, failing: 'disabled' })

    // Two deliveries out, as a worker holds them, then recorded: one success, one failure; a third given back.
    await sql`UPDATE webhook_deliveries SET status = 'delivering', lease_owner = 'worker-cost', lease_until = now() + interval '1 minute', attempts = 1 WHERE workspace_id = ${busy.id}`
    await recordSuccesses(probe!, [attempt('dlv_workercost1', 'evt_workercost1', 200)])
    await recordFailure(probe!, attempt('dlv_workercost2', 'evt_workercost2', 500), { nextAttemptAt: new Date(Date.now() + 60_000), gone: false }, { threshold: 5, cooldownMs: 60_000, cooldownMaxMs: 3_600_000, disableAfterMs: 3 * 86_400_000 })
    await sql`UPDATE webhook_deliveries SET status = 'delivering', lease_owner = 'worker-cost', lease_until = now() + interval '1 minute' WHERE workspace_id = ${busy.id} AND id = 'dlv_workercost2'`
    await releaseLeases(probe!, 'worker-cost')
    const deliveries = await sql<{ id: string; status: string }[]>`SELECT id, status FROM webhook_deliveries WHERE workspace_id = ${busy.id} ORDER BY id`
    expect([...deliveries]).toEqual([{ id: 'dlv_workercost1', status: 'succeeded' }, { id: 'dlv_workercost2', status: 'pending' }])

    const writes = sent.filter((s) => /^\s*(WITH|INSERT|UPDATE|DELETE|SELECT)\b/i.test(s.query) && /webhook_/.test(s.query))
    // reapLeases (3), disableLongFailing, recordSuccesses, recordFailure (3), releaseLeases.
    expect(writes.length).toBeGreaterThanOrEqual(9)
    expect(await costly(probe!, writes)).toEqual([])
  })
})
