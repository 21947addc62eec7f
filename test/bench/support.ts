/**
 * What every benchmark script shares: reading its numeric settings from the environment, starting
 * a server process that says when it is ready, and running its main() so that a failure is printed
 * on one line, the cleanup always runs, and the exit status says how it went.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'

/** A positive number from the environment (an integer with `integer`), or `fallback` when unset. */
export function envNumber(name: string, fallback: number, integer = false): number {
  const raw = process.env[name]
  if (raw === undefined || raw === '') return fallback
  const n = Number(raw)
  if (!(n > 0) || (integer && !Number.isInteger(n))) {
    throw new Error(`${name} must be a positive ${integer ? 'integer' : 'number'} (got ${JSON.stringify(raw)})`)
  }
  return n
}

/** The median of `xs` (the mean of the middle two when their number is even). */
export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}

/**
 * The interval that holds the median of what the rounds measure, with the confidence it has: the
 * distribution-free one from the rounds' order statistics (the k-th smallest and k-th largest, k as
 * large as keeps each tail's chance at most 5%; with fewer than 5 rounds no such k exists, and the
 * interval is the smallest to the largest). The rounds of one run on a shared machine swing by 10
 * to 20 points; a median alone read as "met" or "not met" said more than the run knew.
 */
export function medianInterval(xs: number[]): { low: number; high: number; confidence: number } {
  const s = [...xs].sort((a, b) => a - b)
  const n = s.length
  // P(Binomial(n, 1/2) <= j), for j = 0, 1, ...: the chance that at most j rounds fall below the median.
  const below = (j: number) => {
    let c = 1
    let sum = 0
    for (let i = 0; i <= j; i++) {
      sum += c
      c = (c * (n - i)) / (i + 1)
    }
    return sum / 2 ** n
  }
  let k = 1
  while (k < n / 2 && below(k) <= 0.05) k++
  return { low: s[k - 1]!, high: s[n - k]!, confidence: 1 - 2 * below(k - 1) }
}

/**
 * What a run says of an aim (`at least` it, of ratios measured once a round): met when the median's
 * interval lies at or above it, not met when below, and not settled when it holds the aim: then the
 * median alone is printed beside the interval and more rounds (BENCH_ROUNDS) would tell.
 */
export function verdict(ratios: number[], aim: number): { word: 'met' | 'NOT met' | 'not settled'; text: string } {
  const m = median(ratios)
  const { low, high, confidence } = medianInterval(ratios)
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`
  const interval = `${Math.round(confidence * 100)}% interval of the median ${pct(low)} to ${pct(high)}`
  const word = low >= aim ? 'met' : high < aim ? 'NOT met' : 'not settled'
  const why = word === 'not settled' ? `: the interval holds the aim; more rounds (BENCH_ROUNDS) would tell` : ''
  return { word, text: `median ${pct(m)} of ${ratios.length} rounds (${interval})${why}` }
}

/** Runs `main` (its exit status), then `cleanup` whatever happened, then exits with that status. */
export async function runBenchmark(main: () => Promise<number>, cleanup: () => Promise<void>): Promise<never> {
  let code: number
  try {
    code = await main()
  } catch (err) {
    console.error(`benchmark failed: ${(err as Error).stack ?? err}`)
    code = 1
  }
  await cleanup()
  process.exit(code)
}

/**
 * Starts `command args` (a benchmark's own server, in a process of its own) and resolves when it
 * prints its first line, a JSON object saying where it serves; rejects if it exits first or prints
 * something else.
 */
export async function spawnUntilReady<Ready>(command: string, args: string[]): Promise<{ child: ChildProcess; ready: Ready }> {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'] })
  const ready = await new Promise<Ready>((ok, fail) => {
    let out = ''
    child.stdout!.setEncoding('utf8')
    child.stdout!.on('data', (chunk: string) => {
      out += chunk
      const nl = out.indexOf('\n')
      if (nl >= 0) {
        try {
          ok(JSON.parse(out.slice(0, nl)) as Ready)
        } catch {
          fail(new Error(`the server printed ${out.slice(0, nl)}`))
        }
      }
    })
    child.on('exit', (code) => fail(new Error(`the server exited with ${code} before it was ready`)))
    child.on('error', fail)
  })
  return { child, ready }
}

/** One step of a cleanup: runs `f`, and prints its failure on one line instead of stopping the rest. */
export async function cleanupStep(what: string, f: () => unknown): Promise<void> {
  try {
    await f()
  } catch (err) {
    console.error(`cleanup: ${what} failed: ${(err as Error).message}`)
  }
}

/** Stops a server process started by spawnUntilReady: SIGTERM, then SIGKILL if it has not gone within `graceMs`. */
export async function stopServerProcess(child: ChildProcess | undefined, graceMs = 10_000): Promise<void> {
  if (!child || child.exitCode !== null) return
  const exited = new Promise((ok) => child.once('exit', ok))
  child.kill('SIGTERM')
  await Promise.race([exited, new Promise((ok) => setTimeout(ok, graceMs))])
  if (child.exitCode === null) child.kill('SIGKILL')
}

/**
 * The CPU seconds (user + system) a process has used so far, from /proc (Linux). Unlike a
 * throughput, its growth per request served hardly moves with what else runs on the machine: a
 * loaded machine delays a request, it does not make it cost more instructions.
 */
export function cpuSecondsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  // The fields after the command's name (which may hold spaces, in parentheses): utime and stime are the 14th and 15th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS
}
/** USER_HZ: 100 on every Linux the project runs on. */
const CLOCK_TICKS = 100

/**
 * The CPU seconds of every PostgreSQL process on this machine (backends, writers, autovacuum), by
 * pid: a local server's cost of a run is the growth from one reading to the next (cpuGrowth).
 * Empty when none runs here (a remote DATABASE_URL, or no /proc).
 */
export function databaseCpu(): Map<number, number> {
  const seconds = new Map<number, number>()
  let pids: string[] = []
  try {
    pids = readdirSync('/proc').filter((d) => /^\d+$/.test(d))
  } catch {
    return seconds
  }
  for (const pid of pids) {
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres') seconds.set(Number(pid), cpuSecondsOf(Number(pid)))
    } catch {
      // The process ended while it was being read.
    }
  }
  return seconds
}

/** The CPU seconds used between two readings of databaseCpu (a process started between them counts from zero). */
export function cpuGrowth(before: Map<number, number>, after: Map<number, number>): number {
  let total = 0
  for (const [pid, s] of after) total += s - (before.get(pid) ?? 0)
  return total
}
