import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createHmac } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { checkReceived } from '../support/event-models.ts'
import { CLI_TIMEOUT, expectRefused, growthIn, jsonOf, ROOT, type Run } from './run.ts'

/**
 * `growth admin webhook ...` and `growth worker`, black-box: every step spawns `growth` (or the
 * server) as a real process, as an operator would run it (CONTRACT: Operator interface; Events and
 * webhooks). One endpoint, in a fresh workspace, goes through its life: created, listed, refused
 * changes that save nothing, its secret rotated, a test event queued, disabled and enabled, the
 * test event delivered by `growth worker` to a receiver in this process, and disabled at the end so
 * no other process ever delivers to it. The database is DATABASE_URL when set (never assumed empty:
 * everything is scoped to this file's workspace), otherwise an embedded one in a temporary DATA_DIR.
 * The steps run in order, each building on the one before.
 */

const dataDir = mkdtempSync(join(tmpdir(), 'growth-cli-webhook-'))
const T = CLI_TIMEOUT
const growth = growthIn(dataDir)
/** Local receivers are on 127.0.0.1, which only the allow list lets an endpoint use. */
const ALLOW = { WEBHOOK_ALLOW_PRIVATE_NETWORKS: '127.0.0.0/8' }
/** Whatever the environment running the tests says, these runs get no allow list. */
const NO_ALLOW = { WEBHOOK_ALLOW_PRIVATE_NETWORKS: '' }

const growthJson = async (args: string[], env: Record<string, string> = ALLOW) => jsonOf(await growth([...args, '--json'], env), args.join(' '))

const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/

type Got = { headers: Record<string, string>; body: string; path: string }
const got: Got[] = []
const rcv = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  async fetch(req) {
    got.push({ headers: Object.fromEntries(req.headers), body: await req.text(), path: new URL(req.url).pathname })
    checkReceived(got.at(-1)!.body)
    return new Response('ok')
  },
})
const hookUrl = `http://127.0.0.1:${rcv.port}/hooks`

let workspaceId: string
let endpointId: string | undefined
let secret: string
let listed: any
let testEvent: { deliveryId: string; eventId: string }

beforeAll(async () => {
  workspaceId = (await growthJson(['admin', 'workspace', 'create', '--name', 'Webhook CLI test'])).id
}, T)

afterAll(async () => {
  try {
    // Nothing may be delivered to this endpoint once the file is done (a server's workers share the database).
    if (endpointId) await growth(['admin', 'webhook', 'disable', endpointId])
  } finally {
    rcv.stop(true)
    rmSync(dataDir, { recursive: true, force: true })
  }
}, T)

/** A background `growth worker`: its stderr as it comes, and its exit. */
function startWorker(env: Record<string, string>) {
  const proc = Bun.spawn([process.execPath, 'cli/bin/growth.ts', 'worker'], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...env },
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
  })
  let stderr = ''
  const stdout = new Response(proc.stdout).text()
  const draining = (async () => {
    const reader = proc.stderr.getReader()
    const decoder = new TextDecoder()
    for (let r = await reader.read(); !r.done; r = await reader.read()) stderr += decoder.decode(r.value, { stream: true })
  })()
  return {
    proc,
    stderr: () => stderr,
    /** Waits for `pattern` on stderr, or fails with what the worker said. */
    async waitFor(pattern: RegExp, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs
      while (!pattern.test(stderr)) {
        if (proc.exitCode !== null) throw new Error(`growth worker exited ${proc.exitCode}: ${stderr}`)
        if (Date.now() > deadline) throw new Error(`growth worker never said ${pattern}: ${stderr}`)
        await Bun.sleep(25)
      }
    },
    async exit() {
      const code = await proc.exited
      await draining
      return { code, stdout: await stdout, stderr }
    },
  }
}

async function until(what: string, check: () => boolean, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await Bun.sleep(25)
  }
}

describe('growth admin webhook', () => {
  test('create prints exactly { id, secret }; list shows the endpoint with exactly the contract members, and a table for people', async () => {
    const created = await growthJson(['admin', 'webhook', 'create', '--workspace', workspaceId, '--url', hookUrl, '--events', 'contact.created,webhook.test'])
    expect(Object.keys(created).sort()).toEqual(['id', 'secret'])
    expect(created.id).toMatch(/^whe_[A-Za-z0-9_-]+$/)
    expect(created.secret).toMatch(SECRET)
    endpointId = created.id
    secret = created.secret

    listed = await growthJson(['admin', 'webhook', 'list', '--workspace', workspaceId])
    expect(Object.keys(listed)).toEqual(['endpoints'])
    expect(listed.endpoints).toHaveLength(1)
    const e = listed.endpoints[0]
    expect(Object.keys(e).sort()).toEqual(['circuit', 'createdAt', 'disabledReason', 'events', 'id', 'lastSuccessAt', 'status', 'url'])
    expect(e).toEqual({
      id: created.id,
      url: hookUrl,
      events: ['contact.created', 'webhook.test'],
      status: 'enabled',
      disabledReason: null,
      circuit: { state: 'closed', openUntil: null },
      lastSuccessAt: null,
      createdAt: expect.stringMatching(ISO),
    })
    expect(Math.abs(Date.parse(e.createdAt) - Date.now())).toBeLessThan(5 * 60_000)
    // The secret is shown once: never listed.
    expect(JSON.stringify(listed)).not.toContain(secret)

    const human = await growth(['admin', 'webhook', 'list', '--workspace', workspaceId], ALLOW)
    expect(human.code).toBe(0)
    expect(human.stdout).toMatch(/^\s*ID\s+STATUS\s+CIRCUIT\s+LAST SUCCESS\s+URL\s+EVENTS\s*$/m)
    expect(human.stdout).toMatch(new RegExp(`^\\s*${created.id}\\s+enabled\\s+closed\\s+never\\s+${hookUrl.replace(/[.]/g, '\\.')}\\s+contact\\.created,webhook\\.test\\s*$`, 'm'))
  }, T)

  test('refusals exit 1 with error: on stderr, print nothing on stdout, and save nothing', async () => {
    const create = (url: string, events: string | null, env: Record<string, string> = ALLOW, workspace = workspaceId) =>
      growth(['admin', 'webhook', 'create', '--workspace', workspace, '--url', url, ...(events === null ? [] : ['--events', events]), '--json'], env)
    const unknown = 'whe_00000000000000000000000000'
    const refusals: [string, () => Promise<Run>, RegExp][] = [
      ['an unknown event type, named', () => create(hookUrl, 'contact.created,contact.exploded'), /Unknown event type contact\.exploded/],
      ['127.0.0.1 without the allow list', () => create(hookUrl, 'contact.created', NO_ALLOW), /127\.0\.0\.1 is a loopback address, not a public unicast address; for local development, set WEBHOOK_ALLOW_PRIVATE_NETWORKS=127\.0\.0\.0\/8 .*growth admin webhook create/],
      ['10.0.0.1 while only 127.0.0.0/8 is listed', () => create('http://10.0.0.1/hooks', 'contact.created'), /10\.0\.0\.1 is a private address/],
      ['the metadata address, even with its range listed', () => create('http://169.254.169.254/latest', 'contact.created', { WEBHOOK_ALLOW_PRIVATE_NETWORKS: '169.254.0.0/16' }), /169\.254\.169\.254 is a cloud metadata address/],
      ['a user name in the URL', () => create(`http://user@127.0.0.1:${rcv.port}/hooks`, 'contact.created'), /user name/],
      ['http to a public address', () => create('http://93.184.216.34/hooks', 'contact.created'), /not https/],
      ['a malformed URL', () => create('not a url', 'contact.created'), /not a URL/],
      ['no --events', () => create(hookUrl, null), /--events/],
      ['an unknown workspace', () => create(hookUrl, 'contact.created', ALLOW, 'ws_00000000000000000000000000'), /No workspace ws_00000000000000000000000000/],
      ['rotate of an unknown endpoint', () => growth(['admin', 'webhook', 'rotate', unknown, '--json']), /No webhook endpoint whe_0+/],
      ['test of an unknown endpoint', () => growth(['admin', 'webhook', 'test', unknown, '--json']), /No webhook endpoint whe_0+/],
      ['attempts of an unknown endpoint', () => growth(['admin', 'webhook', 'attempts', unknown, '--json']), /No webhook endpoint whe_0+/],
      ['disable of an unknown endpoint', () => growth(['admin', 'webhook', 'disable', unknown]), /No webhook endpoint whe_0+/],
      ['enable of an unknown endpoint', () => growth(['admin', 'webhook', 'enable', unknown, '--json']), /No webhook endpoint whe_0+/],
      ['an id without the whe_ prefix', () => growth(['admin', 'webhook', 'disable', workspaceId]), /starts with whe_/],
      ['a bad --overlap', () => growth(['admin', 'webhook', 'rotate', endpointId!, '--overlap', 'forever', '--json']), /--overlap must be a duration.*forever/],
      ['--limit 0', () => growth(['admin', 'webhook', 'attempts', endpointId!, '--limit', '0', '--json']), /--limit must be a whole number from 1 to 1000/],
      ['--limit lots', () => growth(['admin', 'webhook', 'attempts', endpointId!, '--limit', 'lots', '--json']), /--limit must be a whole number from 1 to 1000/],
    ]
    const failures: string[] = []
    for (const [what, run, message] of refusals) {
      const r = await run()
      try {
        expectRefused(r, message)
      } catch {
        failures.push(`${what}: exit ${r.code}, stdout ${JSON.stringify(r.stdout)}, stderr ${JSON.stringify(r.stderr)}`)
      }
    }
    expect(failures).toEqual([])
    // Nothing was saved, nothing changed: the disable and the rotation above were refused too.
    expect(await growthJson(['admin', 'webhook', 'list', '--workspace', workspaceId])).toEqual(listed)
  }, 60_000)

  test('rotate gives a new secret; test queues a webhook.test delivery; attempts is empty before any worker ran', async () => {
    const rotated = await growthJson(['admin', 'webhook', 'rotate', endpointId!])
    expect(Object.keys(rotated)).toEqual(['secret'])
    expect(rotated.secret).toMatch(SECRET)
    expect(rotated.secret).not.toBe(secret)
    secret = rotated.secret

    testEvent = await growthJson(['admin', 'webhook', 'test', endpointId!])
    expect(Object.keys(testEvent).sort()).toEqual(['deliveryId', 'eventId'])
    expect(testEvent.deliveryId).toMatch(/^dlv_[A-Za-z0-9_-]+$/)
    expect(testEvent.eventId).toMatch(/^evt_[A-Za-z0-9_-]+$/)

    expect(await growthJson(['admin', 'webhook', 'attempts', endpointId!])).toEqual({ attempts: [] })
    const human = await growth(['admin', 'webhook', 'attempts', endpointId!], ALLOW)
    expect(human.code).toBe(0)
    expect(human.stdout).toContain(`No attempts to ${endpointId} yet.`)
  }, T)

  test('disable shows disabled with a reason; enable shows enabled again', async () => {
    const off = await growth(['admin', 'webhook', 'disable', endpointId!], ALLOW)
    expect(off.code).toBe(0)
    expect(off.stdout).toContain(`Disabled ${endpointId}`)
    // what was queued waits; what happens while it is disabled is not sent to it (store/events.ts makes deliveries for enabled endpoints only)
    expect(off.stdout).toContain('what was queued for it waits until it is enabled; events from now until then are not sent to it')
    const disabled = (await growthJson(['admin', 'webhook', 'list', '--workspace', workspaceId])).endpoints[0]
    expect(disabled.status).toBe('disabled')
    expect(disabled.disabledReason).toBeString()
    expect(disabled.disabledReason.length).toBeGreaterThan(0)
    const human = await growth(['admin', 'webhook', 'list', '--workspace', workspaceId], ALLOW)
    expect(human.stdout).toMatch(new RegExp(`^\\s*${endpointId}\\s+disabled\\s`, 'm'))
    expect(human.stdout).toContain(disabled.disabledReason)
    // Disabled again: nothing changes, the reason stands, and no second audit entry.
    const audited = async () => ((await growthJson(['admin', 'audit', '--workspace', workspaceId, '--limit', '100'])).entries as { action: string }[]).filter((e) => e.action === 'webhook.disabled').length
    const entries = await audited()
    expect(await growthJson(['admin', 'webhook', 'disable', endpointId!])).toEqual({ id: endpointId, status: 'disabled', changed: false, disabledReason: disabled.disabledReason })
    const twice = await growth(['admin', 'webhook', 'disable', endpointId!], ALLOW)
    expect(twice.code).toBe(0)
    expect(twice.stdout).toContain(`${endpointId} was disabled already; nothing changed. ${disabled.disabledReason}`)
    expect(await audited()).toBe(entries)

    // nothing has failed to it: nothing goes again (test/webhooks/recovery.test.ts sends what did)
    expect(await growthJson(['admin', 'webhook', 'enable', endpointId!])).toEqual({ id: endpointId, status: 'enabled', requeued: 0 })
    const enabled = (await growthJson(['admin', 'webhook', 'list', '--workspace', workspaceId])).endpoints[0]
    expect(enabled).toEqual({ ...listed.endpoints[0], status: 'enabled', disabledReason: null })
  }, T)
})

describe('growth admin webhook update', () => {
  test('moves the endpoint to a new URL and new event types, its id and secret kept (the worker below delivers the queued test event there); the same again changes nothing; refusals save nothing', async () => {
    const before = (await growthJson(['admin', 'webhook', 'list', '--workspace', workspaceId])).endpoints[0]
    const url = `${hookUrl}/v2`
    const moved = await growthJson(['admin', 'webhook', 'update', endpointId!, '--url', url, '--events', 'webhook.test,action.applied'])
    expect(moved).toEqual({ ...before, url, events: ['webhook.test', 'action.applied'], changed: true })
    const { changed: _, ...view } = moved
    expect((await growthJson(['admin', 'webhook', 'list', '--workspace', workspaceId])).endpoints).toEqual([view])
    const audit = (await growthJson(['admin', 'audit', '--workspace', workspaceId, '--limit', '100'])).entries.filter((e: { action: string }) => e.action === 'webhook.updated')
    expect(audit).toHaveLength(1)
    expect(audit[0]).toMatchObject({ subject: endpointId, actor: { kind: 'operator' }, detail: { url, previousUrl: hookUrl, events: ['webhook.test', 'action.applied'], previousEvents: ['contact.created', 'webhook.test'] } })

    // The same again (events in another order): nothing changes, nothing is recorded.
    const same = await growth(['admin', 'webhook', 'update', endpointId!, '--url', url, '--events', 'action.applied,webhook.test'], ALLOW)
    expect({ code: same.code, stderr: same.stderr }).toEqual({ code: 0, stderr: '' })
    expect(same.stdout).toContain(`Webhook endpoint ${endpointId} already had this URL and these event types; nothing changed.`)

    // One at a time, as an operator types them: on the embedded database a second process at once goes through the first's socket.
    const refused: [string[], Record<string, string>, RegExp][] = [
      [['admin', 'webhook', 'update', endpointId!], ALLOW, /Nothing to change: give a new URL, new event types, or both/],
      [['admin', 'webhook', 'update', endpointId!, '--events', 'action.aplied'], ALLOW, /Unknown event type action\.aplied/],
      [['admin', 'webhook', 'update', endpointId!, '--url', `${hookUrl}/v3`], NO_ALLOW, /is refused: /],
      [['admin', 'webhook', 'update', 'whe_00000000000000000000000000', '--url', url], ALLOW, /No webhook endpoint whe_00000000000000000000000000/],
    ]
    for (const [args, env, message] of refused) expectRefused(await growth(args, env), message)
    expect((await growthJson(['admin', 'webhook', 'list', '--workspace', workspaceId])).endpoints).toEqual([view])
    expect((await growthJson(['admin', 'audit', '--workspace', workspaceId, '--limit', '100'])).entries.filter((e: { action: string }) => e.action === 'webhook.updated')).toHaveLength(1)
  }, T * 2)
})

describe('growth worker', () => {
  test('starts, says it runs, delivers the queued test event signed with the new secret, and stops with exit 0 on SIGTERM', async () => {
    const worker = startWorker(ALLOW)
    try {
      await worker.waitFor(/webhook delivery workers? running/)
      await until('the test event at the receiver', () => got.length >= 1)
    } finally {
      worker.proc.kill('SIGTERM')
    }
    const ended = await worker.exit()
    expect(ended.code).toBe(0)
    expect(ended.stderr).toMatch(/1 webhook delivery worker running on the (embedded|PostgreSQL) database/)
    expect(ended.stderr).toContain('SIGTERM')
    expect(ended.stderr).not.toMatch(/^error:/m)

    expect(got).toHaveLength(1)
    const delivery = got[0]!
    // Sent to the URL it was moved to (growth admin webhook update, above), signed with the same secret.
    expect(delivery.path).toBe('/hooks/v2')
    expect(delivery.headers['x-service-event-id']).toBe(testEvent.eventId)
    expect(delivery.headers['x-service-delivery-id']).toBe(testEvent.deliveryId)
    const event = JSON.parse(delivery.body)
    expect(event).toMatchObject({ id: testEvent.eventId, event: 'webhook.test', workspaceId })
    // Signed with the rotated secret (the old one keeps signing beside it during the overlap).
    const [, t, v1s] = /^t=(\d+),(.*)$/.exec(delivery.headers['x-service-signature']!)!
    const signatures = v1s!.split(',').map((p) => p.replace(/^v1=/, ''))
    expect(signatures[0]).toBe(createHmac('sha256', secret).update(`${t}.${delivery.body}`).digest('hex'))

    // What came of it, as the operator reads it.
    const { attempts } = await growthJson(['admin', 'webhook', 'attempts', endpointId!, '--limit', '5'])
    expect(attempts).toHaveLength(1)
    expect(attempts[0]).toEqual({
      deliveryId: testEvent.deliveryId,
      eventId: testEvent.eventId,
      event: 'webhook.test',
      attempt: 1,
      url: `${hookUrl}/v2`,
      address: '127.0.0.1',
      statusCode: 200,
      error: null,
      durationMs: expect.any(Number),
      at: expect.stringMatching(ISO),
      nextAttemptAt: null,
    })
    const human = await growth(['admin', 'webhook', 'attempts', endpointId!], ALLOW)
    expect(human.code).toBe(0)
    expect(human.stdout).toMatch(/^\s*AT\s+EVENT\s+ATTEMPT\s+STATUS\s+MS\s+ADDRESS\s+NEXT\s+DELIVERY\s*$/m)
    expect(human.stdout).toContain(`webhook.test ${testEvent.eventId}`)
    const after = (await growthJson(['admin', 'webhook', 'list', '--workspace', workspaceId])).endpoints[0]
    expect(after.lastSuccessAt).toMatch(ISO)
  }, 60_000)
})

describe('bad WEBHOOK_* settings', () => {
  const bad: [string, string, RegExp][] = [
    ['WEBHOOK_TIMEOUT_MS', 'abc', /WEBHOOK_TIMEOUT_MS must be a whole number/],
    ['WEBHOOK_RETRY_SCHEDULE', '5s,x', /WEBHOOK_RETRY_SCHEDULE must be a comma-separated list of durations/],
    ['WEBHOOK_ALLOW_PRIVATE_NETWORKS', '10.0.0.0/33', /WEBHOOK_ALLOW_PRIVATE_NETWORKS must be a comma-separated list of CIDR ranges .*10\.0\.0\.0\/33/],
    // Every other delivery setting of the contract's table, and the one pair that must agree.
    ['WEBHOOK_BREAKER_THRESHOLD', '0', /WEBHOOK_BREAKER_THRESHOLD must be a whole number from 1/],
    ['WEBHOOK_BREAKER_COOLDOWN', 'soon', /WEBHOOK_BREAKER_COOLDOWN must be a duration/],
    ['WEBHOOK_BREAKER_COOLDOWN_MAX', '1x', /WEBHOOK_BREAKER_COOLDOWN_MAX must be a duration/],
    ['WEBHOOK_BREAKER_COOLDOWN', '2h', /WEBHOOK_BREAKER_COOLDOWN must not be longer than WEBHOOK_BREAKER_COOLDOWN_MAX/],
    ['WEBHOOK_DRAIN_RATE', 'fast', /WEBHOOK_DRAIN_RATE must be a number of deliveries a second/],
    ['WEBHOOK_DISABLE_AFTER', '0s', /WEBHOOK_DISABLE_AFTER must be a duration/],
    ['WEBHOOK_WORKERS', '-1', /WEBHOOK_WORKERS must be a whole number from 0/],
  ]

  test('stop growth worker and admin webhook create with exit 1 and a message naming the variable', async () => {
    for (const [name, value, message] of bad) {
      const worker = await growth(['worker'], { ...ALLOW, [name]: value })
      expectRefused(worker, message)
      expect(worker.stderr).toContain(`${name} must `)
      const create = await growth(['admin', 'webhook', 'create', '--workspace', workspaceId, '--url', hookUrl, '--events', 'contact.created', '--json'], { ...ALLOW, [name]: value })
      expectRefused(create, message)
    }
    // None of the refused creations saved anything.
    expect((await growthJson(['admin', 'webhook', 'list', '--workspace', workspaceId])).endpoints.map((e: { id: string }) => e.id)).toEqual([endpointId])
  }, 180_000)

  test('stop the server with exit 1 and one line naming the variable, no stack trace', async () => {
    const serverDir = mkdtempSync(join(tmpdir(), 'growth-cli-webhook-server-'))
    try {
      const proc = Bun.spawn([process.execPath, 'server/src/main.ts'], {
        cwd: ROOT,
        env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', DATA_DIR: serverDir, WEBHOOK_TIMEOUT_MS: 'abc' },
        stdin: 'ignore',
        stdout: 'pipe',
        stderr: 'pipe',
      })
      const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
      expect(code).toBe(1)
      expect(stdout).toBe('')
      const lines = stderr.trimEnd().split('\n')
      expect(lines).toHaveLength(1)
      expect(lines[0]).toMatch(/^error: Invalid configuration: WEBHOOK_TIMEOUT_MS must be a whole number from 1 to 300000 \(got "abc"\)\.$/)
    } finally {
      rmSync(serverDir, { recursive: true, force: true })
    }
  }, T)
})
