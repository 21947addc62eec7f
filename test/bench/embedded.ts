/**
 * Benchmark (not a test; run by hand with `npm run bench:embedded`): the embedded default's memory
 * under load and its cold start on existing data.
 *
 * 1. Starts the server as `npm start` does (`bun server/src/main.ts`, no DATABASE_URL) on a fresh
 *    DATA_DIR, so it creates the embedded database and seeds the demo workspace.
 * 2. Puts it under the load of test/bench/pipeline.ts (test/bench/load.ts in its own process:
 *    GET /api/v1/missions, BENCH_CONCURRENCY concurrent, tokens round-robin) and samples the server
 *    process's resident set size (VmRSS in /proc/PID/status) every 100 ms through warm-up and the
 *    measured window; prints median, p95 and max after warm-up, and the medians of the first and
 *    last thirds of the window (steady: they stay close).
 * 3. Stops it (SIGTERM) and times cold starts on the data it left: from spawning the process to the
 *    first 200 answer of an authenticated GET; the median of BENCH_COLD_STARTS runs.
 * The figures are printed beside the goals (RSS at most 256 MB, cold start at most 2 s), with the
 * CPU time the server used up to its first answer: on a shared, loaded machine the wall time mostly
 * measures the wait for a core, the CPU time what the start itself costs.
 *
 * Env: BENCH_SECONDS (30, measured), BENCH_WARMUP_SECONDS (10), BENCH_CONCURRENCY (32),
 * BENCH_COLD_STARTS (3), BENCH_SERVER_ARGS (extra arguments for bun before the script, e.g. --smol).
 * Linux only (/proc). Exit status: 0 whether or not the goals are met; non-zero only when the
 * benchmark itself failed (the server did not start, a non-200 answer, the load generator failing).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import postgres from 'postgres'
import { createToken } from '../../server/src/domain/credentials.ts'
import { LIMITS } from '../../server/src/http/rate-limit.ts'
import { envNumber, runBenchmark } from './support.ts'
import { freePort } from '../support/ports.ts'

const ROUTE = '/api/v1/missions'
const RSS_GOAL_MB = 256
const COLD_START_GOAL_MS = 2000
/** A load slice: the rate-limit counters are cleared between slices so no token reaches its limit. */
const SLICE_SECONDS = 5
/** No run on this machine reaches this rate; tokens are sized so a slice stays under 75% of a token's limit. */
const ASSUMED_MAX_RPS = 10_000


const SECONDS = envNumber('BENCH_SECONDS', 30)
const WARMUP = envNumber('BENCH_WARMUP_SECONDS', 10)
const CONCURRENCY = envNumber('BENCH_CONCURRENCY', 32, true)
const COLD_STARTS = envNumber('BENCH_COLD_STARTS', 3, true)
const SERVER_ARGS = (process.env.BENCH_SERVER_ARGS ?? '').split(/\s+/).filter(Boolean)
const TOKENS = Math.ceil((ASSUMED_MAX_RPS * SLICE_SECONDS) / (LIMITS.workspace * 0.75))
const MB = 1024 * 1024

type LoadResult = { requests: number; seconds: number; rps: number; p50ms: number; p99ms: number; errors: number; errorSamples: string[] }
type Server = { proc: ReturnType<typeof Bun.spawn>; output: () => string }

const dataDir = mkdtempSync(join(tmpdir(), 'growth-bench-embedded-'))
let server: Server | undefined
let loader: ReturnType<typeof Bun.spawn> | undefined
let socketSql: postgres.Sql | undefined


function spawnServer(port: number): Server {
  let text = ''
  const proc = Bun.spawn({
    cmd: [process.execPath, ...SERVER_ARGS, join(import.meta.dir, '../../server/src/main.ts')],
    env: { ...process.env, DATABASE_URL: '', DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  // Keep what it prints (for the error message if it fails), and keep the pipes drained.
  for (const stream of [proc.stdout, proc.stderr] as ReadableStream<Uint8Array>[]) {
    void (async () => {
      const decoder = new TextDecoder()
      const reader = stream.getReader()
      for (let r = await reader.read(); !r.done; r = await reader.read()) text += decoder.decode(r.value, { stream: true })
    })()
  }
  return { proc, output: () => text }
}

/** CPU time (user + system, all threads) the process has used so far, in ms. */
function cpuMs(pid: number): number {
  // Fields 14 and 15 of /proc/PID/stat, in clock ticks (100 a second on Linux), after the command name.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return (Number(fields[11]) + Number(fields[12])) * 10
}

/** Polls `url` until it answers 200; resolves to the ms since `t0`. */
async function firstAnswer(s: Server, url: string, token: string, t0: number, timeoutMs = 60_000): Promise<number> {
  const headers = { Authorization: `Bearer ${token}` }
  while (performance.now() - t0 < timeoutMs) {
    if (s.proc.exitCode !== null) throw new Error(`the server exited with ${s.proc.exitCode}:\n${s.output()}`)
    try {
      const res = await fetch(url, { headers })
      await res.arrayBuffer()
      if (res.status === 200) return performance.now() - t0
      throw new Error(`the server answered ${res.status}`)
    } catch (err) {
      if (!String((err as Error).message).match(/connect|refused|ECONNRESET|socket|closed/i)) throw err
    }
    await Bun.sleep(5)
  }
  throw new Error(`the server did not answer within ${timeoutMs} ms:\n${s.output()}`)
}

async function stopServer(s: Server): Promise<void> {
  s.proc.kill('SIGTERM')
  const code = await Promise.race([s.proc.exited, Bun.sleep(20_000).then(() => 'timeout' as const)])
  if (code === 'timeout') {
    s.proc.kill('SIGKILL')
    await s.proc.exited
    throw new Error('the server did not stop within 20 s of SIGTERM')
  }
}

function rssBytes(pid: number): number | undefined {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return m ? Number(m[1]) * 1024 : undefined
  } catch {
    return undefined
  }
}

async function load(url: string, tokenFile: string, seconds: number): Promise<LoadResult> {
  loader = Bun.spawn({
    cmd: [process.execPath, join(import.meta.dir, 'load.ts'), url, `@${tokenFile}`, String(seconds), String(CONCURRENCY)],
    stdout: 'pipe',
    stderr: 'inherit',
  })
  const [out, code] = await Promise.all([new Response(loader.stdout as ReadableStream).text(), loader.exited])
  if (code !== 0) throw new Error(`load generator exited with ${code}: ${out.trim()}`)
  return JSON.parse(out.trim().split('\n').at(-1) ?? '') as LoadResult
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * (sorted.length - 1)))]!
const median = (xs: number[]) => quantile([...xs].sort((a, b) => a - b), 0.5)
const mb = (bytes: number) => `${(bytes / MB).toFixed(0)} MB`
const verdict = (ok: boolean) => (ok ? 'met' : 'NOT met')

async function main(): Promise<number> {
  const load1 = loadavg()[0]!.toFixed(2)
  const port = await freePort()
  const base = `http://127.0.0.1:${port}`
  console.log(
    `Embedded server (bun server/src/main.ts${SERVER_ARGS.length ? ` with ${SERVER_ARGS.join(' ')}` : ''}) in ${dataDir}; ` +
      `GET ${ROUTE}, ${CONCURRENCY} concurrent, ${WARMUP} s warm-up + ${SECONDS} s measured; load average ${load1}`,
  )

  // 1. First start: creates and seeds the database.
  let t0 = performance.now()
  server = spawnServer(port)
  const demo = await (async () => {
    for (let i = 0; i < 600; i++) {
      try {
        return JSON.parse(readFileSync(join(dataDir, 'demo.json'), 'utf8')) as { workspace: { id: string }; tokens: { live: string } }
      } catch {
        if (server!.proc.exitCode !== null) break
        await Bun.sleep(100)
      }
    }
    throw new Error(`the server wrote no demo.json:\n${server!.output()}`)
  })()
  const firstStartMs = await firstAnswer(server, `${base}${ROUTE}`, demo.tokens.live, t0)
  console.log(`  first start (creates and seeds the database): ${(firstStartMs / 1000).toFixed(2)} s`)

  // Tokens for the load, made through the server's socket (as the CLI reaches a running server).
  socketSql = postgres({ path: join(dataDir, '.s.PGSQL.5432'), user: 'postgres', database: 'postgres', max: 1, prepare: false, onnotice: () => {} })
  const tokens: string[] = []
  for (let i = 0; i < TOKENS; i++) tokens.push((await createToken(socketSql as never, { workspaceId: demo.workspace.id, scopes: 'all' })).token)
  const tokenFile = join(dataDir, 'bench-tokens.txt')
  writeFileSync(tokenFile, `${tokens.join('\n')}\n`, { mode: 0o600 })

  // 2. Load, with RSS sampled every 100 ms.
  const pid = server.proc.pid
  const samples: { t: number; rss: number }[] = []
  const loadStart = performance.now()
  const sampler = setInterval(() => {
    const rss = rssBytes(pid)
    if (rss !== undefined) samples.push({ t: (performance.now() - loadStart) / 1000, rss })
  }, 100)
  const results: LoadResult[] = []
  for (let done = 0; done < WARMUP + SECONDS; done += SLICE_SECONDS) {
    await socketSql`DELETE FROM rate_limit_counters`
    results.push(await load(`${base}${ROUTE}`, tokenFile, Math.min(SLICE_SECONDS, WARMUP + SECONDS - done)))
  }
  clearInterval(sampler)
  const failures = results.filter((r) => r.errors > 0)
  if (failures.length) {
    throw new Error(`some requests did not answer 200 (benchmark invalid): ${failures.flatMap((r) => r.errorSamples).slice(0, 5).join('; ')}`)
  }
  const measuredSlices = results.slice(Math.ceil(WARMUP / SLICE_SECONDS))
  const requests = measuredSlices.reduce((n, r) => n + r.requests, 0)
  const seconds = measuredSlices.reduce((n, r) => n + r.seconds, 0)
  const p99 = median(measuredSlices.map((r) => r.p99ms))
  const warm = samples.filter((s) => s.t >= WARMUP).map((s) => s.rss)
  const warmup = samples.filter((s) => s.t < WARMUP).map((s) => s.rss)
  const sorted = [...warm].sort((a, b) => a - b)
  const third = Math.floor(warm.length / 3)
  const rss = { median: quantile(sorted, 0.5), p95: quantile(sorted, 0.95), max: sorted.at(-1)! }
  const firstThird = median(warm.slice(0, third))
  const lastThird = median(warm.slice(-third))

  await socketSql.end({ timeout: 5 })
  socketSql = undefined
  await stopServer(server)
  server = undefined

  // 3. Cold starts on the existing data.
  const cold: number[] = []
  const coldCpu: number[] = []
  for (let i = 0; i < COLD_STARTS; i++) {
    t0 = performance.now()
    server = spawnServer(port)
    cold.push(await firstAnswer(server, `${base}${ROUTE}`, demo.tokens.live, t0))
    coldCpu.push(cpuMs(server.proc.pid))
    await stopServer(server)
    server = undefined
  }
  const coldMedian = median(cold)

  console.log(
    `  load after warm-up: ${(requests / seconds).toFixed(0)} req/s, p99 ${p99.toFixed(1)} ms (median of ${measuredSlices.length} slices), ${requests} requests, 0 errors`,
  )
  console.log(`  RSS during warm-up: max ${mb(Math.max(...warmup))}; ${warm.length} samples after warm-up`)
  console.log(`  RSS first third ${mb(firstThird)}, last third ${mb(lastThird)} (medians; steady when close)`)
  console.log(`  cold starts: ${cold.map((ms) => `${(ms / 1000).toFixed(2)} s`).join(', ')}; load average now ${loadavg()[0]!.toFixed(2)}`)
  console.log(
    `  CPU time the server used up to its first answer: ${coldCpu.map((ms) => `${(ms / 1000).toFixed(2)} s`).join(', ')} ` +
      `(what the start costs whatever else runs; ${cpus().length} cores)`,
  )
  console.log('')
  console.log(`${''.padEnd(26)}${'measured'.padEnd(12)}${'goal'.padEnd(12)}`)
  console.log(`${'RSS median after warm-up'.padEnd(26)}${mb(rss.median).padEnd(12)}${`<= ${RSS_GOAL_MB} MB`.padEnd(12)}${verdict(rss.median <= RSS_GOAL_MB * MB)}`)
  console.log(`${'RSS p95 after warm-up'.padEnd(26)}${mb(rss.p95).padEnd(12)}${`<= ${RSS_GOAL_MB} MB`.padEnd(12)}${verdict(rss.p95 <= RSS_GOAL_MB * MB)}`)
  console.log(`${'RSS max after warm-up'.padEnd(26)}${mb(rss.max).padEnd(12)}${`<= ${RSS_GOAL_MB} MB`.padEnd(12)}${verdict(rss.max <= RSS_GOAL_MB * MB)}`)
  console.log(
    `${`cold start (median of ${COLD_STARTS})`.padEnd(26)}${`${(coldMedian / 1000).toFixed(2)} s`.padEnd(12)}${`<= ${COLD_START_GOAL_MS / 1000} s`.padEnd(12)}${verdict(coldMedian <= COLD_START_GOAL_MS)}`,
  )
  console.log(
    `${`cold start CPU (median)`.padEnd(26)}${`${(median(coldCpu) / 1000).toFixed(2)} s`.padEnd(12)}${''.padEnd(12)}(the start's own cost; on an idle machine the wall time is near it)`,
  )
  return 0
}

async function cleanup() {
  if (loader && loader.exitCode === null) loader.kill()
  await socketSql?.end({ timeout: 1 }).catch(() => {})
  if (server && server.proc.exitCode === null) await stopServer(server).catch(() => server?.proc.kill('SIGKILL'))
  rmSync(dataDir, { recursive: true, force: true })
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => void cleanup().finally(() => process.exit(130)))
}

await runBenchmark(main, cleanup)
