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

/**
 * The command must be refused: exit 1 (a refusal, not a crash), nothing on stdout, and on stderr
 * `error: <message>`, or with --json the error envelope `{"error":{"code","message","requestId"}}`
 * (whose message `message` is matched against).
 */
export function expectRefused(r: Run, message?: RegExp) {
  expect(r.stdout).toBe('')
  expect(r.code).toBe(1)
  if (r.stderr.startsWith('{')) {
    const envelope = JSON.parse(r.stderr)
    expect(Object.keys(envelope)).toEqual(['error'])
    expect(Object.keys(envelope.error).sort()).toEqual(['code', 'message', 'requestId'])
    if (message) expect(`error: ${envelope.error.message}`).toMatch(message)
    return
  }
  expect(r.stderr).toMatch(/^error: /)
  if (message) expect(r.stderr).toMatch(message)
}

/** A --json refusal: exactly one JSON line on stderr, the error envelope; its error returned. */
export function refusalJson(r: Run): { code: string; message: string; requestId: string | null } {
  expect(r.stdout).toBe('')
  expect(r.code).toBe(1)
  const lines = r.stderr.trimEnd().split('\n')
  expect(lines).toHaveLength(1)
  return JSON.parse(lines[0]!).error
}

/** Parses the stdout of a `--json` run: exactly one JSON object, nothing else. */
export function jsonOf(r: Run, what: string): any {
  if (r.code !== 0) throw new Error(`growth ${what} exited ${r.code}: ${r.stderr}`)
  const parsed = JSON.parse(r.stdout)
  expect(parsed).toBeObject()
  expect(Array.isArray(parsed)).toBe(false)
  return parsed
}
