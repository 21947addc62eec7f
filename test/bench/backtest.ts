/**
 * Benchmark (not a test; run by hand with `npm run bench:backtest`): the backtest of a planned
 * policy (`growth admin policy plan`, domain/agent-policy-backtest.ts) over a large recorded
 * history, beside the time it takes only to read that history.
 *
 * On a fresh embedded database (PGlite, the default deployment) it seeds one workspace, in SQL in
 * bulk: BENCH_TOOLS tools (300) of 3 actions each, BENCH_AGENTS agents (20) permitted on some of
 * them, BENCH_RULES rules (300: facts conditions, some for one agent, some counting allowed
 * requests, some naming a whole tool) and BENCH_REQUESTS recorded agent requests (100,000) spread
 * over 7 days. Then, BENCH_ROUNDS times (5), alternating:
 * - "read": the backtest's own query (store/agent-request-history.ts requestHistory, one cursor),
 *   every row consumed;
 * - "backtest": backtestPolicy under the policy in force and a planned one that changes a few
 *   rules (one removed, two with a new threshold, two added).
 * BENCH_FACTS=distinct gives every request facts of its own (no two alike), the worst case.
 * Prints the median and best of each, deciding's share (backtest minus read), the same round by
 * round and best against best (the machine's speed drifts within a run), and the goals: backtest
 * within 10 s, deciding at most what reading costs (judged on the round-by-round median).
 *
 * Exit status: 0 whether or not the goals are met; non-zero only when the benchmark itself failed.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { SecretsKeyring, useSecretsKeyring } from '../../server/src/core/secrets.ts'
import { backtestPolicy } from '../../server/src/domain/agent-policy-backtest.ts'
import { policyInForce, type ResolvedPolicy } from '../../server/src/domain/agent-policy-model.ts'
import { createAgent } from '../../server/src/domain/agents.ts'
import { createWorkspace } from '../../server/src/domain/workspaces.ts'
import { requestHistory } from '../../server/src/store/agent-request-history.ts'
import { type Database, openDatabase } from '../../server/src/store/driver/db.ts'
import { migrate } from '../../server/src/store/driver/migrate.ts'
import { envNumber, median, runBenchmark } from './support.ts'

const TOOLS = envNumber('BENCH_TOOLS', 300, true)
const RULES = envNumber('BENCH_RULES', 300, true)
const AGENTS = envNumber('BENCH_AGENTS', 20, true)
const REQUESTS = envNumber('BENCH_REQUESTS', 100_000, true)
const ROUNDS = envNumber('BENCH_ROUNDS', 5, true)
/** `distinct`: every request's facts differ (recipients g), so no two requests share a decision's input. */
const DISTINCT = process.env.BENCH_FACTS === 'distinct'
const GOAL_MS = 10_000
const DAY = 86_400_000

const dataDir = mkdtempSync(join(tmpdir(), 'growth-bench-backtest-'))
let db: Database | undefined

async function seed(db: Database): Promise<string> {
  const sql = db.sql
  const ws = (await createWorkspace(sql, { name: 'Backtest bench', plan: 'scale' })).id
  await sql.begin(async (tx) => {
    await tx`INSERT INTO tools (workspace_id, key, name, description)
             SELECT ${ws}, 'tool_' || g, 'Tool ' || g, 'A bench tool.' FROM generate_series(1, ${TOOLS}) g`
    await tx`INSERT INTO tool_actions (workspace_id, tool_key, key, name, risk, data_used, reversible)
             SELECT ${ws}, 'tool_' || g, 'act_' || a, 'Action ' || a, (ARRAY['low', 'medium', 'high'])[a], ARRAY['campaigns'], a < 3
             FROM generate_series(1, ${TOOLS}) g CROSS JOIN generate_series(1, 3) a`
  })
  const agents: string[] = []
  for (let i = 0; i < AGENTS; i++) {
    // Each agent is permitted the first two actions of the tools t with t % AGENTS = i (15 tools, 30 actions with the defaults).
    const allow = Array.from({ length: TOOLS }, (_, t) => t + 1).filter((t) => (t - 1) % AGENTS === i).flatMap((t) => [`tool_${t}.act_1`, `tool_${t}.act_2`]).join(',')
    agents.push((await createAgent(sql, { workspaceId: ws, name: `Bench agent ${i + 1}`, allow, ceilings: { amountPercent: 40, recipients: 20_000 } })).id)
  }
  // Rules: one per tool action mostly; every 10th for one agent, every 7th counting, every 13th naming the whole tool.
  await sql`
    INSERT INTO rules (workspace_id, id, structure, effect, created_at)
    SELECT ${ws}, 'rule_bench_' || lpad(g::text, 4, '0'),
           jsonb_build_object(
             'match', CASE WHEN g % 13 = 0 THEN jsonb_build_array(jsonb_build_object('tool', 'tool_' || ((g - 1) % ${TOOLS} + 1)))
                           ELSE jsonb_build_array(jsonb_build_object('tool', 'tool_' || ((g - 1) % ${TOOLS} + 1), 'action', 'act_' || (g % 3 + 1))) END,
             'when', CASE WHEN g % 7 = 0 THEN jsonb_build_array(jsonb_build_object('count', 'allowed', 'window', '24h', 'op', '>=', 'value', 3))
                          ELSE jsonb_build_array(jsonb_build_object('fact', 'amountPercent', 'op', '>', 'value', 10 + g % 20)) END)
             || CASE WHEN g % 10 = 0 THEN jsonb_build_object('agents', jsonb_build_array((${agents}::text[])[g % ${AGENTS} + 1])) ELSE '{}' END,
           CASE WHEN g % 4 = 0 THEN 'deny' ELSE 'require_approval' END,
           now() - interval '30 days' + g * interval '1 second'
    FROM generate_series(1, ${RULES}) g`
  await sql`UPDATE workspaces SET rules_version = rules_version + ${RULES} WHERE workspace_id = ${ws}`
  // Requests: agent g % AGENTS (h = g / AGENTS: its h-th request), nine in ten for one of its own tools (any of
  // the three actions), one in ten for any tool; facts from small sets (an agent repeats its asks): a
  // percentage, recipients in hundreds, or none.
  const own = Math.max(1, Math.floor(TOOLS / AGENTS))
  await sql`
    INSERT INTO agent_requests (workspace_id, id, agent_id, tool, action, facts, params_digest, decision, reason, checks, rules, rules_version, created_at)
    SELECT ${ws}, 'auth_bench_' || lpad(g::text, 7, '0'), (${agents}::text[])[g % ${AGENTS} + 1],
           'tool_' || CASE WHEN h % 10 = 9 THEN g * 7 % ${TOOLS} + 1 ELSE (h % ${own}) * ${AGENTS} + g % ${AGENTS} + 1 END,
           'act_' || (h / ${own} % 3 + 1),
           CASE WHEN ${DISTINCT} THEN jsonb_build_object('recipients', g)
                WHEN h % 5 = 0 THEN '{}'::jsonb
                WHEN h % 5 = 1 THEN jsonb_build_object('recipients', (g % 60) * 500)
                ELSE jsonb_build_object('amountPercent', g % 37, 'increase', g % 2 = 0) END,
           'bench', (ARRAY['allowed', 'allowed', 'allowed', 'denied', 'requires_approval'])[g % 5 + 1], 'Recorded by the bench.', '[]', '[]', 1,
           now() - interval '7 days' + interval '30 minutes' + (g::float8 / ${REQUESTS}) * interval '6 days 23 hours'
    FROM generate_series(1, ${REQUESTS}) g CROSS JOIN LATERAL (SELECT g / ${AGENTS} AS h) x
  `
  await sql`ANALYZE`
  return ws
}

/** A planned policy that changes a few rules: the first removed, two with a lower threshold, two added. */
function plannedFrom(current: ResolvedPolicy): ResolvedPolicy {
  const rules = current.rules.slice(1).map((r, i) =>
    i === 10 || i === 20 ? { ...r, structure: { ...r.structure, when: [{ fact: 'amountPercent' as const, op: '>' as const, value: 5 }] } } : r,
  )
  rules.push(
    { id: null, effect: 'deny', structure: { match: [{ tool: 'tool_5', action: 'act_1' }], when: [{ fact: 'recipients', op: '>', value: 1_000 }] } },
    { id: null, effect: 'require_approval', structure: { match: [{ tool: 'tool_8' }], when: [] } },
  )
  return { ...current, rules }
}

async function main(): Promise<number> {
  // A secrets key of the bench's own (a new workspace's key is sealed with one), never the machine's.
  useSecretsKeyring(new SecretsKeyring(randomBytes(32), [], 'the bench'))
  db = await openDatabase({ dataDir })
  await migrate(db.sql)
  const t0 = performance.now()
  const ws = await seed(db)
  console.log(`seeded ${TOOLS} tools (${TOOLS * 3} actions), ${AGENTS} agents, ${RULES} rules, ${REQUESTS.toLocaleString('en')} requests over 7 days in ${((performance.now() - t0) / 1000).toFixed(1)} s (embedded PGlite)`)
  const sql = db.sql
  const current = await policyInForce(sql, ws, 'require_approval')
  const planned = plannedFrom(current)
  const window = () => ({ since: new Date(Date.now() - 7 * DAY), at: new Date() })

  const read: number[] = []
  const backtest: number[] = []
  let last: Awaited<ReturnType<typeof backtestPolicy>> | undefined
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 ? ['backtest', 'read'] : ['read', 'backtest']
    for (const what of order) {
      const w = window()
      const start = performance.now()
      if (what === 'read') {
        let n = 0
        for await (const rows of requestHistory(sql, ws, { since: w.since, until: w.at })) n += rows.length
        if (n !== REQUESTS) throw new Error(`read ${n} requests, seeded ${REQUESTS}`)
        read.push(performance.now() - start)
      } else {
        last = await backtestPolicy(sql, ws, { current, planned }, w)
        if (last.requests !== REQUESTS) throw new Error(`backtested ${last.requests} requests, seeded ${REQUESTS}`)
        backtest.push(performance.now() - start)
      }
    }
    console.log(`round ${round + 1}: read ${read.at(-1)!.toFixed(0)} ms, backtest ${backtest.at(-1)!.toFixed(0)} ms`)
  }
  const r = median(read)
  const b = median(backtest)
  const transitions = Object.entries(last!.byToolAction).reduce<Record<string, number>>((acc, [, t]) => {
    for (const [k, v] of Object.entries(t)) if (k.includes('->')) acc[k] = (acc[k] ?? 0) + v
    return acc
  }, {})
  console.log('')
  console.log(`                         median ms   best ms`)
  console.log(`read the requests        ${r.toFixed(0).padEnd(11)} ${Math.min(...read).toFixed(0)}`)
  console.log(`backtest (read + decide) ${b.toFixed(0).padEnd(11)} ${Math.min(...backtest).toFixed(0)}`)
  console.log(`deciding alone           ${(b - r).toFixed(0).padEnd(11)} (${((b - r) / r).toFixed(2)} x reading; ${(((b - r) * 1000) / (2 * REQUESTS)).toFixed(1)} us a decision, 2 per request)`)
  // A round's read and backtest run one after the other: their ratio, round by round, is steadier
  // than the ratio of the medians when the machine's speed drifts within a run (it does, by a third).
  const perRound = read.map((x, i) => (backtest[i]! - x) / x).sort((p, q) => p - q)
  const best = (Math.min(...backtest) - Math.min(...read)) / Math.min(...read)
  console.log(`deciding / reading, round by round: median ${median(perRound).toFixed(2)} (from ${perRound[0]!.toFixed(2)} to ${perRound.at(-1)!.toFixed(2)}); best backtest against best read: ${best.toFixed(2)}`)
  console.log(`the decision function ran ${last!.decided.toLocaleString('en')} times for ${(2 * REQUESTS).toLocaleString('en')} decisions (each distinct input once)`)
  console.log(`changed: ${last!.changed.length.toLocaleString('en')} of ${REQUESTS.toLocaleString('en')} (${JSON.stringify(transitions)})`)
  console.log(`goals: backtest within ${GOAL_MS / 1000} s: ${b <= GOAL_MS ? 'met' : 'NOT met'}; deciding at most reading: ${median(perRound) <= 1 ? 'met' : 'NOT met'} (round by round)`)
  return 0
}

await runBenchmark(main, async () => {
  await db?.close().catch((e) => console.error(`cleanup: ${(e as Error).message}`))
  rmSync(dataDir, { recursive: true, force: true })
})
