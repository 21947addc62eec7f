/**
 * Benchmark (not a test; run by hand with `npm run bench:sdk`): what the SDK costs a caller, beside
 * the same requests made with bare fetch, in the same run against the same server.
 *
 * 1. One GET: `await growth.missions.list()` beside `fetch(sameUrl, { headers: { Authorization } })`
 *    then `await res.json()`, with 1 and 16 calls in flight. The contenders take turns in slices of
 *    BENCH_SLICE_MS, for BENCH_ROUNDS rounds (the order flips every round: A B, B A, A B ...); the
 *    table shows the median ops/s of each and the client process's CPU per call.
 *    Goal: the SDK keeps at least 95% of bare fetch's throughput.
 * 2. A walk of 10,000 events: `for await (const e of growth.events.list({ limit: 100 }))` beside a
 *    hand-written loop that follows meta.nextCursor as `after`; both stop at the 10,000th event (100
 *    pages each). Median time per walk over BENCH_WALKS walks each, taken in turns.
 *    Goal (the same share): the SDK's walk takes at most 1/0.95 of the hand loop's time.
 *
 * The server is the real one (server/src/server.ts) on an embedded PGlite database in a temporary
 * directory, with the demo workspace (server/src/demo) and 10,000 more events copied from the
 * demo's own through the store's appendEvents. It runs in a child process (this file with
 * --serve), so the client's figures are not mixed with the server's work on the same event loop.
 * The workspace token's limit of 600 calls an hour is raised in the server process for this bench
 * (LIMITS.workspace); every call is still counted, as in production.
 *
 * Env: BENCH_SLICE_MS (1000), BENCH_ROUNDS (9), BENCH_WALKS (9), BENCH_CONCURRENCY (1,16),
 * BENCH_SDK (a path to import the SDK from, such as a built index.js; default: sdk/src under Bun,
 * sdk/dist/index.js under Node.js).
 *
 *   bun test/bench/sdk.ts
 *
 * The client under Node.js, against the built package (the server still runs under Bun; from the
 * repository root):
 *
 *   npm run build -w sdk
 *   bun build test/bench/sdk.ts --target=node --outfile=/tmp/sdk-bench.mjs --external '../../server/*' --external '../../sdk/*'
 *   node /tmp/sdk-bench.mjs
 *
 * Exit status: 0 whether or not the goals are met; non-zero when the benchmark itself failed (the
 * server did not start, an answer was not 200, the contenders saw different data).
 */
import type { ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { envNumber, median, spawnUntilReady, stopServerProcess } from './support.ts'
import { fileURLToPath, pathToFileURL } from 'node:url'

const GOAL = 0.95
const WALK_ITEMS = 10_000
const PAGE = 100
const EXTRA_EVENTS = 10_000

// ---------------------------------------------------------------------------------------------
// The server: this file run with --serve <dataDir>, under Bun. Prints one JSON line when ready,
// then serves until SIGTERM.
// ---------------------------------------------------------------------------------------------

type Ready = { url: string; token: string; events: number; limit: number }

async function serve(dataDir: string): Promise<void> {
  const { loadConfig } = await import('../../server/src/config.ts')
  const { createLogger } = await import('../../server/src/core/log.ts')
  const { createDemoWorkspace } = await import('../../server/src/demo/index.ts')
  const { LIMITS } = await import('../../server/src/http/rate-limit.ts')
  const { startServer } = await import('../../server/src/server.ts')
  const { inTransaction, openDatabase } = await import('../../server/src/store/driver/db.ts')
  const { appendEvents } = await import('../../server/src/store/events.ts')
  const { migrate } = await import('../../server/src/store/driver/migrate.ts')

  // The bench makes tens of thousands of calls with one token: raise its hourly limit (read per
  // request by authenticate.ts) in this process. Counting still happens on every call.
  ;(LIMITS as { workspace: number }).workspace = 1_000_000_000

  const config = loadConfig({ ...process.env, DATABASE_URL: undefined, DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', WEBHOOK_WORKERS: '0' })
  const db = await openDatabase({ databaseUrl: undefined, dataDir, poolMax: config.poolMax })
  await migrate(db.sql)
  const demo = await createDemoWorkspace(db.sql)
  const wsId = demo.workspace.id

  // 10,000 more events: copies of the demo's own (their types and data), through the API's append.
  const samples = await db.sql<{ type: string; data: Record<string, unknown> }[]>`
    SELECT type, data FROM events WHERE workspace_id = ${wsId} ORDER BY seq LIMIT 1000`
  for (let done = 0; done < EXTRA_EVENTS; ) {
    const n = Math.min(1000, EXTRA_EVENTS - done)
    const batch = Array.from({ length: n }, (_, i) => samples[(done + i) % samples.length]!)
    await inTransaction(db.sql, (tx) => appendEvents(tx, wsId, batch as never))
    done += n
  }
  const [counted] = await db.sql<{ count: number }[]>`SELECT count(*)::int AS count FROM events WHERE workspace_id = ${wsId}`
  await db.sql`ANALYZE`

  const server = await startServer(config, { db, log: createLogger('silent') })
  const ready: Ready = { url: `${server.url}/api/v1`, token: demo.tokens.live, events: counted!.count, limit: LIMITS.workspace }
  console.log(JSON.stringify(ready))
  const stop = async () => {
    await server.stop()
    await db.close()
    process.exit(0)
  }
  process.on('SIGTERM', () => void stop())
  process.on('SIGINT', () => void stop())
}

// ---------------------------------------------------------------------------------------------
// The client: the contenders, timed.
// ---------------------------------------------------------------------------------------------

type Sample = { opsPerSec: number; cpuUsPerOp: number }

/** `concurrency` loops each calling `op` until the slice is over; ops/s and client CPU per op. */
async function slice(op: () => Promise<unknown>, concurrency: number, ms: number): Promise<Sample> {
  let n = 0
  const cpu0 = process.cpuUsage()
  const start = performance.now()
  const end = start + ms
  const loop = async () => {
    while (performance.now() < end) {
      await op()
      n++
    }
  }
  await Promise.all(Array.from({ length: concurrency }, loop))
  const elapsed = performance.now() - start
  const cpu = process.cpuUsage(cpu0)
  return { opsPerSec: n / (elapsed / 1000), cpuUsPerOp: (cpu.user + cpu.system) / n }
}

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })
const goalLine = (what: string, ratio: number, met: boolean) => `goal (${what}): ${met ? 'met' : 'not met'} (${ratio.toFixed(3)})`

async function startServerProcess(dataDir: string): Promise<{ child: ChildProcess; ready: Ready }> {
  const self = fileURLToPath(import.meta.url).endsWith('.ts') ? fileURLToPath(import.meta.url) : resolve('test/bench/sdk.ts')
  const bun = typeof Bun !== 'undefined' ? process.execPath : (process.env.BENCH_BUN ?? 'bun')
  return spawnUntilReady<Ready>(bun, [self, '--serve', dataDir])
}

async function client(): Promise<number> {
  const SLICE_MS = envNumber('BENCH_SLICE_MS', 1000, true)
  const ROUNDS = envNumber('BENCH_ROUNDS', 9, true)
  const WALKS = envNumber('BENCH_WALKS', 9, true)
  const CONCURRENCY = (process.env.BENCH_CONCURRENCY || '1,16').split(',').map((s) => {
    const n = Number(s)
    if (!(n > 0) || !Number.isInteger(n)) throw new Error(`BENCH_CONCURRENCY must be whole numbers above 0, comma-separated (got ${JSON.stringify(process.env.BENCH_CONCURRENCY)})`)
    return n
  })
  // Under Bun the source; under Node.js (bundled, see the header) the built package.
  const sdkLabel = process.env.BENCH_SDK || (typeof Bun !== 'undefined' ? 'sdk/src' : 'sdk/dist/index.js')
  const sdkPath = sdkLabel === 'sdk/src' ? '../../sdk/src/index.ts' : pathToFileURL(resolve(sdkLabel)).href
  const { Growth } = (await import(sdkPath)) as typeof import('../../sdk/src/index.ts')

  const runtime = typeof Bun !== 'undefined' ? `Bun ${Bun.version}` : `Node.js ${process.version}`
  const cpuModel = cpus()[0]?.model.trim() ?? 'unknown CPU'
  const started = performance.now()
  const dataDir = mkdtempSync(join(tmpdir(), 'growth-bench-sdk-'))
  let child: ChildProcess | undefined
  try {
    const server = await startServerProcess(dataDir)
    child = server.child
    const { url: base, token, events } = server.ready
    const headers = { Authorization: `Bearer ${token}` }
    const growth = new Growth({ token, baseUrl: base })

    const load = () => loadavg().map((x) => x.toFixed(2)).join(' ')
    console.log(`SDK (${sdkLabel}) beside bare fetch, client on ${runtime}, ${process.platform}-${process.arch}, ${availableParallelism()} cores (${cpuModel}); load average ${load()}`)
    console.log(
      `server: server/src/server.ts under Bun in its own process, embedded PGlite in ${dataDir}, demo workspace + ${fmt(EXTRA_EVENTS)} events (${fmt(events)} in all); ` +
        `the token's limit raised from 600 to ${fmt(server.ready.limit)} calls/hour for this bench (still counted on every call)`,
    )

    // --- 1. One GET -------------------------------------------------------------------------------
    const missionsUrl = `${base}/missions`
    const bare = async () => {
      const res = await fetch(missionsUrl, { headers })
      if (res.status !== 200) throw new Error(`bare fetch: GET /missions answered ${res.status}: ${await res.text()}`)
      return res.json()
    }
    const viaSdk = () => growth.missions.list()
    const a = (await bare()) as { data: { id: string }[] }
    const b = await viaSdk()
    if (JSON.stringify(a.data) !== JSON.stringify(b.data) || a.data.length === 0) throw new Error('the SDK and bare fetch saw different missions')

    type Contender = { name: string; op: () => Promise<unknown> }
    const contenders: Contender[] = [
      { name: 'bare fetch', op: bare },
      { name: 'SDK', op: viaSdk },
    ]
    console.log(
      `\n1. GET /missions (${a.data.length} missions, ${fmt(JSON.stringify(a).length)} bytes): await growth.missions.list() beside fetch + res.json(); ` +
        `median of ${ROUNDS} rounds of ${SLICE_MS} ms per contender, order flipped every round\n`,
    )
    const rows: { concurrency: number; results: Map<string, { ops: number; cpu: number }> }[] = []
    for (const c of CONCURRENCY) {
      for (const x of contenders) await slice(x.op, c, SLICE_MS) // warm-up
      const samples = new Map(contenders.map((x) => [x.name, [] as Sample[]]))
      for (let r = 0; r < ROUNDS; r++) {
        for (const x of r % 2 ? [...contenders].reverse() : contenders) samples.get(x.name)!.push(await slice(x.op, c, SLICE_MS))
      }
      rows.push({
        concurrency: c,
        results: new Map([...samples].map(([name, s]) => [name, { ops: median(s.map((y) => y.opsPerSec)), cpu: median(s.map((y) => y.cpuUsPerOp)) }])),
      })
    }
    console.log(`${'in flight'.padEnd(10)}${'bare fetch ops/s'.padStart(18)}${'SDK ops/s'.padStart(12)}${'SDK / bare'.padStart(12)}${'client CPU µs/call: bare'.padStart(27)}${'SDK'.padStart(8)}`)
    for (const row of rows) {
      const f = row.results.get('bare fetch')!
      const s = row.results.get('SDK')!
      console.log(`${String(row.concurrency).padEnd(10)}${fmt(f.ops).padStart(18)}${fmt(s.ops).padStart(12)}${(s.ops / f.ops).toFixed(3).padStart(12)}${fmt(f.cpu).padStart(27)}${fmt(s.cpu).padStart(8)}`)
    }

    // --- 2. A walk of 10,000 events -----------------------------------------------------------------
    const walkSdk = async () => {
      let n = 0
      let last = ''
      for await (const e of growth.events.list({ limit: PAGE })) {
        last = e.id
        if (++n === WALK_ITEMS) break
      }
      return { n, last }
    }
    const walkBare = async () => {
      let n = 0
      let last = ''
      let after: string | undefined
      for (;;) {
        const res = await fetch(`${base}/events?limit=${PAGE}${after === undefined ? '' : `&after=${encodeURIComponent(after)}`}`, { headers })
        if (res.status !== 200) throw new Error(`bare fetch: GET /events answered ${res.status}: ${await res.text()}`)
        const page = (await res.json()) as { data: { id: string }[]; meta?: { nextCursor?: string } }
        for (const e of page.data) {
          last = e.id
          if (++n === WALK_ITEMS) return { n, last }
        }
        if (page.data.length < PAGE || !page.meta?.nextCursor) return { n, last }
        after = page.meta.nextCursor
      }
    }
    const ws = await walkSdk()
    const wb = await walkBare()
    if (ws.n !== WALK_ITEMS || wb.n !== WALK_ITEMS || ws.last !== wb.last) {
      throw new Error(`the walks differ: SDK ${ws.n} events to ${ws.last}, bare ${wb.n} to ${wb.last} (want ${WALK_ITEMS})`)
    }
    const walkers = [
      { name: 'hand loop', run: walkBare },
      { name: 'SDK', run: walkSdk },
    ]
    const times = new Map(walkers.map((w) => [w.name, [] as number[]]))
    for (let r = 0; r < WALKS; r++) {
      for (const w of r % 2 ? [...walkers].reverse() : walkers) {
        const t0 = performance.now()
        await w.run()
        times.get(w.name)!.push(performance.now() - t0)
      }
    }
    const tBare = median(times.get('hand loop')!)
    const tSdk = median(times.get('SDK')!)
    console.log(
      `\n2. A walk of ${fmt(WALK_ITEMS)} events, ${PAGE} a page (${WALK_ITEMS / PAGE} requests, one at a time): for await over growth.events.list({ limit: ${PAGE} }) ` +
        `beside a fetch loop following meta.nextCursor as after; median of ${WALKS} walks each, in turns\n`,
    )
    console.log(`${''.padEnd(12)}${'ms per walk'.padStart(12)}${'events/s'.padStart(12)}${'min ms'.padStart(9)}${'max ms'.padStart(9)}`)
    for (const [name, t] of [['hand loop', tBare], ['SDK', tSdk]] as const) {
      const all = times.get(name)!
      console.log(`${name.padEnd(12)}${fmt(t, 1).padStart(12)}${fmt(WALK_ITEMS / (t / 1000)).padStart(12)}${fmt(Math.min(...all), 1).padStart(9)}${fmt(Math.max(...all), 1).padStart(9)}`)
    }
    console.log(`${'SDK / hand'.padEnd(12)}${(tSdk / tBare).toFixed(3).padStart(12)} of the time`)

    // --- Goals ------------------------------------------------------------------------------------
    console.log()
    for (const row of rows) {
      const x = row.results.get('SDK')!.ops / row.results.get('bare fetch')!.ops
      console.log(goalLine(`GET, ${row.concurrency} in flight: SDK at least ${GOAL} of bare fetch's ops/s`, x, x >= GOAL))
    }
    const w = tSdk / tBare
    console.log(goalLine(`walk of ${fmt(WALK_ITEMS)}: SDK at most 1/${GOAL} = ${(1 / GOAL).toFixed(3)} of the hand loop's time`, w, w <= 1 / GOAL))
    console.log(`\n(${((performance.now() - started) / 1000).toFixed(1)} s; load average at the end ${load()})`)
    return 0
  } finally {
    await stopServerProcess(child)
    rmSync(dataDir, { recursive: true, force: true })
  }
}

if (process.argv[2] === '--serve') {
  await serve(process.argv[3]!)
} else {
  let code: number
  try {
    code = await client()
  } catch (err) {
    console.error(`benchmark failed: ${(err as Error).stack ?? err}`)
    code = 1
  }
  process.exit(code)
}
