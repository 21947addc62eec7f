/**
 * Benchmark (not a test; run by hand with `npm run bench:authorize`): what POST /agent/authorize
 * costs beside a read, and how it scales with agents asking at once in one workspace.
 *
 * On a scratch database on a PostgreSQL server, with the real server in this process and the load
 * generator (test/bench/load.ts) in its own, it measures in alternating order, in the same run:
 * - "read": GET /api/v1/missions (5 missions) with workspace tokens, BENCH_CONCURRENCY in flight;
 * - "authorize": POST /api/v1/agent/authorize (an allowed request: every check runs, the decision,
 *   its event and the allowance are recorded; with a rule naming another agent and a rule counting
 *   allowed requests in force on the action), BENCH_CONCURRENCY in flight;
 * - "authorize, 1 in flight": the same, one request at a time.
 * Every request of a run is in one workspace; the agents' credentials are taken round-robin from a
 * pool (so no agent passes its hourly rate limit; the counters are cleared before every run), so
 * 16 in flight are 16 agents asking at once. It prints each figure, the ratios (authorize / read,
 * 16 agents / 1) and the SQL statements sent per request (every pool of the server, call-count
 * flushes included). Each round runs the three once, the order turning each round (as npm run
 * bench does); the aims are judged on the median of the rounds' ratios, and the table shows the
 * best run of each.
 *
 * Env: DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres; the scratch database is
 * made beside it and dropped), BENCH_SECONDS (5), BENCH_CONCURRENCY (16), BENCH_WARMUP_SECONDS (1),
 * BENCH_ROUNDS (3), BENCH_HISTORY (100000: requests the agents made in the month before, so the
 * statements are planned for tables of a real workspace's size, not near-empty ones; 0: none).
 *
 * Exit status: 0 whether or not the aims are met; non-zero only when the benchmark itself failed.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import postgres from 'postgres'
import { loadConfig } from '../../server/src/config.ts'
import { createLogger } from '../../server/src/core/log.ts'
import { newId } from '../../server/src/core/ids.ts'
import { createAgent } from '../../server/src/domain/agents.ts'
import { addRules } from '../../server/src/domain/agent-rules.ts'
import { createToken } from '../../server/src/domain/credentials.ts'
import { createWorkspace } from '../../server/src/domain/workspaces.ts'
import { startServer, type RunningServer } from '../../server/src/server.ts'
import { cpuGrowth, databaseCpu, envNumber, median, runBenchmark } from './support.ts'

const AIM_VS_READ = 0.5
const AIM_SCALING = 3
const POOL_MAX = 10
const MISSIONS = 5


const SECONDS = envNumber('BENCH_SECONDS', 5)
const CONCURRENCY = envNumber('BENCH_CONCURRENCY', 16, true)
const WARMUP = envNumber('BENCH_WARMUP_SECONDS', 1)
const ROUNDS = envNumber('BENCH_ROUNDS', 3, true)
/** Requests the workspace's agents made in the 29 days before the last (none in the count's window). */
const HISTORY = envNumber('BENCH_HISTORY', 100_000)
/** Credentials enough that none passes 3/4 of its hourly limit (1,200 for an agent, 600 for a token) at 6,000 requests a second. */
const AGENTS = Math.max(16, Math.ceil((6_000 * Math.max(SECONDS, WARMUP)) / 900))
const TOKENS = Math.max(20, Math.ceil((12_000 * Math.max(SECONDS, WARMUP)) / 450))

type Result = { requests: number; seconds: number; rps: number; p50ms: number; p99ms: number; errors: number; errorSamples: string[] }
/** CPU per request of a measured run, in µs: this process (the server; the load runs in its own) and the local PostgreSQL's processes. */
type Cpu = { server: number; database: number }

const baseUrl = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres'
const dbName = `growth_bench_${randomBytes(4).toString('hex')}`
const withDatabase = (url: string, database: string) => {
  const u = new URL(url)
  u.pathname = `/${database}`
  return u.toString()
}
const quiet = { onnotice: () => {} }
const admin = postgres(withDatabase(baseUrl, 'postgres'), { ...quiet, max: 1, connect_timeout: 5 })
let created = false
let server: RunningServer | undefined
let tmpDir: string | undefined
let child: ReturnType<typeof Bun.spawn> | undefined
let statements = 0

async function cleanup() {
  if (child && child.exitCode === null) child.kill()
  await server?.stop().catch((e) => console.error(`cleanup: stopping the server: ${e.message}`))
  if (created) await admin.unsafe(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`).catch((e) => console.error(`cleanup: ${e.message}`))
  await admin.end({ timeout: 5 })
  if (tmpDir) rmSync(tmpDir, { recursive: true, force: true })
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void cleanup().finally(() => process.exit(130)))

async function load(url: string, tokenFile: string, seconds: number, concurrency: number, body?: string): Promise<Result> {
  child = Bun.spawn({
    cmd: [process.execPath, join(import.meta.dir, 'load.ts'), url, `@${tokenFile}`, String(seconds), String(concurrency)],
    env: { ...process.env, LOAD_BODY: body ?? '' },
    stdout: 'pipe',
    stderr: 'inherit',
  })
  const [out, code] = await Promise.all([new Response(child.stdout as ReadableStream).text(), child.exited])
  if (code !== 0) throw new Error(`load generator exited with ${code}: ${out.trim()}`)
  return JSON.parse(out.trim().split('\n').at(-1) ?? '') as Result
}

const fmt = (x: number, width: number, digits = 1) => x.toFixed(digits).padEnd(width)

async function main(): Promise<number> {
  await admin.unsafe(`CREATE DATABASE "${dbName}"`)
  created = true
  const config = loadConfig({ ...process.env, DATABASE_URL: withDatabase(baseUrl, dbName), PORT: '0', HOST: '127.0.0.1', DB_POOL_MAX: String(POOL_MAX), WEBHOOK_WORKERS: '0' })
  server = await startServer(config, { log: createLogger('silent'), debug: () => void statements++ })
  const sql = server.db.sql
  const ws = await createWorkspace(sql, { name: 'Bench workspace', plan: 'scale' })
  const tokens: string[] = []
  const agents: string[] = []
  for (let i = 0; i < TOKENS; i++) tokens.push((await createToken(sql, { workspaceId: ws.id, scopes: 'all' })).token)
  for (let i = 0; i < AGENTS; i++) agents.push((await createAgent(sql, { workspaceId: ws.id, name: `Bench agent ${i + 1}`, allow: 'ads.pause_campaign' })).credential)
  for (let m = 0; m < MISSIONS; m++) {
    const at = new Date(Date.now() - (MISSIONS - m) * 60_000)
    await sql`
      INSERT INTO missions (workspace_id, id, name, objective, status, metric_name, metric_unit,
                            baseline_value, current_value, target_value, measured_at, started_at, created_at)
      VALUES (${ws.id}, ${newId('mission', at)}, ${`Grow repeat purchases ${m + 1}`}, 'Bring first-time buyers back.',
              'active', 'repeat_purchase_rate', 'percent', 20, 26, 30, ${at}, ${at}, ${at})`
  }
  // The policy's newer conditions in force on the asked action, none of them biting the benchmark's
  // request (it is measured allowed): a rule naming one agent, not one of those asking; and a rule
  // counting the agent's allowed requests (read for every request, up to one past its figure)
  // beside a condition on records the request states below it.
  const bystander = await createAgent(sql, { workspaceId: ws.id, name: 'Bench bystander', allow: 'ads.pause_campaign' })
  await sql.begin((tx) =>
    addRules(tx, ws.id, [
      { structure: { match: [{ tool: 'ads', action: 'pause_campaign' }], agents: [bystander.id], when: [] }, effect: 'deny' },
      { structure: { match: [{ tool: 'ads', action: 'pause_campaign' }], when: [{ fact: 'records', op: '>', value: 1_000 }, { count: 'allowed', window: '24h', op: '>=', value: 5 }] }, effect: 'require_approval' },
    ]),
  )
  // A workspace with a history, as a real one has: the gateway's statements are planned against
  // tables of realistic size (on a near-empty table the planner scans where it would use an index).
  if (HISTORY > 0)
    await sql`
      INSERT INTO agent_requests (workspace_id, id, agent_id, tool, action, decision, reason, checks, rules_version, created_at)
      SELECT ${ws.id}, 'areq_history' || lpad(g::text, 8, '0'), a.ids[1 + g % array_length(a.ids, 1)], 'ads', 'pause_campaign',
             CASE WHEN g % 10 = 0 THEN 'requires_approval' ELSE 'allowed' END, 'history', '[]', 1,
             now() - interval '1 day' - (g::float8 / ${HISTORY}) * interval '29 days'
      FROM generate_series(1, ${HISTORY}) g, (SELECT array_agg(id ORDER BY id) AS ids FROM agents WHERE workspace_id = ${ws.id}) a`
  await sql`ANALYZE`
  tmpDir = mkdtempSync(join(tmpdir(), 'growth-bench-'))
  const tokenFile = join(tmpDir, 'tokens.txt')
  const agentFile = join(tmpDir, 'agents.txt')
  writeFileSync(tokenFile, `${tokens.join('\n')}\n`, { mode: 0o600 })
  writeFileSync(agentFile, `${agents.join('\n')}\n`, { mode: 0o600 })
  const body = JSON.stringify({ tool: 'ads', action: 'pause_campaign', resource: 'cmp_bench', summary: 'Pause the tired ad', facts: { records: 10 } })

  const runs = {
    read: { label: `read, ${CONCURRENCY} in flight`, url: `${server.url}/api/v1/missions`, file: tokenFile, concurrency: CONCURRENCY, body: undefined },
    many: { label: `authorize, ${CONCURRENCY} agents`, url: `${server.url}/api/v1/agent/authorize`, file: agentFile, concurrency: CONCURRENCY, body },
    one: { label: 'authorize, 1 agent', url: `${server.url}/api/v1/agent/authorize`, file: agentFile, concurrency: 1, body },
  } as const
  type Run = keyof typeof runs
  console.log(`POST /agent/authorize beside GET /missions on PostgreSQL (${dbName}), one workspace, ${WARMUP} s warm-up + ${SECONDS} s per run, ${ROUNDS} rounds`)
  const best: Partial<Record<Run, Result & { statements: number }>> = {}
  const failures: string[] = []
  const order = ['read', 'many', 'one'] as const
  const perRound: { vsRead: number; scaling: number }[] = []
  const cpus: Record<Run, Cpu[]> = { read: [], many: [], one: [] }
  for (let round = 1; round <= ROUNDS; round++) {
    const measured: Partial<Record<Run, number>> = {}
    for (let i = 0; i < order.length; i++) {
      const run = order[(i + round - 1) % order.length]!
      const r = runs[run]
      for (const phase of ['warm-up', 'measured'] as const) {
        await sql`DELETE FROM rate_limit_counters`
        await server.counter.flush()
        const before = statements
        const [cpuBefore, dbBefore] = [process.cpuUsage(), databaseCpu()]
        const res = await load(r.url, r.file, phase === 'warm-up' ? WARMUP : SECONDS, r.concurrency, r.body)
        const used = process.cpuUsage(cpuBefore)
        const cpu: Cpu = { server: (used.user + used.system) / res.requests, database: (cpuGrowth(dbBefore, databaseCpu()) * 1e6) / res.requests }
        await server.counter.flush()
        const perRequest = (statements - before) / Math.max(1, res.requests)
        console.log(
          `  round ${round} ${r.label.padEnd(22)} ${phase.padEnd(8)} ${fmt(res.rps, 8)} req/s  p50 ${fmt(res.p50ms, 6, 2)} ms  p99 ${fmt(res.p99ms, 7, 2)} ms  ` +
            `${res.requests} requests, ${res.errors} errors, ${perRequest.toFixed(2)} statements/request, CPU µs/request: server ${cpu.server.toFixed(0)}, database ${cpu.database.toFixed(0)}`,
        )
        if (phase === 'measured') cpus[run].push(cpu)
        if (res.errors) failures.push(`${r.label}, round ${round}, ${phase}: ${res.errors} errors; ${res.errorSamples.join(' | ')}`)
        if (phase === 'measured') measured[run] = res.rps
        if (phase === 'measured' && (!best[run] || res.rps > best[run]!.rps)) best[run] = { ...res, statements: perRequest }
      }
    }
    perRound.push({ vsRead: measured.many! / measured.read!, scaling: measured.many! / measured.one! })
  }
  console.log('')
  console.log(`Each round: authorize / read ${perRound.map((r) => r.vsRead.toFixed(3)).join(', ')}; ${CONCURRENCY} agents / 1 ${perRound.map((r) => r.scaling.toFixed(2)).join(', ')}`)
  console.log(`${''.padEnd(26)}${'req/s'.padEnd(10)}${'p50 ms'.padEnd(9)}${'p99 ms'.padEnd(9)}statements/request`)
  for (const run of ['read', 'many', 'one'] as const) {
    const r = best[run]!
    console.log(`${runs[run].label.padEnd(26)}${fmt(r.rps, 10)}${fmt(r.p50ms, 9, 2)}${fmt(r.p99ms, 9, 2)}${r.statements.toFixed(2)}`)
  }
  const cpuOf = (run: Run) => `server ${median(cpus[run].map((c) => c.server)).toFixed(0)} µs, database ${median(cpus[run].map((c) => c.database)).toFixed(0)} µs`
  console.log(`CPU per request (median of the rounds; the database's when it runs on this machine): read ${cpuOf('read')}; authorize, ${CONCURRENCY} agents ${cpuOf('many')}`)
  const vsRead = median(perRound.map((r) => r.vsRead))
  const scaling = median(perRound.map((r) => r.scaling))
  console.log(`authorize / read          ${vsRead.toFixed(2)}   median of ${ROUNDS} rounds (aim: at least ${AIM_VS_READ}: ${vsRead >= AIM_VS_READ ? 'met' : 'NOT met'})`)
  console.log(`${CONCURRENCY} agents / 1 agent        ${scaling.toFixed(2)}   median of ${ROUNDS} rounds (aim: at least ${AIM_SCALING}: ${scaling >= AIM_SCALING ? 'met' : 'NOT met'})`)
  if (failures.length) {
    console.log(`\nBENCHMARK INVALID: some requests did not get the answer expected:\n${failures.join('\n')}`)
    return 1
  }
  return 0
}

await runBenchmark(main, cleanup)
