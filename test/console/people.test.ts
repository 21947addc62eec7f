import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadConfig } from '../../server/src/config.ts'
import { createLogger } from '../../server/src/core/log.ts'
import { listAudit } from '../../server/src/domain/audit.ts'
import { addPerson } from '../../server/src/domain/people.ts'
import { signInLink } from '../../server/src/domain/sign-in.ts'
import { type RunningServer, startServer } from '../../server/src/server.ts'
import { getHarness, makeWorkspace } from '../harness.ts'
import { consoleAt, csrfOf, fetchConsole, signInAs } from '../support/console-session.ts'
import { type ServerProcess, startServerProcess } from '../support/server-process.ts'
import { type SmtpReceiver, startSmtpReceiver } from '../support/smtp-receiver.ts'

/**
 * /console/people over HTTP: every signed-in person reads the list; only an owner invites (the
 * sign-in link shown once when the server sends no mail, mailed when it does), changes a role (the
 * person's next POST obeys it) and removes (their session ends at once), each in the audit list with
 * the person; the last owner can be neither removed nor demoted; an approver and a viewer posting
 * the forms by hand are refused on the server; another workspace's person is not found. On
 * PostgreSQL, a server process logging at debug level: a shown link is in none of its log lines.
 */

const linkIn = (text: string) => /(https?:\/\/[^\s"<]+\/console\/signin\/[^\s"<]+)/.exec(text)?.[1]
const unique = (who: string) => `${who}-${crypto.randomUUID().slice(0, 8)}@example.com`
const personIdIn = (text: string, email: string) => new RegExp(`${email.replace(/[.]/g, '\\.')}[\\s\\S]*?<code>(per_[0-9A-Za-z]+)</code>`).exec(text)?.[1]

/** Opens a sign-in link and confirms it with its one click: the session cookie, or the refusal. */
async function redeem(link: string, fetcher = fetchConsole) {
  const path = new URL(link).pathname
  const page = await fetcher(path)
  const form = page.res.headers.getSetCookie().find((c) => c.startsWith('growth_signin='))?.split(';')[0]
  const confirmed = await fetcher(path, { cookie: form, form: { csrf: csrfOf(page.text) ?? '' } })
  const cookie = confirmed.res.headers.getSetCookie().find((c) => c.startsWith('growth_session='))?.split(';')[0]
  return { status: confirmed.res.status, cookie, text: confirmed.text }
}

async function invite(owner: { cookie: string; csrf: string }, fields: Record<string, string>) {
  return fetchConsole('/console/people', { cookie: owner.cookie, form: { csrf: owner.csrf, ...fields } })
}

describe('the console: people', () => {
  test('an owner invites a person (the link shown once signs them in), changes their role (their next POST obeys it) and removes them (their session ends at once)', async () => {
    const { sql } = await getHarness()
    const ws = await makeWorkspace()
    const owner = await signInAs(ws.id, 'owner', 'Mara Owner')
    const email = unique('lin')
    const invited = await invite(owner, { email: email.toUpperCase(), name: 'Lin Park', role: 'viewer' })
    expect(invited.res.status, invited.text).toBe(200)
    expect(invited.res.headers.get('cache-control')).toBe('no-store')
    expect(invited.text).toContain('only time it is shown')
    expect(invited.text).toContain(`(${email}) is now a viewer.`)
    const link = linkIn(invited.text)!
    expect(link).toBeDefined()

    const list = await fetchConsole('/console/people', { cookie: owner.cookie })
    expect(list.res.status).toBe(200)
    expect(list.text).toContain('Lin Park')
    expect(list.text).toContain(email)
    expect(list.text).not.toContain(link)
    expect(list.text).not.toContain(new URL(link).pathname)
    const id = personIdIn(list.text, email)!
    expect(id).toStartWith('per_')

    const lin = await redeem(link)
    expect(lin.status).toBe(303)
    const linPage = await fetchConsole('/console/people', { cookie: lin.cookie })
    expect(linPage.res.status).toBe(200)
    expect(linPage.text).toContain('<strong>Lin Park</strong> (you)')
    const linCsrf = csrfOf(linPage.text)!
    // A viewer: an invitation is refused; made an owner, the very next one is done.
    expect((await invite({ cookie: lin.cookie!, csrf: linCsrf }, { email: unique('x'), name: 'X', role: 'viewer' })).res.status).toBe(403)
    const changed = await fetchConsole(`/console/people/${id}/role`, { cookie: owner.cookie, form: { csrf: owner.csrf, role: 'owner' } })
    expect(changed.res.status).toBe(303)
    // The notice names who, and their new role.
    expect(changed.res.headers.get('location')).toBe(`/console/people?done=role&person=${id}#answer`)
    expect((await fetchConsole(changed.res.headers.get('location')!, { cookie: owner.cookie })).text).toContain('Lin Park is now an owner: their next request obeys it.')
    expect((await fetchConsole('/console/people?done=role', { cookie: owner.cookie })).text).toContain('Role changed')
    // A person of another workspace named in the link is not named on this one's page.
    const elsewhere = await makeWorkspace()
    const stranger = await addPerson((await getHarness()).sql, { workspaceId: elsewhere.id, email: `stranger-${crypto.randomUUID().slice(0, 8)}@example.com`, name: 'Sven Stranger', role: 'viewer' })
    const other = await fetchConsole(`/console/people?done=role&person=${stranger.id}`, { cookie: owner.cookie })
    expect(other.text).toContain('Role changed: their next request obeys it.')
    expect(other.text).not.toContain('Sven Stranger')
    const yara = await invite({ cookie: lin.cookie!, csrf: linCsrf }, { email: unique('y'), name: 'Yara Lopes', role: 'approver' })
    expect(yara.res.status).toBe(200)
    expect(yara.text).toContain('is now an approver.')

    const removed = await fetchConsole(`/console/people/${id}/remove`, { cookie: owner.cookie, form: { csrf: owner.csrf } })
    expect(removed.res.status).toBe(303)
    const after = await fetchConsole('/console/people', { cookie: lin.cookie })
    expect(after.res.status).toBe(303)
    expect(after.res.headers.get('location')).toBe('/console/signin?next=%2Fconsole%2Fpeople')
    expect((await fetchConsole('/console/people', { cookie: owner.cookie })).text).not.toContain(email)

    const audit = (await listAudit(sql, ws.id, 100)).entries
    const mine = audit.filter((e) => e.subject === id)
    expect(mine.map((e) => e.action)).toEqual(expect.arrayContaining(['person.added', 'person.link_created', 'person.role_changed', 'person.removed']))
    for (const action of ['person.added', 'person.link_created', 'person.role_changed', 'person.removed']) {
      expect({ action, actor: mine.find((e) => e.action === action)?.actor }).toEqual({ action, actor: { kind: 'person', id: owner.person.id, name: 'Mara Owner' } })
    }
    expect(mine.find((e) => e.action === 'person.role_changed')!.detail).toMatchObject({ from: 'viewer', to: 'owner' })
    expect(JSON.stringify(audit)).not.toContain(new URL(link).pathname.split('/').pop()!)
  }, 60_000)

  test('the last owner can be neither removed nor demoted (409 naming why); with a second owner, they can', async () => {
    const ws = await makeWorkspace()
    const owner = await signInAs(ws.id, 'owner', 'Mara Owner')
    const demote = await fetchConsole(`/console/people/${owner.person.id}/role`, { cookie: owner.cookie, form: { csrf: owner.csrf, role: 'approver' } })
    expect(demote.res.status).toBe(409)
    expect(demote.text).toContain('Mara Owner is the only owner of this workspace')
    const remove = await fetchConsole(`/console/people/${owner.person.id}/remove`, { cookie: owner.cookie, form: { csrf: owner.csrf } })
    expect(remove.res.status).toBe(409)
    expect(remove.text).toContain('a workspace keeps at least one owner')
    expect((await fetchConsole('/console/people', { cookie: owner.cookie })).text).toMatch(/Mara Owner[\s\S]*?<dt>Role<\/dt><dd>owner<\/dd>/)

    const second = await signInAs(ws.id, 'owner', 'Sam Second')
    // One's own role form asks first (console.js data-confirm); another person's does not.
    const list = (await fetchConsole('/console/people', { cookie: owner.cookie })).text
    expect(list).toContain(`<form method="post" action="/console/people/${owner.person.id}/role" data-confirm="Change your own role? Once you are not an owner`)
    expect(list).toContain(`<form method="post" action="/console/people/${second.person.id}/role"><input`)
    const own = await fetchConsole(`/console/people/${owner.person.id}/role`, { cookie: owner.cookie, form: { csrf: owner.csrf, role: 'viewer' } })
    expect(own.res.status).toBe(303)
    // What follows says it was one's own role, as the reader now is.
    expect((await fetchConsole(own.res.headers.get('location')!, { cookie: owner.cookie })).text).toContain('Your role changed: the console now shows what your new role may do.')
    const last = await fetchConsole(`/console/people/${second.person.id}/remove`, { cookie: second.cookie, form: { csrf: second.csrf } })
    expect(last.res.status).toBe(409)
  }, 60_000)

  test('a lost or expired invitation: an owner makes a new link until the person first signs in, and never after', async () => {
    const { sql } = await getHarness()
    const ws = await makeWorkspace()
    const owner = await signInAs(ws.id, 'owner', 'Mara Owner')
    const email = unique('ines')
    const invited = await invite(owner, { email, name: 'Ines Duarte', role: 'approver' })
    const first = linkIn(invited.text)!
    const list = await fetchConsole('/console/people', { cookie: owner.cookie })
    const id = personIdIn(list.text, email)!
    // Not signed in yet: said on the card, with the form; the owner's own card (signed in) has none.
    expect(list.text).toMatch(new RegExp(`Ines Duarte[\\s\\S]*?<dt>Last signed in</dt><dd>Not yet</dd>[\\s\\S]*?action="/console/people/${id}/link"`))
    expect(list.text).not.toContain(`action="/console/people/${owner.person.id}/link"`)
    expect(list.text).toMatch(/Make a new sign-in link<span[^>]*> for Ines Duarte<\/span>/)

    // No CSRF token: nothing made.
    const links = async () => (await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM sign_in_links WHERE workspace_id = ${ws.id} AND person_id = ${id}`)[0]!.n
    expect(await links()).toBe(1)
    expect((await fetchConsole(`/console/people/${id}/link`, { cookie: owner.cookie, form: {} })).res.status).toBe(403)
    expect(await links()).toBe(1)

    const shown = await fetchConsole(`/console/people/${id}/link`, { cookie: owner.cookie, form: { csrf: owner.csrf } })
    expect(shown.posted?.status).toBe(303)
    expect(shown.res.status, shown.text).toBe(200)
    expect(shown.text).toContain('<h1>New sign-in link</h1>')
    expect(shown.text).toContain(`A new sign-in link for Ines Duarte (${email}), an approver who has not signed in yet.`)
    const second = linkIn(shown.text)!
    expect(second).toBeDefined()
    expect(second).not.toBe(first)
    expect(await links()).toBe(2)
    const made = (await listAudit(sql, ws.id, 100)).entries.filter((e) => e.subject === id && e.action === 'person.link_created')
    expect(made.map((e) => e.actor)).toEqual([{ kind: 'person', id: owner.person.id, name: 'Mara Owner' }, { kind: 'person', id: owner.person.id, name: 'Mara Owner' }])

    // The new link signs her in; from then on the card says when, offers no link, and a POST is refused.
    const ines = await redeem(second)
    expect(ines.status).toBe(303)
    const after = await fetchConsole('/console/people', { cookie: owner.cookie })
    expect(after.text).toMatch(/Ines Duarte[\s\S]*?<dt>Last signed in<\/dt><dd><time datetime="20/)
    expect(after.text).not.toContain(`action="/console/people/${id}/link"`)
    const refused = await fetchConsole(`/console/people/${id}/link`, { cookie: owner.cookie, form: { csrf: owner.csrf } })
    expect(refused.res.status).toBe(409)
    expect(refused.text).toContain('Ines Duarte has signed in already (last at ')
    expect(refused.text).toMatch(/so a new link is theirs to ask for, not another person(&#39;|&#x27;|')s to make/)
    expect(await links()).toBe(2)

    // An approver may not; a person of another workspace is not found.
    const approver = await fetchConsole(`/console/people/${id}/link`, { cookie: ines.cookie, form: { csrf: csrfOf((await fetchConsole('/console/people', { cookie: ines.cookie })).text) ?? '' } })
    expect(approver.res.status).toBe(403)
    const other = await makeWorkspace()
    const stranger = await addPerson(sql, { workspaceId: other.id, email: unique('sven'), name: 'Sven Stranger', role: 'viewer' })
    const elsewhere = await fetchConsole(`/console/people/${stranger.id}/link`, { cookie: owner.cookie, form: { csrf: owner.csrf } })
    expect(elsewhere.res.status).toBe(404)
    expect((await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM sign_in_links WHERE person_id = ${stranger.id}`)[0]!.n).toBe(0)
  }, 60_000)

  test('a sign-in that commits while an owner\'s new link is being made: the link is refused (409), none made for a person who has signed in', async () => {
    const { sql } = await getHarness()
    const ws = await makeWorkspace()
    const person = await addPerson(sql, { workspaceId: ws.id, email: unique('rui'), name: 'Rui Prado', role: 'approver' })
    // The sign-in's transaction has updated the person's row (markSignedIn) and not committed yet.
    let commit!: () => void
    let updated!: () => void
    const didUpdate = new Promise<void>((r) => (updated = r))
    const signIn = sql.begin(async (tx) => {
      await tx`UPDATE people SET signed_in_at = now() WHERE id = ${person.id}`
      updated()
      await new Promise<void>((r) => (commit = r))
    })
    await didUpdate
    const made = signInLink(sql, { personId: person.id, consoleUrl: 'http://console.test', beforeFirstSignIn: true }).then(
      () => 'made',
      (error: Error) => error.message,
    )
    await Bun.sleep(150)
    commit()
    await signIn
    expect(await made).toStartWith('Rui Prado has signed in already (last at ')
    expect((await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM sign_in_links WHERE person_id = ${person.id}`)[0]!.n).toBe(0)
    // Without the rule (an operator's link), the same person gets one.
    await signInLink(sql, { personId: person.id, consoleUrl: 'http://console.test' })
    expect((await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM sign_in_links WHERE person_id = ${person.id}`)[0]!.n).toBe(1)
  }, 30_000)

  test('bad input is a 400 naming what was wrong; another workspace\'s person is not found; no CSRF token, nothing done', async () => {
    const ws = await makeWorkspace()
    const owner = await signInAs(ws.id, 'owner', 'Mara Owner')
    const badEmail = await invite(owner, { email: 'not-an-address', name: 'Lin', role: 'viewer' })
    expect(badEmail.res.status).toBe(400)
    expect(badEmail.text).toContain('email must be an address')
    // What was typed stays in the form, to be mended rather than typed again.
    expect(badEmail.text).toContain('name="email" type="email" autocomplete="off" required value="not-an-address" aria-describedby="invite-error"')
    expect(badEmail.text).toContain('value="Lin"')
    const badRole = await invite(owner, { email: unique('lin'), name: 'Lin', role: 'boss' })
    expect(badRole.res.status).toBe(400)
    expect(badRole.text).toContain('role must be one of owner, approver, viewer')
    const noName = await invite(owner, { email: unique('lin'), name: ' ', role: 'viewer' })
    expect(noName.res.status).toBe(400)
    expect(noName.text).toContain('A person needs a name')
    // An address taken is said with the person who has it, as the page lists them (no workspace or person ids), in any case of letters.
    const again = await invite(owner, { email: owner.person.email.toUpperCase(), name: 'Twin', role: 'viewer' })
    expect(again.res.status).toBe(400)
    // Your own address is said to be yours (the only owner's card has no role form to point to).
    expect(again.text).toContain(`${owner.person.email} is your own address here: an address names one person.`)
    const kenji = unique('kenji')
    expect((await invite(owner, { email: kenji, name: 'Kenji Sato', role: 'viewer' })).res.status).toBe(200)
    const taken = await invite(owner, { email: kenji, name: 'Kenji Again', role: 'approver' })
    expect(taken.res.status).toBe(400)
    expect(taken.text).toContain(`${kenji} is already the address of Kenji Sato, a viewer here: an address names one person, so change their role below instead.`)
    expect(again.text).not.toMatch(/role="alert" id="invite-error">[^<]*(ws_|per_)/)
    expect(again.text).toContain('value="Twin"')
    const roleWrong = await fetchConsole(`/console/people/${owner.person.id}/role`, { cookie: owner.cookie, form: { csrf: owner.csrf, role: 'king' } })
    expect(roleWrong.res.status).toBe(400)
    expect(roleWrong.text).toContain('role must be one of')
    const idWrong = await fetchConsole('/console/people/agt_123/remove', { cookie: owner.cookie, form: { csrf: owner.csrf } })
    expect(idWrong.res.status).toBe(400)
    expect(idWrong.text).toContain('A person id starts with per_')
    const noCsrf = await fetchConsole('/console/people', { cookie: owner.cookie, form: { email: unique('z'), name: 'Z', role: 'viewer' } })
    expect(noCsrf.res.status).toBe(403)

    const other = await makeWorkspace()
    const theirs = await signInAs(other.id, 'viewer', 'Theo Other')
    const role = await fetchConsole(`/console/people/${theirs.person.id}/role`, { cookie: owner.cookie, form: { csrf: owner.csrf, role: 'owner' } })
    expect(role.res.status).toBe(404)
    const remove = await fetchConsole(`/console/people/${theirs.person.id}/remove`, { cookie: owner.cookie, form: { csrf: owner.csrf } })
    expect(remove.res.status).toBe(404)
    expect((await fetchConsole('/console/people', { cookie: theirs.cookie })).res.status).toBe(200)
    expect((await fetchConsole('/console/people', { cookie: owner.cookie })).text).not.toContain('Theo Other')
  }, 60_000)

  for (const role of ['approver', 'viewer'] as const) {
    test(`${role === 'approver' ? 'an' : 'a'} ${role} reads the list, and posting the invite, role or remove form by hand is refused on the server: nothing changes`, async () => {
      const { sql } = await getHarness()
      const ws = await makeWorkspace()
      const owner = await signInAs(ws.id, 'owner', 'Mara Owner')
      const me = await signInAs(ws.id, role, `Pat ${role}`)
      const page = await fetchConsole('/console/people', { cookie: me.cookie })
      expect(page.res.status).toBe(200)
      expect(page.text).toContain('Mara Owner')
      expect(page.text).toContain(owner.person.email)
      expect(page.text).not.toContain('action="/console/people"')
      expect(page.text).not.toContain('/role"')
      expect(page.text).not.toContain('/remove"')
      const before = (await listAudit(sql, ws.id, 100)).entries.length
      const email = unique('x')
      const posts = [
        await invite(me, { email, name: 'Xavi', role: 'owner' }),
        await fetchConsole(`/console/people/${me.person.id}/role`, { cookie: me.cookie, form: { csrf: me.csrf, role: 'owner' } }),
        await fetchConsole(`/console/people/${owner.person.id}/role`, { cookie: me.cookie, form: { csrf: me.csrf, role: 'viewer' } }),
        await fetchConsole(`/console/people/${owner.person.id}/remove`, { cookie: me.cookie, form: { csrf: me.csrf } }),
      ]
      for (const p of posts) {
        expect(p.res.status).toBe(403)
        expect(p.text).toContain('an owner invites them, changes their roles and removes them')
      }
      expect(linkIn(posts[0]!.text)).toBeUndefined()
      expect((await listAudit(sql, ws.id, 100)).entries.length).toBe(before)
      const now = (await fetchConsole('/console/people', { cookie: owner.cookie })).text
      expect(now).not.toContain(email)
      expect(now).toMatch(new RegExp(`Pat ${role}[\\s\\S]*?<dt>Role</dt><dd>${role}</dd>`))
    }, 60_000)
  }
})

describe('the console: people, with mail', () => {
  let smtp: SmtpReceiver
  let server: RunningServer
  beforeAll(async () => {
    const h = await getHarness()
    smtp = await startSmtpReceiver()
    const config = loadConfig({ ...process.env, DATA_DIR: mkdtempSync(join(tmpdir(), 'growth-people-')), PORT: '0', HOST: '127.0.0.1', WEBHOOK_WORKERS: '0', SMTP_URL: smtp.url, MAIL_FROM: 'Growth <growth@example.com>' })
    server = await startServer(config, { db: h.db, log: createLogger(process.env.TEST_LOG ? 'info' : 'silent') })
  })
  afterAll(async () => {
    await server?.stop()
    await smtp?.close()
  })

  test('an invitation mails the sign-in link (never shown on the page), and it signs the invitee in', async () => {
    const ws = await makeWorkspace()
    const owner = await signInAs(ws.id, 'owner', 'Mara Owner')
    const at = consoleAt(server.url)
    expect((await at('/console/people', { cookie: owner.cookie })).text).toContain('A sign-in link is mailed to them')
    const email = unique('noor')
    const invited = await at('/console/people', { cookie: owner.cookie, form: { csrf: owner.csrf, email, name: 'Noor Haddad', role: 'approver' } })
    expect(invited.res.status, invited.text).toBe(200)
    expect(invited.text).toContain(`A sign-in link is on its way to ${email}`)
    expect(linkIn(invited.text)).toBeUndefined()

    const [mail] = await smtp.mailTo(email)
    expect(mail!.text).toContain('Hello Noor Haddad,')
    // An invitation, in its own words: not "a link you asked for", and naming who invited.
    const [{ name }] = await (await getHarness()).sql<{ name: string }[]>`SELECT name FROM workspaces WHERE workspace_id = ${ws.id}`
    expect(mail!.subject).toBe(`Mara Owner invited you to ${name}`)
    expect(mail!.text).toContain(`Mara Owner added you to the console of ${name} as an approver: you decide what waits for a person`)
    expect(mail!.text).toContain(`If it has expired, ask for a new one with this address at ${server.url}/console/signin.`)
    expect(mail!.text).not.toContain('did not ask for it')
    const link = linkIn(mail!.text)!
    expect(link).toStartWith(`${server.url}/console/signin/`)
    const noor = await redeem(link, at)
    expect(noor.status).toBe(303)
    // Opened again: refused at once, and this server mails links, so the way to another is the sign-in page.
    const twice = await at(new URL(link).pathname)
    expect(twice.res.status).toBe(410)
    expect(twice.text).toContain('This sign-in link was already used: a link works once. Ask for a new one on the sign-in page.')
    expect(twice.text).toContain('<a href="/console/signin">Go to the sign-in page</a>')
    const page = await at('/console/people', { cookie: noor.cookie })
    expect(page.res.status).toBe(200)
    expect(page.text).toContain('<strong>Noor Haddad</strong> (you)')
    expect(page.text).toContain('approver')
    expect((await at('/console/people', { cookie: owner.cookie })).text).not.toContain(new URL(link).pathname)
  }, 60_000)

  test('a new link for an invitee who has not signed in is mailed to them, never shown', async () => {
    const ws = await makeWorkspace()
    const owner = await signInAs(ws.id, 'owner', 'Mara Owner')
    const at = consoleAt(server.url)
    const email = unique('omar')
    expect((await at('/console/people', { cookie: owner.cookie, form: { csrf: owner.csrf, email, name: 'Omar Said', role: 'viewer' } })).res.status).toBe(200)
    const list = await at('/console/people', { cookie: owner.cookie })
    const id = personIdIn(list.text, email)!
    expect(list.text).toMatch(/Mail a new sign-in link<span[^>]*> for Omar Said<\/span>/)
    const again = await at(`/console/people/${id}/link`, { cookie: owner.cookie, form: { csrf: owner.csrf } })
    expect(again.res.status, again.text).toBe(200)
    expect(again.text).toContain(`A new sign-in link for Omar Said (${email}), a viewer who has not signed in yet. A sign-in link is on its way to ${email}`)
    expect(linkIn(again.text)).toBeUndefined()
    const mails = await smtp.mailTo(email, 2)
    expect(mails.map((m) => m.subject)).toEqual(Array(2).fill(mails[0]!.subject))
    expect(mails[1]!.subject).toStartWith('Mara Owner invited you to ')
    const omar = await redeem(linkIn(mails[1]!.text)!, at)
    expect(omar.status).toBe(303)
    expect((await at(`/console/people/${id}/link`, { cookie: owner.cookie, form: { csrf: owner.csrf } })).res.status).toBe(409)
  }, 60_000)
})

describe('the console: people, a shown link in no log line', () => {
  let other: ServerProcess | undefined
  afterAll(() => other?.proc.kill())

  // A server process of its own, logging at debug level, needs a database both can open: PostgreSQL.
  test.skipIf(!process.env.DATABASE_URL)('an invitation\'s link, shown once and redeemed, is in none of the process\'s log lines, the audit list or a later page', async () => {
    const { sql, dataDir } = await getHarness()
    other = await startServerProcess({ DATABASE_URL: process.env.DATABASE_URL, DATA_DIR: dataDir, LOG_LEVEL: 'debug' })
    const base = new URL(other.base).origin
    const at = consoleAt(base)
    const ws = await makeWorkspace()
    const owner = await addPerson(sql, { workspaceId: ws.id, email: unique('owner'), name: 'Mara Owner', role: 'owner' })
    const signed = await redeem((await signInLink(sql, { personId: owner.id, consoleUrl: `${base}/console` })).url, at)
    const csrf = csrfOf((await at('/console/people', { cookie: signed.cookie })).text)!
    const invited = await at('/console/people', { cookie: signed.cookie, form: { csrf, email: unique('lin'), name: 'Lin Park', role: 'viewer' } })
    expect(invited.res.status, invited.text).toBe(200)
    const link = linkIn(invited.text)!
    expect(link).toStartWith(`${base}/console/signin/`)
    const secret = new URL(link).pathname.split('/').pop()!
    expect((await redeem(link, at)).status).toBe(303)

    for (const page of [await at('/console/people', { cookie: signed.cookie }), await at('/console/audit', { cookie: signed.cookie })]) expect(page.text).not.toContain(secret)
    expect(JSON.stringify((await listAudit(sql, ws.id, 100)).entries)).not.toContain(secret)
    const logged = other.stdout() + other.stderr()
    expect(logged.length).toBeGreaterThan(0)
    expect(logged).not.toContain(secret)
  }, 120_000)
})
