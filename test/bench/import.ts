/**
 * Benchmark (not a test; run by hand with `npm run bench:import`): how fast `growth contacts import
 * FILE` brings contacts in, beside the API's bulk endpoint driven directly, in the same run against
 * the same server, and what the CLI's memory does as the file grows.
 *
 * Contenders, each into a fresh workspace of its own (so every row is a create), BENCH_ROWS rows each:
 * - "CLI": `growth contacts import FILE --json` run as a real process (process.execPath
 *   cli/bin/growth.ts, GROWTH_BASE_URL and GROWTH_TOKEN in its environment) on a CSV file of
 *   BENCH_ROWS rows; timed from spawn to exit, so its start, the file's hashing and parsing count.
 * - "bare, 1 in flight": a fetch loop posting the same contacts, 100 a request, to POST
 *   /api/v1/contacts, one request at a time as the CLI does, each with an Idempotency-Key (the CLI
 *   sends one per batch, so the server does the same work for both); the contacts are made in memory,
 *   no file is read.
 * - "bare, 4 in flight": the same loop with 4 requests out at once.
 * A warm-up of 2,000 rows by the bare loop goes first, into a workspace of its own.
 * Every answer is checked (201, 100 created) and every workspace is read back through GET /usage
 * (contacts held = rows). The order of the contenders flips every round (A B C, C B A, ...); with
 * BENCH_ROUNDS above 1 the table shows the median and the range. The bare loops also print their
 * rate over the first and the last tenth of the rows (the server's cost per row as the workspace fills).
 * Goal: the CLI keeps at least 0.8 of the bare sequential loop's rows/s.
 *
 * The CLI's memory: its peak RSS on a file of BENCH_SMALL_ROWS rows and on one of BENCH_ROWS rows:
 * the kernel's maxrss of the finished process from /usr/bin/time, which it runs under where there is
 * one (Bun's Subprocess.resourceUsage().maxRSS gave the same figure for two runs of different peaks
 * here), elsewhere the highest VmHWM read from /proc; VmRSS is also sampled every 50 ms and shown at
 * the quarters of the run. Goal: the peak on the large file at most 1.25 times the peak on the small
 * one (memory does not grow with the file).
 *
 * The server is the real one (server/src/server.ts) on an embedded PGlite database in a temporary
 * directory, in its own process (this file with --serve), with one workspace per run on the scale plan
 * (250,000 contacts allowed). A workspace token's limit of 600 calls an hour is raised in the server
 * process for this bench (LIMITS.workspace; 100,000 rows are 1,000 calls); every call is still counted.
 * Server CPU per contender is read from /proc/<pid>/stat.
 *
 * Env: BENCH_ROWS (100000), BENCH_SMALL_ROWS (10000), BENCH_ROUNDS (3).
 *
 *   bun test/bench/import.ts
 *
 * Exit status: 0 whether or not the goals are met; non-zero when the benchmark itself failed (the
 * server did not start, an answer was not 201, the CLI exited non-zero, a workspace did not end with every row created).
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { availableParallelism, cpus, loadavg, tmpdir, totalmem } from 'node:os'
import { join, resolve } from 'node:path'
import { envNumber, median, spawnUntilReady, stopServerProcess } from './support.ts'
import { fileURLToPath } from 'node:url'

const BATCH = 100
const WIDE = 4
const WARMUP_ROWS = 2_000
/** Peak RSS on the large file against the small one. */
const MEMORY_GOAL = 1.25
/** The CLI against the bare sequential loop: below this, the brief asks why. */
const RATIO_GOAL = 0.8
const TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined
const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)))

// ---------------------------------------------------------------------------------------------
// The server: this file run with --serve <dataDir> <workspaces>, under Bun. Prints one JSON line
// when ready, then serves until SIGTERM.
// ---------------------------------------------------------------------------------------------

type Ready = { url: string; tokens: string[]; limit: number; plan: string; contactsAllowed: number }

async function serve(dataDir: string, workspaces: number): Promise<void> {
  const { loadConfig } = await import('../../server/src/config.ts')
  const { createLogger } = await import('../../server/src/core/log.ts')
  const { createToken } = await import('../../server/src/domain/credentials.ts')
  const { createWorkspace } = await import('../../server/src/domain/workspaces.ts')
  const { LIMITS } = await import('../../server/src/http/rate-limit.ts')
  const { startServer } = await import('../../server/src/server.ts')
  const { openDatabase } = await import('../../server/src/store/driver/db.ts')
  const { selectAllowanceLimits } = await import('../../server/src/store/allowances.ts')
  const { migrate } = await import('../../server/src/store/driver/migrate.ts')

  // 100,000 rows are 1,000 calls with one token: raise its hourly limit (read per request by
  // authenticate.ts) in this process. Counting still happens on every call.
  ;(LIMITS as { workspace: number }).workspace = 1_000_000_000

  const config = loadConfig({ ...process.env, DATABASE_URL: undefined, DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', WEBHOOK_WORKERS: '0' })
  const db = await openDatabase({ databaseUrl: undefined, dataDir, poolMax: config.poolMax })
  await migrate(db.sql)
  const tokens: string[] = []
  let contactsAllowed = 0
  for (let i = 0; i < workspaces; i++) {
    const ws = await createWorkspace(db.sql, { name: `Import bench ${i + 1}`, plan: 'scale' })
    tokens.push((await createToken(db.sql, { workspaceId: ws.id, scopes: 'all' })).token)
    contactsAllowed = (await selectAllowanceLimits(db.sql, ws.id)).contacts ?? 0
  }
  const server = await startServer(config, { db, log: createLogger('silent') })
  const ready: Ready = { url: `${server.url}/api/v1`, tokens, limit: LIMITS.workspace, plan: 'scale', contactsAllowed }
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
// The client.
// ---------------------------------------------------------------------------------------------

/** Row i of every file and every bare batch: the same contacts for every contender. */
function contactOf(i: number) {
  return {
    email: `person${i}@import-bench.example.com`,
    firstName: `First${i}`,
    lastName: `Last${i}`,
    company: `Company ${i % 997}`,
    tags: i % 3 ? ['bench', `cohort-${i % 10}`] : ['bench'],
  }
}

function writeCsv(file: string, rows: number) {
  const parts: string[] = ['email,first_name,last_name,company,tags\n']
  for (let i = 0; i < rows; i++) {
    const c = contactOf(i)
    parts.push(`${c.email},${c.firstName},${c.lastName},${c.company},${c.tags.join(';')}\n`)
  }
  writeFileSync(file, parts.join(''))
}

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })
const mib = (bytes: number) => `${fmt(bytes / 2 ** 20, 1)} MiB`
const goalLine = (what: string, ratio: number, met: boolean) => `goal (${what}): ${met ? 'met' : 'not met'} (${ratio.toFixed(3)})`

const CLK_TCK = 100
/** CPU seconds (user + system) of a process so far, from /proc; undefined where there is no /proc. */
function cpuSecondsOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(fields[11]) + Number(fields[12])) / CLK_TCK
  } catch {
    return undefined
  }
}

/** VmRSS and VmHWM of a running process in bytes, from /proc/<pid>/status. */
function memoryOf(pid: number): { rss: number; hwm: number } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN) * 1024
    return { rss: kb('VmRSS'), hwm: kb('VmHWM') }
  } catch {
    return undefined
  }
}

type Run = {
  name: string
  rows: number
  seconds: number
  rowsPerSec: number
  serverCpu?: number
  clientCpu?: number
  /** The bare loops only: rows/s over the first tenth of the rows and over the last, and over each tenth. */
  firstTenth?: number
  lastTenth?: number
  tenths?: number[]
  /** The CLI only. */
  peakRss?: number
  lastHwm?: number
  rssAtQuarters?: number[]
}

async function startServerProcess(dataDir: string, workspaces: number): Promise<{ child: ChildProcess; ready: Ready }> {
  return spawnUntilReady<Ready>(process.execPath, [fileURLToPath(import.meta.url), '--serve', dataDir, String(workspaces)])
}

async function client(): Promise<number> {
  const ROWS = envNumber('BENCH_ROWS', 100_000, true)
  const SMALL = envNumber('BENCH_SMALL_ROWS', 10_000, true)
  const ROUNDS = envNumber('BENCH_ROUNDS', 3, true)
  if (SMALL >= ROWS) throw new Error(`BENCH_SMALL_ROWS (${SMALL}) must be below BENCH_ROWS (${ROWS})`)
  const runtime = `Bun ${Bun.version}`
  const cpuModel = cpus()[0]?.model.trim() ?? 'unknown CPU'
  const load = () => loadavg().map((x) => x.toFixed(2)).join(' ')
  const started = performance.now()
  const dataDir = mkdtempSync(join(tmpdir(), 'growth-bench-import-'))
  let child: ChildProcess | undefined
  try {
    // Three contenders a round on the large file, plus a warm-up, the CLI once on the small file and once on one row.
    const workspaces = 3 * ROUNDS + 3
    const server = await startServerProcess(dataDir, workspaces)
    child = server.child
    const serverPid = child.pid!
    const { url: base, contactsAllowed } = server.ready
    const tokens = [...server.ready.tokens]
    if (contactsAllowed < ROWS) throw new Error(`the ${server.ready.plan} plan allows ${contactsAllowed} contacts, fewer than BENCH_ROWS (${ROWS})`)
    const bigFile = join(dataDir, `contacts-${ROWS}.csv`)
    const smallFile = join(dataDir, `contacts-${SMALL}.csv`)
    writeCsv(bigFile, ROWS)
    writeCsv(smallFile, SMALL)
    const oneFile = join(dataDir, 'contacts-1.csv')
    writeCsv(oneFile, 1)

    console.log(
      `growth contacts import beside the bare API, client on ${runtime}, ${process.platform}-${process.arch}, ${availableParallelism()} cores (${cpuModel}), ` +
        `${mib(totalmem())} memory; load average ${load()}`,
    )
    console.log(
      `server: server/src/server.ts under Bun in its own process, embedded PGlite in ${dataDir}; a fresh workspace on the ${server.ready.plan} plan per run ` +
        `(every row a create); the token's limit raised from 600 to ${fmt(server.ready.limit)} calls/hour for this bench (still counted on every call)`,
    )
    console.log(
      `files: ${fmt(ROWS)} rows (${mib(statSync(bigFile).size)}) and ${fmt(SMALL)} rows (${mib(statSync(smallFile).size)}), ` +
        `header email,first_name,last_name,company,tags; ${BATCH} contacts a request; ${ROUNDS} round${ROUNDS === 1 ? '' : 's'}, order flipped every round\n`,
    )

    const usageContacts = async (token: string) => {
      const res = await fetch(`${base}/usage`, { headers: { Authorization: `Bearer ${token}` } })
      if (res.status !== 200) throw new Error(`GET /usage answered ${res.status}: ${await res.text()}`)
      const body = (await res.json()) as { data: { allowances: { name: string; used: number }[] } }
      return body.data.allowances.find((a) => a.name === 'contacts')!.used
    }
    const expectHeld = async (name: string, token: string, rows: number) => {
      const held = await usageContacts(token)
      if (held !== rows) throw new Error(`${name}: the workspace holds ${held} contacts after importing ${rows} rows`)
    }

    // --- The bare loop ---------------------------------------------------------------------------
    const bare = async (name: string, inFlight: number, rows: number): Promise<Run> => {
      const token = tokens.shift()!
      const headers = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }
      const batches = Math.ceil(rows / BATCH)
      const runId = crypto.randomUUID()
      let next = 0
      let created = 0
      // When each tenth of the rows was in: the first tenth's rate beside the last's.
      const tenth = Math.max(BATCH, Math.floor(rows / 10))
      const marks: number[] = []
      const worker = async () => {
        for (;;) {
          const b = next++
          if (b >= batches) return
          const contacts = []
          for (let i = b * BATCH; i < Math.min(rows, (b + 1) * BATCH); i++) contacts.push(contactOf(i))
          const res = await fetch(`${base}/contacts`, { method: 'POST', headers: { ...headers, 'Idempotency-Key': `bench-${runId}-${b + 1}` }, body: JSON.stringify({ contacts }) })
          if (res.status !== 201) throw new Error(`${name}: POST /contacts answered ${res.status}: ${(await res.text()).slice(0, 500)}`)
          const body = (await res.json()) as { data: { totals: { created: number } } }
          created += body.data.totals.created
          while (created >= (marks.length + 1) * tenth) marks.push(performance.now())
        }
      }
      const cpu0 = process.cpuUsage()
      const s0 = cpuSecondsOf(serverPid)
      const t0 = performance.now()
      await Promise.all(Array.from({ length: inFlight }, worker))
      const firstTenth = marks.length >= 1 ? tenth / ((marks[0]! - t0) / 1000) : undefined
      const lastTenth = marks.length >= 2 ? tenth / ((marks.at(-1)! - marks.at(-2)!) / 1000) : undefined
      const tenths = marks.map((m, i) => tenth / ((m - (i ? marks[i - 1]! : t0)) / 1000))
      const seconds = (performance.now() - t0) / 1000
      const s1 = cpuSecondsOf(serverPid)
      const cpu = process.cpuUsage(cpu0)
      if (created !== rows) throw new Error(`${name}: ${created} of ${rows} rows created`)
      await expectHeld(name, token, rows)
      return {
        name,
        rows,
        seconds,
        rowsPerSec: rows / seconds,
        serverCpu: s0 === undefined || s1 === undefined ? undefined : s1 - s0,
        clientCpu: (cpu.user + cpu.system) / 1e6,
        firstTenth,
        lastTenth,
        tenths,
      }
    }

    // --- The CLI ---------------------------------------------------------------------------------
    const cli = async (name: string, file: string, rows: number): Promise<Run> => {
      const token = tokens.shift()!
      const cmd = [process.execPath, 'cli/bin/growth.ts', 'contacts', 'import', file, '--json']
      const timeOut = join(dataDir, `time-${tokens.length}.txt`)
      const s0 = cpuSecondsOf(serverPid)
      const t0 = performance.now()
      // Under /usr/bin/time where there is one: its maxrss (%M) is the kernel's peak of the process.
      const proc = Bun.spawn(TIME ? [TIME, '-f', '%M %U %S', '-o', timeOut, ...cmd] : cmd, {
        cwd: ROOT,
        env: { ...process.env, GROWTH_BASE_URL: base, GROWTH_TOKEN: token },
        stdout: 'pipe',
        stderr: 'pipe',
      })
      // VmRSS while it runs (every 50 ms) and the highest VmHWM read: of the CLI's process, which is
      // /usr/bin/time's child when it runs under it.
      let pid: number | undefined = TIME ? undefined : proc.pid
      const samples: { t: number; rss: number }[] = []
      let lastHwm = 0
      const sampler = setInterval(() => {
        if (pid === undefined) {
          try {
            pid = Number(readFileSync(`/proc/${proc.pid}/task/${proc.pid}/children`, 'utf8').trim().split(' ')[0]) || undefined
          } catch {}
          if (pid === undefined) return
        }
        const m = memoryOf(pid)
        if (m && Number.isFinite(m.rss)) {
          samples.push({ t: performance.now() - t0, rss: m.rss })
          lastHwm = Math.max(lastHwm, m.hwm)
        }
      }, 50)
      const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
      const seconds = (performance.now() - t0) / 1000
      clearInterval(sampler)
      const s1 = cpuSecondsOf(serverPid)
      if (code !== 0) throw new Error(`${name}: growth contacts import exited with ${code}: ${stderr.trim() || stdout.trim()}`)
      const summary = JSON.parse(stdout) as { rows: number; created: number; batches: number; replayedBatches: number; refused: unknown[] }
      if (summary.rows !== rows || summary.created !== rows || summary.replayedBatches !== 0 || summary.refused.length || summary.batches !== Math.ceil(rows / BATCH)) {
        throw new Error(`${name}: the summary is not ${rows} rows all created: ${stdout.trim()}`)
      }
      await expectHeld(name, token, rows)
      let peakRss: number | undefined
      let clientCpu: number | undefined
      if (TIME) {
        const [kb, user, sys] = readFileSync(timeOut, 'utf8').trim().split('\n').at(-1)!.split(' ').map(Number)
        peakRss = kb! * 1024
        clientCpu = user! + sys!
      } else {
        peakRss = lastHwm || undefined
        const usage = proc.resourceUsage()
        clientCpu = usage ? Number(usage.cpuTime.total) / 1e6 : undefined
      }
      const quarters = [0.25, 0.5, 0.75, 1].map((q) => samples.filter((x) => x.t <= q * seconds * 1000).at(-1)?.rss ?? Number.NaN)
      return {
        name,
        rows,
        seconds,
        rowsPerSec: rows / seconds,
        serverCpu: s0 === undefined || s1 === undefined ? undefined : s1 - s0,
        clientCpu,
        peakRss,
        lastHwm: lastHwm || undefined,
        rssAtQuarters: quarters,
      }
    }

    type Contender = { name: string; run: () => Promise<Run> }
    const contenders: Contender[] = [
      { name: 'bare, 1 in flight', run: () => bare('bare, 1 in flight', 1, ROWS) },
      { name: `bare, ${WIDE} in flight`, run: () => bare(`bare, ${WIDE} in flight`, WIDE, ROWS) },
      { name: 'CLI', run: () => cli('CLI', bigFile, ROWS) },
    ]
    // Warm-up (the server's code paths and PGlite's caches), into a workspace of its own.
    const warm = await bare('warm-up', 1, WARMUP_ROWS)
    console.log(`  warm-up: ${fmt(WARMUP_ROWS)} rows by the bare loop, ${fmt(warm.rowsPerSec)} rows/s`)
    const runs = new Map<string, Run[]>(contenders.map((c) => [c.name, []]))
    for (let r = 0; r < ROUNDS; r++) {
      for (const c of r % 2 ? [...contenders].reverse() : contenders) {
        const run = await c.run()
        runs.get(c.name)!.push(run)
        // Each tenth's rate too, so a stall shows where it happened.
        const tenths = run.firstTenth && run.lastTenth ? `; first tenth of the rows ${fmt(run.firstTenth)} rows/s, last tenth ${fmt(run.lastTenth)} (each tenth: ${run.tenths!.map((t) => fmt(t)).join(' ')})` : ''
        console.log(`  round ${r + 1} ${c.name.padEnd(18)} ${fmt(run.rows)} rows in ${fmt(run.seconds, 1)} s: ${fmt(run.rowsPerSec)} rows/s${tenths} (load average ${load()})`)
      }
    }
    const small = await cli(`CLI, ${fmt(SMALL)} rows`, smallFile, SMALL)
    console.log(`  CLI on ${fmt(SMALL)} rows: ${fmt(small.seconds, 1)} s, ${fmt(small.rowsPerSec)} rows/s`)
    // The CLI's fixed cost: start, hash, read and send a file of one row.
    const one = await cli('CLI, 1 row', oneFile, 1)
    console.log(`  CLI on 1 row: ${fmt(one.seconds * 1000)} ms from spawn to exit`)
    const large = runs.get('CLI')!.reduce((a, b) => ((a.peakRss ?? 0) >= (b.peakRss ?? 0) ? a : b))

    // --- The table -------------------------------------------------------------------------------
    const med = (name: string, f: (r: Run) => number | undefined) => median(runs.get(name)!.map((r) => f(r) ?? Number.NaN))
    console.log(`\n${fmt(ROWS)} rows into a fresh workspace, ${BATCH} contacts a request${ROUNDS > 1 ? ` (median of ${ROUNDS} rounds)` : ''}\n`)
    console.log(
      `${''.padEnd(20)}${'rows/s'.padStart(9)}${'min–max'.padStart(15)}${'seconds'.padStart(10)}${'server CPU s'.padStart(14)}${'client CPU s'.padStart(14)}${'client CPU µs/row'.padStart(19)}`,
    )
    for (const c of contenders) {
      const rps = med(c.name, (r) => r.rowsPerSec)
      const all = runs.get(c.name)!.map((r) => r.rowsPerSec)
      const range = `${fmt(Math.min(...all))}–${fmt(Math.max(...all))}`
      const secs = med(c.name, (r) => r.seconds)
      const sc = med(c.name, (r) => r.serverCpu)
      const cc = med(c.name, (r) => r.clientCpu)
      console.log(
        `${c.name.padEnd(20)}${fmt(rps).padStart(9)}${range.padStart(15)}${fmt(secs, 1).padStart(10)}${fmt(sc, 1).padStart(14)}${fmt(cc, 1).padStart(14)}${fmt((cc / ROWS) * 1e6, 1).padStart(19)}`,
      )
    }
    const cliRps = med('CLI', (r) => r.rowsPerSec)
    const seqRps = med('bare, 1 in flight', (r) => r.rowsPerSec)
    const wideRps = med(`bare, ${WIDE} in flight`, (r) => r.rowsPerSec)
    console.log(`${'CLI / bare, 1'.padEnd(20)}${(cliRps / seqRps).toFixed(3).padStart(9)}`)
    console.log(`${`CLI / bare, ${WIDE}`.padEnd(20)}${(cliRps / wideRps).toFixed(3).padStart(9)}`)
    console.log(`(the CLI's seconds run from spawn to exit: its start, hashing and parsing the file included, ${fmt(one.seconds * 1000)} ms for a file of one row; client CPU is the whole process's)`)

    console.log(`\nThe CLI's memory (peak RSS: ${TIME ? "the process's maxrss from /usr/bin/time" : 'the highest VmHWM read'}; VmRSS sampled every 50 ms, at the quarters of the run)\n`)
    console.log(`${'file'.padEnd(14)}${'rows/s'.padStart(9)}${'peak RSS'.padStart(13)}${'VmHWM seen'.padStart(13)}${'VmRSS at 25% / 50% / 75% / end'.padStart(40)}`)
    for (const r of [small, large]) {
      const q = (r.rssAtQuarters ?? []).map((x) => (Number.isFinite(x) ? fmt(x / 2 ** 20, 0) : '-')).join(' / ')
      console.log(
        `${`${fmt(r.rows)} rows`.padEnd(14)}${fmt(r.rowsPerSec).padStart(9)}${(r.peakRss ? mib(r.peakRss) : '-').padStart(13)}${(r.lastHwm ? mib(r.lastHwm) : '-').padStart(13)}${`${q} MiB`.padStart(40)}`,
      )
    }

    // --- Goals -----------------------------------------------------------------------------------
    console.log()
    const ratio = cliRps / seqRps
    console.log(goalLine(`the CLI at least ${RATIO_GOAL} of the bare sequential loop's rows/s`, ratio, ratio >= RATIO_GOAL))
    const growth = (large.peakRss ?? Number.NaN) / (small.peakRss ?? Number.NaN)
    console.log(goalLine(`the CLI's peak RSS on ${fmt(ROWS)} rows at most ${MEMORY_GOAL} times its peak on ${fmt(SMALL)}`, growth, growth <= MEMORY_GOAL))
    console.log(`\n(${((performance.now() - started) / 1000).toFixed(1)} s; load average at the end ${load()})`)
    return 0
  } finally {
    await stopServerProcess(child)
    rmSync(dataDir, { recursive: true, force: true })
  }
}

if (process.argv[2] === '--serve') {
  await serve(process.argv[3]!, Number(process.argv[4]))
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
