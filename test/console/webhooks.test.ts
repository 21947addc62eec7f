import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { loadConfig } from '../../server/src/config.ts'
import { listAudit } from '../../server/src/domain/audit.ts'
import { listEndpoints } from '../../server/src/domain/webhooks.ts'
import { type RunningServer, startServer } from '../../server/src/server.ts'
import { Webhooks } from '../../sdk/src/index.ts'
import { getHarness, makeWorkspace } from '../harness.ts'
import { eventProblems } from '../support/event-models.ts'
import { consoleAt, csrfOf, fetchConsole, signInAs } from '../support/console-session.ts'
import { until } from '../webhooks/support.ts'

/**
 * /console/webhooks and /console/webhooks/{id} over HTTP, signed in, against a server of the
 * suite's database whose settings let endpoints on this machine through (and run its delivery
 * workers): an owner adds an endpoint to a real receiver (the secret shown once), sends the test
 * event and a sample, reads the attempts, rotates the secret (the next delivery verifies with the
 * new one), disables and enables it; the address guard refuses as the API does (on the suite's own
 * server, which allows no private network); approvers and viewers read and are refused every form
 * posted by hand; another workspace's endpoint is not found. No secret is in a later page, the
 * audit list or the server's log.
 */
type Got = { event: string; id: string; body: string; headers: Headers; path: string }
const got: Got[] = []
let answer = 200
const rx = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  async fetch(req) {
    const body = await req.text()
    got.push({ event: JSON.parse(body).event, id: JSON.parse(body).id, body, headers: req.headers, path: new URL(req.url).pathname })
    return new Response('ok', { status: answer })
  },
})
const hookUrl = `http://127.0.0.1:${rx.port}/hooks`

const logged: string[] = []
const log = {
  info: (msg: string, fields?: Record<string, unknown>) => logged.push(JSON.stringify({ msg, ...fields })),
  warn: (msg: string, fields?: Record<string, unknown>) => logged.push(JSON.stringify({ msg, ...fields })),
  error: (msg: string, fields?: Record<string, unknown>) => logged.push(JSON.stringify({ msg, ...fields }, (_k, v) => (v instanceof Error ? v.message : v))),
}
let server: RunningServer

beforeAll(async () => {
  const h = await getHarness()
  const config = loadConfig({ ...process.env, DATA_DIR: h.dataDir, PORT: '0', HOST: '127.0.0.1', WEBHOOK_ALLOW_PRIVATE_NETWORKS: '127.0.0.0/8', WEBHOOK_WORKERS: '1', WEBHOOK_RETRY_SCHEDULE: '100ms' })
  server = await startServer(config, { db: h.db, log })
}, 90_000)
afterAll(async () => {
  await server?.stop()
  rx.stop(true)
})

/** The console of the server that lets local endpoints through. */
const at = (path: string, init: { cookie?: string; form?: Record<string, string> | URLSearchParams } = {}) => consoleAt(server.url)(path, init)

const secretIn = (html: string) => /id="secret" type="text" readonly value="(whsec_[^"]+)"/.exec(html)?.[1]

async function arrived(eventId: string) {
  await until(`event ${eventId} at the receiver`, () => got.some((g) => g.id === eventId), 20_000)
  return got.find((g) => g.id === eventId)!
}

describe('the console: webhooks', () => {
  test('an owner adds an endpoint, sends the test event and a sample, reads the attempts, rotates the secret, disables and enables it', async () => {
    const ws = await makeWorkspace()
    const owner = await signInAs(ws.id, 'owner', 'Maya Chen')
    const form = new URLSearchParams({ csrf: owner.csrf, url: hookUrl })
    form.append('events', 'contact.created')
    form.append('events', 'approval.approved')
    const added = await at('/console/webhooks', { cookie: owner.cookie, form })
    // Post/Redirect/Get: the POST answers 303 to the page that shows the secret, which it carries
    // there in a cookie sealed with the secrets key, for that page alone and 5 minutes.
    expect(added.posted!.status).toBe(303)
    expect(added.posted!.headers.get('location')).toBe('/console/shown/webhook#answer')
    expect(added.shownCookie).toMatch(/^growth_shown=enc:v1:[0-9a-f]+:[\w-]+; Path=\/console\/shown; HttpOnly; SameSite=Strict; Max-Age=300$/)
    expect(added.shownCookie).not.toContain('whsec_')
    expect(added.res.status).toBe(200)
    expect(added.res.headers.get('cache-control')).toBe('no-store')
    expect(added.res.headers.getSetCookie()).toContain('growth_shown=; Path=/console/shown; HttpOnly; SameSite=Strict; Max-Age=0')
    const secret = secretIn(added.text)!
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/)
    expect(added.text).toContain('It is not shown again')
    const id = /href="\/console\/webhooks\/(whe_\w+)"/.exec(added.text)![1]!
    // Reloading that page (the cookie ended) shows no secret and adds nothing; nor does another
    // person presenting the same cookie.
    const reloaded = await at('/console/shown/webhook', { cookie: owner.cookie })
    expect(reloaded.res.status).toBe(200)
    expect(reloaded.text).toContain('It was shown once, on the page right after it was made')
    expect(reloaded.text).not.toContain(secret)
    const other = await signInAs(ws.id, 'owner', 'Kenji Sato')
    expect((await at('/console/shown/webhook', { cookie: `${other.cookie}; ${added.shownCookie!.split(';')[0]}` })).text).not.toContain(secret)
    expect((await listEndpoints((await getHarness()).sql, ws.id)).endpoints).toHaveLength(1)

    // The list and the endpoint's page say how it is doing, and never show the secret again.
    const list = await at('/console/webhooks', { cookie: owner.cookie })
    expect(list.text).toContain(hookUrl)
    expect(list.text).toContain('Enabled')
    expect(list.text).toContain('contact.created, approval.approved')
    expect(list.text).not.toContain(secret)

    const page = await at(`/console/webhooks/${id}`, { cookie: owner.cookie })
    expect(page.res.status).toBe(200)
    expect(page.text).toContain('Nothing was sent to it yet.')
    // Each form answers with a redirect to the page, which says what was done: a reload sends nothing again.
    const follow = async (posted: Promise<{ res: Response }>) => {
      const { res } = await posted
      expect(res.status).toBe(303)
      expect(res.headers.get('location')).toStartWith(`/console/webhooks/${id}?done=`)
      return at(res.headers.get('location')!, { cookie: owner.cookie })
    }
    const sent = await follow(at(`/console/webhooks/${id}/test`, { cookie: owner.cookie, form: { csrf: owner.csrf, event: 'webhook.test' } }))
    expect(sent.res.status).toBe(200)
    const testEventId = /Queued webhook\.test event (evt_\w+)/.exec(sent.text)![1]!
    const t = await arrived(testEventId)
    expect(Webhooks.verify(t.body, t.headers, secret).id).toBe(testEventId)
    const sample = await follow(at(`/console/webhooks/${id}/test`, { cookie: owner.cookie, form: { csrf: owner.csrf, event: 'action.applied' } }))
    const s = await arrived(/Queued action\.applied event (evt_\w+)/.exec(sample.text)![1]!)
    expect(Webhooks.verify(s.body, s.headers, secret).event).toBe('action.applied')
    expect(eventProblems(s.body)).toBe('')

    // The attempts, with the answer and how long it took.
    await until('both attempts recorded', async () => ((await at(`/console/webhooks/${id}`, { cookie: owner.cookie })).text.match(/<tr><td><time/g) ?? []).length >= 2)
    const attempts = await at(`/console/webhooks/${id}`, { cookie: owner.cookie })
    expect(attempts.text).toContain('<code>webhook.test</code>')
    expect(attempts.text).toContain('<code>action.applied</code>')
    expect(attempts.text).toMatch(/<span class="passed">200<\/span>/)
    expect(attempts.text).toMatch(/\d+ ms<\/td>/)
    // The table is named by its caption, and its scrolling box by the same words, as the policy page's tables are.
    expect(attempts.text).toContain('<div class="scroll" tabindex="0" role="region" aria-label="Delivery attempts, newest first"><table class="attempts"><caption>Delivery attempts, newest first</caption><thead>')

    // Its rotate form asks first in the browser when no overlap is chosen (assets/console.js, data-confirm-if).
    expect(attempts.text).toContain(`<form method="post" action="/console/webhooks/${id}/rotate" class="stack" data-confirm-if="overlap=0" data-confirm="Rotate the secret with no overlap?`)
    // Rotating shows the new secret once; with no overlap, the next delivery verifies with it alone.
    const rotated = await at(`/console/webhooks/${id}/rotate`, { cookie: owner.cookie, form: { csrf: owner.csrf, overlap: '0' } })
    expect(rotated.res.status).toBe(200)
    const next = secretIn(rotated.text)!
    expect(next).not.toBe(secret)
    const again = await follow(at(`/console/webhooks/${id}/test`, { cookie: owner.cookie, form: { csrf: owner.csrf, event: 'webhook.test' } }))
    const a = await arrived(/Queued webhook\.test event (evt_\w+)/.exec(again.text)![1]!)
    expect(Webhooks.verify(a.body, a.headers, next).id).toBeDefined()
    expect(() => Webhooks.verify(a.body, a.headers, secret)).toThrow()
    expect((await at(`/console/webhooks/${id}`, { cookie: owner.cookie })).text).not.toContain(next)

    // Disable, then enable: the page says so, and what failed meanwhile goes again.
    expect(attempts.text).toContain('While it is disabled nothing is sent to it: what was queued waits for Enable, and events meanwhile are not sent to it.')
    expect(attempts.text).not.toContain('Deliveries wait while it is disabled')
    const disabled = await follow(at(`/console/webhooks/${id}/disable`, { cookie: owner.cookie, form: { csrf: owner.csrf } }))
    expect(disabled.text).toContain('Disabled: nothing is sent to it until it is enabled again.')
    expect(disabled.text).toContain('Disabled by Maya Chen in the console; enable it to resume.')
    expect(disabled.text).toContain('Enable the endpoint')
    const on = await follow(at(`/console/webhooks/${id}/enable`, { cookie: owner.cookie, form: { csrf: owner.csrf } }))
    expect(on.res.status).toBe(200)
    expect(on.text).toContain('Enabled. Nothing failed to it in the last 72 hours')
    // A query the console did not write says nothing.
    const forged = await at(`/console/webhooks/${id}?done=tested&event=${encodeURIComponent('<b>x</b>')}&eventId=evt_1&deliveryId=dlv_2`, { cookie: owner.cookie })
    expect(forged.text).not.toContain('Queued')

    // In the audit list with the person, and no secret in it, in a page or in the log.
    const { entries } = await listAudit((await getHarness()).sql, ws.id, 50)
    const mine = entries.filter((e) => e.subject === id).map((e) => [e.action, e.actor])
    const actor = { kind: 'person' as const, id: owner.person.id, name: 'Maya Chen' }
    expect(mine).toEqual([
      ['webhook.enabled', actor],
      ['webhook.disabled', actor],
      ['webhook.secret_rotated', actor],
      ['webhook.created', actor],
    ])
    const audit = JSON.stringify(entries) + (await at('/console/audit', { cookie: owner.cookie })).text
    for (const shown of [secret, next]) {
      expect(audit).not.toContain(shown)
      expect(logged.join('\n')).not.toContain(shown)
      expect(logged.join('\n')).not.toContain(shown.slice('whsec_'.length))
    }
  }, 90_000)

  test('an owner changes the URL and event types; the id and secret stay, the next delivery goes to the new URL and verifies with the secret shown at the start; the same again changes nothing; a refused URL keeps the form as sent', async () => {
    const ws = await makeWorkspace()
    const owner = await signInAs(ws.id, 'owner', 'Maya Chen')
    const add = new URLSearchParams({ csrf: owner.csrf, url: hookUrl })
    add.append('events', 'contact.created')
    const shown = await at('/console/webhooks', { cookie: owner.cookie, form: add })
    const secret = secretIn(shown.text)!
    const id = /href="\/console\/webhooks\/(whe_\w+)"/.exec(shown.text)![1]!
    const page = await at(`/console/webhooks/${id}`, { cookie: owner.cookie })
    expect(page.text).toContain(`action="/console/webhooks/${id}/update"`)
    expect(page.text).toContain(`id="url" name="url" type="text" inputmode="url" required value="${hookUrl}"`)
    expect(page.text).toMatch(/value="contact\.created" id="ev-contact\.created" checked/)

    const form = (url: string, events: string[]) => {
      const f = new URLSearchParams({ csrf: owner.csrf, url })
      for (const e of events) f.append('events', e)
      return f
    }
    const moved = await at(`/console/webhooks/${id}/update`, { cookie: owner.cookie, form: form(`${hookUrl}/moved`, ['webhook.test', 'action.applied']) })
    expect(moved.res.status).toBe(303)
    const after = await at(moved.res.headers.get('location')!, { cookie: owner.cookie })
    expect(after.text).toContain('Saved. Its signing secret is the same')
    expect(after.text).toContain(`<h1>${hookUrl}/moved</h1>`)
    expect(after.text).toContain('receives webhook.test, action.applied')
    const { endpoints } = await listEndpoints((await getHarness()).sql, ws.id)
    expect(endpoints.map((e) => [e.id, e.url, e.events])).toEqual([[id, `${hookUrl}/moved`, ['webhook.test', 'action.applied']]])

    const tested = await at(`/console/webhooks/${id}/test`, { cookie: owner.cookie, form: { csrf: owner.csrf, event: 'webhook.test' } })
    const eventId = new URL(tested.res.headers.get('location')!, server.url).searchParams.get('eventId')!
    const delivery = await arrived(eventId)
    expect(delivery.path).toBe('/hooks/moved')
    expect(Webhooks.verify(delivery.body, delivery.headers, secret).id).toBe(eventId)
    const { entries } = await listAudit((await getHarness()).sql, ws.id, 50)
    expect(entries.find((e) => e.action === 'webhook.updated')).toMatchObject({ subject: id, actor: { kind: 'person', name: 'Maya Chen' }, detail: { url: `${hookUrl}/moved`, previousUrl: hookUrl } })

    const same = await at(`/console/webhooks/${id}/update`, { cookie: owner.cookie, form: form(`${hookUrl}/moved`, ['action.applied', 'webhook.test']) })
    expect((await at(same.res.headers.get('location')!, { cookie: owner.cookie })).text).toContain('It already had this URL and these event types: nothing changed.')

    // The suite's own server allows no private network: refused, named in the form's words, the form as sent.
    const refused = await fetchConsole(`/console/webhooks/${id}/update`, { cookie: owner.cookie, form: form('http://127.0.0.1:9/nowhere', ['contact.created']) })
    expect(refused.res.status).toBe(400)
    expect(refused.text).toMatch(/role="alert" id="edit-error">The URL http:\/\/127\.0\.0\.1:9\/nowhere is refused: /)
    expect(refused.text).toContain('value="http://127.0.0.1:9/nowhere" aria-describedby="edit-error"')
    expect(refused.text).toMatch(/value="contact\.created" id="ev-contact\.created" checked/)
    expect(refused.text).not.toMatch(/value="webhook\.test" id="ev-webhook\.test" checked/)
    const none = await at(`/console/webhooks/${id}/update`, { cookie: owner.cookie, form: form(`${hookUrl}/x`, []) })
    expect(none.res.status).toBe(400)
    expect(none.text).toContain('An endpoint subscribes to at least one event type')
    expect((await listEndpoints((await getHarness()).sql, ws.id)).endpoints[0]!.url).toBe(`${hookUrl}/moved`)
  }, 60_000)

  test('an endpoint with a URL of 6,000 characters still gets its signing secret shown once', async () => {
    const ws = await makeWorkspace()
    const owner = await signInAs(ws.id, 'owner', 'Ana Lima')
    const long = `${hookUrl}?pad=${'x'.repeat(6000)}`
    const added = await at('/console/webhooks', { cookie: owner.cookie, form: { csrf: owner.csrf, url: long, events: 'contact.created' } })
    expect(added.posted!.status).toBe(303)
    // A browser keeps a cookie of at most 4,096 bytes: the secret's must stay well inside it.
    expect(added.shownCookie!.length).toBeLessThan(1024)
    expect(secretIn(added.text)).toMatch(/^whsec_/)
    expect(added.text).toContain(`Added ${long}`)
  }, 60_000)

  test('the address is checked as the API checks it (the suite server allows no private network); no event type or URL is a clear 400', async () => {
    const ws = await makeWorkspace()
    const owner = await signInAs(ws.id, 'owner', 'Ana Lima')
    const form = new URLSearchParams({ csrf: owner.csrf, url: 'http://127.0.0.1:9/hooks' })
    form.append('events', 'contact.created')
    const refused = await fetchConsole('/console/webhooks', { cookie: owner.cookie, form: Object.fromEntries(form) })
    expect(refused.res.status).toBe(400)
    // Named as the form names it (Its URL), not by the API's field name.
    expect(refused.text).toMatch(/role="alert" id="add-error">The URL http:\/\/127\.0\.0\.1:9\/hooks is refused: [^<]*(private|loopback)/)
    // What was typed stays in the form.
    expect(refused.text).toContain('value="http://127.0.0.1:9/hooks"')
    expect(refused.text).toMatch(/value="contact\.created" id="ev-contact\.created" checked/)
    const none = await at('/console/webhooks', { cookie: owner.cookie, form: { csrf: owner.csrf, url: 'https://example.com/hooks' } })
    expect(none.res.status).toBe(400)
    expect(none.text).toContain('An endpoint subscribes to at least one event type')
    const empty = await at('/console/webhooks', { cookie: owner.cookie, form: { csrf: owner.csrf, url: ' ', events: 'contact.created' } })
    expect(empty.res.status).toBe(400)
    expect(empty.text).toContain('Give the endpoint its URL.')
    expect((await at('/console/webhooks', { cookie: owner.cookie })).text).toContain('No endpoint yet')
  }, 60_000)

  test('approvers and viewers read the pages and are refused every form posted by hand; another workspace\'s endpoint is not found', async () => {
    const ws = await makeWorkspace()
    const owner = await signInAs(ws.id, 'owner', 'Maya Chen')
    const form = new URLSearchParams({ csrf: owner.csrf, url: hookUrl, events: 'contact.created' })
    const id = /href="\/console\/webhooks\/(whe_\w+)"/.exec((await at('/console/webhooks', { cookie: owner.cookie, form })).text)![1]!
    for (const role of ['approver', 'viewer'] as const) {
      const p = await signInAs(ws.id, role, `The ${role}`)
      const list = await at('/console/webhooks', { cookie: p.cookie })
      expect(list.res.status).toBe(200)
      expect(list.text).toContain(hookUrl)
      expect(list.text).not.toContain('Add the endpoint')
      const one = await at(`/console/webhooks/${id}`, { cookie: p.cookie })
      expect(one.res.status).toBe(200)
      expect(one.text).not.toContain('Rotate the secret')
      const posts: [string, Record<string, string>][] = [
        ['/console/webhooks', { url: hookUrl, events: 'contact.created' }],
        [`/console/webhooks/${id}/test`, { event: 'webhook.test' }],
        [`/console/webhooks/${id}/rotate`, { overlap: '0' }],
        [`/console/webhooks/${id}/update`, { url: `${hookUrl}/elsewhere`, events: 'contact.created' }],
        [`/console/webhooks/${id}/disable`, {}],
        [`/console/webhooks/${id}/enable`, {}],
      ]
      for (const [path, fields] of posts) {
        const r = await at(path, { cookie: p.cookie, form: { csrf: p.csrf, ...fields } })
        expect({ path, role, status: r.res.status }).toEqual({ path, role, status: 403 })
        expect(r.text).toContain('an owner changes them')
        expect(r.text).not.toContain('whsec_')
      }
    }
    // Nothing changed: one endpoint, enabled, nothing sent, nothing rotated.
    const { entries } = await listAudit((await getHarness()).sql, ws.id, 50)
    expect(entries.filter((e) => e.subject === id).map((e) => e.action)).toEqual(['webhook.created'])
    // A forged form (no CSRF token) is refused too.
    expect((await at(`/console/webhooks/${id}/disable`, { cookie: owner.cookie, form: { csrf: 'forged' } })).res.status).toBe(403)

    const stranger = await signInAs((await makeWorkspace()).id, 'owner', 'Lee Park')
    expect((await at(`/console/webhooks/${id}`, { cookie: stranger.cookie })).res.status).toBe(404)
    const theirs = await at(`/console/webhooks/${id}/disable`, { cookie: stranger.cookie, form: { csrf: stranger.csrf } })
    expect(theirs.res.status).toBe(404)
    // The URL and event types form too: another workspace's owner, and a forged form, change nothing.
    const moved = await at(`/console/webhooks/${id}/update`, { cookie: stranger.cookie, form: { csrf: stranger.csrf, url: `${hookUrl}/theirs`, events: 'contact.created' } })
    expect(moved.res.status).toBe(404)
    expect((await at(`/console/webhooks/${id}/update`, { cookie: owner.cookie, form: { csrf: 'forged', url: `${hookUrl}/forged`, events: 'contact.created' } })).res.status).toBe(403)
    expect((await listEndpoints((await getHarness()).sql, ws.id)).endpoints.map((e) => e.url)).toEqual([hookUrl])
    expect((await at('/console/webhooks/whe_nothing', { cookie: owner.cookie })).res.status).toBe(404)
    expect((await at('/console/webhooks/not-an-id', { cookie: owner.cookie })).res.status).toBe(400)
  }, 90_000)
})
