import { afterAll, beforeAll, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Webhooks } from '../../sdk/src/index.ts'
import { call, getHarness, makeWorkspace, type Workspace } from '../harness.ts'
import { checkReceived } from '../support/event-models.ts'
import { CLI_TIMEOUT, ROOT } from './run.ts'

/**
 * growth listen --forward-to URL, black-box: a real process following the test server's event
 * stream, posting to a real local receiver that verifies each delivery with the SDK's
 * Webhooks.verify and the secret listen printed when it started.
 */
let ws: Workspace
let env: Record<string, string>
const received: { event: string; email?: string; verified: boolean; eventId: string | null }[] = []
let secret = ''
const receiver = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  async fetch(req) {
    const body = await req.text()
    checkReceived(body)
    try {
      const event = Webhooks.verify(body, req.headers.get('X-Service-Signature'), secret)
      // The Standard Webhooks headers too, with the same secret: webhook-id is the event's id.
      if (Webhooks.verify(body, req.headers, secret).id !== event.id || req.headers.get('webhook-id') !== event.id) throw new Error('webhook-id')
      received.push({ event: event.event, email: (event.data as any).contact?.email, verified: true, eventId: req.headers.get('X-Service-Event-Id') })
      return new Response('ok')
    } catch {
      received.push({ event: 'unverified', verified: false, eventId: null })
      return new Response('bad signature', { status: 400 })
    }
  },
})

beforeAll(async () => {
  const h = await getHarness()
  ws = await makeWorkspace()
  env = { ...process.env, GROWTH_BASE_URL: `${h.url}/api/v1`, GROWTH_TOKEN: ws.live, GROWTH_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'growth-listen-')) } as Record<string, string>
})
afterAll(() => receiver.stop(true))

const importContact = async (email: string) => {
  const r = await call('POST', '/api/v1/contacts', { token: ws.live, body: { contacts: [{ email }] } })
  expect(r.status).toBe(201)
}

/** Everything a stream has given so far, read in the background. */
function collect(stream: ReadableStream<Uint8Array>): () => string {
  let text = ''
  const reader = stream.getReader()
  const decoder = new TextDecoder()
  void (async () => {
    for (;;) {
      const { value, done } = await reader.read()
      if (done) return
      text += decoder.decode(value, { stream: true })
    }
  })()
  return () => text
}

async function waitFor<T>(what: string, probe: () => T | undefined, ms = 20_000): Promise<T> {
  const until = Date.now() + ms
  for (;;) {
    const v = probe()
    if (v !== undefined) return v
    if (Date.now() > until) throw new Error(`no ${what} within ${ms} ms`)
    await Bun.sleep(25)
  }
}

test(
  'forwards only what commits after it started, signed with the secret it printed, filtered by --events; a restart goes on from where it stopped',
  async () => {
    await importContact('before.listen@example.com')
    // The first run signs with the secret it keeps for this machine; the second is given one with
    // --secret, and still goes on from where the first stopped.
    const start = (extra: string[] = []) => {
      const proc = Bun.spawn(
        [process.execPath, 'cli/bin/growth.ts', 'listen', '--forward-to', `http://127.0.0.1:${receiver.port}/hooks`, '--events', 'contact.created', '--interval', '200', '--json', ...extra],
        { cwd: ROOT, env, stdout: 'pipe', stderr: 'pipe' },
      )
      const err = collect(proc.stderr)
      return { proc, stderr: err }
    }
    const first = start()
    const ready = await waitFor('Ready line', () => /Ready\. Forwarding events \(contact\.created\) to \S+, signed with (whsec_\S+) \(Ctrl-C stops\)/.exec(first.stderr())?.[1])
    secret = ready
    // Printed in full this once, the run that made it, with where it is kept.
    expect(first.stderr()).toContain(`This machine's signing secret was made now and kept in ${join(env.GROWTH_CONFIG_DIR!, 'listen.json')}; later runs print its last four only (growth listen --print-secret prints it).\n`)
    await importContact('during.listen@example.com')
    // An event of another type is not forwarded.
    const other = await call('POST', '/api/v1/track', { token: ws.live, body: { event: 'listen.check', email: 'during.listen@example.com' } })
    expect(other.status).toBe(201)
    await waitFor('a forwarded event', () => (received.length ? true : undefined))
    first.proc.kill('SIGINT')
    expect(await first.proc.exited).toBe(0)
    const lines = (await new Response(first.proc.stdout).text()).trim().split('\n').map((l) => JSON.parse(l))
    expect(received).toEqual([{ event: 'contact.created', email: 'during.listen@example.com', verified: true, eventId: lines[0].eventId }])
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatchObject({ event: 'contact.created', status: 200, error: null })
    expect(statSync(join(env.GROWTH_CONFIG_DIR!, 'listen.json')).mode & 0o777).toBe(0o600)

    // Stopped, an event commits; started again, it is forwarded (and nothing twice), with the same secret.
    await importContact('between.runs@example.com')
    const machineSecret = secret
    secret = 'whsec_given_on_the_command_line_0123456789'
    const second = start(['--secret', secret])
    await waitFor('Ready line', () => (second.stderr().includes(`signed with the --secret given (whsec_…${secret.slice(-4)}) (Ctrl-C stops)`) ? true : undefined))
    expect(second.stderr()).not.toContain(secret)
    await waitFor('the event of the gap', () => (received.length >= 2 ? true : undefined))
    second.proc.kill('SIGINT')
    expect(await second.proc.exited).toBe(0)
    expect(received.map((r) => r.email)).toEqual(['during.listen@example.com', 'between.runs@example.com'])
    expect(received.every((r) => r.verified)).toBe(true)

    // A third run, given --secret again, forwards what came after the second: it kept its place too.
    await importContact('after.second@example.com')
    const third = start(['--secret', secret])
    await waitFor('the event after the second run', () => (received.length >= 3 ? true : undefined))
    third.proc.kill('SIGINT')
    expect(await third.proc.exited).toBe(0)
    expect(received.map((r) => r.email)).toEqual(['during.listen@example.com', 'between.runs@example.com', 'after.second@example.com'])
    // --secret does not replace the secret kept for the machine.
    expect(JSON.parse(readFileSync(join(env.GROWTH_CONFIG_DIR!, 'listen.json'), 'utf8')).secret).toBe(machineSecret)
  },
  CLI_TIMEOUT * 2,
)

test(
  'a receiver that is down is a failed line, not a crash; a bad --forward-to is named',
  async () => {
    const bad = Bun.spawn([process.execPath, 'cli/bin/growth.ts', 'listen', '--forward-to', 'ftp://x'], { cwd: ROOT, env, stdout: 'pipe', stderr: 'pipe' })
    expect(await bad.exited).toBe(1)
    expect(await new Response(bad.stderr).text()).toBe('error: --forward-to must be an http(s) URL such as http://127.0.0.1:3000/webhooks; got "ftp://x"\n')
    // a misspelt type is refused, as --trigger and admin webhook create refuse it, not listened for forever
    const typo = Bun.spawn([process.execPath, 'cli/bin/growth.ts', 'listen', '--forward-to', 'http://127.0.0.1:9/hooks', '--events', 'contact.created,contact.create'], { cwd: ROOT, env, stdout: 'pipe', stderr: 'pipe' })
    const killer = setTimeout(() => typo.kill('SIGINT'), 10_000)
    expect(await typo.exited).toBe(1)
    clearTimeout(killer)
    expect(await new Response(typo.stderr).text()).toMatch(/^error: --events: Unknown event type "contact\.create"; the types are signal\.created, .*webhook\.test\.\n$/)
    const proc = Bun.spawn([process.execPath, 'cli/bin/growth.ts', 'listen', '--forward-to', 'http://127.0.0.1:9/hooks', '--interval', '200'], { cwd: ROOT, env, stdout: 'pipe', stderr: 'pipe' })
    const err = collect(proc.stderr)
    await waitFor('Ready line', () => (err().includes('Ready.') ? true : undefined))
    await importContact('nobody.listening@example.com')
    const reader = proc.stdout.getReader()
    const { value } = await reader.read()
    const line = new TextDecoder().decode(value)
    expect(line).toMatch(/contact\.created\s+evt_\w+ {2}-> failed: .+ \(\d+ ms\)\n/)
    reader.releaseLock()
    proc.kill('SIGINT')
    expect(await proc.exited).toBe(0)
  },
  CLI_TIMEOUT,
)

test(
  'the kept secret is printed in full only when made or asked for (--print-secret, as stripe listen); other runs print its last four and where it is',
  async () => {
    const configDir = mkdtempSync(join(tmpdir(), 'growth-listen-secret-'))
    const own = { ...env, GROWTH_CONFIG_DIR: configDir }
    const growth = async (args: string[]) => {
      const proc = Bun.spawn([process.execPath, 'cli/bin/growth.ts', 'listen', ...args], { cwd: ROOT, env: own, stdout: 'pipe', stderr: 'pipe' })
      const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
      return { stdout, stderr, code }
    }
    // Asked for before any run: made, kept (0600), printed; asked again, the same one.
    const printed = await growth(['--print-secret'])
    expect(printed.code, printed.stderr).toBe(0)
    expect(printed.stdout).toMatch(/^whsec_\S{40,}\n$/)
    const kept = printed.stdout.trim()
    const path = join(configDir, 'listen.json')
    expect(JSON.parse(readFileSync(path, 'utf8')).secret).toBe(kept)
    expect(statSync(path).mode & 0o777).toBe(0o600)
    expect(JSON.parse((await growth(['--print-secret', '--json'])).stdout)).toEqual({ secret: kept })

    // A run with a secret already kept: its last four and where it is, never the whole of it.
    const proc = Bun.spawn([process.execPath, 'cli/bin/growth.ts', 'listen', '--forward-to', 'http://127.0.0.1:9/hooks', '--interval', '200'], { cwd: ROOT, env: own, stdout: 'pipe', stderr: 'pipe' })
    const err = collect(proc.stderr)
    await waitFor('the line after Ready', () => (err().includes('--print-secret prints it).\n') ? true : undefined))
    proc.kill('SIGINT')
    expect(await proc.exited).toBe(0)
    expect(err()).toContain(`signed with whsec_…${kept.slice(-4)} (Ctrl-C stops)\nThis machine's signing secret is kept in ${path} (growth listen --print-secret prints it).\n`)
    expect(err()).not.toContain(kept)

    // Without --forward-to (and without --print-secret): refused, naming both.
    const missing = await growth([])
    expect(missing.code).toBe(1)
    expect(missing.stderr).toBe('error: --forward-to is required: where to post each event, e.g. http://127.0.0.1:3000/webhooks (or --print-secret to print the signing secret)\n')
  },
  CLI_TIMEOUT,
)
