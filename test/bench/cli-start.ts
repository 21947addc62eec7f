/**
 * Benchmark (not a test; run by hand with `npm run bench:cli-start`): how long `growth` takes to
 * start, answering `--help` (nothing sent, no database opened: the start alone), beside what a start
 * costs at the least and at the most, in the same run:
 *
 * - `bun -e 0`: a Bun process that loads nothing (the floor);
 * - `growth --help`: the whole command tree, every group loaded (what every command loaded until
 *   cli/src/index.ts loaded each group only when asked for);
 * - `growth missions list --help`: an operation's command (the api group, the SDK);
 * - `growth admin workspace list --help`: an operator command (the server's domain and store).
 *
 * The four take turns, BENCH_ROUNDS rounds (the order rotates each round); the table shows each
 * one's median wall time and its median CPU (user + system) per start.
 *
 *   bun test/bench/cli-start.ts
 *
 * Exit status: 0 whether or not anything is fast; non-zero when a command failed.
 */
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { availableParallelism, loadavg } from 'node:os'
import { join } from 'node:path'
import { envNumber, median, runBenchmark } from './support.ts'

const ROOT = join(import.meta.dir, '..', '..')
const ROUNDS = envNumber('BENCH_ROUNDS', 15, true)
const growth = (args: string[]) => [process.execPath, 'cli/bin/growth.ts', ...args]
const CONTENDERS: { name: string; argv: string[] }[] = [
  { name: 'bun -e 0 (the floor)', argv: [process.execPath, '-e', '0'] },
  { name: 'growth --help (every group)', argv: growth(['--help']) },
  { name: 'growth missions list --help', argv: growth(['missions', 'list', '--help']) },
  { name: 'growth admin workspace list --help', argv: growth(['admin', 'workspace', 'list', '--help']) },
]

/** One start of `argv`: its wall time, and its CPU (user + system) from the reaped children's count. */
function once(argv: string[]): { wallMs: number; cpuMs: number } {
  const cpuBefore = childrenCpuMs()
  const started = performance.now()
  const r = spawnSync(argv[0]!, argv.slice(1), { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, NO_COLOR: '1' } })
  const wallMs = performance.now() - started
  if (r.status !== 0) throw new Error(`${argv.join(' ')} exited ${r.status}: ${r.stderr}`)
  return { wallMs, cpuMs: childrenCpuMs() - cpuBefore }
}

/** CPU (user + system, ms) of this process's reaped children so far (/proc/self/stat cutime + cstime, 100 ticks a second). */
function childrenCpuMs(): number {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ')
  const ticks = Number(fields[13]) + Number(fields[14])
  return (ticks * 1000) / 100
}

async function main(): Promise<number> {
  console.log(`CLI start, ${ROUNDS} rounds; ${availableParallelism()} cores, load ${loadavg().map((l) => l.toFixed(2)).join(' ')}`)
  for (const c of CONTENDERS) once(c.argv)
  const wall = CONTENDERS.map(() => [] as number[])
  const cpu = CONTENDERS.map(() => [] as number[])
  for (let round = 0; round < ROUNDS; round++) {
    for (let k = 0; k < CONTENDERS.length; k++) {
      const i = (k + round) % CONTENDERS.length
      const r = once(CONTENDERS[i]!.argv)
      wall[i]!.push(r.wallMs)
      cpu[i]!.push(r.cpuMs)
    }
  }
  const rows = CONTENDERS.map((c, i) => [c.name, `${median(wall[i]!).toFixed(0)} ms`, `${median(cpu[i]!).toFixed(0)} ms`])
  const widths = [0, 1, 2].map((j) => Math.max(...rows.map((r) => r[j]!.length), ['command', 'wall (median)', 'CPU (median)'][j]!.length))
  const line = (cells: string[]) => cells.map((c, j) => (j === 0 ? c.padEnd(widths[j]!) : c.padStart(widths[j]!))).join('  ')
  console.log(line(['command', 'wall (median)', 'CPU (median)']))
  for (const r of rows) console.log(line(r))
  const full = median(wall[1]!)
  console.log(`An operation's command starts in ${((median(wall[2]!) / full) * 100).toFixed(0)}% of the whole tree's time, an operator command in ${((median(wall[3]!) / full) * 100).toFixed(0)}%.`)
  return 0
}

await runBenchmark(main, async () => {})
