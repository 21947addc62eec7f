import { beforeAll, expect, test } from 'bun:test'
import { call, getHarness, makeWorkspace, type Workspace } from '../harness.ts'
import { CLI_TIMEOUT, expectRefused, ROOT } from './run.ts'

/**
 * growth logs tail, black-box: a real process reading the request log of the shared test server
 * (which writes it every 100 ms). With --follow it prints a call made after it started within 2 s,
 * at its default pace, and never its own calls to the log.
 */
let ws: Workspace
let env: Record<string, string>

beforeAll(async () => {
  const h = await getHarness()
  // The tail reads with a token of its own (read:logs only); the test calls with the live one.
  ws = await makeWorkspace({ scoped: 'read:logs' })
  env = { ...process.env, GROWTH_BASE_URL: `${h.url}/api/v1`, GROWTH_TOKEN: ws.scoped } as Record<string, string>
})

async function growth(args: string[], extra: Record<string, string> = {}) {
  const proc = Bun.spawn([process.execPath, 'cli/bin/growth.ts', ...args], { cwd: ROOT, env: { ...env, ...extra }, stdout: 'pipe', stderr: 'pipe' })
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  return { stdout, stderr, code }
}

/** The lines of `stream` until `until` holds of them, or an error after `ms`. */
async function readUntil(stream: ReadableStream<Uint8Array>, until: (text: string) => boolean, ms: number): Promise<string> {
  const reader = stream.getReader()
  const decoder = new TextDecoder()
  let text = ''
  const deadline = Date.now() + ms
  try {
    while (!until(text)) {
      const left = deadline - Date.now()
      const next = await Promise.race([reader.read(), Bun.sleep(Math.max(0, left)).then(() => 'late' as const)])
      if (next === 'late') throw new Error(`not within ${ms} ms; printed so far:\n${text}`)
      if (next.done) throw new Error(`the stream ended after:\n${text}`)
      text += decoder.decode(next.value, { stream: true })
    }
    return text
  } finally {
    reader.releaseLock()
  }
}

/** A call the log will hold, and its request id, once the log holds it (so a tail started next sees it). */
async function calledAndLogged(path: string, token = ws.live): Promise<string> {
  const r = await call('GET', path, { token })
  const id = r.headers.get('x-request-id')!
  const deadline = Date.now() + 5_000
  while (!(await call('GET', '/api/v1/logs?limit=100', { token: ws.live })).text.includes(id)) {
    if (Date.now() > deadline) throw new Error(`${id} never reached the log`)
    await Bun.sleep(50)
  }
  return id
}

test(
  'tail --follow prints the latest calls, then a refused call made after it started within 2 s, and not its own polls',
  async () => {
    const earlier = await calledAndLogged('/api/v1/missions')
    const proc = Bun.spawn([process.execPath, 'cli/bin/growth.ts', 'logs', 'tail', '--follow'], { cwd: ROOT, env, stdout: 'pipe', stderr: 'pipe' })
    try {
      const first = await readUntil(proc.stdout, (t) => t.includes(earlier), 10_000)
      await readUntil(proc.stderr, (t) => t.includes('Following; Ctrl-C stops.'), 10_000)
      const refused = await call('GET', '/api/v1/decisions?limit=0', { token: ws.live })
      expect(refused.status).toBe(400)
      const id = refused.headers.get('x-request-id')!
      // The contract's bound: a new call printed within 2 s, at the default pace (--interval 1000).
      const later = await readUntil(proc.stdout, (t) => t.includes(id), 2_000)
      const line = later.split('\n').find((l) => l.includes(id))!
      expect(line).toMatch(/^\d{2}:\d{2}:\d{2}\.\d{3} {2}400 {2}GET \/api\/v1\/decisions +listDecisions +\d+\.\d ms {2}live …\w{4} {2}req_\w+ {2}invalid_parameter: .*limit/)
      expect(line).toContain(`…${ws.live.slice(-4)}`)
      expect(line).toContain(refused.body.error.message)
      // Its own reads of the log (with its token, …last4) are never printed; the test's are.
      expect(`${first}${later}`).toContain(`listRequestLogs`)
      expect(`${first}${later}`).not.toContain(`…${ws.scoped.slice(-4)}`)
      proc.kill('SIGINT')
      expect(await proc.exited).toBe(0)
    } finally {
      proc.kill()
    }
  },
  CLI_TIMEOUT,
)

test(
  'tail --follow --limit 1 prints the latest call and then only new ones, never an older call its --limit left out',
  async () => {
    const mine = await makeWorkspace({ scoped: 'read:logs' })
    const logged = async (path: string) => {
      const id = (await call('GET', path, { token: mine.live })).headers.get('x-request-id')!
      const deadline = Date.now() + 5_000
      while (!(await call('GET', '/api/v1/logs?operation=listSignals&limit=100', { token: mine.scoped })).text.includes(id)) {
        if (Date.now() > deadline) throw new Error(`${id} never reached the log`)
        await Bun.sleep(50)
      }
      return id
    }
    const older = [await logged('/api/v1/signals'), await logged('/api/v1/signals?limit=1')]
    const latest = await logged('/api/v1/signals?limit=2')
    const proc = Bun.spawn([process.execPath, 'cli/bin/growth.ts', 'logs', 'tail', '--follow', '--limit', '1', '--operation', 'listSignals'], {
      cwd: ROOT,
      env: { ...env, GROWTH_TOKEN: mine.scoped },
      stdout: 'pipe',
      stderr: 'pipe',
    })
    try {
      await readUntil(proc.stderr, (t) => t.includes('Following; Ctrl-C stops.'), 10_000)
      const next = (await call('GET', '/api/v1/signals?limit=3', { token: mine.live })).headers.get('x-request-id')!
      const printed = await readUntil(proc.stdout, (t) => t.includes(next), 5_000)
      expect(printed.trim().split('\n').map((l) => l.match(/req_\w+/)![0])).toEqual([latest, next])
      for (const id of older) expect(printed).not.toContain(id)
      proc.kill('SIGINT')
      expect(await proc.exited).toBe(0)
    } finally {
      proc.kill()
    }
  },
  CLI_TIMEOUT,
)

test(
  'tail without --follow: the latest calls oldest first, filtered by --status and --operation; --json one entry a line',
  async () => {
    const ok = await calledAndLogged('/api/v1/signals')
    const bad = await calledAndLogged('/api/v1/signals?status=maybe')
    const json = await growth(['logs', 'tail', '--operation', 'listSignals', '--json'])
    expect(json.code).toBe(0)
    const entries = json.stdout.trim().split('\n').map((l) => JSON.parse(l))
    expect(entries.map((e) => e.id)).toEqual([ok, bad])
    expect(entries[1]).toMatchObject({ status: 400, code: 'invalid_parameter', operation: 'listSignals', path: '/api/v1/signals', credential: { kind: 'live' } })
    const refusals = await growth(['logs', 'tail', '--operation', 'listSignals', '--status', '4xx', '--json'])
    expect(refusals.stdout.trim().split('\n').map((l) => JSON.parse(l).id)).toEqual([bad])
    const human = await growth(['logs', 'tail', '--operation', 'listSignals', '--limit', '1'])
    expect(human.code).toBe(0)
    expect(human.stdout.trim().split('\n')).toHaveLength(1)
    expect(human.stdout).toContain(bad)
  },
  CLI_TIMEOUT,
)

test(
  'tail --credential-id keeps the calls of one credential (what a token suspected of leaking did), as the API, logs list and the console filter',
  async () => {
    const byLive = await calledAndLogged('/api/v1/opportunities')
    const byTest = await calledAndLogged('/api/v1/opportunities', ws.test)
    const all = await growth(['logs', 'tail', '--operation', 'listOpportunities', '--json'])
    const entries = all.stdout.trim().split('\n').map((l) => JSON.parse(l))
    const testCredential = entries.find((e) => e.id === byTest).credential.id
    const one = await growth(['logs', 'tail', '--operation', 'listOpportunities', '--credential-id', testCredential, '--json'])
    expect(one.code, one.stderr).toBe(0)
    expect(one.stdout.trim().split('\n').map((l) => JSON.parse(l).id)).toEqual([byTest])
    expect(one.stdout).not.toContain(byLive)
    // Another workspace's credential, or none: the API's refusal.
    expectRefused(await growth(['logs', 'tail', '--credential-id', 'cred_00000000000000000000000000']), /cred_00000000000000000000000000/)
  },
  CLI_TIMEOUT,
)

test(
  'a bad filter or a token without read:logs is refused with the API message; a bad --interval or --limit before any call',
  async () => {
    expectRefused(await growth(['logs', 'tail', '--status', '6xx']), /status must be 2xx, 4xx, 5xx or one HTTP status/)
    expectRefused(await growth(['logs', 'tail'], { GROWTH_TOKEN: (await makeWorkspace({ scoped: 'read:growth' })).scoped }), /lacks the scope read:logs/)
    expectRefused(await growth(['logs', 'tail', '--follow', '--interval', '10']), /--interval must be whole milliseconds >= 250/)
    expectRefused(await growth(['logs', 'tail', '--limit', '101']), /--limit must be a whole number from 1 to 100/)
  },
  CLI_TIMEOUT,
)
