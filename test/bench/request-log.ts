/**
 * Benchmark (not a test; run by hand: `bun test/bench/request-log.ts`): what keeping the request log
 * costs, in parts that a loaded machine measures steadily, beside `npm run bench`'s end-to-end
 * comparison (pipeline against REQUEST_LOG=off), whose rounds swing more than the effect when other
 * work shares the machine.
 * - On the request's path: recording one answered call (its log line at a level that writes nothing,
 *   its error's code and message read back, the entry kept in memory), in µs per call, beside the
 *   same with REQUEST_LOG=off (the log line alone).
 * - Off the path: one flush, the COPY of a second's calls (BENCH_RATE entries, 2,500 by
 *   default: about what the pipeline answers a second on the development machine), in ms until
 *   PostgreSQL answered (its work and any wait for the CPU) and in ms of this process's own CPU.
 * Env: DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres; a scratch database is made
 * beside it and dropped), BENCH_RATE (2500), BENCH_CALLS (200000).
 */
import { randomBytes } from 'node:crypto'
import postgres from 'postgres'
import { createLogger } from '../../server/src/core/log.ts'
import { newId } from '../../server/src/core/ids.ts'
import type { Answer } from '../../server/src/http/answer.ts'
import { RequestLog } from '../../server/src/http/request-log.ts'
import { requestObserver } from '../../server/src/http/request-observer.ts'
import { migrate } from '../../server/src/store/driver/migrate.ts'
import { insertRequestLog } from '../../server/src/store/request-log.ts'
import { envNumber, median } from './support.ts'

const RATE = envNumber('BENCH_RATE', 2500, true)
const CALLS = envNumber('BENCH_CALLS', 200_000, true)

const baseUrl = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres'
const dbName = `growth_bench_log_${randomBytes(4).toString('hex')}`
const admin = postgres(baseUrl, { max: 1, onnotice: () => {} })
await admin.unsafe(`CREATE DATABASE "${dbName}"`)
const url = new URL(baseUrl)
url.pathname = `/${dbName}`
const sql = postgres(url.toString(), { max: 2, onnotice: () => {} })

try {
  await migrate(sql as never)
  const request = new Request('http://localhost/api/v1/experiments?limit=5', { method: 'POST', headers: { 'Idempotency-Key': 'bench-key-1' } })
  const ok: Answer = { status: 201, body: '{"data":{}}' }
  const refused: Answer = { status: 400, body: JSON.stringify({ error: { code: 'invalid_request', message: 'hypothesis must be 10 to 2000 characters.', requestId: 'req_x' } }) }
  const log = createLogger('warn')

  /** µs per recorded call, 9 of every 10 calls a success. */
  function perCall(observe: ReturnType<typeof requestObserver>, drain: () => void): number {
    const start = performance.now()
    for (let i = 0; i < CALLS; i++) {
      observe({ requestId: 'req_01m8cmyredjyk6wvnk5bd8aneb', request, operation: 'createExperiment', route: 'POST /api/v1/experiments', answer: i % 10 === 9 ? refused : ok, startedAt: start, workspaceId: 'ws_1', credentialId: 'cred_1' })
      if (i % RATE === 0) drain()
    }
    return ((performance.now() - start) * 1000) / CALLS
  }
  const kept = new RequestLog(sql as never, 60_000)
  const drain = () => void (kept as unknown as { take(): unknown }).take()
  const on: number[] = []
  const off: number[] = []
  for (let round = 0; round < 5; round++) {
    on.push(perCall(requestObserver({ log, requestLog: kept }), drain))
    off.push(perCall(requestObserver({ log }), () => {}))
  }

  // One flush of a second's calls, into a table that already holds a few seconds of them.
  const ws = 'ws_bench'
  const entry = (i: number) => ({
    workspaceId: ws, id: newId('request'), method: 'GET', path: '/api/v1/missions', operation: 'listMissions', status: i % 10 === 9 ? 400 : 200,
    code: i % 10 === 9 ? 'invalid_parameter' : null, message: i % 10 === 9 ? 'limit must be at least 1.' : null, durationMs: 3.2,
    credentialId: 'cred_bench', idempotencyKey: null, replayed: false, createdAt: new Date(),
  })
  const flushes: number[] = []
  const cpu: number[] = []
  for (let second = 0; second < 10; second++) {
    const batch = Array.from({ length: RATE }, (_, i) => entry(i))
    const start = performance.now()
    const used = process.cpuUsage()
    await insertRequestLog(sql as never, batch)
    const spent = process.cpuUsage(used)
    cpu.push((spent.user + spent.system) / 1000)
    flushes.push(performance.now() - start)
  }

  const onUs = median(on)
  const offUs = median(off)
  const flushMs = median(flushes)
  console.log(`recording a call on the request's path: ${onUs.toFixed(2)} µs with the request log, ${offUs.toFixed(2)} µs with REQUEST_LOG=off (median of 5 runs of ${CALLS} calls)`)
  console.log(`one flush of ${RATE} calls (a second's worth), off the path: ${flushMs.toFixed(1)} ms until PostgreSQL answered, ${median(cpu).toFixed(1)} ms of this process's CPU (medians of 10; each: ${flushes.map((f) => f.toFixed(0)).join(', ')} ms)`)
  const own = ((onUs - offUs) * RATE) / 1e6 + median(cpu) / 1000
  console.log(
    `at ${RATE} calls a second: ${(own * 100).toFixed(2)}% of one core in the server process (its part of the path plus the flush's own CPU), ` +
      `and PostgreSQL's COPY, at most ${(flushMs / 10).toFixed(1)}% of a core (the time until it answered, waits for the CPU included)`,
  )
} finally {
  await sql.end({ timeout: 5 })
  await admin.unsafe(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`)
  await admin.end({ timeout: 5 })
}
