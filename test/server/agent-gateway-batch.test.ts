import { describe, expect, test } from 'bun:test'
import { type AddressInfo, connect, createServer, type Socket } from 'node:net'
import postgres from 'postgres'
import type { Sql } from '../../server/src/core/db.ts'
import { newId } from '../../server/src/core/ids.ts'
import { periodOf } from '../../server/src/domain/allowances.ts'
import { selectGatewayView, type DecisionToRecord, type Recorded } from '../../server/src/store/agent-gateway.ts'
import { DecisionBatch } from '../../server/src/store/agent-gateway-batch.ts'
import { getHarness, makeWorkspace } from '../harness.ts'

/**
 * DecisionBatch (store/agent-gateway-batch.ts), against the real database: the agent gateway's
 * decisions that arrive together are recorded in one statement, so the rows every decision of a
 * workspace locks are locked once per batch; a batch that cannot be recorded whole is recorded one
 * decision at a time, so one decision never fails or refuses its neighbours.
 */
const period = periodOf(new Date()).startDate
if (!process.env.DATABASE_URL) console.warn('agent-gateway-batch.test.ts: one test skipped, it needs DATABASE_URL (a PostgreSQL server) to open a session of its own')

function decision(agentId: string, i: number, over: Partial<DecisionToRecord> = {}): DecisionToRecord {
  const id = newId('authorization')
  return {
    id, agentId, tool: 'ads', action: 'pause_campaign', resource: `cmp_${i}`, summary: null, facts: {}, paramsDigest: 'digest',
    decision: 'allowed', reason: 'Allowed.', checks: [], rules: [], rulesVersion: 1, approvalId: null, expiresAt: null, createdAt: new Date(),
    events: [{ type: 'agent.request.decided', data: { request: { authorizationId: id } } }],
    viewDigest: null,
    ...over,
  }
}

async function recordedIn(workspaceId: string) {
  const { sql } = await getHarness()
  const [row] = await sql<{ requests: number; statements: number; used: number | null; events: number; first: number | null; last: number | null }[]>`
    SELECT (SELECT count(*)::int FROM agent_requests WHERE workspace_id = ${workspaceId}) AS requests,
           -- the transactions that wrote them: one statement outside a transaction is one transaction
           (SELECT count(DISTINCT xmin::text)::int FROM agent_requests WHERE workspace_id = ${workspaceId}) AS statements,
           (SELECT used::int FROM usage_counters WHERE workspace_id = ${workspaceId} AND name = 'agentRequests') AS used,
           (SELECT count(*)::int FROM events WHERE workspace_id = ${workspaceId}) AS events,
           (SELECT min(seq)::int FROM events WHERE workspace_id = ${workspaceId}) AS first,
           (SELECT max(seq)::int FROM events WHERE workspace_id = ${workspaceId}) AS last`
  return row!
}

/**
 * A TCP proxy to the PostgreSQL server: it passes everything until `hold`, then keeps what clients
 * send (`held` counts the bytes) until `cut` ends every connection and lets new ones pass again.
 */
async function holdingProxy(target: URL) {
  const sockets = new Set<Socket>()
  let holding = false
  let held = 0
  const server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname)
    sockets.add(client).add(upstream)
    client.on('data', (chunk) => {
      if (holding) held += chunk.length
      else upstream.write(chunk)
    })
    upstream.on('data', (chunk) => client.write(chunk))
    for (const [a, b] of [[client, upstream], [upstream, client]] as const) {
      a.on('close', () => b.destroy())
      a.on('error', () => b.destroy())
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    port: (server.address() as AddressInfo).port,
    hold: () => void (holding = true),
    held: () => held,
    cut() {
      for (const socket of sockets) socket.destroy()
      sockets.clear()
      holding = false
    },
    close: () => server.close(),
  }
}

async function settle(promises: Promise<Recorded>[]) {
  return Promise.allSettled(promises)
}

describe('DecisionBatch: decisions that arrive together', () => {
  test('twenty decisions at once are recorded in one statement, each with its request and its event, numbered without a gap', async () => {
    const ws = await makeWorkspace()
    const { sql } = await getHarness()
    const batch = new DecisionBatch(sql, sql)
    const ds = Array.from({ length: 20 }, (_, i) => decision(ws.agent.id, i))
    const outcomes = await Promise.all(ds.map((d) => batch.record(ws.id, period, d)))
    expect(outcomes).toEqual(ds.map(() => ({ recorded: true })))
    const r = await recordedIn(ws.id)
    expect(r).toMatchObject({ requests: 20, statements: 1, used: 20, events: 20 })
    expect(r.last! - r.first! + 1).toBe(20)
    // Events are numbered in the order the decisions arrived.
    const events = await sql<{ id: string }[]>`
      SELECT data->'request'->>'authorizationId' AS id FROM events WHERE workspace_id = ${ws.id} ORDER BY seq`
    expect(events.map((e) => e.id)).toEqual(ds.map((d) => d.id))
    const [agent] = await sql<{ last: Date }[]>`SELECT last_acted_at AS last FROM agents WHERE workspace_id = ${ws.id} AND id = ${ws.agent.id}`
    expect(agent!.last.getTime()).toBe(Math.max(...ds.map((d) => d.createdAt.getTime())))
  })

  test('what arrives later goes into a batch of its own', async () => {
    const ws = await makeWorkspace()
    const { sql } = await getHarness()
    const batch = new DecisionBatch(sql, sql)
    const first = Array.from({ length: 5 }, (_, i) => batch.record(ws.id, period, decision(ws.agent.id, i)))
    await Bun.sleep(0)
    const second = Array.from({ length: 5 }, (_, i) => batch.record(ws.id, period, decision(ws.agent.id, 5 + i)))
    await Promise.all([...first, ...second])
    expect(await recordedIn(ws.id)).toMatchObject({ requests: 10, statements: 2, used: 10, events: 10 })
  })

  test('near the end of the allowance, the first to arrive are recorded and only the rest refused, with nothing of theirs written', async () => {
    const ws = await makeWorkspace()
    const { sql } = await getHarness()
    await sql`INSERT INTO allowances (workspace_id, name, amount) VALUES (${ws.id}, 'agentRequests', 5)`
    const batch = new DecisionBatch(sql, sql)
    const ds = Array.from({ length: 8 }, (_, i) => decision(ws.agent.id, i))
    const outcomes = await Promise.all(ds.map((d) => batch.record(ws.id, period, d)))
    expect(outcomes.slice(0, 5)).toEqual(Array(5).fill({ recorded: true }))
    expect(outcomes.slice(5)).toEqual(Array(3).fill({ recorded: false, stale: false, usedBefore: 5, limit: 5 }))
    const r = await recordedIn(ws.id)
    expect(r).toMatchObject({ requests: 5, used: 5, events: 5 })
    expect(r.last! - r.first! + 1).toBe(5)
    const ids = await sql<{ id: string }[]>`SELECT id FROM agent_requests WHERE workspace_id = ${ws.id} ORDER BY id`
    expect(ids.map((x) => x.id)).toEqual(ds.slice(0, 5).map((d) => d.id).sort())
  })

  test('one decision that cannot be written fails alone; its neighbours are recorded', async () => {
    const ws = await makeWorkspace()
    const { sql } = await getHarness()
    const batch = new DecisionBatch(sql, sql)
    // agent_requests.decision has a CHECK: this one breaks it, so the batch's statement fails whole.
    const ds = Array.from({ length: 5 }, (_, i) => decision(ws.agent.id, i, i === 2 ? { decision: 'perhaps' } : {}))
    const outcomes = await settle(ds.map((d) => batch.record(ws.id, period, d)))
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled'])
    expect(String((outcomes[2] as PromiseRejectedResult).reason)).toContain('agent_requests_decision_check')
    const r = await recordedIn(ws.id)
    expect(r).toMatchObject({ requests: 4, used: 4, events: 4 })
    expect(r.last! - r.first! + 1).toBe(4)
  })

  test('a decision judged against a view the database no longer holds is stale alone; its neighbours are recorded', async () => {
    const ws = await makeWorkspace()
    const { sql } = await getHarness()
    const read = await selectGatewayView(sql, ws.id, { agentId: ws.agent.id, tool: 'ads', action: 'pause_campaign' })
    const batch = new DecisionBatch(sql, sql)
    // Two judged against the view as it is, one against a view it never held, two without a view to check.
    const digests = [read!.digest, 'f'.repeat(64), read!.digest, null, null]
    const ds = digests.map((viewDigest, i) => decision(ws.agent.id, i, { viewDigest }))
    const outcomes = await Promise.all(ds.map((d) => batch.record(ws.id, period, d)))
    expect(outcomes).toEqual([{ recorded: true }, { recorded: false, stale: true }, { recorded: true }, { recorded: true }, { recorded: true }])
    expect(await recordedIn(ws.id)).toMatchObject({ requests: 4, used: 4, events: 4 })
    // Once the view changes, the digest read before it no longer records.
    await sql`UPDATE tools SET name = 'Ads, renamed' WHERE workspace_id = ${ws.id} AND key = 'ads'`
    expect(await batch.record(ws.id, period, decision(ws.agent.id, 9, { viewDigest: read!.digest }))).toEqual({ recorded: false, stale: true })
    expect(await recordedIn(ws.id)).toMatchObject({ requests: 4, used: 4, events: 4 })
  })

  test.skipIf(!process.env.DATABASE_URL)('a failure of the database itself is every decision\'s answer at once, not tried again one by one', async () => {
    const ws = await makeWorkspace()
    const { sql } = await getHarness()
    let sent = 0
    // A session that finds none of the service's tables: every statement fails the same way, whatever its data.
    const broken = postgres(process.env.DATABASE_URL!, {
      max: 1,
      onnotice: () => {},
      connection: { search_path: 'nowhere' },
      debug: (_connection, query) => {
        if (query.includes('jsonb_to_recordset')) sent++
      },
    })
    try {
      const batch = new DecisionBatch(broken as unknown as Sql, sql)
      const outcomes = await settle(Array.from({ length: 5 }, (_, i) => batch.record(ws.id, period, decision(ws.agent.id, i))))
      expect(outcomes.map((o) => o.status)).toEqual(Array(5).fill('rejected'))
      expect(outcomes.map((o) => ((o as PromiseRejectedResult).reason as { code?: string }).code)).toEqual(Array(5).fill('42P01'))
      expect(sent).toBe(1)
      expect(await recordedIn(ws.id)).toMatchObject({ requests: 0, used: null, events: 0 })
    } finally {
      await broken.end({ timeout: 5 })
    }
  })

  /**
   * The flush barrier runs on a connection of its own (`flushed`); here one through a TCP proxy
   * that, once told, holds what the client sends, so the barrier is sent after the batch has
   * committed and held; the proxy then cuts the connection under it. The batch's decisions stand:
   * they are looked for again (through the proxy, passing again) and answered as recorded. When one
   * is gone (as a commit not yet flushed is lost in a crash: deleted here), the barrier's error is
   * every decision's answer.
   */
  async function barrierCut(ws: Awaited<ReturnType<typeof makeWorkspace>>, lose: boolean) {
    const { sql } = await getHarness()
    const proxy = await holdingProxy(new URL(process.env.DATABASE_URL!))
    const url = new URL(process.env.DATABASE_URL!)
    url.host = `127.0.0.1:${proxy.port}`
    const flushed = postgres(url.toString(), { max: 1, onnotice: () => {} })
    try {
      await flushed`SELECT 1`
      proxy.hold()
      const batch = new DecisionBatch(sql, flushed as unknown as Sql)
      const ds = Array.from({ length: 3 }, (_, i) => decision(ws.agent.id, i))
      const outcomes = settle(ds.map((d) => batch.record(ws.id, period, d)))
      // Committed, and the barrier sent after it and held.
      await until(async () => (await recordedIn(ws.id)).requests === 3 && proxy.held() > 0)
      if (lose) await sql`DELETE FROM agent_requests WHERE workspace_id = ${ws.id} AND id = ${ds[1]!.id}`
      proxy.cut()
      return await outcomes
    } finally {
      await flushed.end({ timeout: 5 })
      proxy.close()
    }
  }

  async function until(done: () => Promise<boolean>) {
    for (const deadline = Date.now() + 10_000; !(await done()); await Bun.sleep(10)) if (Date.now() > deadline) throw new Error('never came')
  }

  test.skipIf(!process.env.DATABASE_URL)('a flush barrier cut off after the batch committed: the decisions, found in the database, are answered as recorded', async () => {
    const ws = await makeWorkspace()
    const outcomes = await barrierCut(ws, false)
    expect(outcomes).toEqual(Array(3).fill({ status: 'fulfilled', value: { recorded: true } }))
    expect(await recordedIn(ws.id)).toMatchObject({ requests: 3, used: 3, events: 3 })
  })

  test.skipIf(!process.env.DATABASE_URL)('a flush barrier cut off after the batch committed, and a decision of it lost: every one is answered with the error', async () => {
    const ws = await makeWorkspace()
    const outcomes = await barrierCut(ws, true)
    expect(outcomes.map((o) => o.status)).toEqual(Array(3).fill('rejected'))
    expect(outcomes.map((o) => ((o as PromiseRejectedResult).reason as { code?: string }).code)).toEqual(Array(3).fill('CONNECTION_CLOSED'))
  })

  test('workspaces are batched apart: each records its own decisions, counted against its own allowance', async () => {
    const [a, b] = await Promise.all([makeWorkspace(), makeWorkspace()])
    const { sql } = await getHarness()
    const batch = new DecisionBatch(sql, sql)
    await Promise.all([
      ...Array.from({ length: 4 }, (_, i) => batch.record(a.id, period, decision(a.agent.id, i))),
      ...Array.from({ length: 6 }, (_, i) => batch.record(b.id, period, decision(b.agent.id, i))),
    ])
    expect(await recordedIn(a.id)).toMatchObject({ requests: 4, statements: 1, used: 4, events: 4 })
    expect(await recordedIn(b.id)).toMatchObject({ requests: 6, statements: 1, used: 6, events: 6 })
  })
})
