/**
 * What every benchmark script shares: reading its numeric settings from the environment, and
 * running its main() so that a failure is printed on one line, the cleanup always runs, and the
 * exit status says how it went.
 */

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
