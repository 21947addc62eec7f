import { afterAll, describe, expect, test } from 'bun:test'
import { listAudit } from '../../server/src/domain/audit.ts'
import { createToken, listTokens, revokeToken } from '../../server/src/domain/credentials.ts'
import { addPerson } from '../../server/src/domain/people.ts'
import { signInLink } from '../../server/src/domain/sign-in.ts'
import { getHarness, makeWorkspace } from '../harness.ts'
import { consoleAt, csrfOf, fetchConsole, signInAs } from '../support/console-session.ts'
import { startServerProcess, type ServerProcess } from '../support/server-process.ts'

/**
 * /console/tokens over HTTP: every signed-in person reads the list; only an owner issues (shown
 * once, on the POST's own answer) and revokes, each in the audit list with the person; an approver
 * and a viewer posting the forms by hand are refused on the server and nothing changes. On
 * PostgreSQL, a second server process: a token issued and revoked there is refused here on its very
 * next request, and the token is in none of that process's log lines, the audit list or a later page.
 */

const tokenIn = (text: string) => /value="(svc_(?:live|test)_[0-9a-z]{26}_[0-9a-f]{48})"/.exec(text)?.[1]
const idIn = (text: string) => /token (cred_[0-9A-Za-z]+)/.exec(text)?.[1]

async function apiWith(base: string, token: string) {
  return (await fetch(`${base}/api/v1/logs?limit=1`, { headers: { authorization: `Bearer ${token}` } })).status
}

describe('the console: tokens', () => {
  test('an owner issues a token with chosen mode, scope and expiry (shown once), it works, the list shows it without the secret; revoke stops it at once', async () => {
    const { url, sql } = await getHarness()
    const ws = await makeWorkspace()
    const owner = await signInAs(ws.id, 'owner', 'Mara Owner')
    const issued = await fetchConsole('/console/tokens', { cookie: owner.cookie, form: { csrf: owner.csrf, mode: 'test', scope: 'read:logs', expires: '2099-01-31' } })
    expect(issued.res.status, issued.text).toBe(200)
    expect(issued.res.headers.get('cache-control')).toBe('no-store')
    const token = tokenIn(issued.text)!
    const id = idIn(issued.text)!
    expect(token).toStartWith('svc_test_')
    expect(issued.text).toContain('only time the token is shown')
    // Its expiry as every time of the console: a <time> the page's script shows in the reader's zone.
    expect(issued.text).toContain('(read:logs; expires <time datetime="2099-01-31T00:00:00.000Z">2099-01-31 00:00 UTC</time>)')
    expect(await apiWith(url, token)).toBe(200)

    const list = await fetchConsole('/console/tokens', { cookie: owner.cookie })
    expect(list.res.status).toBe(200)
    expect(list.text).toContain(id)
    expect(list.text).toContain(`…${token.slice(-4)}`)
    expect(list.text).toContain('read:logs')
    expect(list.text).toContain('2099-01-31T00:00:00.000Z')
    expect(list.text).not.toContain(token)

    const revoked = await fetchConsole(`/console/tokens/${id}/revoke`, { cookie: owner.cookie, form: { csrf: owner.csrf } })
    expect(revoked.res.status).toBe(303)
    expect(await apiWith(url, token)).toBe(401)
    const after = await fetchConsole('/console/tokens?done=revoked', { cookie: owner.cookie })
    expect(after.text).toContain('Token revoked')
    expect(after.text).toMatch(new RegExp(`${id}[\\s\\S]*?revoked`))
    expect(after.text).not.toContain(token)

    const audit = (await listAudit(sql, ws.id, 100)).entries
    const mine = audit.filter((e) => e.subject === id)
    expect(mine.map((e) => e.action).sort()).toEqual(['token.created', 'token.revoked'])
    for (const e of mine) expect(e.actor).toEqual({ kind: 'person', id: owner.person.id, name: 'Mara Owner' })
    expect(JSON.stringify(audit)).not.toContain(token)
  }, 60_000)

  test('an owner rotates a token with an overlap: the new one shown once, both work until the old one ends, which offers no second Rotate; recorded with the person', async () => {
    const { url, sql } = await getHarness()
    const ws = await makeWorkspace()
    const owner = await signInAs(ws.id, 'owner', 'Mara Owner')
    const old = await createToken(sql, { workspaceId: ws.id, test: true, scopes: 'read:logs', expiresAt: '2099-01-31T00:00:00Z' })
    const page = await fetchConsole('/console/tokens', { cookie: owner.cookie })
    expect(page.text).toContain(`action="/console/tokens/${old.id}/rotate"`)
    expect(page.text).toContain(`id="overlap-${old.id}" name="overlap" type="number" min="0" max="10080" step="1" value="1440" required`)
    const before = Date.now()
    const rotated = await fetchConsole(`/console/tokens/${old.id}/rotate`, { cookie: owner.cookie, form: { csrf: owner.csrf, overlap: '90' } })
    expect(rotated.res.status, rotated.text).toBe(200)
    expect(rotated.res.headers.get('cache-control')).toBe('no-store')
    expect(rotated.text).toContain('<h1>Token rotated</h1>')
    const token = tokenIn(rotated.text)!
    const id = idIn(rotated.text)!
    expect(token).toStartWith('svc_test_')
    expect(id).not.toBe(old.id)
    // Same mode, scopes and expiry; it names the token it replaces and when that one ends.
    expect(rotated.text).toContain('(read:logs; expires <time datetime="2099-01-31T00:00:00.000Z">')
    const ends = /It replaces <code>(cred_\w+)<\/code>, which keeps working until <time datetime="([^"]+)">/.exec(rotated.text)
    expect(ends?.[1]).toBe(old.id)
    expect(Date.parse(ends![2]!) - before).toBeGreaterThanOrEqual(90 * 60_000 - 1_000)
    expect(Date.parse(ends![2]!) - Date.now()).toBeLessThanOrEqual(90 * 60_000 + 1_000)
    expect(await apiWith(url, old.token)).toBe(200)
    expect(await apiWith(url, token)).toBe(200)
    // Shown once: the page again shows no token.
    expect(tokenIn((await fetchConsole('/console/shown/token', { cookie: owner.cookie })).text)).toBeUndefined()
    const after = await fetchConsole('/console/tokens', { cookie: owner.cookie })
    expect(after.text).not.toContain(`action="/console/tokens/${old.id}/rotate"`)
    expect(after.text).toContain(`action="/console/tokens/${old.id}/revoke"`)
    expect(after.text).toContain(`action="/console/tokens/${id}/rotate"`)
    // The old one's card names the token that replaced it; the new one's names none.
    const card = (cred: string) => after.text.slice(after.text.indexOf(`<code>${cred}</code>:`)).split('</li>')[0]!
    expect(card(old.id)).toContain(`<dt>Replaced by</dt><dd><code>${id}</code> (rotated)</dd>`)
    expect(card(id)).not.toContain('Replaced by')
    expect(after.text).not.toContain(token)
    // A second rotation of the old one, posted by hand: refused, naming its end, and nothing made.
    const count = (await listTokens(sql, ws.id)).tokens.length
    const again = await fetchConsole(`/console/tokens/${old.id}/rotate`, { cookie: owner.cookie, form: { csrf: owner.csrf, overlap: '60' } })
    expect(again.res.status).toBe(400)
    expect(again.text).toContain(`Token ${old.id} already ends at ${ends![2]}, within a week`)
    expect((await listTokens(sql, ws.id)).tokens.length).toBe(count)
    const entry = (await listAudit(sql, ws.id, 100)).entries.find((e) => e.action === 'token.rotated')
    expect(entry).toMatchObject({ actor: { kind: 'person', id: owner.person.id, name: 'Mara Owner' }, subject: old.id, detail: { credentialId: id, overlapSeconds: 5400 } })
    const auditPage = await fetchConsole('/console/audit', { cookie: owner.cookie })
    expect(auditPage.text).toContain('rotated the token')
  }, 60_000)

  test('a rotation with no overlap ends the old token at once; an overlap that is not whole minutes up to a week is a 400 naming it, and nothing changes', async () => {
    const { url, sql } = await getHarness()
    const ws = await makeWorkspace()
    const owner = await signInAs(ws.id, 'owner', 'Mara Owner')
    const old = await createToken(sql, { workspaceId: ws.id, scopes: 'read:logs' })
    const count = (await listTokens(sql, ws.id)).tokens.length
    for (const overlap of ['abc', '10081', '-5', '1.5', '']) {
      const bad = await fetchConsole(`/console/tokens/${old.id}/rotate`, { cookie: owner.cookie, form: { csrf: owner.csrf, overlap } })
      expect(bad.res.status).toBe(400)
      expect(bad.text).toContain(`<p class="failed" role="alert">The overlap is a whole number of minutes from 0 to 10080 (a week) (got &quot;${overlap}&quot;).</p>`)
    }
    expect((await listTokens(sql, ws.id, { id: old.id })).tokens[0]).toMatchObject({ state: 'active', expiresAt: null })
    expect((await listTokens(sql, ws.id)).tokens).toHaveLength(count)
    const now = await fetchConsole(`/console/tokens/${old.id}/rotate`, { cookie: owner.cookie, form: { csrf: owner.csrf, overlap: '0' } })
    expect(now.res.status).toBe(200)
    expect(await apiWith(url, old.token)).toBe(401)
    expect(await apiWith(url, tokenIn(now.text)!)).toBe(200)
    // Without the CSRF token nothing is done.
    const kept = await createToken(sql, { workspaceId: ws.id, scopes: 'read:logs' })
    expect((await fetchConsole(`/console/tokens/${kept.id}/rotate`, { cookie: owner.cookie, form: { overlap: '60' } })).res.status).toBe(403)
    expect((await listTokens(sql, ws.id, { id: kept.id })).tokens[0]).toMatchObject({ state: 'active', expiresAt: null })
    // Another workspace's token is not found, and keeps working.
    const other = await makeWorkspace()
    const theirs = await createToken(sql, { workspaceId: other.id, scopes: 'read:logs' })
    expect((await fetchConsole(`/console/tokens/${theirs.id}/rotate`, { cookie: owner.cookie, form: { csrf: owner.csrf, overlap: '60' } })).res.status).toBe(404)
    expect(await apiWith(url, theirs.token)).toBe(200)
  }, 60_000)

  test('each token says when it was last used: "no use on record" until its first call, then the time of its call', async () => {
    const { url, server } = await getHarness()
    const ws = await makeWorkspace()
    const owner = await signInAs(ws.id, 'owner', 'Mara Owner')
    const issued = await fetchConsole('/console/tokens', { cookie: owner.cookie, form: { csrf: owner.csrf, mode: 'live', scope: 'read:logs' } })
    const token = tokenIn(issued.text)!
    const id = idIn(issued.text)!
    const cardOf = (page: string) => new RegExp(`<code>${id}</code>[\\s\\S]*?</dl>`).exec(page)?.[0] ?? ''
    const before = cardOf((await fetchConsole('/console/tokens', { cookie: owner.cookie })).text)
    expect(before).toContain('<dt>Last used</dt><dd>no use on record</dd>')
    const calledAt = new Date()
    expect(await apiWith(url, token)).toBe(200)
    await server.counter.flush()
    const after = cardOf((await fetchConsole('/console/tokens', { cookie: owner.cookie })).text)
    const used = /<dt>Last used<\/dt><dd><time datetime="([^"]+)">/.exec(after)?.[1]
    expect(used, after).toBeDefined()
    expect(Math.abs(Date.parse(used!) - calledAt.getTime())).toBeLessThan(10_000)
  }, 60_000)

  test('a token past its expiry reads expired, is listed after those in force, and offers Revoke still (it could be read out and kept)', async () => {
    const { sql } = await getHarness()
    const ws = await makeWorkspace()
    const owner = await signInAs(ws.id, 'owner', 'Mara Owner')
    const ended = await createToken(sql, { workspaceId: ws.id, scopes: 'read:logs', expiresAt: new Date(Date.now() + 86_400_000).toISOString() })
    const live = await createToken(sql, { workspaceId: ws.id, scopes: 'read:logs' })
    await sql`UPDATE credentials SET expires_at = now() - interval '1 hour' WHERE workspace_id = ${ws.id} AND id = ${ended.id}`
    const listed = (await listTokens(sql, ws.id)).tokens.filter((t) => t.id === live.id || t.id === ended.id)
    expect(listed.map((t) => [t.id, t.state])).toEqual([[live.id, 'active'], [ended.id, 'expired']])
    expect((await listTokens(sql, ws.id)).tokens.at(-1)!.id).toBe(ended.id)
    const page = await fetchConsole('/console/tokens', { cookie: owner.cookie })
    expect(page.text).toContain(`<code>${ended.id}</code>: live, expired</strong>`)
    expect(page.text).toContain(`<code>${live.id}</code>: live, active</strong>`)
    expect(page.text).toContain(`action="/console/tokens/${ended.id}/revoke"`)
  })

  test('a token in force stays on the list and revocable however many ended tokens came after it', async () => {
    const { sql } = await getHarness()
    const ws = await makeWorkspace()
    const owner = await signInAs(ws.id, 'owner', 'Mara Owner')
    const old = await createToken(sql, { workspaceId: ws.id, scopes: 'read:logs' })
    // 200 tokens issued and revoked since (a CI job's, say): the list holds 200.
    for (let i = 0; i < 200; i++) await revokeToken(sql, (await createToken(sql, { workspaceId: ws.id, test: true, scopes: 'read:logs' })).id)
    const page = await fetchConsole('/console/tokens', { cookie: owner.cookie })
    expect(page.text).toContain(`action="/console/tokens/${old.id}/revoke"`)
    expect(page.text).toContain('Only the first 200 are shown.')
    const revoked = await fetchConsole(`/console/tokens/${old.id}/revoke`, { cookie: owner.cookie, form: { csrf: owner.csrf } })
    expect(revoked.res.status).toBe(303)
    expect(await apiWith((await getHarness()).url, old.token)).toBe(401)
  }, 120_000)

  test('bad input is a 400 naming what was wrong; another workspace\'s token is not found; no CSRF token, nothing done', async () => {
    const ws = await makeWorkspace()
    const owner = await signInAs(ws.id, 'owner', 'Mara Owner')
    const badScope = await fetchConsole('/console/tokens', { cookie: owner.cookie, form: { csrf: owner.csrf, mode: 'live', scope: 'write:everything' } })
    expect(badScope.res.status).toBe(400)
    expect(badScope.text).toContain('Unknown scope write:everything')
    const badMode = await fetchConsole('/console/tokens', { cookie: owner.cookie, form: { csrf: owner.csrf, mode: 'gold' } })
    expect(badMode.res.status).toBe(400)
    expect(badMode.text).toContain('Mode is live or test')
    const past = await fetchConsole('/console/tokens', { cookie: owner.cookie, form: { csrf: owner.csrf, mode: 'test', scope: 'read:logs', expires: '2001-01-01' } })
    expect(past.res.status).toBe(400)
    // Refused in the form's words (its field is Expires, a day), not the API's (expiresAt, an instant).
    expect(past.text).toContain('Expires is 2001-01-01, a day that has begun or passed: the token ends at the start of that day (UTC). Choose a later day, or leave it empty for never.')
    expect(past.text).not.toContain('expiresAt')
    const noSuchDay = await fetchConsole('/console/tokens', { cookie: owner.cookie, form: { csrf: owner.csrf, mode: 'live', expires: '2099-02-30' } })
    expect(noSuchDay.res.status).toBe(400)
    expect(noSuchDay.text).toContain('Expires is 2099-02-30, which is not a day of the calendar. Choose one, YYYY-MM-DD.')
    // What was chosen stays chosen beside the refusal.
    expect(past.text).toContain('name="expires" type="date" value="2001-01-01" aria-describedby="create-error"')
    expect(past.text).toContain('name="mode" value="test" checked')
    expect(past.text).toContain('name="scope" value="read:logs" checked')
    expect(past.text).not.toContain('name="mode" value="live" checked')
    const badDate = await fetchConsole('/console/tokens', { cookie: owner.cookie, form: { csrf: owner.csrf, mode: 'live', expires: 'tomorrow' } })
    expect(badDate.res.status).toBe(400)
    expect(badDate.text).toContain('Expires is a date')
    const noCsrf = await fetchConsole('/console/tokens', { cookie: owner.cookie, form: { mode: 'live' } })
    expect(noCsrf.res.status).toBe(403)

    const other = await makeWorkspace()
    const otherOwner = await signInAs(other.id, 'owner', 'Other Owner')
    const theirs = await fetchConsole('/console/tokens', { cookie: otherOwner.cookie, form: { csrf: otherOwner.csrf } })
    const theirId = idIn(theirs.text)!
    const theirToken = tokenIn(theirs.text)!
    const refused = await fetchConsole(`/console/tokens/${theirId}/revoke`, { cookie: owner.cookie, form: { csrf: owner.csrf } })
    expect(refused.res.status).toBe(404)
    expect(await apiWith((await getHarness()).url, theirToken)).toBe(200)
    expect((await fetchConsole('/console/tokens', { cookie: owner.cookie })).text).not.toContain(theirId)
  }, 60_000)

  for (const role of ['approver', 'viewer'] as const) {
    test(`${role === "approver" ? "an" : "a"} ${role} reads the list, and posting the issue, rotate or revoke form by hand is refused on the server: nothing changes`, async () => {
      const { url, sql } = await getHarness()
      const ws = await makeWorkspace()
      const owner = await signInAs(ws.id, 'owner', 'Mara Owner')
      const issued = await fetchConsole('/console/tokens', { cookie: owner.cookie, form: { csrf: owner.csrf, mode: 'live' } })
      const id = idIn(issued.text)!
      const token = tokenIn(issued.text)!
      const me = await signInAs(ws.id, role, `Pat ${role}`)
      const page = await fetchConsole('/console/tokens', { cookie: me.cookie })
      expect(page.res.status).toBe(200)
      expect(page.text).toContain(id)
      expect(page.text).not.toContain('action="/console/tokens"')
      expect(page.text).not.toContain('/revoke"')
      const before = (await listAudit(sql, ws.id, 100)).entries.length
      const create = await fetchConsole('/console/tokens', { cookie: me.cookie, form: { csrf: me.csrf, mode: 'live' } })
      expect(create.res.status).toBe(403)
      expect(create.text).toContain('an owner issues, rotates and revokes them')
      expect(tokenIn(create.text)).toBeUndefined()
      const revoke = await fetchConsole(`/console/tokens/${id}/revoke`, { cookie: me.cookie, form: { csrf: me.csrf } })
      expect(revoke.res.status).toBe(403)
      const rotate = await fetchConsole(`/console/tokens/${id}/rotate`, { cookie: me.cookie, form: { csrf: me.csrf, overlap: '60' } })
      expect(rotate.res.status).toBe(403)
      expect(page.text).not.toContain('/rotate"')
      expect(await apiWith(url, token)).toBe(200)
      expect((await listAudit(sql, ws.id, 100)).entries.length).toBe(before)
    }, 60_000)
  }
})

describe('the console: tokens across server processes', () => {
  let other: ServerProcess | undefined
  afterAll(() => other?.proc.kill())

  // Another server process needs a database both can open: a PostgreSQL server.
  test.skipIf(!process.env.DATABASE_URL)('issued and revoked on one process: refused on the other at its very next request; the token in no log line, audit entry or later page', async () => {
    const { url, sql, dataDir } = await getHarness()
    other = await startServerProcess({ DATABASE_URL: process.env.DATABASE_URL, DATA_DIR: dataDir, LOG_LEVEL: 'debug' })
    const base = new URL(other.base).origin
    const ws = await makeWorkspace()
    const person = await addPerson(sql, { workspaceId: ws.id, email: `owner-${crypto.randomUUID().slice(0, 8)}@example.com`, name: 'Mara Owner', role: 'owner' })
    const link = await signInLink(sql, { personId: person.id, consoleUrl: `${base}/console` })
    const at = consoleAt(base)
    const path = new URL(link.url).pathname
    const redeem = await at(path)
    expect(redeem.res.status, `${base} ${path} ${redeem.text.slice(0, 300)}`).toBe(200)
    const formCookie = redeem.res.headers.getSetCookie().find((c) => c.startsWith('growth_signin='))!.split(';')[0]!
    const signedIn = await at(path, { cookie: formCookie, form: { csrf: csrfOf(redeem.text)! } })
    const cookie = signedIn.res.headers.getSetCookie().find((c) => c.startsWith('growth_session='))!.split(';')[0]!
    const csrf = csrfOf((await at('/console/tokens', { cookie })).text)!

    const issued = await at('/console/tokens', { cookie, form: { csrf, mode: 'live' } })
    const token = tokenIn(issued.text)!
    const id = idIn(issued.text)!
    expect(await apiWith(url, token)).toBe(200)
    expect(await apiWith(base, token)).toBe(200)
    expect((await at(`/console/tokens/${id}/revoke`, { cookie, form: { csrf } })).res.status).toBe(303)
    // The very next request, on the process that did not revoke it.
    expect(await apiWith(url, token)).toBe(401)
    expect(await apiWith(base, token)).toBe(401)

    const later = [await at('/console/tokens', { cookie }), await at('/console/tokens?done=revoked', { cookie }), await fetchConsole('/console/tokens', { cookie })]
    for (const page of later) expect(page.text).not.toContain(token)
    expect(JSON.stringify((await listAudit(sql, ws.id, 100)).entries)).not.toContain(token)
    // The process logged at debug level (the sign-in, the calls): never the token, nor its secret part.
    const logged = other.stdout() + other.stderr()
    expect(logged.length).toBeGreaterThan(0)
    expect(logged).not.toContain(token)
    expect(logged).not.toContain(token.slice(-48))
  }, 120_000)
})
