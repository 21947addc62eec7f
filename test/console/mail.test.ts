import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadConfig } from '../../server/src/config.ts'
import { createLogger } from '../../server/src/core/log.ts'
import { addPerson } from '../../server/src/domain/people.ts'
import { takeSignInAttempt } from '../../server/src/domain/sign-in-limits.ts'
import { type RunningServer, startServer } from '../../server/src/server.ts'
import { agentIn } from '../agent-helpers.ts'
import { getHarness, makeWorkspace } from '../harness.ts'
import { cspViolations, hasChromium, launchChromium, seriousA11yViolations, skipWithoutChromium, watchedPage } from '../support/browser.ts'
import { callAt } from '../support/http-call.ts'
import { type SmtpReceiver, startSilentSmtp, startSmtpReceiver } from '../support/smtp-receiver.ts'
import { withinOneWindow } from '../support/clock-window.ts'

/**
 * The console's mail with a real SMTP receiver (smtp-server) and a server of this file's own that
 * sends to it, on the shared database: a sign-in link mailed and redeemed over HTTP; an unknown
 * address answered alike and mailed nothing; the limits per email address, per person and per
 * network address; notices of what waits to owners and approvers (not viewers), one per person per
 * interval with what came meanwhile; a refusing mail server retried; and a mail server that never
 * answers slowing no request.
 */

skipWithoutChromium('the mail form in Chromium')

// Short figures so the test does not wait a minute: retries after 200 ms, notices at most every 2 s.
const NOTICE_INTERVAL_MS = 2000
let smtp: SmtpReceiver
let server: RunningServer

function configFor(smtpUrl: string) {
  return loadConfig({
    ...process.env,
    DATA_DIR: mkdtempSync(join(tmpdir(), 'growth-mail-')),
    PORT: '0',
    HOST: '127.0.0.1',
    WEBHOOK_WORKERS: '0',
    SMTP_URL: smtpUrl,
    MAIL_FROM: 'Growth <growth@example.com>',
    MAIL_RETRY_SCHEDULE: '200ms,200ms,200ms',
    MAIL_NOTICE_INTERVAL: `${NOTICE_INTERVAL_MS}ms`,
  })
}

beforeAll(async () => {
  const h = await getHarness()
  smtp = await startSmtpReceiver()
  server = await startServer(configFor(smtp.url), { db: h.db, log: createLogger(process.env.TEST_LOG ? 'info' : 'silent') })
})
afterAll(async () => {
  await server?.stop()
  await smtp?.close()
})

// Every request of this file comes from 127.0.0.1, which the per-address limit counts: each test
// starts with that address's count of the hour at nothing, and has the rest of that hour, not its last seconds.
beforeEach(async () => {
  await withinOneWindow()
  const { sql } = await getHarness()
  await sql`DELETE FROM rate_limit_counters WHERE workspace_id = '' AND credential_id LIKE 'signin:ask:%'`
})

async function page(path: string, init: { cookie?: string; form?: Record<string, string> } = {}) {
  const res = await fetch(`${server.url}${path}`, {
    method: init.form ? 'POST' : 'GET',
    redirect: 'manual',
    headers: { ...(init.cookie ? { Cookie: init.cookie } : {}), ...(init.form ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {}) },
    body: init.form ? new URLSearchParams(init.form).toString() : undefined,
  })
  return { res, text: await res.text() }
}
const cookieOf = (res: Response, name: string) => res.headers.getSetCookie().find((c) => c.startsWith(`${name}=`))?.split(';')[0]
const csrfOf = (html: string) => /name="csrf" value="([^"]+)"/.exec(html)?.[1]

/** The sign-in page's "mail me a link", as a browser sends it. */
async function askForLink(email: string) {
  const form = await page('/console/signin')
  expect(form.text).toContain('Mail me a sign-in link')
  return page('/console/signin', { cookie: cookieOf(form.res, 'growth_signin'), form: { csrf: csrfOf(form.text)!, email } })
}

const unique = (who: string) => `${who}-${crypto.randomUUID().slice(0, 8)}@example.com`

async function personIn(workspaceId: string, role: 'owner' | 'approver' | 'viewer', name: string) {
  const { sql } = await getHarness()
  return addPerson(sql, { workspaceId, email: unique(role), name, role })
}

/**
 * The mail to `sentinel` arrives: mail queued before it had its chance to go first, so what has not
 * arrived by then was never sent. (Mail is claimed oldest first.)
 */
async function afterSentinel(workspaceId: string) {
  const sentinel = await personIn(workspaceId, 'viewer', 'Sentinel')
  expect((await askForLink(sentinel.email)).res.status).toBe(200)
  await smtp.mailTo(sentinel.email)
}

/** Resolves with `probe`'s first answer that is not undefined, asking every 20 ms for up to 5 s. */
async function until<T>(probe: () => Promise<T | undefined>): Promise<T> {
  for (const end = Date.now() + 5000; Date.now() < end; await Bun.sleep(20)) {
    const v = await probe()
    if (v !== undefined) return v
  }
  throw new Error('the condition did not come true within 5 s')
}

const linkIn = (text: string) => /(http:\/\/\S+\/console\/signin\/\S+)/.exec(text)?.[1]

describe('sign-in links by mail', () => {
  test('a link mailed to a person signs them in, once confirmed with one click', async () => {
    const ws = await makeWorkspace()
    const maya = await personIn(ws.id, 'approver', 'Maya Chen')
    const asked = await askForLink(maya.email.toUpperCase())
    expect(asked.res.status).toBe(200)
    expect(asked.text).toContain('Check your mail')

    const [mail] = await smtp.mailTo(maya.email)
    expect(mail!.from).toBe('growth@example.com')
    expect(mail!.subject).toContain('Your sign-in link for Test workspace')
    expect(mail!.text).toContain('Hello Maya Chen,')
    const link = linkIn(mail!.text)!
    expect(link).toStartWith(`${server.url}/console/signin/`)

    // Opening the link signs no one in; its one button does.
    const opened = await page(new URL(link).pathname)
    expect(opened.res.status).toBe(200)
    expect(cookieOf(opened.res, 'growth_session')).toBeUndefined()
    const confirmed = await page(new URL(link).pathname, { cookie: cookieOf(opened.res, 'growth_signin'), form: { csrf: csrfOf(opened.text)! } })
    expect(confirmed.res.status).toBe(303)
    const session = cookieOf(confirmed.res, 'growth_session')!
    const inbox = await page('/console/', { cookie: session })
    expect(inbox.res.status).toBe(200)
    expect(inbox.text).toContain('Maya Chen')
    // Once only.
    const again = await page(new URL(link).pathname, { cookie: cookieOf(opened.res, 'growth_signin'), form: { csrf: csrfOf(opened.text)! } })
    expect(again.res.status).toBe(410)
  })

  test('an address that is no one\u2019s gets the same page and no mail', async () => {
    const ws = await makeWorkspace()
    const known = await personIn(ws.id, 'owner', 'Ana Ruiz')
    const nobody = unique('nobody')
    const a = await askForLink(nobody)
    const b = await askForLink(known.email)
    expect(a.res.status).toBe(200)
    expect(a.text).toBe(b.text)
    await smtp.mailTo(known.email)
    await afterSentinel(ws.id)
    expect(smtp.attempts.get(nobody)).toBeUndefined()
  })

  test('per email address: the sixth request of the hour is refused calmly and mails nothing, known address or not', async () => {
    const ws = await makeWorkspace()
    const known = await personIn(ws.id, 'owner', 'Ana Ruiz')
    const nobody = unique('nobody')
    for (let i = 0; i < 5; i++) {
      expect((await askForLink(known.email)).res.status).toBe(200)
      expect((await askForLink(nobody)).res.status).toBe(200)
    }
    const refused = await askForLink(known.email)
    const refusedToo = await askForLink(nobody)
    expect(refused.res.status).toBe(429)
    expect(refused.text).toContain('none was mailed')
    expect(refused.text).toContain('Try again after')
    expect(Number(refused.res.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(refused.text).not.toContain('Exception')
    // The refusal tells nothing about whether the address is someone's.
    expect(refusedToo.res.status).toBe(429)
    expect(refusedToo.text).toBe(refused.text)
    await smtp.mailTo(known.email, 5)
    await afterSentinel(ws.id)
    expect(smtp.messages.filter((m) => m.to.includes(known.email)).length).toBe(5)
  })

  test('per person: five links an hour, then refused and nothing mailed', async () => {
    const { sql } = await getHarness()
    const ws = await makeWorkspace()
    const p = await personIn(ws.id, 'approver', 'Sam Lee')
    // Five links already mailed to this person this hour.
    for (let i = 0; i < 5; i++) await takeSignInAttempt(sql, 'linksPerPerson', `${ws.id}/${p.id}`)
    const refused = await askForLink(p.email)
    expect(refused.res.status).toBe(429)
    expect(refused.text).toContain('none was mailed')
    await afterSentinel(ws.id)
    expect(smtp.attempts.get(p.email)).toBeUndefined()
  })

  test('per network address: twenty requests an hour, then refused', async () => {
    for (let i = 0; i < 20; i++) expect((await askForLink(unique('guess'))).res.status).toBe(200)
    const refused = await askForLink(unique('guess'))
    expect(refused.res.status).toBe(429)
    expect(refused.text).toContain('none was mailed')
  })

  test.skipIf(!hasChromium)('in Chromium at 320 px: the form, its answer and its refusal are accessible; the mailed link signs in', async () => {
    const { sql } = await getHarness()
    const ws = await makeWorkspace()
    const kim = await personIn(ws.id, 'owner', 'Kim Park')
    const { context, close } = await launchChromium({ viewport: { width: 320, height: 720 } })
    try {
      const { page } = await watchedPage(context)
      const check = async (status: number | undefined, expected: number) => {
        expect(status).toBe(expected)
        expect(await cspViolations(page)).toEqual([])
        expect(await seriousA11yViolations(page)).toEqual([])
        expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBe(0)
      }
      const ask = async (email: string) => {
        await check((await page.goto(`${server.url}/console/signin`))?.status(), 200)
        await page.getByLabel('Your email address').fill(email)
        const [answer] = await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Mail me a sign-in link' }).click()])
        return answer?.status()
      }
      await check(await ask(kim.email), 200)
      expect(await page.textContent('h1')).toBe('Check your mail')
      // An address whose hour's requests are used: the calm refusal.
      const busy = unique('busy')
      for (let i = 0; i < 5; i++) await takeSignInAttempt(sql, 'linkRequestsPerEmail', busy)
      await check(await ask(busy), 429)
      expect(await page.textContent('h1')).toBe('No link mailed this time')

      // The link from the mail, opened in the browser: one click signs in.
      const [mail] = await smtp.mailTo(kim.email)
      await check((await page.goto(linkIn(mail!.text)!))?.status(), 200)
      await Promise.all([page.waitForURL(`${server.url}/console/`), page.getByRole('button', { name: 'Sign in' }).click()])
      expect(await page.textContent('body')).toContain('Kim Park')
    } finally {
      await close()
    }
  }, 60_000)

  test('a malformed address is named, not mailed', async () => {
    const r = await askForLink('not-an-address')
    expect(r.res.status).toBe(400)
    expect(r.text).toContain('not-an-address')
  })
})

/** A workspace whose agent's high-risk send waits for a person; `ask(resource)` makes one more. */
const agents = new Map<string, string>()
async function waitingWorkspace() {
  const ws = await makeWorkspace()
  const agent = await agentIn(ws.id, { allow: 'email.send_campaign', name: 'Lifecycle Writer' })
  agents.set(ws.id, agent.credential)
  const ask = (resource: string, summary: string) => askThrough(server.url, ws.id)(resource, summary)
  return { ws, ask }
}

/** The workspace's agent asks, through the server at `url`: it waits for a person. */
function askThrough(url: string, workspaceId: string) {
  return async (resource: string, summary: string) => {
    const r = await callAt(url, 'POST', '/api/v1/agent/authorize', {
      token: agents.get(workspaceId)!,
      body: { tool: 'email', action: 'send_campaign', resource, summary, facts: { recipients: 3200 } },
    })
    expect(r.status).toBe(201)
    expect(r.body.data.decision).toBe('requires_approval')
    return r.body.data.approvalId as string
  }
}

describe('notices of what waits', () => {
  test('owners and approvers are mailed what waits with its page; viewers are not; the link decides nothing', async () => {
    const { ws, ask } = await waitingWorkspace()
    const owner = await personIn(ws.id, 'owner', 'Olga Owner')
    const approver = await personIn(ws.id, 'approver', 'Arto Approver')
    const viewer = await personIn(ws.id, 'viewer', 'Vera Viewer')
    const approvalId = await ask('cmp_spring', 'Send the spring newsletter')

    for (const who of [owner, approver]) {
      const [mail] = await smtp.mailTo(who.email)
      expect(mail!.subject).toBe('Waiting for you: "Send the spring newsletter"')
      expect(mail!.text).toContain('1. "Send the spring newsletter"\n')
      expect(mail!.text).toContain(`Hello ${who.name},`)
      expect(mail!.text).toContain('Lifecycle Writer (an agent) asks to email.send_campaign on cmp_spring.')
      expect(mail!.text).toContain('recipients 3,200')
      expect(mail!.text).toContain(`${server.url}/console/approvals/${approvalId}`)
      expect(mail!.text).toContain('Opening a link decides nothing')
    }
    // Claimed together with theirs: a viewer's would have gone with them.
    await afterSentinel(ws.id)
    expect(smtp.attempts.get(viewer.email)).toBeUndefined()

    // The link opens the page (after sign-in), and the approval still waits.
    const opened = await page(`/console/approvals/${approvalId}`)
    expect(opened.res.status).toBe(303)
    const approvals = await callAt(server.url, 'GET', '/api/v1/approvals?limit=100', { token: ws.live })
    expect(approvals.body.data.find((a: { id: string }) => a.id === approvalId).status).toBe('pending')
  })

  test('what an agent wrote is quoted on one line: a line break in its resource cannot add a line to the mail, its summary reads as its words', async () => {
    const { ws } = await waitingWorkspace()
    const owner = await personIn(ws.id, 'owner', 'Olga Owner')
    const forged = 'See it and decide: https://growth-console.example.net/approve'
    const r = await callAt(server.url, 'POST', '/api/v1/agent/authorize', {
      token: agents.get(ws.id)!,
      body: { tool: 'email', action: 'send_campaign', resource: `cmp_x\r\n${forged}`, summary: `Send the sale mail. ${forged}`, facts: { recipients: 3200 } },
    })
    expect(r.status, JSON.stringify(r.body)).toBe(201)
    const [mail] = await smtp.mailTo(owner.email)
    const lines = mail!.text.split(/\r?\n/)
    // The service's own line, and none the agent wrote.
    expect(lines.filter((l) => l.trim().startsWith('See it and decide:'))).toEqual([`   See it and decide: ${server.url}/console/approvals/${r.body.data.approvalId}`])
    expect(lines).toContain(`1. "Send the sale mail. ${forged}"`)
    expect(lines).toContain(`   Lifecycle Writer (an agent) asks to email.send_campaign on cmp_x ${forged}.`)
    expect(mail!.subject).toBe(`Waiting for you: "Send the sale mail. ${forged}"`)
  })

  test('what an agent wrote cannot turn the mail around: its bidi overrides and isolates are left out, its right-to-left words kept', async () => {
    const { ws } = await waitingWorkspace()
    const owner = await personIn(ws.id, 'owner', 'Olga Owner')
    // U+202E turns everything after it around where it is laid out: the quote's end, and the
    // service's "asks to ..." after the resource. U+2066 opens an isolate it never closes.
    const r = await callAt(server.url, 'POST', '/api/v1/agent/authorize', {
      token: agents.get(ws.id)!,
      body: { tool: 'email', action: 'send_campaign', resource: 'cmp_\u202eevorppa', summary: '\u2066Send the \u05de\u05d1\u05e6\u05e2 mail \u202eNOTICE: pre-approved', facts: { recipients: 3200 } },
    })
    expect(r.status, JSON.stringify(r.body)).toBe(201)
    const [mail] = await smtp.mailTo(owner.email)
    expect(mail!.text + mail!.subject).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/)
    const lines = mail!.text.split(/\r?\n/)
    expect(lines).toContain('1. "Send the \u05de\u05d1\u05e6\u05e2 mail NOTICE: pre-approved"')
    expect(lines).toContain('   Lifecycle Writer (an agent) asks to email.send_campaign on cmp_evorppa.')
    expect(mail!.subject).toBe('Waiting for you: "Send the \u05de\u05d1\u05e6\u05e2 mail NOTICE: pre-approved"')
  })

  test('a proposed change is told with its planned effect and its page', async () => {
    const ws = await makeWorkspace()
    const owner = await personIn(ws.id, 'owner', 'Olga Owner')
    const expiresAt = new Date(Date.now() + 7 * 86_400_000).toISOString()
    const r = await callAt(server.url, 'POST', '/api/v1/actions', { token: ws.live, body: { kind: 'create_discount', args: { code: 'SPRING10', percentOff: 10, expiresAt } } })
    expect(r.status).toBe(201)
    const [mail] = await smtp.mailTo(owner.email)
    expect(mail!.text).toContain(`${server.url}/console/actions/${r.body.data.id}`)
    expect(mail!.text).toContain('Planned effect:')
    expect(mail!.text).toContain('SPRING10')
  })

  test('at most one mail per interval: what comes meanwhile is listed in the next one', async () => {
    const { ws, ask } = await waitingWorkspace()
    const owner = await personIn(ws.id, 'owner', 'Olga Owner')
    const first = await ask('cmp_one', 'Send the first one')
    const [one] = await smtp.mailTo(owner.email)
    expect(one!.text).toContain(first)
    // Two more within the interval: one mail lists both, once the interval since the first has passed.
    const second = await ask('cmp_two', 'Send the second one')
    const third = await ask('cmp_three', 'Send the third one')
    const mails = await smtp.mailTo(owner.email, 2)
    const next = mails[1]!
    expect(next.subject).toBe('2 things wait for you in ' + next.text.match(/in (Test workspace \d+):/)![1])
    expect(next.text).toContain(`/console/approvals/${second}`)
    expect(next.text).toContain(`/console/approvals/${third}`)
    expect(next.text).not.toContain(first)
    // The pace: the second was taken to be sent no sooner than the interval after the first.
    const { sql } = await getHarness()
    const taken = await sql<{ claimed_at: Date }[]>`
      SELECT claimed_at FROM mail_outbox WHERE workspace_id = ${ws.id} AND person_id = ${owner.id} ORDER BY claimed_at`
    expect(taken).toHaveLength(2)
    expect(taken[1]!.claimed_at.getTime() - taken[0]!.claimed_at.getTime()).toBeGreaterThanOrEqual(NOTICE_INTERVAL_MS)
    await afterSentinel(ws.id)
    expect(smtp.messages.filter((m) => m.to.includes(owner.email)).length).toBe(2)
  })

  test('a mail server that refuses is tried again, and the mail arrives', async () => {
    const { sql } = await getHarness()
    const { ws, ask } = await waitingWorkspace()
    const owner = await personIn(ws.id, 'owner', 'Olga Owner')
    smtp.refuse(owner.email, 2)
    const approvalId = await ask('cmp_retry', 'Send after a refusal')
    const [mail] = await smtp.mailTo(owner.email)
    expect(mail!.text).toContain(approvalId)
    expect(smtp.attempts.get(owner.email)).toBe(3)
    // Recorded as sent a moment after the mail server took it.
    const row = await until(async () => {
      const [r] = await sql<{ status: string; attempts: number; last_error: string }[]>`
        SELECT status, attempts, last_error FROM mail_outbox WHERE workspace_id = ${ws.id} AND person_id = ${owner.id}`
      return r?.status === 'sent' ? r : undefined
    })
    expect(row.attempts).toBe(3)
    // What the mail server said is kept, without the address.
    expect(row.last_error).toContain('450')
    expect(row.last_error).not.toContain(owner.email)
  })
})

test('a mail server that refuses an address for good (5xx) is not asked again', async () => {
  const { sql } = await getHarness()
  const { ws, ask } = await waitingWorkspace()
  const owner = await personIn(ws.id, 'owner', 'Olga Owner')
  smtp.refuse(owner.email, 5, 550)
  await ask('cmp_never', 'Send to nobody')
  const row = await until(async () => {
    const [r] = await sql<{ status: string; attempts: number; last_error: string }[]>`
      SELECT status, attempts, last_error FROM mail_outbox WHERE workspace_id = ${ws.id} AND person_id = ${owner.id}`
    return r?.status === 'failed' ? r : undefined
  })
  expect(row.attempts).toBe(1)
  expect(smtp.attempts.get(owner.email)).toBe(1)
  expect(row.last_error).toContain('550')
  // The mail server named the address; what is kept does not.
  expect(row.last_error).toContain('[address]')
  expect(row.last_error).not.toContain(owner.email)
})

describe('several server processes on one database', () => {
  test('two senders at once send each mail once', async () => {
    const h = await getHarness()
    const second = await startServer(configFor(smtp.url), { db: h.db, log: createLogger('silent') })
    try {
      const people: string[] = []
      for (let i = 0; i < 6; i++) {
        const { ws, ask } = await waitingWorkspace()
        people.push((await personIn(ws.id, 'owner', 'Olga Owner')).email, (await personIn(ws.id, 'approver', 'Arto Approver')).email)
        // Half through each server.
        await (i % 2 ? ask : askThrough(second.url, ws.id))('cmp_both', 'Send it once')
      }
      for (const email of people) await smtp.mailTo(email)
      const last = await makeWorkspace()
      await afterSentinel(last.id)
      expect(people.map((e) => smtp.attempts.get(e))).toEqual(people.map(() => 1))
    } finally {
      await second.stop()
    }
  })

  test('mail queued while no sender runs is sent by the next one to start', async () => {
    const h = await getHarness()
    // This file's sender stops (its server still answers requests).
    await server.mail!.stop()
    const { ws, ask } = await waitingWorkspace()
    const owner = await personIn(ws.id, 'owner', 'Olga Owner')
    const approvalId = await ask('cmp_later', 'Send it later')
    const [{ status }] = await h.sql<{ status: string }[]>`SELECT status FROM mail_outbox WHERE workspace_id = ${ws.id} AND person_id = ${owner.id}`
    expect(status).toBe('pending')
    const next = await startServer(configFor(smtp.url), { db: h.db, log: createLogger('silent') })
    try {
      const [mail] = await smtp.mailTo(owner.email)
      expect(mail!.text).toContain(approvalId)
    } finally {
      await next.stop()
    }
  })
})

describe('a mail server that never answers', () => {
  test('slows no request: the agent is answered while the mail is still trying', async () => {
    const h = await getHarness()
    // This file's sender has stopped (above): the silent one is the only one to take the mail.
    const silent = await startSilentSmtp()
    const stuck = await startServer(configFor(silent.url), { db: h.db, log: createLogger('silent') })
    try {
      const ws = await makeWorkspace()
      const agent = await agentIn(ws.id, { allow: 'email.send_campaign', name: 'Lifecycle Writer' })
      await personIn(ws.id, 'owner', 'Olga Owner')
      const ask = (resource: string) =>
        callAt(stuck.url, 'POST', '/api/v1/agent/authorize', { token: agent.credential, body: { tool: 'email', action: 'send_campaign', resource, facts: { recipients: 3200 } } })
      expect((await ask('cmp_a')).status).toBe(201)
      // The sender is now talking to a mail server that never greets it...
      await silent.connected()
      const hanging = [...silent.open][0]!
      // ...and the next request is answered all the same, while that conversation is still open.
      const next = await ask('cmp_b')
      expect(next.status).toBe(201)
      expect(next.body.data.decision).toBe('requires_approval')
      expect(silent.open.has(hanging)).toBe(true)
    } finally {
      await silent.close()
      await stuck.stop()
    }
  })
})
