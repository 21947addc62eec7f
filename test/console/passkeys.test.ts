import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test'
import type { BrowserContext, CDPSession, Page } from 'playwright-core'
import { loadConfig } from '../../server/src/config.ts'
import { createLogger } from '../../server/src/core/log.ts'
import { listAudit } from '../../server/src/domain/audit.ts'
import { addPerson, removePerson } from '../../server/src/domain/people.ts'
import { signInLink } from '../../server/src/domain/sign-in.ts'
import { type RunningServer, startServer } from '../../server/src/server.ts'
import { getHarness, makeWorkspace } from '../harness.ts'
import { cspViolations, hasChromium, launchChromium, recordCspViolations, seriousA11yViolations, skipWithoutChromium } from '../support/browser.ts'
import { freePort } from '../support/ports.ts'
import { withinOneWindow } from '../support/clock-window.ts'

/**
 * Passkeys (WebAuthn) in the console. A server of this file's own, on the shared database, whose
 * CONSOLE_URL is `http://localhost:PORT/console` (browsers refuse an IP address as a passkey's
 * relying party). In headless Chromium with its virtual authenticator (CDP WebAuthn): a person
 * signs in with a link, adds a passkey, signs out, signs in with the passkey and lands in the inbox.
 * Over HTTP, with answers the virtual authenticator signed: a replayed answer, an answer to another
 * session's or sign-in page's challenge, a cloned passkey whose counter went back, a removed
 * person's passkey, a removed passkey, another person's passkey and a missing CSRF token are
 * refused; a browser without WebAuthn is told. Without Chromium, what needs no authenticator runs: the
 * harness's server at 127.0.0.1 says why it has no passkeys, and a malformed answer is a clear 400.
 */
skipWithoutChromium('the passkey browser tests')

let server: RunningServer
let base: string

beforeAll(async () => {
  const harness = await getHarness()
  for (let attempt = 0; ; attempt++) {
    const port = await freePort()
    const config = loadConfig({
      ...process.env, DATA_DIR: harness.dataDir, HOST: '127.0.0.1', PORT: String(port), CONSOLE_URL: `http://localhost:${port}/console`, WEBHOOK_WORKERS: '0',
      // The test is the proxy: X-Forwarded-For names another client when a test needs one.
      TRUSTED_PROXIES: '127.0.0.1',
    })
    try {
      server = await startServer(config, { db: harness.db, log: createLogger('silent') })
      base = `http://localhost:${port}`
      return
    } catch (err) {
      if (attempt >= 3) throw err
    }
  }
})
afterAll(() => server?.stop())
// Passkey sign-ins begun from one address are counted an hour (60): every request of this file comes
// from 127.0.0.1, so each test starts with that hour's count at nothing (runs of the suite add up),
// and has the rest of it, not the hour's last seconds.
beforeEach(async () => {
  await withinOneWindow()
  const { sql } = await getHarness()
  await sql`DELETE FROM rate_limit_counters WHERE workspace_id = '' AND credential_id LIKE 'signin:passkey:%'`
})

type Sent = { res: Response; text: string }

async function post(path: string, form: Record<string, string>, cookie?: string): Promise<Sent> {
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...(cookie ? { Cookie: cookie } : {}) },
    body: new URLSearchParams(form).toString(),
  })
  return { res, text: await res.text() }
}

async function get(path: string, cookie?: string, at = base): Promise<Sent> {
  const res = await fetch(`${at}${path}`, { redirect: 'manual', headers: cookie ? { Cookie: cookie } : {} })
  return { res, text: await res.text() }
}

const cookieOf = (res: Response, name: string) => res.headers.getSetCookie().find((c) => c.startsWith(`${name}=`))?.split(';')[0]
const csrfOf = (text: string) => /name="csrf" value="([^"]+)"/.exec(text)![1]!

/** A fresh sign-in page over HTTP: its form cookie and the same token for the form's field. */
async function signInForm(): Promise<{ cookie: string; csrf: string }> {
  const page = await get('/console/signin')
  expect(page.res.status).toBe(200)
  return { cookie: cookieOf(page.res, 'growth_signin')!, csrf: csrfOf(page.text) }
}

async function personOf(workspaceId: string, name: string) {
  const { sql } = await getHarness()
  return addPerson(sql, { workspaceId, email: `${crypto.randomUUID().slice(0, 8)}@example.com`, name, role: 'approver' })
}

/** A person signed in through a link over HTTP: the session cookie and its CSRF token. */
async function sessionOf(personId: string): Promise<{ cookie: string; csrf: string }> {
  const { sql } = await getHarness()
  const link = await signInLink(sql, { personId, consoleUrl: `${base}/console` })
  const path = new URL(link.url).pathname
  const page = await get(path)
  const redeemed = await post(path, { csrf: csrfOf(page.text) }, cookieOf(page.res, 'growth_signin'))
  expect(redeemed.res.status).toBe(303)
  const cookie = cookieOf(redeemed.res, 'growth_session')!
  const account = await get('/console/account', cookie)
  expect(account.res.status).toBe(200)
  return { cookie, csrf: csrfOf(account.text) }
}

/** One Chromium for the file; each test has its own page, with its own virtual authenticator. */
let browser: Promise<{ context: BrowserContext; close(): Promise<void> }> | undefined
afterAll(async () => {
  await (await browser)?.close()
})

/** A page with a virtual authenticator: a platform passkey holder that verifies its user at once. `close` closes the page. */
async function chromiumWithAuthenticator(): Promise<{ context: BrowserContext; page: Page; cdp: CDPSession; authenticatorId: string; close(): Promise<void> }> {
  browser ??= launchChromium()
  const { context } = await browser
  await context.clearCookies()
  const page = await context.newPage()
  const cdp = await context.newCDPSession(page)
  await cdp.send('WebAuthn.enable')
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  })
  return { context, page, cdp, authenticatorId, close: () => page.close() }
}

/** The passkeys' script enables its form's button once it finds WebAuthn in the browser. */
const passkeyFormReady = (page: Page) =>
  page.waitForFunction(() => (document.querySelector('form[data-passkey] button[type=submit]') as HTMLButtonElement | null)?.disabled === false)

type Json = Record<string, unknown>

/** The virtual authenticator's answer to options the console gave (the page's own WebAuthn helpers, on the console's origin). */
async function answer(page: Page, kind: 'register' | 'sign-in', options: Json): Promise<string> {
  return page.evaluate(
    async ([k, o]) => {
      const lib = (window as unknown as { SimpleWebAuthnBrowser: { startRegistration(a: unknown): Promise<unknown>; startAuthentication(a: unknown): Promise<unknown> } }).SimpleWebAuthnBrowser
      return JSON.stringify(await (k === 'register' ? lib.startRegistration({ optionsJSON: o }) : lib.startAuthentication({ optionsJSON: o })))
    },
    [kind, options] as const,
  )
}

async function signInOptions(form: { cookie: string; csrf: string }): Promise<Json> {
  const r = await post('/console/signin/passkey/options', { csrf: form.csrf }, form.cookie)
  expect(r.res.status).toBe(200)
  expect(r.res.headers.get('content-type')).toContain('application/json')
  return (JSON.parse(r.text) as { options: Json }).options
}

async function registrationOptions(session: { cookie: string; csrf: string }): Promise<Json> {
  const r = await post('/console/account/passkeys/options', { csrf: session.csrf }, session.cookie)
  expect(r.res.status).toBe(200)
  return (JSON.parse(r.text) as { options: Json }).options
}

describe('passkeys in Chromium', () => {
  test.skipIf(!hasChromium)(
    'sign in with a link, add a passkey, sign out, sign in with the passkey: the inbox; the audit list has the sign-in via passkey',
    async () => {
      const ws = await makeWorkspace()
      const person = await personOf(ws.id, 'Noor Haddad')
      const { sql } = await getHarness()
      const link = await signInLink(sql, { personId: person.id, consoleUrl: `${base}/console` })
      const { page, cdp, authenticatorId, close } = await chromiumWithAuthenticator()
      try {
        await recordCspViolations(page)
        const errors: string[] = []
        page.on('pageerror', (e) => errors.push(`page error: ${e.message}`))

        await page.goto(link.url)
        await Promise.all([page.waitForURL(`${base}/console/`), page.getByRole('button', { name: 'Sign in' }).click()])

        await page.getByRole('link', { name: 'Noor Haddad' }).click()
        await page.waitForURL(`${base}/console/account`)
        expect(await page.locator('main').innerText()).toContain('You have no passkey yet')
        const add = page.getByRole('button', { name: 'Add a passkey' })
        await passkeyFormReady(page)
        expect(await seriousA11yViolations(page)).toEqual([])
        await page.getByLabel('Name for the new passkey').fill('Work laptop')
        await Promise.all([page.waitForURL(`${base}/console/account?done=added#answer`), add.click()])
        const listed = await page.locator('main').innerText()
        expect(listed).toContain('Passkey added')
        expect(listed).toContain('Work laptop')
        expect(listed).toContain('not used yet')
        expect(await seriousA11yViolations(page)).toEqual([])
        const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId })
        expect(credentials).toHaveLength(1)
        expect(credentials[0]!.isResidentCredential).toBe(true)

        await Promise.all([page.waitForURL(`${base}/console/signin?done=signed-out`), page.getByRole('button', { name: 'Sign out' }).click()])
        const passkeyButton = page.getByRole('button', { name: 'Sign in with a passkey' })
        await passkeyFormReady(page)
        expect(await seriousA11yViolations(page)).toEqual([])
        await Promise.all([page.waitForURL(`${base}/console/`), passkeyButton.click()])
        expect(await page.locator('h1').innerText()).toBe('Inbox')
        expect(await page.locator('header').innerText()).toContain('Noor Haddad')

        // The counter moved on and is what the console keeps; the passkey shows when it was used.
        const after = await cdp.send('WebAuthn.getCredentials', { authenticatorId })
        expect(after.credentials[0]!.signCount).toBeGreaterThan(0)
        await page.goto(`${base}/console/account`)
        expect(await page.locator('main').innerText()).toContain('last used')
        // The browser is told which passkeys the person has (with their transports): this device's is not made twice.
        await passkeyFormReady(page)
        await page.getByRole('button', { name: 'Add a passkey' }).click()
        await page.getByText('This device already holds a passkey for you here').waitFor()
        expect((await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials).toHaveLength(1)

        const { entries } = await listAudit(sql, ws.id, 20)
        const signIns = entries.filter((e) => e.action === 'person.signed_in' && e.subject === person.id).map((e) => e.detail.via)
        expect(signIns).toEqual(['passkey', 'link'])
        expect(entries.some((e) => e.action === 'person.passkey_added' && e.detail.name === 'Work laptop')).toBe(true)
        expect(await cspViolations(page)).toEqual([])
        expect(errors).toEqual([])
      } finally {
        await close()
      }
    },
    60_000,
  )

  test.skipIf(!hasChromium)(
    'refused over HTTP: a replayed answer, an answer to another page\u2019s or session\u2019s challenge, a cloned passkey whose counter went back, a removed passkey, a removed person\u2019s passkey, no CSRF token; a browser without WebAuthn is told',
    async () => {
      const ws = await makeWorkspace()
      const { sql } = await getHarness()
      const { context, page, cdp, authenticatorId, close } = await chromiumWithAuthenticator()
      try {
        // A page of the console's origin, with its WebAuthn helpers, to ask the authenticator from.
        await page.goto(`${base}/console/signin`)
        const person = await personOf(ws.id, 'Ines Duarte')
        const s1 = await sessionOf(person.id)
        const s2 = await sessionOf(person.id)

        // No CSRF token: nothing is given, nothing registered or removed.
        expect((await post('/console/account/passkeys/options', {}, s1.cookie)).res.status).toBe(403)
        expect((await post('/console/signin/passkey/options', { csrf: 'forged' }, (await signInForm()).cookie)).res.status).toBe(403)

        // A registration's challenge belongs to the session that asked: another session's answer is refused...
        const made = await answer(page, 'register', await registrationOptions(s1))
        const elsewhere = await post('/console/account/passkeys', { csrf: s2.csrf, response: made, name: 'Phone' }, s2.cookie)
        expect(elsewhere.res.status).toBe(400)
        expect(elsewhere.text).toContain('asked for by another page or session')
        // ...as is the answer posted without the session's CSRF token...
        expect((await post('/console/account/passkeys', { response: made, name: 'Phone' }, s1.cookie)).res.status).toBe(403)
        // ...and the session that asked adds it; once.
        const added = await post('/console/account/passkeys', { csrf: s1.csrf, response: made, name: 'Phone' }, s1.cookie)
        expect(added.res.status).toBe(303)
        const twice = await post('/console/account/passkeys', { csrf: s1.csrf, response: made, name: 'Phone' }, s1.cookie)
        expect(twice.res.status).toBe(400)
        expect(twice.text).toContain('already used')
        const credentialId = (JSON.parse(made) as { id: string }).id
        const only = (options: Json) => ({ ...options, allowCredentials: [{ id: credentialId, type: 'public-key' }] })

        // A sign-in's challenge belongs to the sign-in page that asked for it.
        const formA = await signInForm()
        const formB = await signInForm()
        const signed = await answer(page, 'sign-in', only(await signInOptions(formA)))
        const otherPage = await post('/console/signin/passkey', { csrf: formB.csrf, response: signed }, formB.cookie)
        expect(otherPage.res.status).toBe(400)
        expect(otherPage.text).toContain('asked for by another page or session')
        expect(cookieOf(otherPage.res, 'growth_session')).toBeUndefined()
        expect((await post('/console/signin/passkey', { response: signed }, formA.cookie)).res.status).toBe(403)
        const signedIn = await post('/console/signin/passkey', { csrf: formA.csrf, response: signed }, formA.cookie)
        expect(signedIn.res.status).toBe(303)
        expect(signedIn.res.headers.get('location')).toBe('/console/')
        const session = cookieOf(signedIn.res, 'growth_session')!
        expect((await get('/console/', session)).res.status).toBe(200)
        // The same answer again: its challenge is used up.
        const replayed = await post('/console/signin/passkey', { csrf: formA.csrf, response: signed }, formA.cookie)
        expect(replayed.res.status).toBe(400)
        expect(replayed.text).toContain('This passkey answer was already used')
        expect(cookieOf(replayed.res, 'growth_session')).toBeUndefined()

        // A copy of the passkey whose counter went back (a cloned authenticator) is refused.
        const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId })
        const original = credentials.find((c) => Buffer.from(c.credentialId, 'base64').toString('base64url') === credentialId)!
        expect(original.signCount).toBeGreaterThan(0)
        await cdp.send('WebAuthn.removeVirtualAuthenticator', { authenticatorId })
        const clone = await cdp.send('WebAuthn.addVirtualAuthenticator', {
          options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
        })
        await cdp.send('WebAuthn.addCredential', { authenticatorId: clone.authenticatorId, credential: { ...original, signCount: 0 } })
        const formE = await signInForm()
        const cloned = await post('/console/signin/passkey', { csrf: formE.csrf, response: await answer(page, 'sign-in', only(await signInOptions(formE))) }, formE.cookie)
        expect(cloned.res.status).toBe(401)
        expect(cloned.text).toContain('did not check out')
        expect(cloned.text).toContain('counter')

        // A removed passkey signs no one in; nor does the passkey of a removed person.
        const other = await personOf(ws.id, 'Kofi Mensah')
        const kofi = await sessionOf(other.id)
        const kofiMade = await answer(page, 'register', await registrationOptions(kofi))
        expect((await post('/console/account/passkeys', { csrf: kofi.csrf, response: kofiMade }, kofi.cookie)).res.status).toBe(303)
        const kofiId = (JSON.parse(kofiMade) as { id: string }).id
        // A person removes only their own passkeys: another's id is not found, and stays.
        expect((await post(`/console/account/passkeys/${credentialId}/remove`, { csrf: kofi.csrf }, kofi.cookie)).res.status).toBe(404)
        expect((await get('/console/account', s1.cookie)).text).toContain('Phone')
        expect((await post(`/console/account/passkeys/${kofiId}/remove`, {}, kofi.cookie)).res.status).toBe(403)
        const removed = await post(`/console/account/passkeys/${kofiId}/remove`, { csrf: kofi.csrf }, kofi.cookie)
        expect(removed.res.status).toBe(303)
        const formC = await signInForm()
        const byRemovedPasskey = await post('/console/signin/passkey', {
          csrf: formC.csrf, response: await answer(page, 'sign-in', { ...(await signInOptions(formC)), allowCredentials: [{ id: kofiId, type: 'public-key' }] }),
        }, formC.cookie)
        expect(byRemovedPasskey.res.status).toBe(401)
        expect(byRemovedPasskey.text).toContain('This passkey is not registered with the console')

        await removePerson(sql, person.id)
        const formD = await signInForm()
        const byRemovedPerson = await post('/console/signin/passkey', { csrf: formD.csrf, response: await answer(page, 'sign-in', only(await signInOptions(formD))) }, formD.cookie)
        expect(byRemovedPerson.res.status).toBe(401)
        expect(byRemovedPerson.text).toContain('no longer belongs to the workspace')
        expect(cookieOf(byRemovedPerson.res, 'growth_session')).toBeUndefined()

        // A browser without WebAuthn: the button stays disabled and the page says why, and what to do instead.
        const bare = await context.newPage()
        await bare.addInitScript(() => Object.defineProperty(window, 'PublicKeyCredential', { value: undefined, configurable: true }))
        await bare.goto(`${base}/console/signin`)
        await bare.getByText('This browser cannot use passkeys (it has no WebAuthn). Use a current browser, or sign in with a link.').waitFor()
        expect(await bare.getByRole('button', { name: 'Sign in with a passkey' }).isDisabled()).toBe(true)
      } finally {
        await close()
      }
    },
    60_000,
  )
})

describe('passkeys over HTTP', () => {
  test('a passkey is added only within 30 minutes of signing in; later, the page signs out and back in to itself', async () => {
    const ws = await makeWorkspace()
    const { sql } = await getHarness()
    const person = await personOf(ws.id, 'Lea Novak')
    const fresh = await sessionOf(person.id)
    // Just signed in: the form is offered and the options are given.
    expect((await get('/console/account', fresh.cookie)).text).toContain('data-passkey="register"')
    expect((await post('/console/account/passkeys/options', { csrf: fresh.csrf }, fresh.cookie)).res.status).toBe(200)

    // The same session 31 minutes after it signed in (an unlocked computer, a taken cookie).
    await sql`UPDATE console_sessions SET created_at = created_at - interval '31 minutes' WHERE person_id = ${person.id}`
    const page = await get('/console/account', fresh.cookie)
    expect(page.res.status).toBe(200)
    expect(page.text).not.toContain('data-passkey="register"')
    expect(page.text).toContain('A passkey is added within 30 minutes of signing in, and you signed in ')
    expect(page.text).toContain('<input type="hidden" name="next" value="/console/account">')
    const options = await post('/console/account/passkeys/options', { csrf: fresh.csrf }, fresh.cookie)
    expect(options.res.status).toBe(403)
    expect(JSON.parse(options.text)).toEqual({ message: 'A passkey is added within 30 minutes of signing in, and this session signed in longer ago: sign out, sign in again and add it then.' })
    // An answer to options given before is refused too, before anything is read of it.
    const late = await post('/console/account/passkeys', { csrf: fresh.csrf, response: '{}', name: 'Laptop' }, fresh.cookie)
    expect(late.res.status).toBe(403)
    expect(late.text).toContain('this session signed in longer ago')
    const [{ n }] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM passkeys WHERE person_id = ${person.id}`
    expect(n).toBe(0)

    // Its button signs out and goes to the sign-in page, which then goes on to the account page.
    const out = await post('/console/signout', { csrf: fresh.csrf, next: '/console/account' }, fresh.cookie)
    expect(out.res.status).toBe(303)
    expect(out.res.headers.get('location')).toBe('/console/signin?next=%2Fconsole%2Faccount')
    expect((await get('/console/account', fresh.cookie)).res.status).toBe(303)
    const signInPage = await get(out.res.headers.get('location')!)
    const next = cookieOf(signInPage.res, 'growth_next')!
    const link = await signInLink(sql, { personId: person.id, consoleUrl: `${base}/console` })
    const path = new URL(link.url).pathname
    const linkPage = await get(path, next)
    const redeemed = await post(path, { csrf: csrfOf(linkPage.text) }, `${cookieOf(linkPage.res, 'growth_signin')}; ${next}`)
    expect(redeemed.res.status).toBe(303)
    expect(redeemed.res.headers.get('location')).toBe('/console/account')
    const again = cookieOf(redeemed.res, 'growth_session')!
    expect((await get('/console/account', again)).text).toContain('data-passkey="register"')
    // A next that is not a page of this console is forgotten: the sign-out goes to the plain sign-in page.
    const other = await sessionOf(person.id)
    const away = await post('/console/signout', { csrf: other.csrf, next: 'https://elsewhere.example/' }, other.cookie)
    expect(away.res.headers.get('location')).toBe('/console/signin?done=signed-out')
  })

  test('passkey sign-ins begun from one address are bounded, 60 an hour, saying when to try again; another address goes on', async () => {
    const form = await signInForm()
    const begin = (address: string) =>
      fetch(`${base}/console/signin/passkey/options`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: form.cookie, 'X-Forwarded-For': address },
        body: `csrf=${form.csrf}`,
      })
    for (let i = 0; i < 60; i++) {
      const r = await begin('198.51.100.7')
      expect({ i, status: r.status }).toEqual({ i, status: 200 })
      await r.arrayBuffer()
    }
    const refused = await begin('198.51.100.7')
    expect(refused.status).toBe(429)
    expect(refused.headers.get('content-type')).toContain('application/json')
    const wait = Number(refused.headers.get('retry-after'))
    expect(wait).toBeGreaterThan(0)
    expect(wait).toBeLessThanOrEqual(3600)
    // What the page's script shows the person (passkeys.js reads `message`).
    const said = /^Too many passkey sign-ins from this network this hour \(at most 60\): try again in (\d+) minutes?, or sign in with a link\.$/.exec(((await refused.json()) as { message: string }).message)
    expect(said).not.toBeNull()
    // The wait in minutes, as Retry-After says it in seconds (read a moment apart: a minute's edge may fall between).
    expect(Number(said![1]) - Math.ceil(wait / 60)).toBeOneOf([0, 1])
    const other = await begin('198.51.100.8')
    expect(other.status).toBe(200)
    expect(((await other.json()) as { options: { challenge?: string } }).options.challenge).toBeTruthy()
  })

  test('at an IP address the console has no passkeys, and says what the operator sets', async () => {
    const { url } = await getHarness()
    const page = await get('/console/signin', undefined, url)
    expect(page.res.status).toBe(200)
    expect(page.text).toContain('Passkeys are off on this server')
    expect(page.text).toContain('CONSOLE_URL')
    expect(page.text).not.toContain('data-passkey')
    // No form on the page here (no mail, no passkeys): the form cookie's token is the one a form would carry.
    const cookie = cookieOf(page.res, 'growth_signin')!
    const form = { cookie, csrf: cookie.split('=')[1]! }
    const r = await fetch(`${url}/console/signin/passkey/options`, {
      method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: form.cookie }, body: `csrf=${form.csrf}`,
    })
    expect(r.status).toBe(409)
    expect(((await r.json()) as { message: string }).message).toContain('IP address')
  })

  test('an answer that is not one is a clear 400, never a crash; without a session the account page asks to sign in', async () => {
    const form = await signInForm()
    for (const response of ['', 'not json', '{"id":"x","response":{"clientDataJSON":"%%%"}}', '[1]', '{"response":{}}']) {
      const r = await post('/console/signin/passkey', { csrf: form.csrf, response }, form.cookie)
      expect({ response, status: r.res.status }).toEqual({ response, status: 400 })
      expect(r.text).toContain('The browser did not send a passkey\u2019s answer')
    }
    const unknown = await post('/console/signin/passkey', {
      csrf: form.csrf,
      response: JSON.stringify({ id: 'x', rawId: 'x', type: 'public-key', response: { clientDataJSON: Buffer.from(JSON.stringify({ type: 'webauthn.get', challenge: 'never-given', origin: base })).toString('base64url') } }),
    }, form.cookie)
    expect(unknown.res.status).toBe(400)
    expect(unknown.text).toContain('a question the console did not ask')
    // An answer to a real challenge whose user handle is not one (a number, another shape): no such passkey, never a crash.
    for (const userHandle of [42, 'bm90LWEtaGFuZGxl']) {
      const challenge = ((await signInOptions(form)) as { challenge: string }).challenge
      const clientDataJSON = Buffer.from(JSON.stringify({ type: 'webauthn.get', challenge, origin: base })).toString('base64url')
      const r = await post('/console/signin/passkey', { csrf: form.csrf, response: JSON.stringify({ id: 'x', rawId: 'x', type: 'public-key', response: { clientDataJSON, userHandle } }) }, form.cookie)
      expect({ userHandle, status: r.res.status }).toEqual({ userHandle, status: 401 })
      expect(r.text).toContain('This passkey is not registered with the console')
    }
    const account = await get('/console/account')
    expect(account.res.status).toBe(303)
    expect(account.res.headers.get('location')).toBe('/console/signin?next=%2Fconsole%2Faccount')
    expect((await post('/console/account/passkeys/options', {})).res.status).toBe(401)
  })
})
