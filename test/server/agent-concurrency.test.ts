import { describe, expect, test } from 'bun:test'
import { agentIn, authorize } from '../agent-helpers.ts'
import { expectError, getHarness, makeWorkspace } from '../harness.ts'

describe('POST /agent/authorize: agents asking at once in one workspace', () => {
  test('the allowance is exact, and every decision answered is recorded with its event, numbered without a gap', async () => {
    const ws = await makeWorkspace()
    const { sql } = await getHarness()
    await sql`INSERT INTO allowances (workspace_id, name, amount) VALUES (${ws.id}, 'agentRequests', 12)`
    const agents = await Promise.all(Array.from({ length: 6 }, (_, i) => agentIn(ws.id, { allow: 'ads.pause_campaign', name: `Agent ${i + 1}` })))
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) => authorize(agents[i % agents.length]!.credential, { tool: 'ads', action: 'pause_campaign', resource: `cmp_${i}` })),
    )
    const allowed = answers.filter((a) => a.status === 201)
    const refused = answers.filter((a) => a.status !== 201)
    expect(allowed.length).toBe(12)
    for (const a of refused) expectError(a, 402, 'plan_required', 'agentRequests')
    expect(allowed.every((a) => a.body.data.decision === 'allowed')).toBe(true)

    const [row] = await sql<{ requests: number; used: number }[]>`
      SELECT (SELECT count(*)::int FROM agent_requests WHERE workspace_id = ${ws.id}) AS requests,
             (SELECT used::int FROM usage_counters WHERE workspace_id = ${ws.id} AND name = 'agentRequests') AS used`
    expect(row).toEqual({ requests: 12, used: 12 })
    const events = await sql<{ seq: number; id: string }[]>`
      SELECT seq::int AS seq, data->'request'->>'authorizationId' AS id FROM events
      WHERE workspace_id = ${ws.id} AND type = 'agent.request.decided' ORDER BY seq`
    expect(events.map((e) => e.id).sort()).toEqual(allowed.map((a) => a.body.data.authorizationId).sort())
    const [seqs] = await sql<{ min: number; max: number; n: number }[]>`
      SELECT min(seq)::int AS min, max(seq)::int AS max, count(*)::int AS n FROM events WHERE workspace_id = ${ws.id}`
    expect(seqs!.max - seqs!.min + 1).toBe(seqs!.n)
    // The first test of a process also starts the shared server (the embedded database's first start).
  }, 90_000)
})
