import { expect, test } from 'bun:test'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { call, getHarness, makeWorkspace, type Workspace } from '../harness.ts'
import { startFaultProxy } from '../sdk/support/fault-proxy.ts'
import { CLI_TIMEOUT, ROOT } from './run.ts'

/**
 * growth contacts import stopped part way, black-box: by Ctrl-C (a real SIGINT, and on a terminal
 * the key itself) and by a batch the API refuses (the plan's contacts allowance, a real 402). Each
 * way it says what this run did (the summary, with the line it stopped at) and that the same
 * command resumes; on a terminal the progress bar gives back the cursor and line wrap it took.
 */
const dir = mkdtempSync(join(tmpdir(), 'growth-import-stop-'))

async function envFor(ws: Workspace, baseUrl?: string) {
  const { url } = await getHarness()
  return { ...process.env, GROWTH_BASE_URL: `${baseUrl ?? url}/api/v1`, GROWTH_TOKEN: ws.live } as Record<string, string>
}

function csv(name: string, rows: number, domain: string): string {
  const file = join(dir, name)
  writeFileSync(file, `email,name\n${Array.from({ length: rows }, (_, i) => `p${i}@${domain},P ${i}`).join('\n')}\n`)
  return file
}

async function createdCount(ws: Workspace): Promise<number> {
  let n = 0
  let after: string | undefined
  for (;;) {
    const r = await call('GET', `/api/v1/events?type=contact.created&limit=100${after ? `&after=${after}` : ''}`, { token: ws.live })
    n += r.body.data.length
    if (r.body.data.length < 100) return n
    after = r.body.meta.nextCursor
  }
}

/** A proxy that holds each answer back, so that a Ctrl-C lands part way however fast this machine is. */
async function slowProxy() {
  const proxy = await startFaultProxy((await getHarness()).url)
  proxy.script(Array.from({ length: 40 }, () => ({ kind: 'delay' as const, ms: 300 })))
  return proxy
}

async function untilCreated(ws: Workspace, n: number) {
  for (let i = 0; i < 600 && (await createdCount(ws)) < n; i++) await Bun.sleep(25)
}

test(
  'Ctrl-C part way: the request out is answered, nothing more is sent; the summary of this run with where it stopped, and that the same command resumes (exit 130)',
  async () => {
    const ws = await makeWorkspace()
    const file = csv('interrupted.csv', 2_000, 'interrupted.example.com')
    const proxy = await slowProxy()
    try {
      const env = await envFor(ws, proxy.url)
      const proc = Bun.spawn([process.execPath, 'cli/bin/growth.ts', 'contacts', 'import', file, '--json'], { cwd: ROOT, env, stdout: 'pipe', stderr: 'pipe' })
      await untilCreated(ws, 200)
      proc.kill('SIGINT')
      const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
      expect(code).toBe(130)
      const summary = JSON.parse(stdout)
      const done = await createdCount(ws)
      expect(done).toBeLessThan(2_000)
      // What this run did, to the row: the request out when Ctrl-C came was answered and counted.
      expect(summary.created).toBe(done)
      expect(summary.batches).toBe(done / 100)
      expect(summary.rows).toBe(done)
      expect(summary.stoppedAt).toEqual({ line: done + 2, message: 'interrupted' })
      const error = JSON.parse(stderr.trim()).error
      expect(error.code).toBe('interrupted')
      expect(error.message).toBe(
        `interrupted at line ${done + 2} of ${file}: nothing from it on was sent (the summary above says what this run did). Run the same command again to resume: what this run did is answered again from the API's memory of it (24 hours), not done twice.`,
      )
    } finally {
      await proxy.stop()
    }
  },
  60_000,
)

const script = Bun.which('script')
test.skipIf(!script)(
  'Ctrl-C on a terminal: the progress bar gives the cursor and line wrap back, then the summary and how to resume',
  async () => {
    const ws = await makeWorkspace()
    const file = csv('interrupted-tty.csv', 2_000, 'tty-interrupted.example.com')
    const proxy = await slowProxy()
    try {
      const env = await envFor(ws, proxy.url)
      const command = `exec ${process.execPath} cli/bin/growth.ts contacts import ${file}`
      const proc = Bun.spawn([script!, '-qec', command, '/dev/null'], { cwd: ROOT, env, stdout: 'pipe', stderr: 'pipe', stdin: 'pipe' })
      await untilCreated(ws, 200)
      proc.stdin.write('\x03') // the Ctrl-C key, through the terminal
      proc.stdin.flush()
      const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited])
      proc.stdin.end()
      expect(code).toBe(130)
      expect(out).toContain('\x1b[?25l') // the bar hid the cursor...
      expect(out).toContain('\x1b[?7l') // ...and turned line wrap off...
      const summaryAt = out.indexOf('Imported ')
      expect(summaryAt).toBeGreaterThan(0)
      // ...and gave both back before the summary, after the last time it took them.
      const restoredCursor = out.lastIndexOf('\x1b[?25h')
      const restoredWrap = out.lastIndexOf('\x1b[?7h')
      expect(restoredCursor).toBeGreaterThan(out.lastIndexOf('\x1b[?25l'))
      expect(restoredWrap).toBeGreaterThan(out.lastIndexOf('\x1b[?7l'))
      expect(restoredCursor).toBeLessThan(summaryAt)
      const done = await createdCount(ws)
      expect(out).toContain(`created ${done}, updated 0`)
      expect(out).toContain(`stopped at line ${done + 2}: nothing from it on was sent`)
      expect(out).toContain(`error: interrupted at line ${done + 2} of ${file}`)
      expect(out).toContain('Run the same command again to resume')
    } finally {
      await proxy.stop()
    }
  },
  60_000,
)

test(
  'a batch refused part way (the contacts allowance, 402): the summary of what this run did, where it stopped, how to resume; raised, the same command resumes',
  async () => {
    const ws = await makeWorkspace()
    const { sql } = await getHarness()
    await sql`INSERT INTO allowances (workspace_id, name, amount) VALUES (${ws.id}, 'contacts', 150)`
    const file = csv('over-allowance.csv', 250, 'allowance.example.com')
    const env = await envFor(ws)
    const run = async (args: string[]) => {
      const proc = Bun.spawn([process.execPath, 'cli/bin/growth.ts', 'contacts', 'import', file, ...args], { cwd: ROOT, env, stdout: 'pipe', stderr: 'pipe' })
      const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
      return { stdout, stderr, code }
    }
    const r = await run([])
    expect(r.code).toBe(1)
    expect(r.stdout).toBe(`Imported ${file}: 200 rows in 2 requests.\n  created 100, updated 0, skipped 0 (0 do not contact, 0 unchanged), refused 0\n  stopped at line 102: nothing from it on was sent\n`)
    const [hint, error] = r.stderr.trimEnd().split('\n')
    expect(hint).toBe("The import stopped at line 102: nothing from it on was sent. Run the same command again to resume: what this run did is answered again from the API's memory of it (24 hours), not done twice.")
    expect(error).toMatch(/^error: The contacts allowance .* \(402 plan_required, request req_\w+\)$/)
    const json = await run(['--json'])
    expect(json.code).toBe(1)
    expect(JSON.parse(json.stdout)).toMatchObject({ rows: 200, batches: 2, replayedBatches: 1, alreadyImported: 100, created: 0, stoppedAt: { line: 102 } })
    expect(JSON.parse(json.stderr.trim()).error.code).toBe('plan_required')

    await sql`UPDATE allowances SET amount = 1000 WHERE workspace_id = ${ws.id} AND name = 'contacts'`
    const resumed = await run(['--json'])
    expect(resumed.code).toBe(0)
    expect(JSON.parse(resumed.stdout)).toMatchObject({ rows: 250, batches: 3, alreadyImported: 100, created: 150, stoppedAt: null })
    expect(await createdCount(ws)).toBe(250)
  },
  CLI_TIMEOUT,
)
