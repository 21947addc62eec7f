import { afterAll, expect, test } from 'bun:test'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ROOT } from '../support/server-process.ts'

/**
 * The server is configured by its environment alone. An operator who tries `npm start -- --help`
 * or `npm start -- --port 5000` (as most servers take flags) is answered, not ignored: `--help`
 * prints what to set and exits 0; any other argument is refused with exit 1, naming the variable
 * to set instead. Either way nothing is started and no database is made.
 */
const dataDir = mkdtempSync(join(tmpdir(), 'growth-start-args-'))
afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

async function run(args: string[]) {
  const proc = Bun.spawn([process.execPath, 'server/src/main.ts', ...args], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: join(dataDir, 'data'), PORT: '0', DATABASE_URL: '' },
    stdin: 'ignore', stdout: 'pipe', stderr: 'pipe',
  })
  // A server that ignored its arguments would serve until stopped.
  const timer = setTimeout(() => proc.kill('SIGKILL'), 20_000)
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout as ReadableStream).text(), new Response(proc.stderr as ReadableStream).text(), proc.exited])
  clearTimeout(timer)
  return { code, stdout, stderr }
}

test('--help (and -h) says the settings are environment variables, names the main ones, and starts nothing', async () => {
  for (const flag of ['--help', '-h']) {
    const r = await run([flag])
    expect(r.code, r.stdout + r.stderr).toBe(0)
    expect(r.stderr).toBe('')
    expect(r.stdout).toStartWith('Usage: npm start')
    for (const name of ['PORT', 'DATABASE_URL', 'DATA_DIR', 'METRICS_PORT', 'OTEL_EXPORTER_OTLP_ENDPOINT', 'LOG_LEVEL', 'README.md', 'docs/operations.md', 'growth admin']) expect(r.stdout).toContain(name)
  }
  expect(readdirSync(dataDir)).toEqual([])
}, 60_000)

test('a flag is refused with one line naming the variable that sets it; no server starts', async () => {
  for (const [args, says] of [
    [['--port', '5000'], 'set PORT=5000 instead'],
    [['--metrics-port=9464'], 'set METRICS_PORT=9464 instead'],
    [['--database-url'], 'set DATABASE_URL=... instead'],
    // Neither a flag of a setting: what it may be is not guessed.
    [['serve'], 'its settings are environment variables, as in PORT=5000 npm start.'],
    [['--verbose'], 'its settings are environment variables, as in PORT=5000 npm start.'],
  ] as const) {
    const r = await run([...args])
    expect(r.code, r.stdout + r.stderr).toBe(1)
    expect(r.stdout).toBe('')
    const lines = r.stderr.trim().split('\n')
    expect(lines).toHaveLength(1)
    expect(lines[0]).toStartWith(`error: The server takes no arguments (got ${args.map((a) => JSON.stringify(a)).join(' ')}): its settings are environment variables`)
    expect(lines[0]).toContain(says)
  }
  expect(readdirSync(dataDir)).toEqual([])
}, 120_000)
