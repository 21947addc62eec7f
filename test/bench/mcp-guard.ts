/**
 * Benchmark (not a test; run by hand with `npm run bench:mcp-guard`): what growth mcp guard adds to
 * a tool call, beside a direct call to the same upstream MCP server, with one authorize round trip
 * measured in the same run as the baseline of what it should add.
 *
 * - direct: an MCP client (the official SDK's, over stdio) calls send_email on the test upstream
 *   (test/mcp/support/upstream.ts) started on its own.
 * - guard: the same client and call through `growth mcp guard` in front of another copy of it: one
 *   authorize, the upstream call, the answer; the result report goes after the answer.
 * - authorize: POST /agent/authorize with the SDK from this process, the same request the guard makes.
 *
 * The contenders take turns, BENCH_CALLS calls each per round for BENCH_ROUNDS rounds (the order
 * rotates each round), one call in flight; the table shows the median and p90 latency of each. The
 * goal: guard minus direct is about one authorize (the report is off the answer's path). At the end
 * the guard is closed and every report it owed is checked as recorded.
 *
 * The server (server/src/server.ts) runs in this process on an embedded PGlite in a temporary
 * directory (or on DATABASE_URL); the agent's hourly limit is raised here for the run.
 *
 *   bun test/bench/mcp-guard.ts        (BENCH_CALLS=20, BENCH_ROUNDS=5)
 */
import { mkdtempSync } from 'node:fs'
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { Growth } from '../../sdk/src/index.ts'
import { loadConfig } from '../../server/src/config.ts'
import { createLogger } from '../../server/src/core/log.ts'
import { createAgent } from '../../server/src/domain/agents.ts'
import { createWorkspace } from '../../server/src/domain/workspaces.ts'
import { LIMITS } from '../../server/src/http/rate-limit.ts'
import { startServer } from '../../server/src/server.ts'
import { openDatabase } from '../../server/src/store/driver/db.ts'
import { migrate } from '../../server/src/store/driver/migrate.ts'
import { type Connected, startGuard, startUpstream } from '../mcp/support/guard.ts'
import { envNumber } from './support.ts'

const CALLS = envNumber('BENCH_CALLS', 20, true)
const ROUNDS = envNumber('BENCH_ROUNDS', 5, true)

;(LIMITS as { agent: number }).agent = 1_000_000

const dataDir = mkdtempSync(join(tmpdir(), 'growth-bench-guard-'))
const config = loadConfig({ ...process.env, DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', WEBHOOK_WORKERS: '0' })
const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir, poolMax: 8 })
await migrate(db.sql)
const server = await startServer(config, { db, log: createLogger('silent') })
const base = `${server.url}/api/v1`
const ws = await createWorkspace(db.sql, { name: 'Bench: MCP guard', plan: 'scale' })
const agent = await createAgent(db.sql, { workspaceId: ws.id, name: 'Bench mailer', allow: 'email.send_campaign', maxUnattendedRisk: 'high' })

const logDir = mkdtempSync(join(tmpdir(), 'growth-bench-guard-upstream-'))
const direct = await startUpstream(join(logDir, 'direct.jsonl'))
const guard = await startGuard({ credential: agent.credential, baseUrl: base, logFile: join(logDir, 'guard.jsonl') })
const growth = new Growth({ token: agent.credential, baseUrl: base })

let n = 0
const args = () => ({ to: ['a@example.com', 'b@example.com'], subject: `Bench ${++n}` })
const viaMcp = (c: Connected) => async () => {
  const result = await c.client.callTool({ name: 'send_email', arguments: args() })
  if (result.isError) throw new Error(`send_email failed: ${JSON.stringify(result.content)}`)
}
const contenders: Record<string, () => Promise<void>> = {
  direct: viaMcp(direct),
  guard: viaMcp(guard),
  authorize: async () => {
    const a = args()
    const answer = await growth.agent.authorize({ tool: 'email', action: 'send_campaign', resource: a.subject, summary: `send_email through growth mcp guard on ${a.subject}`, facts: { recipients: 2 }, params: { tool: 'send_email', arguments: a } })
    if (!('decision' in answer) || answer.decision !== 'allowed') throw new Error(`authorize answered ${JSON.stringify(answer)}`)
  },
}

const times: Record<string, number[]> = { direct: [], guard: [], authorize: [] }
for (const run of Object.values(contenders)) for (let i = 0; i < 5; i++) await run() // warm-up
const names = Object.keys(contenders)
for (let round = 0; round < ROUNDS; round++) {
  for (const name of [...names.slice(round % names.length), ...names.slice(0, round % names.length)]) {
    for (let i = 0; i < CALLS; i++) {
      const t = performance.now()
      await contenders[name]!()
      times[name]!.push(performance.now() - t)
    }
  }
}

const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!
const ms = (x: number) => `${x.toFixed(2)} ms`
console.log(`growth mcp guard beside a direct call, Bun ${Bun.version}, ${availableParallelism()} cores (${cpus()[0]?.model.trim()}), load ${loadavg().map((x) => x.toFixed(2)).join(' ')}; ${config.databaseUrl ? 'PostgreSQL at DATABASE_URL' : 'embedded PGlite'}`)
console.log(`${ROUNDS} rounds x ${CALLS} calls each, one in flight\n`)
console.log('contender    median      p90')
for (const name of names) console.log(`${name.padEnd(10)} ${ms(quantile(times[name]!, 0.5)).padStart(9)} ${ms(quantile(times[name]!, 0.9)).padStart(10)}`)
const added = quantile(times.guard!, 0.5) - quantile(times.direct!, 0.5)
const authorize = quantile(times.authorize!, 0.5)
console.log(`\nadded by the guard (median guard - median direct): ${ms(added)}; one authorize round trip: ${ms(authorize)}; ratio ${(added / authorize).toFixed(2)}`)

// Every report the guard owed is recorded once it has shut down.
await guard.close()
const guarded = n - times.direct!.length - times.authorize!.length - 10 // the guard's own calls, warm-up included
const deadline = Date.now() + 30_000
let recorded = 0
for (;;) {
  const [row] = await db.sql<{ count: number }[]>`SELECT count(*)::int AS count FROM agent_results WHERE workspace_id = ${ws.id}`
  recorded = row!.count
  if (recorded >= guarded || Date.now() > deadline) break
  await Bun.sleep(100)
}
console.log(`reports recorded: ${recorded} of ${guarded} guarded calls`)
await direct.close()
await server.stop()
await db.close()
process.exit(recorded === guarded ? 0 : 1)
