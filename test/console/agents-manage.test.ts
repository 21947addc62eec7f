import { afterAll, describe, expect, test } from 'bun:test'
import { listAudit } from '../../server/src/domain/audit.ts'
import { authorize } from '../agent-helpers.ts'
import { getHarness, makeWorkspace } from '../harness.ts'
import { consoleAt, csrfOf, fetchConsole, signInAs } from '../support/console-session.ts'
import { startServerProcess, type ServerProcess } from '../support/server-process.ts'

/**
 * /console/agents over HTTP: an owner registers an agent (its credential shown once, on the POST's
 * own answer), rotates a credential with an overlap (both work during it; with 0 the old one is
 * refused at once) and retires the agent (its credentials refused), each in the audit list with
 * the person; approvers and viewers posting the forms by hand get 403 and nothing changes; another
 * workspace's agent is not found. The credential is in no later page, audit entry or log line.
 */

const credentialIn = (text: string) => /value="(svc_agt_[0-9a-z]{26}_[0-9a-f]{48})"/.exec(text)?.[1]
const credentialIdIn = (text: string) => /Credential (cred_[0-9A-Za-z]+) of/.exec(text)?.[1]
const agentIdIn = (text: string) => /href="\/console\/agents\/(agt_[0-9A-Za-z]+)"/.exec(text)?.[1]

const ask = (credential: string) => authorize(credential, { tool: 'ads', action: 'pause_campaign', resource: 'cmp_spring', summary: 'Pause the spring campaign' })
/** 201 with a decision: the credential was accepted (whatever the decision); 401: refused. */
const works = async (credential: string) => (await ask(credential)).status

async function register(cookie: string, csrf: string, name = 'Spend Guard') {
  const r = await fetchConsole('/console/agents/register', { cookie, form: { csrf, name, description: 'Pauses campaigns that overspend', allow: 'ads.pause_campaign', risk: 'low' } })
  expect(r.res.status, r.text.slice(0, 500)).toBe(200)
  return { ...r, credential: credentialIn(r.text)!, credentialId: credentialIdIn(r.text)!, agentId: agentIdIn(r.text)! }
}

describe('the console: managing agents', () => {
  test('an owner registers an agent (shown once), rotates with an overlap, rotates with none, retires it; all in the audit list with the person', async () => {
    const { sql } = await getHarness()
    const ws = await makeWorkspace()
    const owner = await signInAs(ws.id, 'owner', 'Mara Owner')
    const form = await fetchConsole('/console/agents', { cookie: owner.cookie })
    expect(form.text).toContain('action="/console/agents/register"')
    expect(form.text).toContain('value="ads.pause_campaign"')

    const reg = await register(owner.cookie, owner.csrf)
    expect(reg.res.headers.get('cache-control')).toBe('no-store')
    expect(reg.text).toContain('only time the credential is shown')
    expect(reg.text).toContain('data-copy="secret"')
    expect(reg.credential).toStartWith('svc_agt_')
    expect(await works(reg.credential)).toBe(201)

    const page = await fetchConsole(`/console/agents/${reg.agentId}`, { cookie: owner.cookie })
    expect(page.res.status).toBe(200)
    expect(page.text).toContain('Spend Guard may pause a campaign')
    expect(page.text).toContain('It may use')
    expect(page.text).toContain('Acts alone up to low risk')
    expect(page.text).toContain(reg.credentialId)
    expect(page.text).toContain(`…${reg.credential.slice(-4)}`)

    // Rotate with an hour's overlap: both work; the old one now has an end.
    const rotated = await fetchConsole(`/console/agents/${reg.agentId}/rotate`, { cookie: owner.cookie, form: { csrf: owner.csrf, credential: reg.credentialId, overlap: '60' } })
    expect(rotated.res.status, rotated.text.slice(0, 500)).toBe(200)
    const second = credentialIn(rotated.text)!
    const secondId = credentialIdIn(rotated.text)!
    expect(second).not.toBe(reg.credential)
    expect(rotated.text).toContain(`${reg.credentialId}</code>, works until`)
    expect(await works(reg.credential)).toBe(201)
    expect(await works(second)).toBe(201)
    const agentPage = (await fetchConsole(`/console/agents/${reg.agentId}`, { cookie: owner.cookie })).text
    expect(agentPage).toMatch(new RegExp(`${reg.credentialId}</code>: active, ends`))
    // The old credential's card names the one that replaced it.
    expect(agentPage.slice(agentPage.indexOf(`<code>${reg.credentialId}</code>:`)).split('</li>')[0]).toContain(`<dt>Replaced by</dt><dd><code>${secondId}</code> (rotated)</dd>`)

    // Rotate the second with no overlap: it is refused at once, the third works.
    const again = await fetchConsole(`/console/agents/${reg.agentId}/rotate`, { cookie: owner.cookie, form: { csrf: owner.csrf, credential: secondId, overlap: '0' } })
    expect(again.res.status).toBe(200)
    const third = credentialIn(again.text)!
    // It says the old one is refused already, not that it "works until" the moment it was rotated.
    expect(again.text).toMatch(new RegExp(`The credential it replaces, <code>${secondId}</code>, is refused since <time[^>]*>[^<]*</time>: the agent needs this one now\\.`))
    expect(again.text).not.toContain(`${secondId}</code>, works until`)
    expect(await works(second)).toBe(401)
    expect(await works(third)).toBe(201)
    expect(await works(reg.credential)).toBe(201)

    // The first is being replaced: a second rotation of it is refused (no unseen credential); Revoke now cuts the overlap short.
    const twice = await fetchConsole(`/console/agents/${reg.agentId}/rotate`, { cookie: owner.cookie, form: { csrf: owner.csrf, credential: reg.credentialId, overlap: '60' } })
    expect(twice.res.status).toBe(400)
    expect(twice.text).toContain('is already being replaced')
    expect(credentialIn(twice.text)).toBeUndefined()
    expect(twice.text).toContain(`/console/agents/${reg.agentId}/credentials/${reg.credentialId}/revoke`)
    const cut = await fetchConsole(`/console/agents/${reg.agentId}/credentials/${reg.credentialId}/revoke`, { cookie: owner.cookie, form: { csrf: owner.csrf } })
    expect(cut.res.status).toBe(303)
    expect(cut.res.headers.get('location')).toBe(`/console/agents/${reg.agentId}?done=revoked#answer`)
    expect(await works(reg.credential)).toBe(401)
    expect(await works(third)).toBe(201)

    // Bad input: a 400 naming what was wrong.
    const badOverlap = await fetchConsole(`/console/agents/${reg.agentId}/rotate`, { cookie: owner.cookie, form: { csrf: owner.csrf, credential: reg.credentialId, overlap: 'soon' } })
    expect(badOverlap.res.status).toBe(400)
    expect(badOverlap.text).toContain('The overlap is a whole number of minutes')
    const tooLong = await fetchConsole(`/console/agents/${reg.agentId}/rotate`, { cookie: owner.cookie, form: { csrf: owner.csrf, credential: reg.credentialId, overlap: '99999' } })
    expect(tooLong.res.status).toBe(400)
    expect(tooLong.text).toContain('from 0 to 10080')
    const ended = await fetchConsole(`/console/agents/${reg.agentId}/rotate`, { cookie: owner.cookie, form: { csrf: owner.csrf, credential: secondId, overlap: '5' } })
    expect(ended.res.status).toBe(400)
    expect(ended.text).toContain('has already ended')
    expect(await works(third)).toBe(201)
    const noName = await fetchConsole('/console/agents/register', { cookie: owner.cookie, form: { csrf: owner.csrf, name: ' ', risk: 'low' } })
    expect(noName.res.status).toBe(400)
    expect(noName.text).toContain('Give the agent a name')
    const badAllow = await fetchConsole('/console/agents/register', { cookie: owner.cookie, form: { csrf: owner.csrf, name: 'X', allow: 'ads.launch_rockets', risk: 'low' } })
    expect(badAllow.res.status).toBe(400)
    expect(badAllow.text).toContain('Unknown tool action ads.launch_rockets')
    const badRisk = await fetchConsole('/console/agents/register', { cookie: owner.cookie, form: { csrf: owner.csrf, name: 'X', risk: 'extreme' } })
    expect(badRisk.res.status).toBe(400)
    expect(badRisk.text).toContain('low, medium or high')
    // A name an active agent has, case aside: refused, the form kept; once that one is retired (below), free again.
    const twin = await fetchConsole('/console/agents/register', { cookie: owner.cookie, form: { csrf: owner.csrf, name: 'SPEND guard', allow: 'ads.pause_campaign', risk: 'low' } })
    expect(twin.res.status).toBe(400)
    expect(twin.text).toContain(`An agent named &quot;SPEND guard&quot; is already registered (${reg.agentId})`)

    // Retire: every credential refused at once; listed apart; its page and history kept.
    const retired = await fetchConsole(`/console/agents/${reg.agentId}/retire`, { cookie: owner.cookie, form: { csrf: owner.csrf } })
    expect(retired.res.status).toBe(303)
    expect(retired.res.headers.get('location')).toBe(`/console/agents/${reg.agentId}?done=retired#answer`)
    expect(await works(reg.credential)).toBe(401)
    expect(await works(third)).toBe(401)
    const list = await fetchConsole('/console/agents', { cookie: owner.cookie })
    expect(list.text).toMatch(/Retired agents[\s\S]*Spend Guard/)
    expect(list.text).not.toMatch(/Active agents[\s\S]*Spend Guard[\s\S]*Retired agents/)
    expect((await register(owner.cookie, owner.csrf)).agentId).not.toBe(reg.agentId)
    const after = await fetchConsole(`/console/agents/${reg.agentId}?done=retired`, { cookie: owner.cookie })
    expect(after.text).toContain('Agent retired')
    expect(after.text).toContain('Pause the spring campaign')
    expect(after.text).not.toContain(`/console/agents/${reg.agentId}/rotate`)
    expect(after.text).not.toContain(`/console/agents/${reg.agentId}/retire`)
    // A retired agent gets no new credential.
    const noMore = await fetchConsole(`/console/agents/${reg.agentId}/rotate`, { cookie: owner.cookie, form: { csrf: owner.csrf, credential: reg.credentialId, overlap: '0' } })
    expect(noMore.res.status).toBe(400)
    expect(credentialIn(noMore.text)).toBeUndefined()

    const audit = (await listAudit(sql, ws.id, 100)).entries.filter((e) => e.subject === reg.agentId)
    expect(audit.map((e) => e.action).sort()).toEqual(['agent.created', 'agent.credential_issued', 'agent.credential_issued', 'agent.credential_rotated', 'agent.credential_rotated', 'agent.retired'])
    const revokedEntry = (await listAudit(sql, ws.id, 100)).entries.filter((e) => e.subject === reg.credentialId)
    expect(revokedEntry.map((e) => e.action)).toEqual(['token.revoked'])
    for (const e of [...audit, ...revokedEntry]) expect(e.actor).toEqual({ kind: 'person', id: owner.person.id, name: 'Mara Owner' })
    const auditPage = await fetchConsole('/console/audit', { cookie: owner.cookie })
    // Each entry about the agent names it, as the one that registered it does, not only by its id.
    for (const words of ['retired the agent', 'rotated a credential of', 'issued a credential for']) {
      expect(auditPage.text).toContain(`${words} <strong>Spend Guard</strong> <a href="/console/audit?subject=${reg.agentId}">`)
    }
    const everything = JSON.stringify((await listAudit(sql, ws.id, 100)).entries) + list.text + after.text + page.text + auditPage.text
    for (const secret of [reg.credential, second, third]) {
      expect(everything).not.toContain(secret)
      expect(everything).not.toContain(secret.slice(-48))
    }
  }, 60_000)

  for (const role of ['approver', 'viewer'] as const) {
    test(`${role === 'approver' ? 'an' : 'a'} ${role} reads the agents, and posting register, rotate or retire by hand is refused on the server: nothing changes`, async () => {
      const { sql } = await getHarness()
      const ws = await makeWorkspace()
      const owner = await signInAs(ws.id, 'owner', 'Mara Owner')
      const reg = await register(owner.cookie, owner.csrf)
      const me = await signInAs(ws.id, role, `Pat ${role}`)
      const list = await fetchConsole('/console/agents', { cookie: me.cookie })
      expect(list.res.status).toBe(200)
      expect(list.text).toContain('Spend Guard')
      expect(list.text).not.toContain('action="/console/agents/register"')
      const page = await fetchConsole(`/console/agents/${reg.agentId}`, { cookie: me.cookie })
      expect(page.text).toContain(reg.credentialId)
      expect(page.text).not.toContain('/rotate"')
      expect(page.text).not.toContain('/retire"')
      const before = (await listAudit(sql, ws.id, 100)).entries.length
      const posts = [
        ['/console/agents/register', { name: 'Sneaky', risk: 'low' }],
        [`/console/agents/${reg.agentId}/rotate`, { credential: reg.credentialId, overlap: '0' }],
        [`/console/agents/${reg.agentId}/credentials/${reg.credentialId}/revoke`, {}],
        [`/console/agents/${reg.agentId}/retire`, {}],
      ] as const
      for (const [path, fields] of posts) {
        const r = await fetchConsole(path, { cookie: me.cookie, form: { csrf: me.csrf, ...fields } })
        expect(r.res.status, path).toBe(403)
        expect(r.text).toContain('an owner registers, rotates credentials and retires them')
        expect(credentialIn(r.text)).toBeUndefined()
      }
      expect(await works(reg.credential)).toBe(201)
      expect((await listAudit(sql, ws.id, 100)).entries.length).toBe(before)
    }, 60_000)
  }

  test("another workspace's agent is not found for reading, rotating or retiring; no CSRF token, nothing done", async () => {
    const ws = await makeWorkspace()
    const owner = await signInAs(ws.id, 'owner', 'Mara Owner')
    const other = await makeWorkspace()
    const otherOwner = await signInAs(other.id, 'owner', 'Other Owner')
    const theirs = await register(otherOwner.cookie, otherOwner.csrf, 'Their Agent')
    expect((await fetchConsole(`/console/agents/${theirs.agentId}`, { cookie: owner.cookie })).res.status).toBe(404)
    const rotate = await fetchConsole(`/console/agents/${theirs.agentId}/rotate`, { cookie: owner.cookie, form: { csrf: owner.csrf, credential: theirs.credentialId, overlap: '0' } })
    expect(rotate.res.status).toBe(404)
    const retire = await fetchConsole(`/console/agents/${theirs.agentId}/retire`, { cookie: owner.cookie, form: { csrf: owner.csrf } })
    expect(retire.res.status).toBe(404)
    // Their credential, through my agent: not found either.
    const mine = await register(owner.cookie, owner.csrf)
    const cross = await fetchConsole(`/console/agents/${mine.agentId}/rotate`, { cookie: owner.cookie, form: { csrf: owner.csrf, credential: theirs.credentialId, overlap: '0' } })
    expect(cross.res.status).toBe(404)
    const crossRevoke = await fetchConsole(`/console/agents/${mine.agentId}/credentials/${theirs.credentialId}/revoke`, { cookie: owner.cookie, form: { csrf: owner.csrf } })
    expect(crossRevoke.res.status).toBe(404)
    const theirRevoke = await fetchConsole(`/console/agents/${theirs.agentId}/credentials/${theirs.credentialId}/revoke`, { cookie: owner.cookie, form: { csrf: owner.csrf } })
    expect(theirRevoke.res.status).toBe(404)
    expect(await works(theirs.credential)).toBe(201)
    const noCsrf = await fetchConsole(`/console/agents/${mine.agentId}/retire`, { cookie: owner.cookie, form: {} })
    expect(noCsrf.res.status).toBe(403)
    expect(await works(mine.credential)).toBe(201)
  }, 60_000)
})

describe('the console: an agent credential in no log line', () => {
  let other: ServerProcess | undefined
  afterAll(() => other?.proc.kill())

  // Another server process, logging at debug level, needs a database both can open: PostgreSQL.
  test.skipIf(!process.env.DATABASE_URL)('registered and rotated on a server process logging at debug level: neither credential in its output', async () => {
    const { dataDir } = await getHarness()
    other = await startServerProcess({ DATABASE_URL: process.env.DATABASE_URL, DATA_DIR: dataDir, LOG_LEVEL: 'debug' })
    const base = new URL(other.base).origin
    const ws = await makeWorkspace()
    const owner = await signInAs(ws.id, 'owner', 'Mara Owner')
    const visit = consoleAt(base)
    const at = (path: string, form?: Record<string, string>) => visit(path, { cookie: owner.cookie, form })
    const csrf = csrfOf((await at('/console/agents')).text)!
    const reg = await at('/console/agents/register', { csrf, name: 'Spend Guard', allow: 'ads.pause_campaign', risk: 'low' })
    expect(reg.res.status).toBe(200)
    const first = credentialIn(reg.text)!
    const agentId = agentIdIn(reg.text)!
    const rot = await at(`/console/agents/${agentId}/rotate`, { csrf, credential: credentialIdIn(reg.text)!, overlap: '0' })
    const second = credentialIn(rot.text)!
    expect(second).toStartWith('svc_agt_')
    const asked = await fetch(`${base}/api/v1/agent/authorize`, {
      method: 'POST',
      headers: { authorization: `Bearer ${second}`, 'content-type': 'application/json' },
      body: JSON.stringify({ tool: 'ads', action: 'pause_campaign', summary: 'Pause it' }),
    })
    expect(asked.status).toBe(201)
    expect((await at(`/console/agents/${agentId}/retire`, { csrf })).res.status).toBe(303)
    const logged = other.stdout() + other.stderr()
    expect(logged.length).toBeGreaterThan(0)
    for (const secret of [first, second]) {
      expect(logged).not.toContain(secret)
      expect(logged).not.toContain(secret.slice(-48))
    }
  }, 120_000)
})
