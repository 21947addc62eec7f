import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { EVENT_TYPES } from '../../server/src/core/event-types.ts'
import { Webhooks } from '../../sdk/src/index.ts'
import { call, getHarness } from '../harness.ts'
import { eventProblems } from '../support/event-models.ts'
import { endpoint, rig, type Rig, until } from '../webhooks/support.ts'
import { CLI_TIMEOUT, expectRefused, growthIn, jsonOf, type Run } from './run.ts'

/**
 * Samples of any event type, as `stripe trigger` sends them (docs/cli.md): `growth admin webhook
 * test ID --event TYPE` queues one to an endpoint, delivered by the workers like any other delivery;
 * `growth listen --forward-to URL --trigger TYPE` posts one to a local receiver, signed as listen
 * signs. Both run as real processes; a real receiver verifies every body with the SDK's
 * Webhooks.verify (both signature schemes) and holds it against its type's schema in the OpenAPI
 * document's webhooks.
 */
const T = CLI_TIMEOUT
const listenSecret = `whsec_${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64')}`
let secret = ''
type Got = { event: string; id: string; data: any; problems: string; verified: string }
const got: Got[] = []
const rx = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  async fetch(req) {
    const body = await req.text()
    let verified = 'yes'
    try {
      const e = Webhooks.verify(body, req.headers.get('X-Service-Signature'), secret)
      if (Webhooks.verify(body, req.headers, secret).id !== e.id) verified = 'the two schemes name different events'
    } catch (err) {
      verified = (err as Error).message
    }
    const event = JSON.parse(body)
    got.push({ event: event.event, id: event.id, data: event.data, problems: eventProblems(body), verified })
    return verified === 'yes' ? new Response('ok') : new Response('bad signature', { status: 400 })
  },
})
const url = `http://127.0.0.1:${rx.port}/hooks`

let growth: (args: string[], env?: Record<string, string>) => Promise<Run>
let r: Rig
let endpointId: string
let configDir: string

beforeAll(async () => {
  const h = await getHarness()
  growth = growthIn(h.dataDir)
  configDir = mkdtempSync(join(tmpdir(), 'growth-samples-'))
  r = await rig({ WEBHOOK_RETRY_SCHEDULE: '100ms' })
  const e = await endpoint(r, url, 'contact.created,webhook.test')
  endpointId = e.id
  secret = e.secret
}, T)
afterAll(async () => {
  await r?.done()
  rx.stop(true)
})

const arrived = async (eventId: string) => {
  await until(`event ${eventId} at the receiver`, () => got.some((g) => g.id === eventId), 20_000)
  return got.find((g) => g.id === eventId)!
}

describe('growth admin webhook test --event TYPE', () => {
  test('without --event it is the test event naming the endpoint, as before', async () => {
    const sent = jsonOf(await growth(['admin', 'webhook', 'test', endpointId, '--json']), 'admin webhook test')
    expect(Object.keys(sent).sort()).toEqual(['deliveryId', 'eventId'])
    const g = await arrived(sent.eventId)
    expect(g).toEqual({ event: 'webhook.test', id: sent.eventId, data: { endpoint: { id: endpointId, url } }, problems: '', verified: 'yes' })
  }, T)

  test('a sample of a type the endpoint does not subscribe to, and of one an operator causes, each signed and valid', async () => {
    for (const type of ['action.applied', 'agent.policy.changed']) {
      const sent = jsonOf(await growth(['admin', 'webhook', 'test', endpointId, '--event', type, '--json']), `admin webhook test --event ${type}`)
      const g = await arrived(sent.eventId)
      expect({ event: g.event, problems: g.problems, verified: g.verified }).toEqual({ event: type, problems: '', verified: 'yes' })
    }
    const human = await growth(['admin', 'webhook', 'test', endpointId, '--event', 'contact.created'])
    expect(human.code).toBe(0)
    expect(human.stdout).toMatch(/^Queued contact\.created event evt_\w+ as delivery dlv_\w+\./)
    const g = await arrived(human.stdout.match(/evt_\w+/)![0])
    expect(g.data.contact.email).toContain('@')
  }, T)

  test('a sample did not happen: the event stream never shows it; the test event, which did, is in it', async () => {
    const sample = jsonOf(await growth(['admin', 'webhook', 'test', endpointId, '--event', 'contact.created', '--json']), 'admin webhook test --event contact.created')
    const probe = jsonOf(await growth(['admin', 'webhook', 'test', endpointId, '--json']), 'admin webhook test')
    await arrived(sample.eventId)
    await arrived(probe.eventId)
    const listed = await call('GET', '/api/v1/events?limit=100', { token: r.ws.live })
    expect(listed.status).toBe(200)
    const ids = listed.body.data.map((e: { id: string }) => e.id)
    expect(ids).toContain(probe.eventId)
    expect(ids).not.toContain(sample.eventId)
    const ofType = await call('GET', '/api/v1/events?type=contact.created&limit=100', { token: r.ws.live })
    expect(ofType.body.data.map((e: { id: string }) => e.id)).not.toContain(sample.eventId)
  }, T)

  test('an unknown type is refused naming the known types, and nothing is queued', async () => {
    const before = got.length
    const refused = await growth(['admin', 'webhook', 'test', endpointId, '--event', 'contact.deleted'])
    expectRefused(refused, /Unknown event type "contact\.deleted"; the types are signal\.created, .*webhook\.test\./)
    for (const type of EVENT_TYPES) expect(refused.stderr).toContain(type)
    const attempts = jsonOf(await growth(['admin', 'webhook', 'attempts', endpointId, '--json']), 'admin webhook attempts')
    expect(attempts.attempts.filter((a: { event: string }) => a.event === 'contact.deleted')).toEqual([])
    expect(got.length).toBe(before)
  }, T)
})

describe('growth listen --trigger TYPE', () => {
  const trigger = (type: string, extra: string[] = []) =>
    growth(['listen', '--forward-to', url, '--trigger', type, '--secret', listenSecret, '--json', ...extra], { GROWTH_CONFIG_DIR: configDir })

  test('posts one sample of every event type, signed with the listen secret, each valid against its schema, without a server or a token', async () => {
    secret = listenSecret
    const runs = await Promise.all(EVENT_TYPES.map((type) => trigger(type, ['--base-url', 'http://127.0.0.1:9/api/v1'])))
    for (const [i, run] of runs.entries()) {
      const type = EVENT_TYPES[i]!
      const line = jsonOf(run, `listen --trigger ${type}`)
      expect(line).toMatchObject({ event: type, status: 200, error: null })
      const g = got.find((x) => x.id === line.eventId)!
      expect({ event: g.event, problems: g.problems, verified: g.verified }).toEqual({ event: type, problems: '', verified: 'yes' })
    }
  }, T * 2)

  test('a receiver that refuses the sample fails the command; an unknown type is refused naming the known types', async () => {
    const wrong = await growth(['listen', '--forward-to', url, '--trigger', 'contact.created', '--secret', `whsec_${Buffer.alloc(32, 7).toString('base64')}`], { GROWTH_CONFIG_DIR: configDir })
    expect(wrong.code).toBe(1)
    // the receiver's own answer is shown beside its status: here, why it refused the signature
    expect(wrong.stdout).toMatch(/contact\.created\s+evt_\w+\s+-> 400 bad signature \(\d+ ms\)\n/)
    expect(wrong.stderr).toContain(`the receiver at ${url} did not take the sample (400 bad signature)`)
    // nothing listening: said in words, with the question to ask
    const down = await growth(['listen', '--forward-to', 'http://127.0.0.1:9/hooks', '--trigger', 'contact.created', '--secret', listenSecret], { GROWTH_CONFIG_DIR: configDir })
    expect(down.code).toBe(1)
    expect(down.stdout).toMatch(/-> failed: the connection was refused; is the receiver running at 127\.0\.0\.1:9\? \(\d+ ms\)\n/)
    expect(down.stdout).not.toContain('Is the computer able to access the url')
    // a --secret too short to be one is refused saying so (whsec_abc is base64, but 3 characters of it)
    const short = await growth(['listen', '--forward-to', url, '--trigger', 'contact.created', '--secret', 'whsec_abc'], { GROWTH_CONFIG_DIR: configDir })
    expectRefused(short, /--secret must be a whsec_\.\.\. secret: whsec_ and then at least 8 characters of base64 \(got 3\)/)
    const unknown = await trigger('contact.deleted')
    expectRefused(unknown, /--trigger: Unknown event type "contact\.deleted"; the types are signal\.created, .*webhook\.test\./)
  }, T)
})
