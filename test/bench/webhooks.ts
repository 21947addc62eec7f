/**
 * Benchmark (not a test; run by hand with `npm run bench:webhooks`): how the webhook delivery
 * workers (server/src/workers/webhooks.ts, run as `growth worker`) keep up, on a scratch database of
 * the PostgreSQL server at DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres; the
 * scratch database is created next to it and dropped at the end).
 *
 * Who runs where (the machine has few cores, so each party has its own event loop):
 * - this process: the producer (commits events through appendEvents, paced to the target rate) and
 *   the receivers (Bun.serve on 127.0.0.1, answering 200 at once, recording every delivery);
 * - one or more `growth worker` processes: the delivery workers under test;
 * - for the baseline, this same file run with `--baseline` in its own process: a bare loop posting
 *   the same signed bodies to the same receivers, at the same offered rate and concurrency.
 *
 * Parts (BENCH_PARTS, default 1,2,3,4):
 * 1. Fan-out: commit-to-received latency and sustained deliveries/s, beside the bare loop, with
 *    CPU per delivery of each party (where the machine's time goes). Aim: one worker process
 *    sustains >= 0.8 of the bare loop's rate (at the default 500 events/s x 10 receivers = 5,000/s).
 * 2. The same fan-out with one of the receivers hanging (never answering). Aim: the other nine's p99
 *    commit -> received within 1.2x of part 1's (none hanging).
 * 3. A backlog of due deliveries: the worker's memory (RSS) while it drains, beside a backlog ten
 *    times smaller; its pace; the claim statement's cost on that queue.
 * 4. Several worker processes on one database: throughput 1 vs 3, exactly once; one killed mid-run;
 *    and one endpoint alone (what a single endpoint can get). Aim: 3 processes deliver at least what
 *    1 does, each delivery once, with the database's CPU (the worker pools' backends, from /proc) and
 *    statements (its transactions, pg_stat_database) per delivery flat from 1 to 3. The endpoints
 *    are held (disabled) until every process is running, then released at once: the rate and the
 *    costs are those of delivering, not of processes starting beside one that already delivers.
 *
 * Env (every setting has a default; a default run takes about 5 minutes):
 *   BENCH_RATE (500)               events/s committed in parts 1 and 2
 *   BENCH_SECONDS (60)             seconds of events in parts 1 and 2
 *   BENCH_RECEIVERS (10)           healthy receivers, one endpoint each, every event to each
 *   BENCH_WORKERS (1)              --workers of each growth worker process
 *   BENCH_WORKER_POOL (unset)      unset: `growth worker` as shipped; a number: the same workers on a
 *                                  pool of that many connections (see runWorker)
 *   BENCH_WORKER_MODULE (unset)    a patched copy of server/src/workers/webhooks.ts to run instead
 *                                  (see runWorker), to measure a change before making it
 *   BENCH_BATCH_MS (100)           the producer commits one batch of events this often
 *   BENCH_DRAIN_SECONDS (20)       the longest wait after the last commit for every delivery to
 *                                  arrive (parts 1 and 2); what has not arrived by then is reported
 *   BENCH_BASELINE_SECONDS (20, at most BENCH_SECONDS)  how long the bare loop offers load
 *   BENCH_HISTORY_EVENTS (20000)   x 10 = deliveries already made, of another workspace, in the tables
 *                                  (and their statistics) when parts 1 and 2 start (see history; 0: none)
 *   BENCH_BACKLOG_EVENTS (100000)  x BENCH_RECEIVERS = the part 3 backlog (1,000,000)
 *   BENCH_BACKLOG_SECONDS (30)     how long the part 3 worker drains (each backlog)
 *   BENCH_MULTI_EVENTS (6000)      x BENCH_RECEIVERS = the part 4 backlog (60,000: a drain of about
 *                                  10 s; 15,000 drained in 2 to 3 s, too short for a steady rate)
 *   BENCH_MULTI_TIMEOUT_MS (2000)  WEBHOOK_TIMEOUT_MS in part 4 (a killed worker's leases run out
 *                                  after 2 x this + 1 s)
 *   BENCH_SINGLE_SECONDS (15)      part 4's run to a single endpoint stops after this long
 *   BENCH_VERIFY_EVERY (50)        receivers check the signature of every n-th delivery
 *   BENCH_PARTS (1,2,3,4)          which parts to run
 *
 * Exit status: 0 whether or not the goals are met; non-zero when the benchmark itself failed (no
 * database, a child process failing, a bad signature) or a delivery was lost or duplicated where
 * exactly-once must hold.
 */
import { createHmac } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import http from 'node:http'
import { join, resolve } from 'node:path'
import postgres from 'postgres'
import { loadConfig } from '../../server/src/config.ts'
import { newId } from '../../server/src/core/ids.ts'
import type { Sql } from '../../server/src/core/db.ts'
import { createEndpoint } from '../../server/src/domain/webhooks.ts'
import { createWorkspace } from '../../server/src/domain/workspaces.ts'
import { openPool } from '../../server/src/store/driver/db.ts'
import { appendEvents, DELIVERIES_CHANNEL } from '../../server/src/store/events.ts'
import { cleanupStep, envNumber } from './support.ts'
import { migrate } from '../../server/src/store/driver/migrate.ts'
import { claimDeliveries } from '../../server/src/store/webhook-deliveries.ts'
import { disableEndpoint } from '../../server/src/store/webhooks.ts'
import { createLogger } from '../../server/src/core/log.ts'
import { startDeliveryWorkers } from '../../server/src/workers/webhooks.ts'
import { useSecretsKeyring } from '../../server/src/core/secrets.ts'
import { loadSecretsKeyring } from '../../server/src/secrets-key.ts'
import { runBenchmark } from './support.ts'

const ROOT = join(import.meta.dir, '..', '..')
/** Wall-clock milliseconds with sub-millisecond precision, comparable across processes. */
const now = () => performance.timeOrigin + performance.now()

/**
 * The workers' own bounds, read from their source so the baseline copies them exactly: deliveries
 * one worker has out at once, and deliveries of one endpoint out at once across every worker.
 */
function workerConstant(name: string): number {
  const source = readFileSync(join(ROOT, 'server/src/workers/webhooks.ts'), 'utf8')
  const m = new RegExp(`^const ${name} = (\\d+)`, 'm').exec(source)
  if (!m) throw new Error(`cannot find "const ${name} = <number>" in server/src/workers/webhooks.ts`)
  return Number(m[1])
}

// ---------------------------------------------------------------------------------------------
// The baseline: this file run with --baseline, in its own process. A bare loop with no database:
// events made on the producer's schedule, each posted (signed as the workers sign, over keep-alive
// connections as send.ts keeps them) to every receiver, at most `slots` out at once and at most
// `perEndpoint` per receiver, taking receivers in turn. Each post carries the time its event was
// offered (X-Bench-Offered); the receivers measure from it. Prints one JSON line at the end.
// ---------------------------------------------------------------------------------------------

type BaselineConfig = {
  receivers: { url: string; secret: string }[]
  rate: number
  seconds: number
  batchMs: number
  slots: number
  perEndpoint: number
  workspaceId: string
}
type BaselineResult = { offered: number; posted: number; errors: number; errorSamples: string[]; maxQueuedMs: number; seconds: number; cpuMs: number; sendP50: number; sendP99: number }

async function runBaseline(c: BaselineConfig): Promise<BaselineResult> {
  type Post = { body: string; eventId: string; deliveryId: string; offered: number }
  const agent = new http.Agent({ keepAlive: true, maxSockets: 16 })
  const queues: Post[][] = c.receivers.map(() => [])
  const out = c.receivers.map(() => 0)
  let inFlight = 0
  let offered = 0
  let posted = 0
  let errors = 0
  let maxQueuedMs = 0
  let next = 0
  let seq = 0
  const errorSamples: string[] = []
  let sends = new Float64Array(1 << 16)
  let nSends = 0
  let allDone: () => void = () => {}
  let producing = true

  function post(r: number, p: Post) {
    const started = now()
    maxQueuedMs = Math.max(maxQueuedMs, started - p.offered)
    const t = Math.floor(Date.now() / 1000)
    const sig = createHmac('sha256', c.receivers[r]!.secret).update(`${t}.${p.body}`).digest('hex')
    const target = new URL(c.receivers[r]!.url)
    inFlight++
    out[r]!++
    const done = (error?: string) => {
      if (nSends === sends.length) {
        const grown = new Float64Array(sends.length * 2)
        grown.set(sends)
        sends = grown
      }
      sends[nSends++] = now() - started
      inFlight--
      out[r]!--
      if (error) {
        errors++
        if (errorSamples.length < 5) errorSamples.push(error)
      } else posted++
      pump()
    }
    const req = http.request(
      {
        host: target.hostname,
        port: Number(target.port),
        path: target.pathname,
        method: 'POST',
        agent,
        headers: {
          'Content-Type': 'application/json',
          'User-Agent': 'bench-baseline',
          'Content-Length': String(Buffer.byteLength(p.body)),
          'X-Service-Signature': `t=${t},v1=${sig}`,
          'X-Service-Event-Id': p.eventId,
          'X-Service-Delivery-Id': p.deliveryId,
          'X-Bench-Offered': String(p.offered),
        },
        timeout: 15_000,
      },
      (res) => {
        res.resume()
        res.on('end', () => done(res.statusCode === 200 ? undefined : `answered ${res.statusCode}`))
      },
    )
    req.on('timeout', () => req.destroy(new Error('no answer within 15 s')))
    req.on('error', (err) => done(err.message))
    req.end(p.body)
  }

  /** Sends what the bounds allow, taking receivers in turn. */
  function pump() {
    let idle = 0
    while (inFlight < c.slots && idle < queues.length) {
      const r = next
      next = (next + 1) % queues.length
      if (queues[r]!.length && out[r]! < c.perEndpoint) {
        post(r, queues[r]!.shift()!)
        idle = 0
      } else idle++
    }
    if (!producing && inFlight === 0 && queues.every((q) => q.length === 0)) allDone()
  }

  const finished = new Promise<void>((resolve) => (allDone = resolve))
  const started = now()
  const total = Math.round(c.rate * c.seconds)
  for (let batch = 0; offered < total; batch++) {
    const due = started + batch * c.batchMs
    const wait = due - now()
    if (wait > 0) await Bun.sleep(wait)
    const until = Math.min(total, Math.round((c.rate * (batch + 1) * c.batchMs) / 1000))
    const at = now()
    for (; offered < until; offered++) {
      const eventId = newId('event')
      const body = JSON.stringify({ id: eventId, event: 'contact.created', createdAt: new Date(at).toISOString(), workspaceId: c.workspaceId, data: eventData(offered) })
      for (let r = 0; r < queues.length; r++) queues[r]!.push({ body, eventId, deliveryId: `dlv_base${String(seq++).padStart(22, '0')}`, offered: at })
    }
    pump()
  }
  producing = false
  pump()
  await finished
  agent.destroy()
  const cpu = process.cpuUsage()
  sends = sends.slice(0, nSends).sort()
  const q = (x: number) => sends[Math.max(0, Math.ceil(x * sends.length) - 1)] ?? Number.NaN
  return { offered: offered * c.receivers.length, posted, errors, errorSamples, maxQueuedMs, seconds: (now() - started) / 1000, cpuMs: (cpu.user + cpu.system) / 1000, sendP50: q(0.5), sendP99: q(0.99) }
}

/** What every event carries: a contact.created of a realistic size (about 300 bytes as JSON). */
function eventData(n: number) {
  return {
    contact: {
      id: `ctc_bench${String(n).padStart(17, '0')}`,
      email: `person${n}@example.com`,
      firstName: 'Avery',
      lastName: 'Example',
      phone: '+15550100200',
      tags: ['bench', 'webhooks'],
      attributes: { plan: 'growth', source: 'import' },
      createdAt: new Date().toISOString(),
    },
  }
}

// ---------------------------------------------------------------------------------------------
// With BENCH_WORKER_POOL or BENCH_WORKER_MODULE, the workers run in this file with --worker instead
// of `growth worker`: startDeliveryWorkers started as cli/src/commands/worker.ts starts it, on a pool
// of BENCH_WORKER_POOL connections (default 2, as growth worker opens), taken from the module at
// BENCH_WORKER_MODULE when given (a patched copy of server/src/workers/webhooks.ts, to measure a
// change before making it).
// ---------------------------------------------------------------------------------------------

async function runWorker(pool: number, count: number) {
  const config = loadConfig(process.env)
  // The secrets key, as growth worker loads it (the same as the bench's own process).
  useSecretsKeyring(loadSecretsKeyring(process.env, config.dataDir))
  const db = openPool(config.databaseUrl!, { max: pool, name: 'growth-service' })
  const start: typeof startDeliveryWorkers = process.env.BENCH_WORKER_MODULE
    ? (await import(resolve(process.env.BENCH_WORKER_MODULE))).startDeliveryWorkers
    : startDeliveryWorkers
  const workers = await start({ sql: db, log: createLogger('warn'), settings: config.webhooks, listen: db }, count)
  console.error(`${count} webhook delivery workers running on a pool of ${pool}`)
  await new Promise<void>((resolve) => process.once('SIGTERM', () => resolve()))
  await workers.stop()
  await db.end({ timeout: 5 })
}

if (process.argv[2] === '--worker') {
  try {
    await runWorker(Number(process.argv[3]), Number(process.argv[4]))
    process.exit(0)
  } catch (err) {
    console.error(`worker failed: ${(err as Error).stack ?? err}`)
    process.exit(1)
  }
}

if (process.argv[2] === '--baseline') {
  try {
    const result = await runBaseline(JSON.parse(process.env.BENCH_BASELINE_CONFIG ?? '') as BaselineConfig)
    console.log(JSON.stringify(result))
    process.exit(0)
  } catch (err) {
    console.error(`baseline failed: ${(err as Error).stack ?? err}`)
    process.exit(1)
  }
}

// ---------------------------------------------------------------------------------------------
// Settings
// ---------------------------------------------------------------------------------------------

const RATE = envNumber('BENCH_RATE', 500)
const SECONDS = envNumber('BENCH_SECONDS', 60)
const RECEIVERS = envNumber('BENCH_RECEIVERS', 10, true)
const WORKERS = envNumber('BENCH_WORKERS', 1, true)
/** Unset (with no BENCH_WORKER_MODULE): `growth worker` as shipped. Set: see runWorker. */
const WORKER_POOL = process.env.BENCH_WORKER_POOL || process.env.BENCH_WORKER_MODULE ? envNumber('BENCH_WORKER_POOL', 2, true) : undefined
/** How the worker processes are described in the tables. */
const WORKER_KIND = WORKER_POOL
  ? `worker process (${process.env.BENCH_WORKER_MODULE ? `startDeliveryWorkers of ${process.env.BENCH_WORKER_MODULE}` : 'startDeliveryWorkers'}, pool of ${WORKER_POOL})`
  : 'growth worker process'
const BATCH_MS = envNumber('BENCH_BATCH_MS', 100)
const DRAIN_SECONDS = envNumber('BENCH_DRAIN_SECONDS', 20)
const BASELINE_SECONDS = envNumber('BENCH_BASELINE_SECONDS', Math.min(SECONDS, 20))
const BACKLOG_EVENTS = envNumber('BENCH_BACKLOG_EVENTS', 100_000, true)
const HISTORY_EVENTS = envNumber('BENCH_HISTORY_EVENTS', 20_000)
const BACKLOG_SECONDS = envNumber('BENCH_BACKLOG_SECONDS', 30)
const MULTI_EVENTS = envNumber('BENCH_MULTI_EVENTS', 6000, true)
const MULTI_TIMEOUT_MS = envNumber('BENCH_MULTI_TIMEOUT_MS', 2000, true)
/** Part 4's single-endpoint run stops after this long (it may not drain). */
const SINGLE_SECONDS = envNumber('BENCH_SINGLE_SECONDS', 15)
const VERIFY_EVERY = envNumber('BENCH_VERIFY_EVERY', 50, true)
const PARTS = new Set((process.env.BENCH_PARTS || '1,2,3,4').split(',').map((s) => s.trim()))
for (const p of PARTS) if (!['1', '2', '3', '4'].includes(p)) throw new Error(`BENCH_PARTS lists parts 1 to 4 (got ${JSON.stringify(process.env.BENCH_PARTS)})`)

const SLOTS = workerConstant('SLOTS')
const PER_ENDPOINT = workerConstant('PER_ENDPOINT')
/** The goals. */
const GOAL_P99_MS = 1000
const GOAL_BAD_RATIO = 1.2
/** One worker process sustains at least this share of the bare loop's rate. */
const GOAL_BARE_RATIO = 0.8

const baseUrl = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres'
const dbName = `growth_bench_webhooks_${Math.random().toString(16).slice(2, 10)}`
const withDatabase = (url: string, database: string) => {
  const u = new URL(url)
  u.pathname = `/${database}`
  return u.toString()
}
const adminUrl = withDatabase(baseUrl, 'postgres')
const benchUrl = withDatabase(baseUrl, dbName)
/** What every worker process is given (besides the part's own settings). */
const WORKER_ENV = { DATABASE_URL: benchUrl, WEBHOOK_ALLOW_PRIVATE_NETWORKS: '127.0.0.0/8' }

// ---------------------------------------------------------------------------------------------
// Receivers: every delivery is recorded by the recorder of the part running (deliveries left over
// from an earlier part go nowhere: each part empties the queue before it starts).
// ---------------------------------------------------------------------------------------------

class Recorder {
  /** Receipts per delivery id (X-Service-Delivery-Id). */
  readonly ids = new Map<string, number>()
  /** Per receipt: its event id (worker deliveries) or the offered time (baseline), and when it came. */
  readonly eventIds: string[] = []
  readonly offered: number[] = []
  readonly at: number[] = []
  readonly perReceiver: number[]
  firstAt = Number.POSITIVE_INFINITY
  lastAt = 0
  receipts = 0
  duplicates = 0
  verified = 0
  badSignatures: string[] = []

  constructor(receivers: number) {
    this.perReceiver = Array(receivers).fill(0)
  }
  record(r: number, headers: Headers, at: number) {
    const id = headers.get('x-service-delivery-id') ?? '(none)'
    const seen = this.ids.get(id) ?? 0
    if (seen) this.duplicates++
    this.ids.set(id, seen + 1)
    this.receipts++
    this.perReceiver[r]!++
    this.eventIds.push(headers.get('x-service-event-id') ?? '')
    this.offered.push(Number(headers.get('x-bench-offered') ?? Number.NaN))
    this.at.push(at)
    if (at < this.firstAt) this.firstAt = at
    if (at > this.lastAt) this.lastAt = at
  }
  /** Delivery ids received more than once. */
  duplicated(): string[] {
    return [...this.ids].filter(([, n]) => n > 1).map(([id]) => id)
  }
}

type Receiver = { url: string; port: number; stop(): void }
let recorder: Recorder | undefined
const secrets = new Map<number, string>()

function healthyReceiver(index: number): Receiver {
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    idleTimeout: 0,
    async fetch(req) {
      const at = now()
      const body = await req.text()
      const rec = recorder
      if (rec) {
        rec.record(index, req.headers, at)
        // A sample of signatures checked, as a receiver would (the full check costs this process CPU).
        if (rec.receipts % VERIFY_EVERY === 0) verify(rec, index, req.headers, body)
      }
      return new Response('ok')
    },
  })
  return { url: `http://127.0.0.1:${server.port}/hooks`, port: server.port!, stop: () => server.stop(true) }
}

function verify(rec: Recorder, index: number, headers: Headers, body: string) {
  const secret = secrets.get(index)
  if (!secret) return
  const header = headers.get('x-service-signature') ?? ''
  const t = /(?:^|,)t=(\d+)/.exec(header)?.[1]
  const v1 = [...header.matchAll(/(?:^|,)v1=([0-9a-f]+)/g)].map((m) => m[1])
  const want = createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')
  rec.verified++
  if (!t || !v1.includes(want) || Math.abs(Date.now() / 1000 - Number(t)) > 300) {
    if (rec.badSignatures.length < 5) rec.badSignatures.push(`receiver ${index}: ${header || '(no X-Service-Signature)'}`)
  }
}

/** Never answers: the worker's time-out ends each delivery. */
function hangingReceiver(): Receiver {
  const server = Bun.serve({ hostname: '127.0.0.1', port: 0, idleTimeout: 0, fetch: () => new Promise<Response>(() => {}) })
  return { url: `http://127.0.0.1:${server.port}/hooks`, port: server.port!, stop: () => server.stop(true) }
}

// ---------------------------------------------------------------------------------------------
// Child processes: growth worker, the baseline. Every one is killed on the way out.
// ---------------------------------------------------------------------------------------------

type Child = { proc: ReturnType<typeof Bun.spawn>; name: string; log: string[] }
const children = new Set<Child>()

/** Keeps the last lines a child wrote (for a failure message), reading its pipe so it never fills. */
async function drainLines(stream: ReadableStream<Uint8Array>, log: string[], onText?: (s: string) => void) {
  const decoder = new TextDecoder()
  const reader = stream.getReader()
  for (;;) {
    const { value: chunk, done } = await reader.read()
    if (done) return
    const text = decoder.decode(chunk, { stream: true })
    onText?.(text)
    for (const line of text.split('\n')) {
      if (!line.trim()) continue
      log.push(line)
      if (log.length > 20) log.shift()
    }
  }
}

/** A `growth worker --workers n` process on the scratch database, once it says it is running. */
async function startWorker(name: string, env: Record<string, string> = {}): Promise<Child> {
  const cmd = WORKER_POOL
    ? [process.execPath, import.meta.path, '--worker', String(WORKER_POOL), String(WORKERS)]
    : [process.execPath, 'cli/bin/growth.ts', 'worker', '--workers', String(WORKERS)]
  const proc = Bun.spawn(cmd, {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'info', ...WORKER_ENV, ...env },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const child: Child = { proc, name, log: [] }
  children.add(child)
  let said = ''
  const running = new Promise<void>((resolve, reject) => {
    void drainLines(proc.stderr as ReadableStream<Uint8Array>, child.log, (s) => {
      said += s
      if (said.includes('running')) resolve()
    })
    void drainLines(proc.stdout as ReadableStream<Uint8Array>, child.log)
    void proc.exited.then((code) => reject(new Error(`${name} exited with ${code} before it was running: ${child.log.join(' | ')}`)))
    setTimeout(() => reject(new Error(`${name} did not say it was running within 30 s: ${child.log.join(' | ')}`)), 30_000)
  })
  await running
  return child
}

/** SIGTERM (the worker finishes what it has out), then SIGKILL if it takes longer than `graceMs`. */
async function stopChild(child: Child, graceMs = 20_000): Promise<number | null> {
  if (child.proc.exitCode === null && child.proc.signalCode === null) {
    child.proc.kill('SIGTERM')
    const timer = setTimeout(() => child.proc.kill('SIGKILL'), graceMs)
    await child.proc.exited
    clearTimeout(timer)
  }
  children.delete(child)
  return child.proc.exitCode
}

function assertAlive(child: Child) {
  if (child.proc.exitCode !== null || child.proc.signalCode !== null) {
    throw new Error(`${child.name} exited (${child.proc.exitCode ?? child.proc.signalCode}) during the run: ${child.log.join(' | ')}`)
  }
}

/** Resident memory of a process, in MiB (VmRSS of /proc/<pid>/status). */
function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  if (!m) throw new Error(`no VmRSS for process ${pid}`)
  return Number(m[1]) / 1024
}

/** CPU time (user + system) a process has used, in ms, from /proc/<pid>/stat. */
const CLK_TCK = Number(Bun.spawnSync(['getconf', 'CLK_TCK']).stdout.toString().trim()) || 100
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLK_TCK
}
/** CPU time of every PostgreSQL process on this machine (its backends, writers, autovacuum), in ms. */
function postgresCpuMs(): number {
  let total = 0
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === 'postgres') total += cpuMs(Number(entry))
    } catch {
      // gone meanwhile
    }
  }
  return total
}
const selfCpuMs = () => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1000
}
/**
 * CPU time, in ms, of the PostgreSQL backends serving the worker processes (their pools connect as
 * growth-service to the scratch database and stay for the worker's life, so a backend's whole CPU
 * time is the run's): PostgreSQL's share of delivering, apart from other databases on the server.
 */
async function workerBackendsCpuMs(db: Sql): Promise<number> {
  const rows = await db<{ pid: number }[]>`
    SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'growth-service'`
  let total = 0
  for (const { pid } of rows) {
    try {
      total += cpuMs(pid)
    } catch {
      // gone meanwhile
    }
  }
  return total
}
/** Transactions the scratch database has committed or rolled back (each worker statement is one). */
async function transactions(db: Sql): Promise<number> {
  const [r] = await db<{ n: string }[]>`SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = current_database()`
  return Number(r!.n)
}

/** CPU used from now on by the worker processes, PostgreSQL and this process; `per(n)` divides by n deliveries. */
function cpuMeter(pids: () => number[]) {
  const w0 = pids().reduce((a, p) => a + cpuMs(p), 0)
  const pg0 = postgresCpuMs()
  const b0 = selfCpuMs()
  let end: { worker: number; postgres: number; bench: number } | undefined
  return {
    /** Call while the workers still run. */
    stop() {
      end = { worker: pids().reduce((a, p) => a + cpuMs(p), 0) - w0, postgres: postgresCpuMs() - pg0, bench: selfCpuMs() - b0 }
      return end
    },
  }
}

// ---------------------------------------------------------------------------------------------
// The database: a scratch database, one workspace per part, endpoints made as an operator makes them.
// ---------------------------------------------------------------------------------------------

let admin: postgres.Sql | undefined
let created = false
let sql: Sql | undefined
let receivers: Receiver[] = []
const extraReceivers: Receiver[] = []

/** An empty queue for the next part: no worker is running. */
async function emptyQueue(db: Sql) {
  await db`TRUNCATE webhook_attempts, webhook_deliveries, webhook_secrets, webhook_endpoints, events`
}

/**
 * A history, as a service that has run a while holds: HISTORY_EVENTS events of another workspace,
 * each delivered to its ten endpoints, then analyzed as autovacuum would have. Without it a part
 * starts on tables just emptied, with no statistics, and its statements are planned (and their
 * plans kept) for tables of a few rows: they scan where they would look up by key, a state a
 * running service is in for at most its first minute (autovacuum's first pass), not what it runs
 * in. The history's endpoints point nowhere and nothing of it is due.
 */
async function history(db: Sql) {
  if (HISTORY_EVENTS <= 0) return
  const ws = await createWorkspace(db, { name: 'Earlier workspace' })
  const policy = loadConfig(WORKER_ENV).webhooks.addresses
  const ids: string[] = []
  for (let i = 0; i < 10; i++) ids.push((await createEndpoint(db, { workspaceId: ws.id, url: `http://127.0.0.1:9/history-${i}`, events: 'contact.created' }, { addresses: policy })).id)
  await bulkBacklog(db, ws.id, ids, HISTORY_EVENTS, { delivered: true })
}

/** A fresh workspace with one endpoint per URL (each subscribed to contact.created); secrets are kept per healthy receiver. */
async function workspaceWithEndpoints(db: Sql, name: string, urls: string[]) {
  const ws = await createWorkspace(db, { name })
  const policy = loadConfig(WORKER_ENV).webhooks.addresses
  const endpoints: { id: string; secret: string }[] = []
  for (const url of urls) {
    const e = await createEndpoint(db, { workspaceId: ws.id, url, events: 'contact.created' }, { addresses: policy })
    endpoints.push({ id: e.id, secret: e.secret })
  }
  endpoints.slice(0, receivers.length).forEach((e, i) => secrets.set(i, e.secret))
  return { ws, endpoints }
}

/**
 * The producer: `rate` events a second for `seconds`, one transaction (appendEvents, which makes
 * the deliveries and NOTIFYs) per batch of BATCH_MS, on a fixed schedule; each event's commit time
 * is taken right after its transaction resolves.
 */
async function produce(db: Sql, workspaceId: string, rate: number, seconds: number, commits: Map<string, number>) {
  const total = Math.round(rate * seconds)
  const started = now()
  let made = 0
  let maxLateMs = 0
  let maxCommitMs = 0
  for (let batch = 0; made < total; batch++) {
    const due = started + batch * BATCH_MS
    const wait = due - now()
    if (wait > 0) await Bun.sleep(wait)
    else maxLateMs = Math.max(maxLateMs, -wait)
    const until = Math.min(total, Math.round((rate * (batch + 1) * BATCH_MS) / 1000))
    const events = Array.from({ length: until - made }, (_, i) => ({ type: 'contact.created' as const, data: eventData(made + i) }))
    const t0 = now()
    const ids = await db.begin((tx) => appendEvents(tx, workspaceId, events))
    const committed = now()
    maxCommitMs = Math.max(maxCommitMs, committed - t0)
    for (const id of ids) commits.set(id, committed)
    made = until
  }
  return { events: made, seconds: (now() - started) / 1000, maxLateMs, maxCommitMs }
}

/** Waits until `done()` or `ms` passed; checks the children stay up. Returns whether it was done. */
async function waitFor(done: () => boolean, ms: number, alive: Child[] = []): Promise<boolean> {
  const deadline = now() + ms
  while (!done()) {
    for (const c of alive) assertAlive(c)
    if (now() > deadline) return false
    await Bun.sleep(50)
  }
  return true
}

// ---------------------------------------------------------------------------------------------
// Figures and tables
// ---------------------------------------------------------------------------------------------

type Latency = { n: number; p50: number; p90: number; p99: number; max: number }

/** Percentiles (nearest rank) of `values`; `missing` values that never came count as later than any. */
function latency(values: number[], missing = 0): Latency {
  const all = Float64Array.from(values).sort()
  const n = all.length + missing
  const at = (q: number) => {
    const i = Math.max(0, Math.ceil(q * n) - 1)
    return i < all.length ? all[i]! : Number.POSITIVE_INFINITY
  }
  return { n: all.length, p50: at(0.5), p90: at(0.9), p99: at(0.99), max: missing ? Number.POSITIVE_INFINITY : (all.at(-1) ?? Number.NaN) }
}

/** A latency or duration; one that never came reads "> BENCH_DRAIN_SECONDS" (it waited at least that long). */
const ms = (x: number) =>
  Number.isNaN(x) ? '-' : Number.isFinite(x) ? `${x < 10 ? x.toFixed(1) : Math.round(x).toLocaleString('en-US')} ms` : `> ${int(DRAIN_SECONDS * 1000)} ms`
const int = (x: number) => Math.round(x).toLocaleString('en-US')
const rate = (x: number) => `${int(x)}/s`
const cpu = (x: number) => (Number.isFinite(x) ? `${x.toFixed(3)} ms` : '-')
const ratio = (a: number, b: number) => (Number.isFinite(a) && Number.isFinite(b) && b > 0 ? `${(a / b).toFixed(2)}x` : '-')

/** A table: a header row, then rows; the first column left-aligned, the others right-aligned. */
function table(title: string, header: string[], rows: string[][]) {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)))
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('   ')
  console.log(`\n${title}`)
  console.log(line(header))
  console.log(widths.map((w) => '-'.repeat(w)).join('   '))
  for (const r of rows) console.log(line(r))
}

const met = (ok: boolean) => (ok ? 'met' : 'NOT met')
const problems: string[] = []
/** A broken invariant (lost or duplicated delivery, bad signature): reported, and the exit status says so. */
function fail(what: string) {
  problems.push(what)
  console.log(`  !! ${what}`)
}

/** Delivery ids the database holds for these endpoints, and their states. */
async function deliveryStates(db: Sql, endpointIds: string[]) {
  const rows = await db<{ id: string; status: string }[]>`SELECT id, status FROM webhook_deliveries WHERE endpoint_id = ANY (${endpointIds})`
  const states: Record<string, number> = {}
  for (const r of rows) states[r.status] = (states[r.status] ?? 0) + 1
  return { ids: rows.map((r) => r.id), states }
}

/** Exactly once: every delivery the database made for these endpoints arrived, none twice, nothing else. */
function exactlyOnce(rec: Recorder, ids: string[]) {
  const missing = ids.filter((id) => !rec.ids.has(id))
  const known = new Set(ids)
  const unknown = [...rec.ids.keys()].filter((id) => !known.has(id))
  return { missing, duplicated: rec.duplicated(), unknown }
}

/** How long the workers' HTTP exchanges took (webhook_attempts.duration_ms), p50 and p99. */
async function sendDurations(db: Sql, endpointIds: string[]) {
  const [r] = await db<{ p50: number | null; p99: number | null }[]>`
    SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY duration_ms) AS p50, percentile_cont(0.99) WITHIN GROUP (ORDER BY duration_ms) AS p99
    FROM webhook_attempts WHERE endpoint_id = ANY (${endpointIds})`
  return { p50: r?.p50 ?? Number.NaN, p99: r?.p99 ?? Number.NaN }
}

type CpuPer = { deliverer: number; postgres: number; bench: number }

class Rollback extends Error {}

/** The claim statement's cost on the queue as it is (freshly analyzed): `runs` claims of a worker's full slots, each rolled back. */
async function claimCost(db: Sql, runs = 15) {
  const times: number[] = []
  let claimed = 0
  for (let i = 0; i < runs; i++) {
    await db
      .begin(async (tx) => {
        const t0 = now()
        const got = await claimDeliveries(tx as unknown as Sql, { owner: 'bench', leaseMs: 31_000, perEndpoint: PER_ENDPOINT, endpoints: 64, paceMs: 100, limit: SLOTS })
        times.push(now() - t0)
        claimed = got.length
        throw new Rollback()
      })
      .catch((err) => {
        if (!(err instanceof Rollback)) throw err
      })
  }
  return { ...latency(times), claimed }
}

// ---------------------------------------------------------------------------------------------
// Part 1 (and 2): fan-out. Events committed at a steady rate, each to every receiver; what a
// receiver waits from the commit of an event to its delivery, and how many deliveries a second
// the workers sustain, beside a bare loop doing only the HTTP part (what no queue can beat). CPU
// per delivery says where the machine's time goes. Part 2 adds a receiver that hangs until the
// time-out and one that answers 500: healthy receivers should hardly notice (a slow endpoint must
// not hold up the others).
// ---------------------------------------------------------------------------------------------

type FanOut = {
  lat: Latency
  /** p99 of the deliveries of the events committed in each 10 s of the run (those that arrived). */
  p99By10s: number[]
  sustained: number
  received: number
  expected: number
  missing: number
  duplicated: number
  drained: boolean
  rssEndMiB: number
  send: { p50: number; p99: number }
  cpu: CpuPer
  /** CPU used over the run, in cores (1 = one core busy all the time). */
  busy: { deliverer: number; postgres: number }
  produced: Awaited<ReturnType<typeof produce>>
  workspaceId: string
  badIds: string[]
}

/** The fan-out to the healthy receivers (the first `healthy` of them) and the `bad` ones. */
async function fanOut(db: Sql, label: string, bad: Receiver[], healthy = receivers.length): Promise<FanOut> {
  await emptyQueue(db)
  await history(db)
  const good = receivers.slice(0, healthy)
  const urls = [...good.map((r) => r.url), ...bad.map((r) => r.url)]
  const { ws, endpoints } = await workspaceWithEndpoints(db, label, urls)
  const healthyIds = endpoints.slice(0, good.length).map((e) => e.id)
  const worker = await startWorker(`${label} worker`)
  const rec = (recorder = new Recorder(receivers.length))
  const commits = new Map<string, number>()
  const meter = cpuMeter(() => [worker.proc.pid])
  const windowStart = now()
  try {
    console.log(`  ${label}: committing ${int(RATE * SECONDS)} events over ${SECONDS} s, then waiting up to ${DRAIN_SECONDS} s for the rest ...`)
    const produced = await produce(db, ws.id, RATE, SECONDS, commits)
    const expected = produced.events * good.length
    const drained = await waitFor(() => rec.ids.size >= expected, DRAIN_SECONDS * 1000, [worker])
    const used = meter.stop()
    const windowMs = now() - windowStart
    const rssEndMiB = rssMiB(worker.proc.pid)
    recorder = undefined
    // The bad receivers go first, so the worker is not kept waiting on a hanging send to stop.
    for (const r of bad) r.stop()
    await stopChild(worker)

    let firstCommit = Number.POSITIVE_INFINITY
    for (const c of commits.values()) if (c < firstCommit) firstCommit = c
    const lat: number[] = []
    // The same latencies by when their event was committed (10 s windows): when a slowdown happens.
    const windows: number[][] = []
    for (let i = 0; i < rec.at.length; i++) {
      const c = commits.get(rec.eventIds[i]!)
      if (c === undefined) continue
      lat.push(rec.at[i]! - c)
      ;(windows[Math.floor((c - firstCommit) / 10_000)] ??= []).push(rec.at[i]! - c)
    }
    const { ids, states } = await deliveryStates(db, healthyIds)
    const once = exactlyOnce(rec, ids)
    const notYet = Math.max(0, expected - rec.ids.size)

    if (ids.length !== expected) fail(`${label}: the database holds ${ids.length} deliveries to healthy receivers, ${expected} expected`)
    if (drained && once.missing.length) fail(`${label}: ${once.missing.length} deliveries never arrived (states: ${JSON.stringify(states)})`)
    if (!drained) console.log(`  ${label}: ${int(notYet)} of ${int(expected)} deliveries had not arrived ${DRAIN_SECONDS} s after the last commit (states in the database: ${JSON.stringify(states)})`)
    if (once.duplicated.length) fail(`${label}: ${once.duplicated.length} deliveries arrived more than once (no worker died: each should arrive once)`)
    if (once.unknown.length) fail(`${label}: ${once.unknown.length} deliveries arrived that the database does not hold`)
    if (rec.badSignatures.length) fail(`${label}: bad signatures: ${rec.badSignatures.join('; ')}`)
    const n = rec.receipts
    return {
      lat: latency(lat, notYet),
      p99By10s: Array.from(windows, (w) => (w ? latency(w).p99 : Number.NaN)),
      sustained: n / ((rec.lastAt - firstCommit) / 1000),
      received: n,
      expected,
      missing: drained ? once.missing.length : notYet,
      duplicated: once.duplicated.length,
      drained,
      rssEndMiB,
      send: await sendDurations(db, healthyIds),
      cpu: { deliverer: used.worker / n, postgres: used.postgres / n, bench: used.bench / n },
      busy: { deliverer: used.worker / windowMs, postgres: used.postgres / windowMs },
      produced,
      workspaceId: ws.id,
      badIds: endpoints.slice(good.length).map((e) => e.id),
    }
  } finally {
    recorder = undefined
    await stopChild(worker, 1000)
  }
}

/** The bare loop, in its own process, against the same receivers. */
async function baseline(workspaceId: string) {
  const rec = (recorder = new Recorder(receivers.length))
  const config: BaselineConfig = {
    receivers: receivers.map((r, i) => ({ url: r.url, secret: secrets.get(i)! })),
    rate: RATE,
    seconds: BASELINE_SECONDS,
    batchMs: BATCH_MS,
    slots: SLOTS * WORKERS,
    perEndpoint: PER_ENDPOINT,
    workspaceId,
  }
  const pg0 = postgresCpuMs()
  const b0 = selfCpuMs()
  const t0 = now()
  const proc = Bun.spawn([process.execPath, import.meta.path, '--baseline'], {
    cwd: ROOT,
    env: { ...process.env, BENCH_BASELINE_CONFIG: JSON.stringify(config) },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const child: Child = { proc, name: 'baseline loop', log: [] }
  children.add(child)
  const errText = drainLines(proc.stderr as ReadableStream<Uint8Array>, child.log)
  const [out, code] = await Promise.all([new Response(proc.stdout as ReadableStream).text(), proc.exited])
  await errText
  children.delete(child)
  recorder = undefined
  if (code !== 0) throw new Error(`the baseline loop exited with ${code}: ${child.log.join(' | ')}`)
  const result = JSON.parse(out.trim().split('\n').at(-1) ?? '') as BaselineResult
  if (result.errors) fail(`baseline: ${result.errors} posts failed: ${result.errorSamples.join('; ')}`)
  if (rec.badSignatures.length) fail(`baseline: bad signatures: ${rec.badSignatures.join('; ')}`)
  const lat = rec.offered.map((o, i) => rec.at[i]! - o)
  const firstOffered = rec.offered.reduce((a, b) => Math.min(a, b), Number.POSITIVE_INFINITY)
  const n = rec.receipts
  return {
    lat: latency(lat, Math.max(0, result.offered - n)),
    sustained: n / ((rec.lastAt - firstOffered) / 1000),
    received: n,
    expected: result.offered,
    duplicated: rec.duplicated().length,
    maxQueuedMs: result.maxQueuedMs,
    send: { p50: result.sendP50, p99: result.sendP99 },
    cpu: { deliverer: result.cpuMs / n, postgres: (postgresCpuMs() - pg0) / n, bench: (selfCpuMs() - b0) / n },
    busy: { deliverer: result.cpuMs / (now() - t0) },
  }
}

async function part1(db: Sql): Promise<FanOut> {
  console.log(`\nPart 1: fan-out, ${RATE} events/s for ${SECONDS} s to ${RECEIVERS} receivers`)
  const w = await fanOut(db, 'part 1', [])
  console.log(`  baseline: bare loop offering ${RATE} events/s for ${BASELINE_SECONDS} s ...`)
  const b = await baseline(w.workspaceId)
  table(
    `Part 1: fan-out, ${RATE} events/s x ${SECONDS} s x ${RECEIVERS} receivers = ${int(RATE * RECEIVERS)} deliveries/s offered; ` +
      `1 ${WORKER_KIND}, --workers ${WORKERS} (${SLOTS * WORKERS} slots, ${PER_ENDPOINT} per endpoint); bare loop ${BASELINE_SECONDS} s`,
    ['', 'workers', 'bare loop', 'workers / bare', 'goal'],
    [
      ['latency p50 (commit, or offer, -> received)', ms(w.lat.p50), ms(b.lat.p50), ratio(w.lat.p50, b.lat.p50), ''],
      ['latency p90', ms(w.lat.p90), ms(b.lat.p90), ratio(w.lat.p90, b.lat.p90), ''],
      ['latency p99', ms(w.lat.p99), ms(b.lat.p99), ratio(w.lat.p99, b.lat.p99), `<= ${int(GOAL_P99_MS)} ms: ${met(w.lat.p99 <= GOAL_P99_MS)}`],
      ['latency max', ms(w.lat.max), ms(b.lat.max), ratio(w.lat.max, b.lat.max), ''],
      ['deliveries/s sustained (first commit -> last receipt)', rate(w.sustained), rate(b.sustained), ratio(w.sustained, b.sustained), `>= ${GOAL_BARE_RATIO}x the bare loop: ${met(w.sustained >= GOAL_BARE_RATIO * b.sustained)} (${int(RATE * RECEIVERS)}/s offered)`],
      ['arrived / expected', `${int(w.received)} / ${int(w.expected)}`, `${int(b.received)} / ${int(b.expected)}`, '', 'all'],
      [w.drained ? 'missing' : `not arrived ${DRAIN_SECONDS} s after the last commit`, int(w.missing), int(b.expected - b.received), '', '0'],
      ['duplicated (by X-Service-Delivery-Id)', int(w.duplicated), int(b.duplicated), '', '0'],
      ['HTTP exchange p50 / p99 (send start -> answer)', `${ms(w.send.p50)} / ${ms(w.send.p99)}`, `${ms(b.send.p50)} / ${ms(b.send.p99)}`, '', ''],
      ['CPU per delivery made: delivering process', cpu(w.cpu.deliverer), cpu(b.cpu.deliverer), ratio(w.cpu.deliverer, b.cpu.deliverer), ''],
      ['CPU per delivery made: PostgreSQL (all; incl. the producer)', cpu(w.cpu.postgres), cpu(b.cpu.postgres), '', ''],
      ['CPU per delivery made: this process (producer, receivers)', cpu(w.cpu.bench), cpu(b.cpu.bench), '', ''],
      ['cores busy: delivering process / PostgreSQL', `${w.busy.deliverer.toFixed(2)} / ${w.busy.postgres.toFixed(2)}`, `${b.busy.deliverer.toFixed(2)} / -`, '', `of ${navigator.hardwareConcurrency}`],
    ],
  )
  console.log(
    `  producer: ${int(w.produced.events)} events in ${w.produced.seconds.toFixed(1)} s, slowest commit ${ms(w.produced.maxCommitMs)}, ` +
      `furthest behind schedule ${ms(w.produced.maxLateMs)}; bare loop: longest wait for a free slot ${ms(b.maxQueuedMs)}; worker RSS at the end ${w.rssEndMiB.toFixed(0)} MiB`,
  )
  console.log(`  workers' p99 by 10 s of commits (of those that arrived): ${w.p99By10s.map(ms).join(', ')}`)
  return w
}

async function part2(db: Sql, p1: FanOut | undefined) {
  console.log(`\nPart 2: the same fan-out with one of the ${RECEIVERS} receivers hanging (never answering)`)
  const bad = [hangingReceiver()]
  extraReceivers.push(...bad)
  const timeoutMs = loadConfig({}).webhooks.timeoutMs
  const w = await fanOut(db, 'part 2', bad, RECEIVERS - 1)
  const states = await db<{ id: string; circuit: string; attempts: number }[]>`
    SELECT e.id, e.circuit, (SELECT count(*)::int FROM webhook_attempts a WHERE a.workspace_id = e.workspace_id AND a.endpoint_id = e.id) AS attempts
    FROM webhook_endpoints e WHERE e.id = ANY (${w.badIds})`
  const describe = (id: string) => {
    const s = states.find((x) => x.id === id)
    return s ? `${s.attempts} attempts, circuit ${s.circuit}` : '?'
  }
  const p99ratio = p1 ? w.lat.p99 / p1.lat.p99 : Number.NaN
  const col = (f: (x: FanOut) => string) => (p1 ? f(p1) : '-')
  table(
    `Part 2: as part 1 with one of the ${RECEIVERS} receivers hanging (WEBHOOK_TIMEOUT_MS ${timeoutMs}, the default breaker and retries); figures of the other ${RECEIVERS - 1} beside part 1's (none hanging)`,
    ['', 'one hanging', 'part 1', 'ratio', 'goal'],
    [
      ['latency p50', ms(w.lat.p50), col((x) => ms(x.lat.p50)), p1 ? ratio(w.lat.p50, p1.lat.p50) : '-', ''],
      ['latency p90', ms(w.lat.p90), col((x) => ms(x.lat.p90)), p1 ? ratio(w.lat.p90, p1.lat.p90) : '-', ''],
      ['latency p99', ms(w.lat.p99), col((x) => ms(x.lat.p99)), p1 ? ratio(w.lat.p99, p1.lat.p99) : '-', p1 ? `ratio <= ${GOAL_BAD_RATIO}: ${Number.isFinite(p99ratio) ? met(p99ratio <= GOAL_BAD_RATIO) : 'not measurable (p99 not arrived)'}` : `ratio <= ${GOAL_BAD_RATIO} (run part 1)`],
      ['latency max', ms(w.lat.max), col((x) => ms(x.lat.max)), p1 ? ratio(w.lat.max, p1.lat.max) : '-', ''],
      ['deliveries/s sustained', rate(w.sustained), col((x) => rate(x.sustained)), p1 ? ratio(w.sustained, p1.sustained) : '-', ''],
      ['arrived / expected', `${int(w.received)} / ${int(w.expected)}`, col((x) => `${int(x.received)} / ${int(x.expected)}`), '', 'all'],
      [w.drained ? 'missing' : `not arrived ${DRAIN_SECONDS} s after the last commit`, int(w.missing), col((x) => int(x.missing)), '', '0'],
      ['duplicated', int(w.duplicated), col((x) => int(x.duplicated)), '', '0'],
    ],
  )
  console.log(`  hanging receiver: ${describe(w.badIds[0]!)}`)
  console.log(`  p99 by 10 s of commits (of those that arrived): ${w.p99By10s.map(ms).join(', ')}${p1 ? `; part 1: ${p1.p99By10s.map(ms).join(', ')}` : ''}`)
}

// ---------------------------------------------------------------------------------------------
// Part 3: a backlog. A million due deliveries (as after an outage), inserted in bulk, then one worker
// process drains them for a while: its memory must not grow with the backlog (it claims at most its
// free slots at a time), so its RSS is set beside that of a worker draining a backlog 10 times
// smaller for as long (both stay busy the whole time). Its pace and CPU per delivery show what one process sustains with a deep queue, and the
// claim statement's own cost on that queue is timed (in transactions rolled back).
// ---------------------------------------------------------------------------------------------

/** `events` events of one workspace and a due delivery of each to each endpoint, made in SQL. */
async function bulkBacklog(db: Sql, workspaceId: string, endpointIds: string[], events: number, opts: { delivered?: boolean } = {}) {
  const chunk = 20_000
  for (let from = 0; from < events; from += chunk) {
    const n = Math.min(chunk, events - from)
    const ids = Array.from({ length: n }, () => newId('event'))
    const data = JSON.stringify(eventData(from))
    await db.begin(async (tx) => {
      await tx`
        INSERT INTO events (workspace_id, seq, id, type, data)
        SELECT ${workspaceId}, ${from} + g.ord, g.id, 'contact.created', ${data}::jsonb
        FROM unnest(${ids}::text[]) WITH ORDINALITY AS g(id, ord)`
      // Delivery ids as store/events.ts makes them: the event's time part and 64 random bits.
      await tx`
        INSERT INTO webhook_deliveries (workspace_id, id, endpoint_id, event_id, event_seq, status, attempts, delivered_at)
        SELECT ${workspaceId}, 'dlv_' || substr(e.id, 5, 10) || substr(replace(gen_random_uuid()::text, '-', ''), 1, 16), w, e.id, e.seq,
               ${opts.delivered ? 'succeeded' : 'pending'}, ${opts.delivered ? 1 : 0}, ${opts.delivered ? new Date() : null}
        FROM events e CROSS JOIN unnest(${endpointIds}::text[]) AS w
        WHERE e.workspace_id = ${workspaceId} AND e.seq > ${from} AND e.seq <= ${from + n}`
    })
  }
  await db`UPDATE workspaces SET event_seq = ${events} WHERE workspace_id = ${workspaceId}`
  // As autovacuum would have, for a backlog that built up over time.
  await db`VACUUM ANALYZE webhook_deliveries`
  await db`ANALYZE events`
}


/** A backlog of `events` x the receivers, drained by one worker process for at most `seconds` (or until empty), RSS sampled each second. */
async function drainBacklog(db: Sql, label: string, events: number, seconds: number) {
  await emptyQueue(db)
  const { ws, endpoints } = await workspaceWithEndpoints(db, label, receivers.map((r) => r.url))
  const total = events * receivers.length
  const t0 = now()
  await bulkBacklog(db, ws.id, endpoints.map((e) => e.id), events)
  const insertSeconds = (now() - t0) / 1000
  const claim = await claimCost(db)
  const rec = (recorder = new Recorder(receivers.length))
  const worker = await startWorker(`${label} worker`)
  const samples: number[] = []
  try {
    const meter = cpuMeter(() => [worker.proc.pid])
    const startedAt = now()
    samples.push(rssMiB(worker.proc.pid))
    while (now() - startedAt < seconds * 1000 && rec.ids.size < total) {
      await Bun.sleep(Math.min(1000, Math.max(0, startedAt + (samples.length) * 1000 - now())))
      assertAlive(worker)
      samples.push(rssMiB(worker.proc.pid))
    }
    const used = meter.stop()
    recorder = undefined
    await stopChild(worker)
    const [left] = await db<{ pending: number }[]>`SELECT count(*)::int AS pending FROM webhook_deliveries WHERE status = 'pending'`
    if (rec.duplicated().length) fail(`${label}: ${rec.duplicated().length} deliveries arrived twice`)
    if (rec.badSignatures.length) fail(`${label}: bad signatures: ${rec.badSignatures.join('; ')}`)
    const n = rec.receipts
    return {
      total,
      insertSeconds,
      claim,
      samples,
      peak: Math.max(...samples),
      delivered: n,
      pending: left!.pending,
      rate: n / ((rec.lastAt - rec.firstAt) / 1000),
      cpu: { deliverer: used.worker / n, postgres: used.postgres / n, bench: used.bench / n },
    }
  } finally {
    recorder = undefined
    await stopChild(worker, 1000)
  }
}

async function part3(db: Sql) {
  const smallEvents = Math.max(10, Math.round(BACKLOG_EVENTS / 10))
  console.log(`\nPart 3: one worker process draining a backlog of ${int(smallEvents * RECEIVERS)} deliveries, then one of ${int(BACKLOG_EVENTS * RECEIVERS)} for ${BACKLOG_SECONDS} s`)
  const small = await drainBacklog(db, 'part 3 small', smallEvents, BACKLOG_SECONDS)
  const big = await drainBacklog(db, 'part 3', BACKLOG_EVENTS, BACKLOG_SECONDS)
  console.log(`  inserted ${int(big.total)} deliveries in ${big.insertSeconds.toFixed(1)} s`)
  const flat = big.peak <= small.peak * 1.25
  table(
    `Part 3: backlog of ${int(big.total)} due deliveries (${int(BACKLOG_EVENTS)} events x ${RECEIVERS} endpoints) beside one of ${int(small.total)}; ` +
      `1 ${WORKER_KIND}, --workers ${WORKERS}, at most ${BACKLOG_SECONDS} s each`,
    ['', `backlog ${int(big.total)}`, `backlog ${int(small.total)}`, 'ratio', 'goal'],
    [
      ['worker RSS at start', `${big.samples[0]!.toFixed(0)} MiB`, `${small.samples[0]!.toFixed(0)} MiB`, '', ''],
      ['worker RSS peak', `${big.peak.toFixed(0)} MiB`, `${small.peak.toFixed(0)} MiB`, ratio(big.peak, small.peak), `does not grow with the backlog (<= 1.25x): ${met(flat)}`],
      ['worker RSS at the end', `${big.samples.at(-1)!.toFixed(0)} MiB`, `${small.samples.at(-1)!.toFixed(0)} MiB`, '', ''],
      ['deliveries/s while draining (first -> last receipt)', rate(big.rate), rate(small.rate), ratio(big.rate, small.rate), ''],
      ['delivered / still pending at the end', `${int(big.delivered)} / ${int(big.pending)}`, `${int(small.delivered)} / ${int(small.pending)}`, '', ''],
      [`claim statement (${SLOTS} slots) on the full backlog, p50`, ms(big.claim.p50), ms(small.claim.p50), ratio(big.claim.p50, small.claim.p50), ''],
      ['claim statement, max of 15', ms(big.claim.max), ms(small.claim.max), '', `claimed ${big.claim.claimed} / ${small.claim.claimed} each`],
      ['CPU per delivery: worker process', cpu(big.cpu.deliverer), cpu(small.cpu.deliverer), '', ''],
      ['CPU per delivery: PostgreSQL (all its processes)', cpu(big.cpu.postgres), cpu(small.cpu.postgres), '', ''],
    ],
  )
  console.log(`  RSS samples, backlog ${int(big.total)} (MiB, one a second): ${big.samples.map((s) => s.toFixed(0)).join(' ')}`)
  console.log(`  RSS samples, backlog ${int(small.total)}: ${small.samples.map((s) => s.toFixed(0)).join(' ')}`)
}

// ---------------------------------------------------------------------------------------------
// Part 4: several worker processes on one database. The same backlog drained by 1 process and by
// 3: throughput, and every delivery made exactly once (FOR UPDATE SKIP LOCKED and leases are what
// keeps them from taking the same delivery). Then 3 again, one killed with SIGKILL mid-run: its
// leases run out and the others make its deliveries; only those it had out may arrive twice. And
// one process with every delivery to a single endpoint: what one endpoint can get.
// ---------------------------------------------------------------------------------------------

async function multiRun(db: Sql, opts: { processes: number; kill?: boolean; endpoints?: number; events?: number; maxSeconds?: number }) {
  const { processes, kill = false } = opts
  const to = receivers.slice(0, opts.endpoints ?? receivers.length)
  await emptyQueue(db)
  const { ws, endpoints } = await workspaceWithEndpoints(db, `part 4 x${processes}`, to.map((r) => r.url))
  const endpointIds = endpoints.map((e) => e.id)
  const events = opts.events ?? MULTI_EVENTS
  // The endpoints are held (disabled) while the backlog is made and the processes start: the run
  // measures the workers delivering, all of them running, not a process starting (loading the code,
  // opening its pool: about as much CPU as a thousand deliveries) while another already delivers.
  for (const id of endpointIds) await disableEndpoint(db, ws.id, id, 'held by the benchmark')
  await bulkBacklog(db, ws.id, endpointIds, events)
  const expected = events * to.length
  const rec = (recorder = new Recorder(receivers.length))
  const env = { WEBHOOK_TIMEOUT_MS: String(MULTI_TIMEOUT_MS) }
  let cost = { workerCpu: Number.NaN, dbCpu: Number.NaN, xacts: Number.NaN }
  const workers = await Promise.all(Array.from({ length: processes }, (_, i) => startWorker(`part 4 worker ${i + 1}/${processes}`, env)))
  // Statistics of backends are in once they are idle a second or exit: their start-up's are flushed first.
  await Bun.sleep(1100)
  const xacts0 = await transactions(db)
  const workerCpu0 = new Map(workers.map((w) => [w.proc.pid, cpuMs(w.proc.pid)]))
  const dbCpu0 = await workerBackendsCpuMs(db)
  // Released at once to every worker (their LISTEN), as a commit of new deliveries would. Not
  // store/webhooks.ts's enableEndpoint: an operator's enable drains the backlog at 10 a second.
  await db`UPDATE webhook_endpoints SET status = 'enabled', disabled_reason = NULL, disabled_at = NULL WHERE id = ANY (${endpointIds})`
  await db`SELECT pg_notify(${DELIVERIES_CHANNEL}, '')`
  let killed: { held: string[]; atReceipts: number } | undefined
  try {
    if (kill) {
      await waitFor(() => rec.ids.size >= expected / 2, 120_000, workers)
      // The victim: the worker holding the most leases now (its lease owner is worker-<pid>-<random>).
      const owners = await db<{ owner: string; n: number }[]>`
        SELECT lease_owner AS owner, count(*)::int AS n FROM webhook_deliveries WHERE status = 'delivering' GROUP BY lease_owner ORDER BY n DESC`
      const busiest = Number(/^worker-(\d+)-/.exec(owners[0]?.owner ?? '')?.[1])
      const victim = workers.find((w) => w.proc.pid === busiest) ?? workers[0]!
      victim.proc.kill('SIGKILL')
      await victim.proc.exited
      children.delete(victim)
      const atReceipts = rec.receipts
      // What the killed worker had out: the leases it held (its owner is worker-<pid>-<random>).
      const held = await db<{ id: string }[]>`
        SELECT id FROM webhook_deliveries WHERE status = 'delivering' AND lease_owner LIKE ${`worker-${victim.proc.pid}-%`}`
      killed = { held: held.map((h) => h.id), atReceipts }
    }
    const alive = workers.filter((w) => w.proc.exitCode === null && w.proc.signalCode === null)
    const drained = await waitFor(() => rec.ids.size >= expected, (opts.maxSeconds ?? 180 + (2 * MULTI_TIMEOUT_MS) / 1000) * 1000, alive)
    const cut = opts.maxSeconds !== undefined && !drained
    // Done when the database says so: a delivery that arrived but was not recorded (its worker was
    // killed) is made again once its lease runs out (2 x the time-out + 1 s).
    let recorded = cut
    const deadline = now() + 2 * MULTI_TIMEOUT_MS + 31_000
    while (!recorded && now() < deadline) {
      const [r] = await db<{ open: number }[]>`SELECT count(*)::int AS open FROM webhook_deliveries WHERE endpoint_id = ANY (${endpointIds}) AND status <> 'succeeded'`
      recorded = r!.open === 0
      if (!recorded) await Bun.sleep(200)
    }
    await Bun.sleep(200)
    // While they still run: the worker processes' CPU and that of their database backends.
    const alive2 = workers.filter((w) => w.proc.exitCode === null && w.proc.signalCode === null)
    // From the release on (a killed worker's own, and its backends', are not counted).
    cost.workerCpu = alive2.reduce((a, w) => a + cpuMs(w.proc.pid) - workerCpu0.get(w.proc.pid)!, 0)
    cost.dbCpu = (await workerBackendsCpuMs(db)) - dbCpu0
    recorder = undefined
    const what = `part 4 (${processes} process${processes > 1 ? 'es' : ''}${kill ? ', one killed' : ''}${to.length === 1 ? ', one endpoint' : ''})`
    const { ids, states } = await deliveryStates(db, endpointIds)
    const once = exactlyOnce(rec, ids)
    if (!cut && !recorded) fail(`${what}: deliveries still not succeeded in the database ${Math.round((2 * MULTI_TIMEOUT_MS + 31_000) / 1000)} s after all had arrived (states: ${JSON.stringify(states)})`)
    if (!cut && (!drained || once.missing.length)) fail(`${what}: ${once.missing.length} deliveries never arrived (states: ${JSON.stringify(states)})`)
    if (once.unknown.length) fail(`${what}: ${once.unknown.length} deliveries arrived that the database does not hold`)
    if (rec.badSignatures.length) fail(`${what}: bad signatures: ${rec.badSignatures.join('; ')}`)
    const heldSet = new Set(killed?.held ?? [])
    const dupOutsideHeld = once.duplicated.filter((id) => !heldSet.has(id))
    if (!kill && once.duplicated.length) fail(`${what}: ${once.duplicated.length} deliveries arrived twice with no worker killed`)
    if (kill && dupOutsideHeld.length) fail(`${what}: ${dupOutsideHeld.length} deliveries arrived twice that the killed worker did not hold`)
    await Promise.all(workers.map((w) => stopChild(w)))
    // Backends report their statistics as they exit (and at most every second meanwhile).
    await Bun.sleep(1100)
    cost.xacts = (await transactions(db)) - xacts0
    const made = cut ? rec.ids.size : expected
    return {
      cut,
      expected,
      perDelivery: { workerCpu: cost.workerCpu / made, dbCpu: cost.dbCpu / made, xacts: cost.xacts / made },
      endpoints: to.length,
      distinct: rec.ids.size,
      missing: once.missing.length,
      duplicated: once.duplicated.length,
      dupOutsideHeld: dupOutsideHeld.length,
      rate: rec.receipts / ((rec.lastAt - rec.firstAt) / 1000),
      seconds: (rec.lastAt - rec.firstAt) / 1000,
      killed,
      succeeded: states.succeeded ?? 0,
    }
  } finally {
    recorder = undefined
    await Promise.all(workers.map((w) => stopChild(w)))
  }
}

async function part4(db: Sql) {
  const expected = MULTI_EVENTS * RECEIVERS
  console.log(`\nPart 4: ${int(expected)} due deliveries drained by 1 worker process, by 3, by 3 with one killed (SIGKILL) mid-run; then ${int(expected)} to one endpoint (at most ${SINGLE_SECONDS} s)`)
  const one = await multiRun(db, { processes: 1 })
  const three = await multiRun(db, { processes: 3 })
  const killed = await multiRun(db, { processes: 3, kill: true })
  const single = await multiRun(db, { processes: 1, endpoints: 1, events: MULTI_EVENTS * RECEIVERS, maxSeconds: SINGLE_SECONDS })
  const row = (label: string, r: typeof one) => [
    label,
    rate(r.rate),
    `${r.seconds.toFixed(1)} s`,
    `${int(r.distinct)} / ${int(r.expected)}`,
    r.cut ? `(stopped at ${SINGLE_SECONDS} s)` : int(r.missing),
    int(r.duplicated),
    int(r.succeeded),
  ]
  table(
    `Part 4: due deliveries (${int(MULTI_EVENTS)} events x the endpoints), ${WORKER_KIND.replace('process', 'processes')} with --workers ${WORKERS} each, WEBHOOK_TIMEOUT_MS ${MULTI_TIMEOUT_MS}`,
    ['', 'deliveries/s', 'drain time', 'distinct arrived / expected', 'missing', 'duplicated', 'succeeded in db'],
    [
      row(`1 process, ${RECEIVERS} endpoints`, one),
      row(`3 processes, ${RECEIVERS} endpoints`, three),
      row(`3 processes, one killed mid-run`, killed),
      row('1 process, 1 endpoint', single),
    ],
  )
  const k = killed.killed!
  const per = (r: typeof one) => r.perDelivery
  table(
    'Part 4: cost per delivery, 1 process vs 3 (database: the worker pools\' backends on the scratch database; statements: its transactions, each worker statement one, the bench\'s few polls included)',
    ['', '1 process', '3 processes', '3 / 1', 'goal'],
    [
      ['deliveries/s', rate(one.rate), rate(three.rate), ratio(three.rate, one.rate), `>= 1.00x: ${met(three.rate >= one.rate)}`],
      ['database CPU per delivery', cpu(per(one).dbCpu), cpu(per(three).dbCpu), ratio(per(three).dbCpu, per(one).dbCpu), `flat (<= 1.2x): ${met(per(three).dbCpu <= 1.2 * per(one).dbCpu)}`],
      ['database statements per delivery', per(one).xacts.toFixed(3), per(three).xacts.toFixed(3), ratio(per(three).xacts, per(one).xacts), `flat (<= 1.2x): ${met(per(three).xacts <= 1.2 * per(one).xacts)}`],
      ['worker CPU per delivery (all its processes)', cpu(per(one).workerCpu), cpu(per(three).workerCpu), ratio(per(three).workerCpu, per(one).workerCpu), ''],
      ['each delivery exactly once', met(one.duplicated + one.missing === 0), met(three.duplicated + three.missing === 0), '', 'yes'],
    ],
  )
  console.log(
    `  3 processes vs 1: ${ratio(three.rate, one.rate)} the throughput; exactly once with no kill: ${met(one.duplicated + one.missing + three.duplicated + three.missing === 0)}.\n` +
      `  Killed worker: SIGKILL after ${int(k.atReceipts)} receipts, holding ${k.held.length} leases; ${killed.duplicated} deliveries arrived twice ` +
      `(only ones it held: ${met(killed.dupOutsideHeld === 0)}); none missing: ${met(killed.missing === 0)}.\n` +
      `  One endpoint alone: ${rate(single.rate)} (per endpoint with ${RECEIVERS}: ${rate(one.rate / RECEIVERS)}).`,
  )
  // Which bound the run measured: each process's slots, or its endpoints' bound (deliveries of one
  // endpoint out at once from one process: each process has its own, so more processes take more).
  const perProcess = Math.min(SLOTS * WORKERS, RECEIVERS * PER_ENDPOINT)
  console.log(
    `  Each process has at most ${int(perProcess)} deliveries out (${SLOTS * WORKERS} slots; ${RECEIVERS} endpoints x ${PER_ENDPOINT}, the bound being each process's own), ` +
      `3 processes ${int(3 * perProcess)}. Worker CPU is counted from the moment the endpoints are released (after every process is running), as are the database's CPU and statements.`,
  )
}

// ---------------------------------------------------------------------------------------------
// Running it, and cleaning up whatever happens.
// ---------------------------------------------------------------------------------------------

let cleaning: Promise<void> | undefined
function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    const step = cleanupStep
    for (const c of [...children]) await step(`stopping ${c.name}`, () => stopChild(c, 3000))
    for (const r of [...receivers, ...extraReceivers]) await step('stopping a receiver', () => r.stop())
    if (sql) await step('closing the bench pool', () => sql!.end({ timeout: 5 }))
    if (admin && created) await step(`dropping database ${dbName}`, () => admin!.unsafe(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`))
    if (admin) await step('closing the admin connection', () => admin!.end({ timeout: 5 }))
  })()
  return cleaning
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    console.error(`\n${signal}: cleaning up`)
    void cleanup().finally(() => process.exit(130))
  })
}
// Last resort (an exit without cleanup): no child outlives this process.
process.on('exit', () => {
  for (const c of children) c.proc.kill('SIGKILL')
})

async function main(): Promise<number> {
  admin = postgres(adminUrl, { onnotice: () => {}, max: 1, connect_timeout: 5 })
  try {
    await admin.unsafe(`CREATE DATABASE "${dbName}"`)
  } catch (err) {
    throw new Error(`cannot create a scratch database on ${new URL(adminUrl).host}: ${(err as Error).message}`)
  }
  created = true
  sql = openPool(benchUrl, { max: 4, name: 'growth-bench-webhooks' })
  await migrate(sql)
  // Endpoints' secrets are sealed with the secrets key, as growth admin webhook create seals them.
  useSecretsKeyring(loadSecretsKeyring(process.env, loadConfig(process.env).dataDir))
  receivers = Array.from({ length: RECEIVERS }, (_, i) => healthyReceiver(i))
  console.log(
    `Webhook delivery on PostgreSQL (${dbName}); ${RECEIVERS} receivers on 127.0.0.1; ${WORKER_KIND}es with --workers ${WORKERS} ` +
      `(SLOTS ${SLOTS}, PER_ENDPOINT ${PER_ENDPOINT}); parts ${[...PARTS].sort().join(',')}`,
  )
  // A queue's dead row versions are autovacuum's to clear: a server with it off (some CI and
  // development set-ups) measures a queue that only grows, which no production server runs.
  const [{ autovacuum }] = await sql<{ autovacuum: string }[]>`SELECT current_setting('autovacuum') AS autovacuum`
  if (autovacuum !== 'on') console.log(`  !! autovacuum is ${autovacuum} on this server: the queue's dead rows are never vacuumed during the run (a production server has it on)`)

  let p1: FanOut | undefined
  if (PARTS.has('1')) p1 = await part1(sql)
  if (PARTS.has('2')) await part2(sql, p1)
  if (PARTS.has('3')) await part3(sql)
  if (PARTS.has('4')) await part4(sql)

  console.log('')
  if (problems.length) {
    console.log(`BENCHMARK FOUND BROKEN INVARIANTS:\n${problems.map((p) => `  - ${p}`).join('\n')}`)
    return 1
  }
  console.log('No delivery lost, none duplicated beyond what the killed worker had out, every sampled signature valid.')
  return 0
}

await runBenchmark(main, cleanup)
