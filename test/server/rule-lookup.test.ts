import { beforeAll, describe, expect, test } from 'bun:test'
import { agentIn, authorize, checkOf, ruleIn } from '../agent-helpers.ts'
import { getHarness, makeWorkspace } from '../harness.ts'

/**
 * The gateway's rule lookup (migration 0010): rule_matches and workspaces.rules_in_force are kept
 * by triggers on rules whoever writes them (a rule disabled or deleted by an operator's SQL too), and
 * rebuild_rule_lookup_rollups (the backfill, and a load with triggers off) makes the same rows.
 */
// The first start of the shared server (and of the embedded database) may be slow on a busy machine.
beforeAll(() => getHarness(), 90_000)

async function lookupOf(workspaceId: string) {
  const { sql } = await getHarness()
  const matches = await sql<{ tool: string; action: string; rule_id: string }[]>`
    SELECT tool, action, rule_id FROM rule_matches WHERE workspace_id = ${workspaceId} ORDER BY tool, action, rule_id`
  const [w] = await sql<{ n: number }[]>`SELECT rules_in_force AS n FROM workspaces WHERE workspace_id = ${workspaceId}`
  return { matches: matches.map((m) => `${m.tool}.${m.action || '*'} ${m.rule_id}`), inForce: w!.n }
}

describe('the rule lookup of the agent gateway', () => {
  test('kept by the rules written, disabled, enabled and deleted; the rebuild makes the same', async () => {
    const { sql } = await getHarness()
    const ws = await makeWorkspace()
    const agent = await agentIn(ws.id, { allow: 'ads.pause_campaign' })
    const a = await ruleIn(ws.id, { match: [{ tool: 'ads', action: 'pause_campaign' }, { tool: 'sms' }], when: [] }, 'deny')
    const b = await ruleIn(ws.id, { match: [{ tool: 'email', action: 'send_campaign' }], when: [] }, 'require_approval')
    expect(await lookupOf(ws.id)).toEqual({
      matches: [`ads.pause_campaign ${a.id}`, `email.send_campaign ${b.id}`, `sms.* ${a.id}`].sort(),
      inForce: 2,
    })
    const pause = { tool: 'ads', action: 'pause_campaign', resource: 'cmp_1' }
    expect((await authorize(agent.credential, pause)).body.data.decision).toBe('denied')

    // Disabled: not read, not counted; the request is allowed, and the rules check says one rule is in force.
    await sql`UPDATE rules SET enabled = false WHERE workspace_id = ${ws.id} AND id = ${a.id}`
    expect(await lookupOf(ws.id)).toEqual({ matches: [`email.send_campaign ${b.id}`], inForce: 1 })
    const allowed = await authorize(agent.credential, pause)
    expect(allowed.body.data.decision).toBe('allowed')
    expect(checkOf(allowed, 'rules').detail).toContain('(1 rule in force')

    await sql`UPDATE rules SET enabled = true WHERE workspace_id = ${ws.id} AND id = ${a.id}`
    const kept = await lookupOf(ws.id)
    expect(kept.inForce).toBe(2)
    expect(kept.matches).toHaveLength(3)
    await sql`SELECT rebuild_rule_lookup_rollups(${ws.id})`
    expect(await lookupOf(ws.id)).toEqual(kept)

    await sql`DELETE FROM rules WHERE workspace_id = ${ws.id} AND id = ${b.id}`
    expect(await lookupOf(ws.id)).toEqual({ matches: [`ads.pause_campaign ${a.id}`, `sms.* ${a.id}`], inForce: 1 })
  })
})
