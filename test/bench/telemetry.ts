/**
 * Benchmark (not a test; run by hand with `npm run bench:telemetry`): what metrics and tracing cost
 * the API (issue 29's aim: at least 0.95 of the throughput).
 *
 * Two server processes (`bun server/src/main.ts`, as npm start runs it) on the same scratch
 * PostgreSQL database, in the same run: "observed" with METRICS_PORT set and every request traced
 * (OTEL_EXPORTER_OTLP_ENDPOINT to an OTLP/HTTP receiver in this process, protobuf, always sampled:
 * a server span, its SQL spans, each exported; the receiver decodes each span, as a collector would,
 * and keeps none), "plain" with both off. Load: GET /api/v1/missions from
 * test/bench/load.ts in a process of its own, as in test/bench/pipeline.ts. Each round runs both,
 * the order turned each round; the aim is judged on the rounds' ratios: met or not met when the
 * interval of their median (support.ts, verdict) lies above or below it, not settled when it holds
 * it. Two more servers are measured with them: "metrics" (METRICS_PORT alone) and "sampled" (metrics
 * and 1 trace in 10); and "control", plain's settings again, for how far two identical servers
 * differ in the same run.
 *
 * Env: DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres; a scratch database is made
 * beside it and dropped), BENCH_SECONDS (8), BENCH_CONCURRENCY (32), BENCH_WARMUP_SECONDS (2),
 * BENCH_ROUNDS (4), BENCH_CPU_PROF (a directory: each server writes a CPU profile there as it stops,
 * markdown beside the .cpuprofile, with bun's --cpu-prof; the profiler's own cost is in the figures
 * then), BENCH_TARGETS (which servers to run beside plain, comma-separated: observed, metrics,
 * sampled, control; all by default), BENCH_OBSERVED_ENV (a JSON object of settings added to the observed
 * server's, e.g. {"OTEL_TRACES_SAMPLER":"always_off"} to time tracing on with nothing sampled).
 * Exit status 0 whether or not the aim is met.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import postgres from 'postgres'
import { newId } from '../../server/src/core/ids.ts'
import { useSecretsKeyring } from '../../server/src/core/secrets.ts'
import { loadSecretsKeyring } from '../../server/src/secrets-key.ts'
import { createToken } from '../../server/src/domain/credentials.ts'
import { createWorkspace } from '../../server/src/domain/workspaces.ts'
import { LIMITS } from '../../server/src/http/rate-limit.ts'
import type { Sql } from '../../server/src/store/driver/db.ts'
import { type OtlpReceiver, startOtlpReceiver } from '../support/otlp-receiver.ts'
import { type ServerProcess, startBanner, startServerProcess } from '../support/server-process.ts'
import { cleanupStep, cpuSecondsOf, envNumber, median, runBenchmark, verdict } from './support.ts'

const ROUTE = '/api/v1/missions'
const MISSIONS = 5
const AIM = 0.95
const SECONDS = envNumber('BENCH_SECONDS', 8)
const CONCURRENCY = envNumber('BENCH_CONCURRENCY', 32, true)
const WARMUP = envNumber('BENCH_WARMUP_SECONDS', 2)
const ROUNDS = envNumber('BENCH_ROUNDS', 4, true)
const TOKENS = Math.max(20, Math.ceil((20_000 * Math.max(SECONDS, WARMUP)) / Math.floor(LIMITS.workspace * 0.75)))

type Result = { requests: number; rps: number; p50ms: number; p99ms: number; errors: number; errorSamples: string[]; cpuUsPerRequest?: number }
const TARGETS = ['plain', 'observed', 'metrics', 'sampled', 'control'] as const
type Target = (typeof TARGETS)[number]
/** BENCH_TARGETS (comma-separated, plain always among them): the servers measured, for a quicker look at one setting. */
const CHOSEN: Target[] = (() => {
  const named = (process.env.BENCH_TARGETS ?? TARGETS.join(',')).split(',').map((t) => t.trim()).filter(Boolean)
  const unknown = named.filter((t) => !(TARGETS as readonly string[]).includes(t))
  if (unknown.length) throw new Error(`BENCH_TARGETS: ${unknown.join(', ')} is not one of ${TARGETS.join(', ')}`)
  return TARGETS.filter((t) => t === 'plain' || named.includes(t))
})()

const baseUrl = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres'
const dbName = `growth_bench_${randomBytes(4).toString('hex')}`
const at = (database: string) => Object.assign(new URL(baseUrl), { pathname: `/${database}` }).toString()
const benchUrl = at(dbName)

let admin: postgres.Sql | undefined
let sql: postgres.Sql | undefined
let created = false
const servers: ServerProcess[] = []
let receiver: OtlpReceiver | undefined
let tmpDir: string | undefined

async function cleanup() {
  for (const s of servers) await cleanupStep('stopping a server', async () => (s.proc.kill('SIGTERM'), await s.proc.exited))
  if (receiver) await cleanupStep('stopping the receiver', () => receiver!.close())
  if (sql) await cleanupStep('closing the bench connection', () => sql!.end({ timeout: 5 }))
  if (admin && created) await cleanupStep(`dropping database ${dbName}`, () => admin!.unsafe(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`))
  if (admin) await cleanupStep('closing the admin connection', () => admin!.end({ timeout: 5 }))
  if (tmpDir) rmSync(tmpDir, { recursive: true, force: true })
}

async function load(url: string, tokenFile: string, seconds: number): Promise<Result> {
  const child = Bun.spawn([process.execPath, join(import.meta.dir, 'load.ts'), url, `@${tokenFile}`, String(seconds), String(CONCURRENCY), String(MISSIONS)], { stdout: 'pipe', stderr: 'inherit' })
  const [out, code] = await Promise.all([new Response(child.stdout as ReadableStream).text(), child.exited])
  if (code !== 0) throw new Error(`load generator exited with ${code}: ${out.trim()}`)
  return JSON.parse(out.trim().split('\n').at(-1)!) as Result
}

const fmt = (x: number, width: number, digits = 1) => x.toFixed(digits).padEnd(width)
const pct = (x: number) => `${(x * 100).toFixed(1)}%`

async function main(): Promise<number> {
  admin = postgres(at('postgres'), { onnotice: () => {}, max: 1, connect_timeout: 5 })
  await admin.unsafe(`CREATE DATABASE "${dbName}"`)
  created = true
  receiver = await startOtlpReceiver({ keep: false })
  tmpDir = mkdtempSync(join(tmpdir(), 'growth-bench-'))
  const profile = process.env.BENCH_CPU_PROF ? { BUN_OPTIONS: `--cpu-prof --cpu-prof-md --cpu-prof-dir=${process.env.BENCH_CPU_PROF}` } : {}
  const common = { DATABASE_URL: benchUrl, DATA_DIR: tmpDir, DB_POOL_MAX: '10', WEBHOOK_WORKERS: '0', LOG_LEVEL: 'error', ...profile }
  // The plain one first: it migrates the database.
  servers.push(await startServerProcess(common))
  servers.push(await startServerProcess({ ...common, METRICS_PORT: '0', OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_TRACES_SAMPLER: 'always_on', ...JSON.parse(process.env.BENCH_OBSERVED_ENV ?? '{}') }))
  servers.push(await startServerProcess({ ...common, METRICS_PORT: '0' }))
  servers.push(await startServerProcess({ ...common, METRICS_PORT: '0', OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' }))
  // The same settings as plain, in a process of its own: how far two identical servers differ in this run.
  servers.push(await startServerProcess(common))
  const [plain, observed, metricsOnly, sampled, control] = servers as [ServerProcess, ServerProcess, ServerProcess, ServerProcess, ServerProcess]
  const metricsUrl = startBanner(observed.out)?.metrics

  // The servers' secrets key (in DATA_DIR): a workspace's key is sealed with it.
  useSecretsKeyring(loadSecretsKeyring(process.env, tmpDir))
  sql = postgres(benchUrl, { onnotice: () => {}, max: 2 })
  const db = sql as unknown as Sql
  const ws = await createWorkspace(db, { name: 'Bench workspace', plan: 'growth' })
  const tokens: string[] = []
  for (let i = 0; i < TOKENS; i++) tokens.push((await createToken(db, { workspaceId: ws.id, scopes: 'all' })).token)
  const tokenFile = join(tmpDir, 'tokens.txt')
  writeFileSync(tokenFile, `${tokens.join('\n')}\n`, { mode: 0o600 })
  for (let m = 0; m < MISSIONS; m++) {
    await sql`
      INSERT INTO missions (workspace_id, id, name, objective, status, metric_name, metric_unit, baseline_value, current_value, target_value, measured_at, started_at, created_at)
      VALUES (${ws.id}, ${newId('mission')}, ${`Grow repeat purchases ${m + 1}`}, 'Bring first-time buyers back.', 'active', 'repeat_purchase_rate', 'percent', 20, 26, 30, now(), now(), now())`
  }
  await sql`ANALYZE`

  const url = (p: ServerProcess) => `${p.base.replace('/api/v1', '')}${ROUTE}`
  const targets: Record<Target, string> = { plain: url(plain), observed: url(observed), metrics: url(metricsOnly), sampled: url(sampled), control: url(control) }
  console.log(`GET ${ROUTE} on PostgreSQL (${dbName}), ${CONCURRENCY} concurrent, ${WARMUP} s warm-up + ${SECONDS} s measured per run, ${ROUNDS} rounds`)
  console.log(`  plain: both off; observed: METRICS_PORT set and every request traced (always_on) to an OTLP/HTTP receiver in the bench process;`)
  console.log(`  metrics: METRICS_PORT only; sampled: metrics and 1 trace in 10 (parentbased_traceidratio 0.1); control: plain's settings again`)
  const rounds: Record<Target, Result>[] = []
  for (let round = 1; round <= ROUNDS; round++) {
    const measured: Partial<Record<Target, Result>> = {}
    const order = CHOSEN.map((_, i) => CHOSEN[(i + round - 1) % CHOSEN.length]!)
    for (const target of order) {
      for (const phase of ['warm-up', 'measured'] as const) {
        await sql`DELETE FROM rate_limit_counters`
        const pid = servers[TARGETS.indexOf(target)]!.proc.pid
        const cpuBefore = cpuSecondsOf(pid)
        const r = await load(targets[target], tokenFile, phase === 'warm-up' ? WARMUP : SECONDS)
        r.cpuUsPerRequest = ((cpuSecondsOf(pid) - cpuBefore) * 1e6) / r.requests
        console.log(`  round ${round} ${target.padEnd(9)} ${phase.padEnd(8)} ${fmt(r.rps, 8)} req/s  p50 ${fmt(r.p50ms, 6, 2)} ms  p99 ${fmt(r.p99ms, 6, 2)} ms  server CPU ${fmt(r.cpuUsPerRequest, 5, 0)} µs/request  ${r.requests} requests, ${r.errors} errors`)
        if (r.errors) {
          const server = servers[TARGETS.indexOf(target)]!
          throw new Error(`${target}: ${r.errors} requests failed: ${r.errorSamples.join('; ')}\nits log:\n${server.stderr().slice(-3000)}`)
        }
        if (phase === 'measured') measured[target] = r
      }
    }
    rounds.push(measured as Record<Target, Result>)
  }
  const others = CHOSEN.filter((t) => t !== 'plain')
  const of = (t: Target) => median(rounds.map((r) => r[t].rps / r.plain.rps))
  const cpu = (t: Target) => median(rounds.map((r) => r[t].cpuUsPerRequest!))
  console.log('')
  rounds.forEach((r, i) => console.log(`  round ${i + 1}: of plain's throughput: ${others.map((t) => `${t} ${pct(r[t].rps / r.plain.rps)} (p99 ${(r[t].p99ms / r.plain.p99ms).toFixed(2)} times)`).join(', ')}`))
  console.log(`  medians: ${others.map((t) => `${t} ${pct(of(t))}`).join(', ')}`)
  console.log(`  server CPU per request (median of the rounds): plain ${cpu('plain').toFixed(0)} µs; ${others.map((t) => `${t} ${cpu(t).toFixed(0)} µs`).join(', ')}`)
  console.log(`  so plain's CPU / each one's, the throughput a CPU-bound server keeps: ${others.map((t) => `${t} ${pct(cpu('plain') / cpu(t))}`).join(', ')}`)
  if (!CHOSEN.includes('observed')) return 0
  const p99 = median(rounds.map((r) => r.observed.p99ms / r.plain.p99ms))
  const { samples } = metricsUrl ? await import('../support/prometheus.ts').then((p) => p.scrape(metricsUrl)) : { samples: new Map<string, number>() }
  const counted = [...samples].filter(([k]) => k.startsWith('growth_http_requests_total{operation="listMissions",status="200"}')).reduce((n, [, v]) => n + v, 0)
  console.log(`  the observed server counted ${counted} requests; the receiver took ${receiver.received} spans`)
  console.log('')
  const aim = verdict(rounds.map((r) => r.observed.rps / r.plain.rps), AIM)
  console.log(`Aim ${aim.word} (with metrics and tracing on, at least ${AIM * 100}% of the throughput with both off): ${aim.text}; p99 ${p99.toFixed(2)} times.`)
  return 0
}

await runBenchmark(main, cleanup)
