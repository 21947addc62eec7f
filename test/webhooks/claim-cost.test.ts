import { afterAll, describe, expect, test } from 'bun:test'
import { openPool, type Sql } from '../../server/src/store/db.ts'
import { claimDeliveries } from '../../server/src/store/webhook-deliveries.ts'
import { getHarness, makeWorkspace } from '../harness.ts'
import { oneLine, readPlans, scans } from '../support/statement-plans.ts'

/**
 * The webhook workers' claim (store/webhook-deliveries.ts claimDeliveries) costs what the endpoints
 * with pending deliveries cost, not what every endpoint of the service costs: it runs every 200 ms
 * per worker, so a claim that read every enabled endpoint (it did: 37 ms at 10,000 idle endpoints,
 * 455 ms at 50,000) would keep a database core busy with nothing to send. Read with EXPLAIN
 * (ANALYZE), custom and generic plans, as the query-cost test reads the API's statements. On the
 * PostgreSQL server only (a prepared statement's plans need a connection of their own).
 */
const url = process.env.DATABASE_URL
if (!url) console.warn('claim-cost.test.ts: skipped, it needs DATABASE_URL (a PostgreSQL server) for a connection of its own to read plans on')

const IDLE_ENDPOINTS = 3_000

describe.skipIf(!url)('the webhook claim and idle endpoints (PostgreSQL server)', () => {
  const sent: { query: string; params: unknown[]; types: number[] }[] = []
  const probe: Sql | undefined = url
    ? openPool(url, { max: 1, name: 'growth-claim-cost', timeouts: { statementMs: 0 }, debug: (_c, query, params, types) => void sent.push({ query, params, types }) })
    : undefined
  afterAll(() => probe?.end({ timeout: 5 }))

  test(`with ${IDLE_ENDPOINTS.toLocaleString('en-US')} endpoints that have nothing to send, a claim reads only the endpoints that do`, async () => {
    const { sql } = await getHarness()
    const idle = await makeWorkspace()
    const busy = await makeWorkspace()
    await sql`
      INSERT INTO webhook_endpoints (workspace_id, id, url, events)
      SELECT ${idle.id}, 'whe_idle' || n, 'https://example.com/hooks/' || n, ARRAY['contact.created']
      FROM generate_series(1, ${IDLE_ENDPOINTS}) n`
    await sql`INSERT INTO webhook_endpoints (workspace_id, id, url, events) VALUES (${busy.id}, 'whe_busy', 'https://example.com/hooks/busy', ARRAY['contact.created'])`
    await sql`INSERT INTO events (workspace_id, seq, id, type, data) VALUES (${busy.id}, 1000000, 'evt_claimcost', 'contact.created', '{}')`
    await sql`
      INSERT INTO webhook_deliveries (workspace_id, id, endpoint_id, event_id, event_seq)
      VALUES (${busy.id}, 'dlv_claimcost', 'whe_busy', 'evt_claimcost', 1000000)`
    await sql`ANALYZE webhook_endpoints`
    await sql`ANALYZE webhook_deliveries`
    try {
      // The statement as a worker sends it, taken inside a transaction that is then undone.
      await probe!
        .begin(async (tx) => {
          const claimed = await claimDeliveries(tx as unknown as Sql, { owner: 'claim-cost', leaseMs: 30_000, perEndpoint: 4, endpoints: 64, paceMs: 100, limit: 100 })
          expect(claimed.map((c) => c.id)).toContain('dlv_claimcost')
          throw new Error('undo')
        })
        .catch((err: Error) => {
          if (err.message !== 'undo') throw err
        })
      const claim = sent.find((s) => s.query.includes('webhook_endpoints') && s.query.includes('lease_owner'))
      expect(claim).toBeDefined()
      const failures: string[] = []
      for (const reading of await readPlans(probe!, claim!.query, claim!.params, claim!.types)) {
        for (const { node, examined } of scans(reading.plan)) {
          const what = `${node['Node Type']} of ${node['Relation Name'] ?? node['Index Name']} (${reading.mode} plan${reading.analyzed ? '' : ', estimated'})`
          if (node['Node Type'] === 'Seq Scan') failures.push(`a sequential scan: ${what}`)
          // Every other test's pending deliveries count too: far fewer than the idle endpoints.
          else if (examined > IDLE_ENDPOINTS / 10) failures.push(`${examined} rows: ${what}`)
        }
      }
      expect(failures, oneLine(claim!.query).slice(0, 200)).toEqual([])
    } finally {
      await sql`DELETE FROM webhook_deliveries WHERE workspace_id = ${busy.id}`
      await sql`DELETE FROM events WHERE workspace_id = ${busy.id} AND id = 'evt_claimcost'`
      await sql`DELETE FROM webhook_endpoints WHERE workspace_id IN (${idle.id}, ${busy.id})`
    }
  })
})
