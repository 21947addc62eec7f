/**
 * Benchmark (not a test; run by hand with `npm run bench:embedded`): the embedded default (PGlite)
 * as a user starts it with `npm start`: its cold start on existing data and its memory under load.
 *
 * 1. `bun server/src/main.ts` on a fresh DATA_DIR (the first start makes the database and the demo
 *    workspace), then stopped;
 * 2. started again on the same data: the time from spawn to its first answered GET /missions is the
 *    cold start on existing data;
 * 3. BENCH_SECONDS of GET /missions, BENCH_CONCURRENCY in flight (test/bench/load.ts, tokens made
 *    through the server's own socket), while the server's RSS is sampled every 100 ms: the median
 *    and the peak, and the median of the last half (steady after warm-up).
 *
 * Env: BENCH_SECONDS (10), BENCH_CONCURRENCY (32). Aims: cold start at most 2 s, RSS at most 256 MB.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createToken } from '../../server/src/domain/credentials.ts'
import { openDatabase } from '../../server/src/store/db.ts'

const SECONDS = Number(process.env.BENCH_SECONDS || 10)
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY || 32)
const ROOT = join(import.meta.dir, '../..')
const dataDir = mkdtempSync(join(tmpdir(), 'growth-embedded-bench-'))
const port = 20_000 + Math.floor(Math.random() * 20_000)
const base = `http://127.0.0.1:${port}/api/v1`
let server: ReturnType<typeof Bun.spawn> | undefined

function start() {
  return Bun.spawn({
    cmd: [process.execPath, join(ROOT, 'server/src/main.ts')],
    env: { ...process.env, DATABASE_URL: '', DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'error' },
    stdout: 'ignore',
    stderr: 'inherit',
  })
}

async function firstAnswer(token: string, started: number, limitMs = 120_000): Promise<number> {
  for (;;) {
    try {
      const res = await fetch(`${base}/missions`, { headers: { Authorization: `Bearer ${token}` } })
      if (res.status === 200) return performance.now() - started
    } catch {
      // not listening yet
    }
    if (performance.now() - started > limitMs) throw new Error('the server did not answer')
    await Bun.sleep(10)
  }
}

const rssMiB = (pid: number) => {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return m ? Number(m[1]) / 1024 : NaN
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN

async function stop() {
  if (!server) return
  server.kill('SIGTERM')
  await server.exited
  server = undefined
}

try {
  let t0 = performance.now()
  server = start()
  for (let i = 0; i < 1200 && !(await Bun.file(join(dataDir, 'demo.json')).exists()); i++) await Bun.sleep(100)
  const demo = JSON.parse(readFileSync(join(dataDir, 'demo.json'), 'utf8')) as { tokens: { live: string } }
  const fresh = await firstAnswer(demo.tokens.live, t0)
  await stop()

  t0 = performance.now()
  server = start()
  const cold = await firstAnswer(demo.tokens.live, t0)
  const idle = rssMiB(server.pid)

  // Tokens enough for the run, made through the running server's socket (the CLI's way in).
  const db = await openDatabase({ dataDir })
  const [ws] = await db.sql<{ workspace_id: string }[]>`SELECT workspace_id FROM workspaces LIMIT 1`
  const tokens: string[] = []
  for (let i = 0; i < 60; i++) tokens.push((await createToken(db.sql, { workspaceId: ws!.workspace_id, scopes: 'all' })).token)
  await db.close()
  const tokenFile = join(dataDir, 'bench-tokens.txt')
  writeFileSync(tokenFile, `${tokens.join('\n')}\n`, { mode: 0o600 })

  const samples: number[] = []
  const pid = server.pid
  const sampler = setInterval(() => samples.push(rssMiB(pid)), 100)
  const load = Bun.spawn({
    cmd: [process.execPath, join(import.meta.dir, 'load.ts'), `${base}/missions`, `@${tokenFile}`, String(SECONDS), String(CONCURRENCY)],
    stdout: 'pipe',
    stderr: 'inherit',
  })
  const out = await new Response(load.stdout as ReadableStream).text()
  await load.exited
  clearInterval(sampler)
  const result = JSON.parse(out.trim().split('\n').at(-1)!) as { rps: number; p50ms: number; p99ms: number; errors: number; requests: number }
  const steady = samples.slice(Math.floor(samples.length / 2))
  console.log(`embedded PGlite, GET /missions, ${CONCURRENCY} in flight for ${SECONDS} s`)
  console.log(`  first start (new database and demo workspace): ${(fresh / 1000).toFixed(2)} s`)
  console.log(`  cold start on existing data, spawn to first answer: ${(cold / 1000).toFixed(2)} s (aim: at most 2 s)`)
  console.log(`  load: ${result.rps} req/s, p50 ${result.p50ms} ms, p99 ${result.p99ms} ms, ${result.requests} requests, ${result.errors} errors`)
  console.log(
    `  RSS: idle ${idle.toFixed(0)} MiB; under load median ${median(samples).toFixed(0)} MiB, steady (last half) median ${median(steady).toFixed(0)} MiB, ` +
      `peak ${Math.max(...samples).toFixed(0)} MiB (aim: at most 256 MB)`,
  )
} finally {
  await stop()
  rmSync(dataDir, { recursive: true, force: true })
}
