import { expect } from 'bun:test'
import { join } from 'node:path'

/** How the CLI tests run `growth`: as a real process, the way an operator does. */
export const ROOT = join(import.meta.dir, '..', '..')
/** Spawning bun and opening PGlite takes a second or two per command. */
export const CLI_TIMEOUT = 30_000

export type Run = { code: number; stdout: string; stderr: string }

/** A `growth` runner for one DATA_DIR (DATABASE_URL, when set, comes from the environment). */
export function growthIn(dataDir: string) {
  return async (args: string[], env: Record<string, string> = {}): Promise<Run> => {
    const proc = Bun.spawn([process.execPath, 'cli/bin/growth.ts', ...args], {
      cwd: ROOT,
      env: { ...process.env, DATA_DIR: dataDir, ...env },
      stdin: 'ignore',
      stdout: 'pipe',
      stderr: 'pipe',
    })
    const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
    return { code, stdout, stderr }
  }
}

/** The command must be refused: exit 1 (a refusal, not a crash), `error: ...` on stderr, nothing on stdout. */
export function expectRefused(r: Run, message?: RegExp) {
  expect(r.stdout).toBe('')
  expect(r.code).toBe(1)
  expect(r.stderr).toMatch(/^error: /)
  if (message) expect(r.stderr).toMatch(message)
}

/** Parses the stdout of a `--json` run: exactly one JSON object, nothing else. */
export function jsonOf(r: Run, what: string): any {
  if (r.code !== 0) throw new Error(`growth ${what} exited ${r.code}: ${r.stderr}`)
  const parsed = JSON.parse(r.stdout)
  expect(parsed).toBeObject()
  expect(Array.isArray(parsed)).toBe(false)
  return parsed
}
