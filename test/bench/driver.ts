/**
 * Benchmark (not a test; run by hand with `npm run bench:driver`): the database driver under steady
 * load, as the project installs it (patched by patches/postgres+3.4.9.patch) beside postgres.js as
 * published (the same package with the patch taken back out, in a scratch folder), in the same run.
 *
 * Each pool has the server's default size (10 connections) and is kept saturated by 32 callers
 * running a one-row query, as a busy server keeps it. The rate is printed for every few seconds, so
 * a rate that falls while the load stays the same shows. The order alternates between rounds.
 *
 * Env: DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres), BENCH_SECONDS (30 per
 * run), BENCH_INTERVAL_SECONDS (5), BENCH_ROUNDS (2), BENCH_CONCURRENCY (32).
 *
 * Exit status: 0 whatever the figures; non-zero only when the benchmark itself failed.
 */
import { spawnSync } from 'node:child_process'
import { cpSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type postgresType from 'postgres'
import { installedPackage } from '../support/installed-package.ts'
import { cleanupStep, envNumber, runBenchmark } from './support.ts'

const SECONDS = envNumber('BENCH_SECONDS', 30)
const INTERVAL = envNumber('BENCH_INTERVAL_SECONDS', 5)
const ROUNDS = envNumber('BENCH_ROUNDS', 2, true)
const CONCURRENCY = envNumber('BENCH_CONCURRENCY', 32, true)
const POOL_MAX = 10
const url = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres'
const repo = join(import.meta.dir, '../..')

let scratch: string | undefined

/** postgres.js as published: the installed package copied, and the project's patch for its version applied in reverse. */
async function published(): Promise<typeof postgresType> {
  const installed = installedPackage('postgres')
  scratch = mkdtempSync(join(tmpdir(), 'growth-bench-driver-'))
  cpSync(installed.dir, join(scratch, 'node_modules/postgres'), { recursive: true })
  const patch = join(repo, `patches/postgres+${installed.version}.patch`)
  const undo = spawnSync('git', ['apply', '-R', patch], { cwd: scratch, encoding: 'utf8' })
  if (undo.status !== 0) throw new Error(`cannot take the patch back out (git apply -R): ${undo.stderr.trim() || undo.error?.message}`)
  return (await import(join(scratch, 'node_modules/postgres/src/index.js'))).default
}

/** One run: `CONCURRENCY` callers on a pool of `POOL_MAX` for SECONDS; the rate of every INTERVAL. */
async function run(postgres: typeof postgresType): Promise<number[]> {
  const sql = postgres(url, { max: POOL_MAX, onnotice: () => {} })
  try {
    await sql`SELECT 1`
    const rates: number[] = []
    let count = 0
    const start = performance.now()
    const end = start + SECONDS * 1000
    let mark = start
    const timer = setInterval(() => {
      const now = performance.now()
      rates.push(count / ((now - mark) / 1000))
      count = 0
      mark = now
    }, INTERVAL * 1000)
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async (_, i) => {
        while (performance.now() < end) {
          await sql`SELECT ${i}::int AS caller, now() AS at`
          count++
        }
      }),
    )
    clearInterval(timer)
    const now = performance.now()
    if (now - mark > 500) rates.push(count / ((now - mark) / 1000))
    return rates
  } finally {
    await sql.end({ timeout: 5 })
  }
}

async function main(): Promise<number> {
  const patched = (await import('postgres')).default
  const original = await published()
  console.log(`postgres.js ${installedPackage('postgres').version} on ${new URL(url).host}: pool of ${POOL_MAX}, ${CONCURRENCY} callers, ${SECONDS} s a run, queries a second every ${INTERVAL} s`)
  const results: Record<'published' | 'patched', number[][]> = { published: [], patched: [] }
  for (let round = 1; round <= ROUNDS; round++) {
    const order = round % 2 ? (['published', 'patched'] as const) : (['patched', 'published'] as const)
    for (const which of order) {
      const rates = await run(which === 'patched' ? patched : original)
      results[which].push(rates)
      console.log(`  round ${round} ${which.padEnd(9)} ${rates.map((r) => Math.round(r).toString().padStart(7)).join(' ')}`)
    }
  }
  const first = (runs: number[][]) => Math.round(Math.max(...runs.map((r) => r[0] ?? 0)))
  const last = (runs: number[][]) => Math.round(Math.max(...runs.map((r) => r.at(-1) ?? 0)))
  console.log('')
  console.log(`${''.padEnd(12)}${'first interval'.padEnd(16)}last interval (best of ${ROUNDS}, queries a second)`)
  for (const which of ['published', 'patched'] as const) {
    console.log(`${which.padEnd(12)}${String(first(results[which])).padEnd(16)}${last(results[which])}`)
  }
  console.log(`patched / published in the last interval: ${(last(results.patched) / last(results.published)).toFixed(2)} times`)
  return 0
}

await runBenchmark(main, async () => {
  if (scratch) await cleanupStep('removing the scratch copy', () => rmSync(scratch!, { recursive: true, force: true }))
})
