/**
 * What every benchmark script shares: reading its numeric settings from the environment, starting
 * a server process that says when it is ready, and running its main() so that a failure is printed
 * on one line, the cleanup always runs, and the exit status says how it went.
 */
import { type ChildProcess, spawn } from 'node:child_process'

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
