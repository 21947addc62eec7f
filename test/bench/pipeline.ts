/**
 * Benchmark (not a test; run by hand with `npm run bench`): what the API's request pipeline costs.
 *
 * It compares, on the same PostgreSQL database, in the same run, each target in a process of its own
 * (this file started again with --serve, so that no target shares a heap, a collector or an event
 * loop with another, as a deployed server does not):
 * - "pipeline": the real server (Elysia, token authentication + rate-limit counting in PostgreSQL,
 *   call counting, validation, envelope) answering GET /api/v1/missions;
 * - "bare handler": a plain Bun.serve whose fetch handler runs the same SQL as selectMissions
 *   (server/src/store/missions.ts) with its own postgres.js pool of the same size, no auth, no limits;
 * - "uncounted": the same pipeline in a second server whose credentials are checked once per token
 *   and then answered from memory, never counted: not a design the server may use (a revoked token
 *   would still pass, the rate limit would not hold), but the difference to "pipeline" is what the
 *   exact credential and rate-limit statement costs;
 * - "unlogged": the same pipeline in a server with REQUEST_LOG=off, so the difference to "pipeline"
 *   (which keeps the request log, as a server does by default) is what writing the request log costs.
 *   Beside the throughput, each round prints the CPU per request of the two, the server process's
 *   and PostgreSQL's (from /proc): steadier than a throughput on a machine where other work runs,
 *   and it counts the flush's work in PostgreSQL, off the request's path.
 * Load comes from test/bench/load.ts in a separate process, the same for both. Each target is warmed
 * up, then measured, once per round. The order turns each round (bare first, then pipeline first,
 * then uncounted first, ...), because whichever target runs first in a round measured faster on
 * the bench machine. The aim is judged on the rounds' ratios (each from runs minutes apart, in one
 * round): met or not met when the interval of their median (support.ts, verdict) lies above or below
 * it, not settled when it holds it; every round is printed, and the best run of each beside them.
 *
 * Env: DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres; a scratch database is
 * created next to it and dropped at the end), BENCH_SECONDS (8), BENCH_CONCURRENCY (32),
 * BENCH_WARMUP_SECONDS (2), BENCH_ROUNDS (4; a multiple of 4 puts each target first equally often).
 *
 * Exit status: 0 whether or not the aim is met; non-zero only when the benchmark itself failed
 * (no database, a non-200 answer, the load generator failing).
 */
import { randomBytes } from 'node:crypto'
import type { ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import postgres from 'postgres'
import { loadConfig } from '../../server/src/config.ts'
import { useSecretsKeyring } from '../../server/src/core/secrets.ts'
import { loadSecretsKeyring } from '../../server/src/secrets-key.ts'
import { createToken } from '../../server/src/domain/credentials.ts'
import { createWorkspace } from '../../server/src/domain/workspaces.ts'
import { newId } from '../../server/src/core/ids.ts'
import { LIMITS } from '../../server/src/http/rate-limit.ts'
import { createLogger } from '../../server/src/core/log.ts'
import { startServer } from '../../server/src/server.ts'
import { selectMissions } from '../../server/src/store/missions.ts'
import type { CheckResult, CredentialCheck } from '../../server/src/http/credential-batch.ts'
import type { Sql } from '../../server/src/store/driver/db.ts'
import { cleanupStep, cpuGrowth, cpuSecondsOf, databaseCpu, envNumber, median, runBenchmark, spawnUntilReady, stopServerProcess, verdict } from './support.ts'

const ROUTE = '/api/v1/missions'
const POOL_MAX = 10
const MISSIONS = 5
const AUTOMATIONS_PER_MISSION = 2
/** The aim: the pipeline keeps at least this share of the bare handler's throughput. */
const AIM = 0.8
/** The aim of the request log: the pipeline with it keeps at least this share of its throughput without it. */
const REQUEST_LOG_AIM = 0.95
/**
 * A throughput no run on the bench machine will reach; the token pool is sized so that even at
 * this rate no token passes its hourly limit within one load run (the counters are cleared before
 * every run), with a margin: at most TOKEN_BUDGET of the limit per token.
 */
const ASSUMED_MAX_RPS = 20_000
const TOKEN_BUDGET = Math.floor(LIMITS.workspace * 0.75)


/** CPU per request answered in a run, in µs: the target's process's and PostgreSQL's. */
type Cpu = { server: number; postgres: number }
type Result = { requests: number; seconds: number; rps: number; p50ms: number; p99ms: number; errors: number; errorSamples: string[]; cpu: Cpu }
const TARGETS = ['bare', 'pipeline', 'uncounted', 'unlogged'] as const
type Target = (typeof TARGETS)[number]
/** What a target process prints when it serves: one JSON line. */
type Ready = { url: string }

const SECONDS = envNumber('BENCH_SECONDS', 8)
const CONCURRENCY = envNumber('BENCH_CONCURRENCY', 32, true)
const WARMUP = envNumber('BENCH_WARMUP_SECONDS', 2)
const ROUNDS = envNumber('BENCH_ROUNDS', 4, true)
const TOKENS = Math.max(20, Math.ceil((ASSUMED_MAX_RPS * Math.max(SECONDS, WARMUP)) / TOKEN_BUDGET))

const baseUrl = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres'
const dbName = `growth_bench_${randomBytes(4).toString('hex')}`
const adminUrl = withDatabase(baseUrl, 'postgres')
const benchUrl = withDatabase(baseUrl, dbName)

function withDatabase(url: string, database: string): string {
  const u = new URL(url)
  u.pathname = `/${database}`
  return u.toString()
}

const quiet = { onnotice: () => {} }
let admin: postgres.Sql | undefined
let created = false
const processes: ChildProcess[] = []
let benchSql: postgres.Sql | undefined
let child: ReturnType<typeof Bun.spawn> | undefined
let tmpDir: string | undefined
let cleaning: Promise<void> | undefined

/** Stop everything this run started and drop the scratch database; safe to call more than once. */
function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    const step = cleanupStep
    if (child && child.exitCode === null) await step('stopping the load generator', () => child!.kill())
    for (const p of processes) await step('stopping a target', () => stopServerProcess(p))
    if (benchSql) await step('closing the bench connection', () => benchSql!.end({ timeout: 5 }))
    if (admin && created) {
      await step(`dropping database ${dbName}`, () => admin!.unsafe(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`))
    }
    if (admin) await step('closing the admin connection', () => admin!.end({ timeout: 5 }))
    if (tmpDir) rmSync(tmpDir, { recursive: true, force: true })
  })()
  return cleaning
}

/** One run of the load generator against `url`; resolves to its JSON result. */
async function load(url: string, tokenArg: string, seconds: number): Promise<Omit<Result, 'cpu'>> {
  child = Bun.spawn({
    cmd: [process.execPath, join(import.meta.dir, 'load.ts'), url, tokenArg, String(seconds), String(CONCURRENCY), String(MISSIONS)],
    stdout: 'pipe',
    stderr: 'inherit',
  })
  const [out, code] = await Promise.all([new Response(child.stdout as ReadableStream).text(), child.exited])
  if (code !== 0) throw new Error(`load generator exited with ${code}: ${out.trim()}`)
  const line = out.trim().split('\n').at(-1) ?? ''
  try {
    return JSON.parse(line) as Omit<Result, 'cpu'>
  } catch {
    throw new Error(`load generator printed no result: ${out.trim()}`)
  }
}

/** Starts one target in a process of its own (this file with --serve) and waits until it serves. */
async function startTarget(target: Target, workspaceId = '-'): Promise<{ url: string; pid: number }> {
  const { child: proc, ready } = await spawnUntilReady<Ready>(process.execPath, [fileURLToPath(import.meta.url), '--serve', target, benchUrl, tmpDir!, workspaceId])
  processes.push(proc)
  return { url: `${ready.url}${ROUTE}`, pid: proc.pid! }
}

const fmt = (x: number, width: number, digits = 1) => x.toFixed(digits).padEnd(width)

async function main(): Promise<number> {
  // 1. A scratch database, and a directory for the servers' files (their secrets key) and the tokens.
  admin = postgres(adminUrl, { ...quiet, max: 1, connect_timeout: 5 })
  try {
    await admin.unsafe(`CREATE DATABASE "${dbName}"`)
  } catch (err) {
    throw new Error(`cannot create a scratch database on ${new URL(adminUrl).host}: ${(err as Error).message}`)
  }
  created = true
  tmpDir = mkdtempSync(join(tmpdir(), 'growth-bench-'))

  // 2. The real server, in a process of its own; it migrates the database.
  const pipeline = await startTarget('pipeline')
  useSecretsKeyring(loadSecretsKeyring(process.env, tmpDir))
  benchSql = postgres(benchUrl, { ...quiet, max: 1 })
  const sql = benchSql
  const db = sql as unknown as Sql

  const ws = await createWorkspace(db, { name: 'Bench workspace', plan: 'growth' })
  const tokens: string[] = []
  for (let i = 0; i < TOKENS; i++) tokens.push((await createToken(db, { workspaceId: ws.id, scopes: 'all' })).token)
  const tokenFile = join(tmpDir, 'tokens.txt')
  writeFileSync(tokenFile, `${tokens.join('\n')}\n`, { mode: 0o600 })

  // Missions and automations, written with the bench's own connection.
  const now = Date.now()
  for (let m = 0; m < MISSIONS; m++) {
    const createdAt = new Date(now - (MISSIONS - m) * 60_000)
    const missionId = newId('mission', createdAt)
    await sql`
      INSERT INTO missions (workspace_id, id, name, objective, status, metric_name, metric_unit,
                            baseline_value, current_value, target_value, measured_at, started_at, created_at)
      VALUES (${ws.id}, ${missionId}, ${`Grow repeat purchases ${m + 1}`}, 'Bring first-time buyers back for a second order.',
              'active', 'repeat_purchase_rate', 'percent', 20, 26, 30, ${createdAt}, ${createdAt}, ${createdAt})`
    for (let a = 0; a < AUTOMATIONS_PER_MISSION; a++) {
      await sql`
        INSERT INTO automations (workspace_id, id, mission_id, name, kind, status)
        VALUES (${ws.id}, ${newId('automation')}, ${missionId}, ${`Win-back flow ${a + 1}`}, 'winback_flow', 'running')`
    }
  }
  await sql`ANALYZE`

  // 3. The others, each in a process of its own too (see serve() below for what each is).
  const started: Record<Target, { url: string; pid: number }> = {
    pipeline,
    bare: await startTarget('bare', ws.id),
    uncounted: await startTarget('uncounted'),
    unlogged: await startTarget('unlogged'),
  }
  const labels: Record<Target, string> = { bare: 'bare handler', pipeline: 'pipeline', uncounted: 'uncounted', unlogged: 'unlogged' }
  const targets = Object.fromEntries(
    TARGETS.map((t) => [t, { label: labels[t], url: started[t].url, pid: started[t].pid, tokenArg: t === 'bare' ? '-' : `@${tokenFile}` }]),
  ) as Record<Target, { label: string; url: string; pid: number; tokenArg: string }>

  // 4. Each round runs every target once, the order turned by one each round; keep every measured run.
  console.log(
    `GET ${ROUTE} on PostgreSQL (${dbName}), ${CONCURRENCY} concurrent, ${WARMUP} s warm-up + ${SECONDS} s measured per run, ` +
      `${ROUNDS} rounds; pipeline requests spread over ${TOKENS} tokens`,
  )
  const best: Partial<Record<Target, Result>> = {}
  const rounds: Record<Target, Result>[] = []
  const failures: string[] = []
  const order = TARGETS
  for (let round = 1; round <= ROUNDS; round++) {
    const measured: Partial<Record<Target, Result>> = {}
    for (let i = 0; i < order.length; i++) {
      const target = order[(i + round - 1) % order.length]!
      const t = targets[target]
      for (const phase of ['warm-up', 'measured'] as const) {
        // Every run starts with fresh rate-limit windows, so no token comes near its hourly limit.
        await sql`DELETE FROM rate_limit_counters`
        const serverBefore = cpuSecondsOf(t.pid)
        const postgresBefore = databaseCpu()
        const loaded = await load(t.url, t.tokenArg, phase === 'warm-up' ? WARMUP : SECONDS)
        const perRequest = (seconds: number) => (seconds * 1e6) / loaded.requests
        const r: Result = { ...loaded, cpu: { server: perRequest(cpuSecondsOf(t.pid) - serverBefore), postgres: perRequest(cpuGrowth(postgresBefore, databaseCpu())) } }
        let used = ''
        if (target !== 'bare') {
          const [row] = await sql<{ max: number | null }[]>`SELECT max(count)::int AS max FROM rate_limit_counters`
          used = `, busiest token ${row?.max ?? 0}/${LIMITS.workspace}`
        }
        console.log(
          `  round ${round} ${t.label.padEnd(12)} ${phase.padEnd(8)} ${fmt(r.rps, 8)} req/s  p50 ${fmt(r.p50ms, 6, 2)} ms  ` +
            `p99 ${fmt(r.p99ms, 6, 2)} ms  ${r.requests} requests, ${r.errors} errors${used}`,
        )
        if (r.errors > 0) {
          failures.push(`${t.label}, round ${round}, ${phase}: ${r.errors} of ${r.requests} requests failed`)
          for (const s of r.errorSamples) failures.push(`    ${s}`)
        }
        if (phase === 'measured') {
          measured[target] = r
          if (!best[target] || r.rps > best[target]!.rps) best[target] = r
        }
      }
    }
    rounds.push(measured as Record<Target, Result>)
  }

  // 5. Each round's ratios, then the table of the best runs.
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`
  const total = (c: Cpu) => c.server + c.postgres
  const cpuText = (c: Cpu) => `${c.server.toFixed(0)} + ${c.postgres.toFixed(0)} µs`
  const perRound = rounds.map((r, i) => ({
    first: order[i % order.length]!,
    pipeline: r.pipeline.rps / r.bare.rps,
    uncounted: r.uncounted.rps / r.bare.rps,
    p99: r.pipeline.p99ms / r.bare.p99ms,
    logged: r.pipeline.rps / r.unlogged.rps,
    on: r.pipeline.cpu,
    off: r.unlogged.cpu,
    loggedCpu: total(r.unlogged.cpu) / total(r.pipeline.cpu),
  }))
  console.log('')
  console.log('Each round (runs of one round are minutes apart; the order turns each round):')
  perRound.forEach((r, i) =>
    console.log(`  round ${i + 1} (${r.first} first): pipeline / bare ${pct(r.pipeline)}, uncounted / bare ${pct(r.uncounted)}, p99 pipeline / bare ${r.p99.toFixed(2)}, request log on / off ${pct(r.logged)} ` +
        `(CPU per request, the server's + PostgreSQL's: on ${cpuText(r.on)}, off ${cpuText(r.off)}: ${pct(r.loggedCpu)})`,
    ),
  )
  const ratio = median(perRound.map((r) => r.pipeline))
  const uncountedRatio = median(perRound.map((r) => r.uncounted))
  const p99Ratio = median(perRound.map((r) => r.p99))
  const loggedRatio = median(perRound.map((r) => r.logged))
  const loggedCpuRatio = median(perRound.map((r) => r.loggedCpu))
  const b = best.bare!
  const p = best.pipeline!
  console.log('')
  console.log(`GET ${ROUTE} on PostgreSQL, ${CONCURRENCY} concurrent, ${SECONDS} s each (best of ${ROUNDS})`)
  console.log(`${''.padEnd(20)}${'req/s'.padEnd(10)}${'p50 ms'.padEnd(9)}${'p99 ms'.padEnd(9)}errors`)
  const u = best.uncounted!
  for (const [label, r] of [['bare handler', b], ['pipeline', p], ['uncounted', u], ['unlogged', best.unlogged!]] as const) {
    console.log(`${label.padEnd(20)}${fmt(r.rps, 10)}${fmt(r.p50ms, 9)}${fmt(r.p99ms, 9)}${r.errors}`)
  }
  const invalid = failures.length > 0 ? '   (INVALID: some requests failed, see below)' : ''
  console.log(`${'best / best'.padEnd(20)}pipeline ${pct(p.rps / b.rps)}, uncounted ${pct(u.rps / b.rps)} of the bare handler's throughput (runs from different rounds)`)
  console.log('')
  console.log(`Median of ${ROUNDS} rounds:`)
  console.log(`${'pipeline / bare'.padEnd(20)}${pct(ratio)} of throughput, p99 ${p99Ratio.toFixed(2)} times${invalid}`)
  console.log(`${'uncounted / bare'.padEnd(20)}${pct(uncountedRatio)} of throughput (the same pipeline without the exact credential statement: what it costs)`)
  console.log(`${'pipeline / unlogged'.padEnd(20)}${pct(loggedRatio)} of throughput (the request log on, beside REQUEST_LOG=off: what writing it costs); ${pct(loggedCpuRatio)} by CPU per request (off's / on's)`)
  console.log('')

  if (failures.length) {
    const bar = '!'.repeat(78)
    console.log(`${bar}\n!!! BENCHMARK INVALID: some requests did not answer 200 OK; no conclusion can be drawn.\n${failures.join('\n')}\n${bar}`)
    return 1
  }
  const pipelineAim = verdict(perRound.map((r) => r.pipeline), AIM)
  console.log(`Aim ${pipelineAim.word} (the pipeline keeps at least ${AIM * 100}% of the bare handler's throughput): ${pipelineAim.text}.`)
  const logAim = verdict(perRound.map((r) => r.logged), REQUEST_LOG_AIM)
  console.log(`Request log aim ${logAim.word} (with it the pipeline keeps at least ${REQUEST_LOG_AIM * 100}% of its throughput without it): ${logAim.text}.`)
  return 0
}

/**
 * "uncounted": credentials checked once per token and then answered from memory, never counted. Not a
 * design the server may use (revocation and the rate limit would not hold); it shows what the one
 * exact statement per batch costs.
 */
function uncountedCredentials(exact: CredentialCheck): CredentialCheck {
  const known = new Map<string, Promise<CheckResult | undefined>>()
  return {
    check(workspaceId, tokenHash) {
      const key = `${workspaceId}:${tokenHash}`
      let found = known.get(key)
      if (!found) known.set(key, (found = exact.check(workspaceId, tokenHash)))
      return found.then((r) => r && { ...r, used: 1 })
    },
  }
}

/**
 * A target, in this process (run as `pipeline.ts --serve TARGET DATABASE_URL DATA_DIR WORKSPACE_ID`):
 * prints one JSON line ({"url"}) when it serves, and stops on SIGTERM.
 */
async function serve(target: Target, databaseUrl: string, dataDir: string, workspaceId: string): Promise<void> {
  let stop: () => unknown
  let url: string
  if (target === 'bare') {
    // A plain Bun.serve running the same query as the server (the store's selectMissions), with a
    // pool of its own of the same size: no authentication, no limits, no envelope.
    const bareSql = postgres(databaseUrl, { ...quiet, max: POOL_MAX, idle_timeout: 30, connection: { application_name: 'growth-bench-bare' } })
    const bare = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      fetch: async () => Response.json({ data: await selectMissions(bareSql as never, workspaceId, { limit: 501 }) }),
    })
    url = `http://127.0.0.1:${bare.port}`
    stop = async () => (bare.stop(true), await bareSql.end({ timeout: 5 }))
  } else {
    const config = loadConfig({ ...process.env, DATABASE_URL: databaseUrl, DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', DB_POOL_MAX: String(POOL_MAX), WEBHOOK_WORKERS: '0' })
    const server = await startServer(target === 'unlogged' ? { ...config, requestLog: false } : config, {
      log: createLogger('silent'),
      credentials: target === 'uncounted' ? uncountedCredentials : undefined,
    })
    url = server.url
    stop = () => server.stop()
  }
  process.once('SIGTERM', () => void Promise.resolve(stop()).finally(() => process.exit(0)))
  process.stdout.write(`${JSON.stringify({ url } satisfies Ready)}\n`)
}

if (process.argv[2] === '--serve') {
  const [target, databaseUrl, dataDir, workspaceId] = process.argv.slice(3) as [Target, string, string, string]
  if (!TARGETS.includes(target)) throw new Error(`--serve: ${target} is not one of ${TARGETS.join(', ')}`)
  await serve(target, databaseUrl, dataDir, workspaceId)
} else {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      console.error(`\n${signal}: cleaning up`)
      void cleanup().finally(() => process.exit(130))
    })
  }
  await runBenchmark(main, cleanup)
}
