import { beforeAll, expect, test } from 'bun:test'
import { call, getHarness, makeWorkspace, type Workspace } from '../harness.ts'
import { CLI_TIMEOUT, ROOT } from './run.ts'

/**
 * growth events tail, black-box: a real process following the real event stream. It prints what
 * was there, then (with --follow) an event that commits after it started; Ctrl-C stops it cleanly
 * with the position to resume from, and --after that position gives exactly what came since.
 */
let ws: Workspace
let env: Record<string, string>

beforeAll(async () => {
  const h = await getHarness()
  ws = await makeWorkspace()
  env = { ...process.env, GROWTH_BASE_URL: `${h.url}/api/v1`, GROWTH_TOKEN: ws.live } as Record<string, string>
})

const importContact = async (email: string) => {
  const r = await call('POST', '/api/v1/contacts', { token: ws.live, body: { contacts: [{ email }] } })
  expect(r.status).toBe(201)
}

/** One growth run to its end (async: the test server answers from this same process). */
async function growth(args: string[]) {
  const proc = Bun.spawn([process.execPath, 'cli/bin/growth.ts', ...args], { cwd: ROOT, env, stdout: 'pipe', stderr: 'pipe' })
  const [stdout, stderr, exitCode] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  return { stdout, stderr, exitCode }
}

async function readLines(stream: ReadableStream<Uint8Array>, until: (lines: string[]) => boolean): Promise<string[]> {
  const reader = stream.getReader()
  const decoder = new TextDecoder()
  let text = ''
  for (;;) {
    const lines = text.split('\n').filter(Boolean)
    if (until(lines)) {
      reader.releaseLock()
      return lines
    }
    const { value, done } = await reader.read()
    if (done) throw new Error(`the stream ended after: ${text}`)
    text += decoder.decode(value, { stream: true })
  }
}

test(
  'tail --follow prints what was there, then an event committed after it started; Ctrl-C stops it (exit 0) with the position to resume from',
  async () => {
    await importContact('first.person@example.com')
    const proc = Bun.spawn([process.execPath, 'cli/bin/growth.ts', 'events', 'tail', '--type', 'contact.created', '--follow', '--interval', '200', '--json'], {
      cwd: ROOT,
      env,
      stdout: 'pipe',
      stderr: 'pipe',
    })
    try {
      const before = await readLines(proc.stdout, (l) => l.length >= 1)
      expect(JSON.parse(before[0]!).data.contact.email).toBe('first.person@example.com')
      await importContact('second.person@example.com')
      const after = await readLines(proc.stdout, (l) => l.length >= 1)
      expect(after.map((l) => JSON.parse(l).data.contact.email)).toEqual(['second.person@example.com'])
      proc.kill('SIGINT')
      expect(await proc.exited).toBe(0)
      const resume = JSON.parse((await new Response(proc.stderr).text()).trim()).resume.after
      expect(resume).toBeString()

      // Later: --after the printed position gives exactly what committed since, once.
      await importContact('third.person@example.com')
      const again = await growth(['events', 'tail', '--type', 'contact.created', '--after', resume, '--json'])
      expect(again.exitCode).toBe(0)
      const lines = again.stdout.trim().split('\n')
      expect(lines.map((l) => JSON.parse(l).data.contact.email)).toEqual(['third.person@example.com'])
      // For people: one line per event, and how to resume.
      const human = await growth(['events', 'tail', '--type', 'contact.created'])
      expect(human.stdout.trim().split('\n').map((l) => l.split(/\s{2,}/)[1])).toEqual(['contact.created', 'contact.created', 'contact.created'])
      expect(human.stderr).toMatch(/^Resume from here with: growth events tail --type contact\.created --after \S+\n$/)
    } finally {
      proc.kill()
    }
  },
  CLI_TIMEOUT,
)

test(
  'a refusal of the stream is exit 1 with the API message; a bad --interval is named',
  async () => {
    const r = await growth(['events', 'tail', '--token', 'svc_live_nope'])
    expect(r.exitCode).toBe(1)
    expect(r.stderr).toContain('(401 unauthorized')
    const i = await growth(['events', 'tail', '--interval', 'soon'])
    expect(i.exitCode).toBe(1)
    expect(i.stderr).toBe('error: --interval must be whole milliseconds >= 100; got "soon"\n')
  },
  CLI_TIMEOUT,
)
