import { describe, expect, test } from 'bun:test'
import { listAudit } from '../../server/src/domain/audit.ts'
import { addPerson } from '../../server/src/domain/people.ts'
import { signInLink } from '../../server/src/domain/sign-in.ts'
import { agentIn, authorize } from '../agent-helpers.ts'
import { call, getHarness, makeWorkspace } from '../harness.ts'
import { csrfOf, fetchConsole, freshLink } from '../support/console-session.ts'

/**
 * The console signed in, over HTTP as a browser would use it (cookies and forms, redirects not
 * followed): a one-time link redeemed by its one button, the session cookie it sets, decisions made
 * with the session's CSRF token and recorded with the person and the reason (read back through the
 * API), and what is refused: a link used twice, a wrong CSRF token, a viewer deciding, another
 * workspace's item, a session after sign-out.
 */

const cookieValue = (res: Response, name: string) => res.headers.getSetCookie().find((c) => c.startsWith(`${name}=`))?.split(';')[0]

/** A person of the workspace, signed in through a one-time link as the browser does it: the session cookie. */
async function signedIn(workspaceId: string, role: 'owner' | 'approver' | 'viewer', name = 'Maya Chen') {
  const { sql, url } = await getHarness()
  const person = await addPerson(sql, { workspaceId, email: `${role}-${crypto.randomUUID().slice(0, 8)}@example.com`, name, role })
  const link = await signInLink(sql, { personId: person.id, consoleUrl: `${url}/console` })
  const path = new URL(link.url).pathname
  const page = await fetchConsole(path)
  expect(page.res.status).toBe(200)
  const form = cookieValue(page.res, 'growth_signin')!
  const redeemed = await fetchConsole(path, { cookie: form, form: { csrf: csrfOf(page.text)! } })
  expect(redeemed.res.status).toBe(303)
  expect(redeemed.res.headers.get('location')).toBe('/console/')
  const setCookie = redeemed.res.headers.getSetCookie().find((c) => c.startsWith('growth_session='))!
  expect(setCookie).toMatch(/; Path=\/console/)
  expect(setCookie).toMatch(/HttpOnly/)
  expect(setCookie).toMatch(/SameSite=Lax/)
  return { person, cookie: setCookie.split(';')[0]!, path, formCookie: form, formField: csrfOf(page.text)! }
}

/** The approval as GET /approvals answers it (there is no read of one by id). */
async function approvalOf(token: string, id: string) {
  const r = await call('GET', '/api/v1/approvals?limit=100', { token })
  expect(r.status).toBe(200)
  return (r.body.data as { id: string; status: string }[]).find((a) => a.id === id)!
}

/** A workspace with an agent request waiting for a person (a high-risk send by an agent that may take medium). */
async function waiting() {
  const ws = await makeWorkspace()
  const agent = await agentIn(ws.id, { allow: 'email.send_campaign', name: 'Lifecycle Writer' })
  const asked = await authorize(agent.credential, { tool: 'email', action: 'send_campaign', resource: 'cmp_spring', summary: 'Send the spring newsletter', facts: { recipients: 3200 } })
  expect(asked.body.data.decision).toBe('requires_approval')
  return { ws, approvalId: asked.body.data.approvalId as string }
}

describe('the console, signed in', () => {
  test('a link signs in once; the inbox lists what waits; a rejection is recorded with the person and the reason', async () => {
    const { ws, approvalId } = await waiting()
    const maya = await signedIn(ws.id, 'approver')
    // The link is used up: the same button again signs nobody in.
    const again = await fetchConsole(maya.path, { cookie: maya.formCookie, form: { csrf: maya.formField } })
    expect(again.res.status).toBe(410)
    expect(cookieValue(again.res, 'growth_session')).toBeUndefined()

    const inbox = await fetchConsole('/console/', { cookie: maya.cookie })
    expect(inbox.res.status).toBe(200)
    expect(inbox.text).toContain(`href="/console/approvals/${approvalId}"`)
    const item = await fetchConsole(`/console/approvals/${approvalId}`, { cookie: maya.cookie })
    expect(item.res.status).toBe(200)
    const csrf = csrfOf(item.text)!

    // A wrong token, or a rejection without a reason, decides nothing.
    expect((await fetchConsole(`/console/approvals/${approvalId}`, { cookie: maya.cookie, form: { csrf: 'forged', decision: 'reject', reason: 'no' } })).res.status).toBe(403)
    expect((await fetchConsole(`/console/approvals/${approvalId}`, { cookie: maya.cookie, form: { csrf, decision: 'reject', reason: ' ' } })).res.status).toBe(400)
    expect((await approvalOf(ws.live, approvalId)).status).toBe('pending')

    const decided = await fetchConsole(`/console/approvals/${approvalId}`, { cookie: maya.cookie, form: { csrf, decision: 'reject', reason: 'Not before the spring catalogue is out.' } })
    expect(decided.res.status).toBe(303)
    expect(await approvalOf(ws.live, approvalId)).toMatchObject({
      status: 'rejected',
      decidedBy: { kind: 'person', id: maya.person.id, name: 'Maya Chen' },
      decisionReason: 'Not before the spring catalogue is out.',
    })
    // The audit list has the sign-in and the decision, each with the person.
    const { entries } = await listAudit((await getHarness()).sql, ws.id)
    const actor = { kind: 'person' as const, id: maya.person.id, name: 'Maya Chen' }
    expect(entries.filter((e) => e.action === 'person.signed_in' || e.action === 'approval.rejected').map((e) => [e.action, e.actor, e.subject])).toEqual([
      ['approval.rejected', actor, approvalId],
      ['person.signed_in', actor, maya.person.id],
    ])
    // The inbox no longer lists it.
    expect((await fetchConsole('/console/', { cookie: maya.cookie })).text).not.toContain(`/console/approvals/${approvalId}"`)
  })

  test('a refused decision shows the page again with the refusal beside its form and the text kept as typed', async () => {
    const { ws, approvalId } = await waiting()
    const maya = await signedIn(ws.id, 'approver')
    const csrf = csrfOf((await fetchConsole(`/console/approvals/${approvalId}`, { cookie: maya.cookie })).text)!
    // A note pasted from a terminal, with an escape sequence in it: refused by the domain's rule.
    const note = 'Fine by me \u001b[31m(checked the list)'
    const refusedNote = await fetchConsole(`/console/approvals/${approvalId}`, { cookie: maya.cookie, form: { csrf, decision: 'approve', reason: note } })
    expect(refusedNote.res.status).toBe(400)
    // In the words of the form's own field (the note), not the API's parameter.
    expect(refusedNote.text).toContain('The note holds a control character (U+001B), as text pasted from a terminal can: take it out and try again.')
    expect(refusedNote.text).toContain('value="Fine by me \u001b[31m(checked the list)" aria-describedby="decide-error"')
    expect(refusedNote.text).toContain('<textarea id="reject-reason" name="reason" required maxlength="500"></textarea>')
    // A reason longer than 500 characters (a crafted form: the field itself stops at 500).
    const long = `Not this week: ${'the list is wrong. '.repeat(30)}`
    const refusedReason = await fetchConsole(`/console/approvals/${approvalId}`, { cookie: maya.cookie, form: { csrf, decision: 'reject', reason: long } })
    expect(refusedReason.res.status).toBe(400)
    expect(refusedReason.text).toContain(`The reason is ${long.trim().length} characters long: keep it to 500.`)
    expect(refusedReason.text).toContain(`aria-describedby="decide-error">${long}</textarea>`)
    expect(refusedReason.text).toContain('maxlength="500" value=""><')
    // A blank reason: refused, and the blank kept where it was typed.
    const blank = await fetchConsole(`/console/approvals/${approvalId}`, { cookie: maya.cookie, form: { csrf, decision: 'reject', reason: '   ' } })
    expect(blank.res.status).toBe(400)
    expect(blank.text).toContain('A rejection needs a reason: the requester sees it.')
    expect(blank.text).toContain('aria-describedby="decide-error">   </textarea>')
    expect((await approvalOf(ws.live, approvalId)).status).toBe('pending')
  })

  test('a viewer reads but cannot decide; another workspace\'s item is not found; signing out ends the session', async () => {
    const { ws, approvalId } = await waiting()
    const viewer = await signedIn(ws.id, 'viewer', 'Kenji Sato')
    const page = await fetchConsole(`/console/approvals/${approvalId}`, { cookie: viewer.cookie })
    expect(page.res.status).toBe(200)
    expect(page.text).not.toContain('name="decision"')
    const csrf = csrfOf(page.text)!
    expect((await fetchConsole(`/console/approvals/${approvalId}`, { cookie: viewer.cookie, form: { csrf, decision: 'approve' } })).res.status).toBe(403)
    expect((await approvalOf(ws.live, approvalId)).status).toBe('pending')

    const other = await makeWorkspace()
    const stranger = await signedIn(other.id, 'owner', 'Ana Lima')
    expect((await fetchConsole(`/console/approvals/${approvalId}`, { cookie: stranger.cookie })).res.status).toBe(404)
    const strangerCsrf = csrfOf((await fetchConsole('/console/', { cookie: stranger.cookie })).text)!
    expect((await fetchConsole(`/console/approvals/${approvalId}`, { cookie: stranger.cookie, form: { csrf: strangerCsrf, decision: 'approve' } })).res.status).toBe(404)
    expect((await approvalOf(ws.live, approvalId)).status).toBe('pending')

    // The session's cookie opens nothing under /api/v1.
    expect((await fetchConsole('/api/v1/approvals', { cookie: viewer.cookie })).res.status).toBe(401)

    const out = await fetchConsole('/console/signout', { cookie: viewer.cookie, form: { csrf } })
    expect(out.res.status).toBe(303)
    expect(out.res.headers.get('location')).toBe('/console/signin?done=signed-out')
    // The page it leads to says it was done; the same page opened by hand says nothing of it.
    const signedOut = await fetchConsole('/console/signin?done=signed-out')
    expect(signedOut.text).toContain('<div class="panel notice" role="status"><p>Signed out: this browser no longer has a session of the console.</p></div>')
    expect((await fetchConsole('/console/signin')).text).not.toContain('Signed out')
    const gone = await fetchConsole('/console/', { cookie: viewer.cookie })
    expect(gone.res.status).toBe(303)
    expect(gone.res.headers.get('location')).toBe('/console/signin')
  })
})

describe('the console, signed in: proposed changes, sign-out and paging', () => {
  const inAWeek = () => new Date(Date.now() + 7 * 86_400_000).toISOString()

  test('a proposed change: a viewer, a wrong CSRF token and another workspace decide nothing; an owner approves it as themselves', async () => {
    const ws = await makeWorkspace()
    const proposed = await call('POST', '/api/v1/actions', { token: ws.live, body: { kind: 'create_discount', args: { code: 'SPRING10', percentOff: 10, expiresAt: inAWeek() } } })
    expect(proposed.status).toBe(201)
    const id = proposed.body.data.id as string
    const statusOf = async () => ((await call('GET', '/api/v1/actions?limit=100', { token: ws.live })).body.data as { id: string; status: string }[]).find((a) => a.id === id)!

    const viewer = await signedIn(ws.id, 'viewer', 'Kenji Sato')
    const viewerCsrf = csrfOf((await fetchConsole(`/console/actions/${id}`, { cookie: viewer.cookie })).text)!
    expect((await fetchConsole(`/console/actions/${id}`, { cookie: viewer.cookie, form: { csrf: viewerCsrf, decision: 'approve' } })).res.status).toBe(403)

    const stranger = await signedIn((await makeWorkspace()).id, 'owner', 'Ana Lima')
    expect((await fetchConsole(`/console/actions/${id}`, { cookie: stranger.cookie })).res.status).toBe(404)
    const strangerCsrf = csrfOf((await fetchConsole('/console/', { cookie: stranger.cookie })).text)!
    expect((await fetchConsole(`/console/actions/${id}`, { cookie: stranger.cookie, form: { csrf: strangerCsrf, decision: 'approve' } })).res.status).toBe(404)

    const owner = await signedIn(ws.id, 'owner')
    expect((await fetchConsole(`/console/actions/${id}`, { cookie: owner.cookie, form: { csrf: 'forged', decision: 'approve' } })).res.status).toBe(403)
    // Another person's token is not this session's.
    expect((await fetchConsole(`/console/actions/${id}`, { cookie: owner.cookie, form: { csrf: viewerCsrf, decision: 'approve' } })).res.status).toBe(403)
    expect((await statusOf()).status).toBe('proposed')

    const csrf = csrfOf((await fetchConsole(`/console/actions/${id}`, { cookie: owner.cookie })).text)!
    expect((await fetchConsole(`/console/actions/${id}`, { cookie: owner.cookie, form: { csrf, decision: 'approve' } })).res.status).toBe(303)
    // Approved: carried out (or failed, the stand-in store having no connection), and decided by the person.
    const decided = await statusOf()
    expect(['applied', 'failed']).toContain(decided.status)
    expect(decided).toMatchObject({ decidedBy: { kind: 'person', id: owner.person.id, name: 'Maya Chen' } })
  })

  test('signing out needs the session\'s CSRF token; a page position the console did not give is refused', async () => {
    const ws = await makeWorkspace()
    const maya = await signedIn(ws.id, 'approver')
    const bad = await fetchConsole('/console/?after=not-a-position', { cookie: maya.cookie })
    expect(bad.res.status).toBe(400)
    expect(bad.text).toContain('after must be a position this console gave')
    // A sign-out forged from elsewhere (no or a wrong token) leaves the session open.
    expect((await fetchConsole('/console/signout', { cookie: maya.cookie, form: { csrf: 'forged' } })).res.status).toBe(403)
    expect((await fetchConsole('/console/signout', { cookie: maya.cookie, form: {} })).res.status).toBe(403)
    expect((await fetchConsole('/console/', { cookie: maya.cookie })).res.status).toBe(200)
  })

  test('GET /console/signout (a stable path of the contract) is a page whose one button signs out; the GET itself ends nothing', async () => {
    const ws = await makeWorkspace()
    const maya = await signedIn(ws.id, 'approver')
    const page = await fetchConsole('/console/signout', { cookie: maya.cookie })
    expect(page.res.status).toBe(200)
    expect(page.text).toContain('<form method="post" action="/console/signout">')
    // Opening it (a link, a prefetch) left the session open.
    expect((await fetchConsole('/console/', { cookie: maya.cookie })).res.status).toBe(200)
    const out = await fetchConsole('/console/signout', { cookie: maya.cookie, form: { csrf: csrfOf(page.text)! } })
    expect(out.res.status).toBe(303)
    expect((await fetchConsole('/console/', { cookie: maya.cookie })).res.headers.get('location')).toBe('/console/signin')
    // Without a session, the sign-in page, as every other page of the console.
    const anonymous = await fetchConsole('/console/signout')
    expect([anonymous.res.status, anonymous.res.headers.get('location')]).toEqual([303, '/console/signin'])
  })
})


describe('signing in on the way to a page', () => {
  test('a page opened without a session (a notice\'s link) is gone on to once signed in with a link, in the same browser', async () => {
    const ws = await makeWorkspace()
    const sent = await fetchConsole('/console/approvals/apr_0123456789abcdefghijklmnop')
    expect(sent.res.status).toBe(303)
    const signInPage = sent.res.headers.get('location')!
    expect(signInPage).toBe('/console/signin?next=%2Fconsole%2Fapprovals%2Fapr_0123456789abcdefghijklmnop')
    const page = await fetchConsole(signInPage)
    expect(page.res.status).toBe(200)
    expect(page.text).toContain('Sign in to open the page you followed a link to')
    const next = page.res.headers.getSetCookie().find((c) => c.startsWith('growth_next='))!
    expect(next).toStartWith('growth_next=%2Fconsole%2Fapprovals%2Fapr_0123456789abcdefghijklmnop; Path=/console/signin; HttpOnly; SameSite=Lax; Max-Age=900')

    const { path } = await freshLink(ws.id, 'approver', 'Arto Approver')
    const link = await fetchConsole(path, { cookie: next.split(';')[0] })
    const form = cookieValue(link.res, 'growth_signin')!
    const redeemed = await fetchConsole(path, { cookie: `${form}; ${next.split(';')[0]}`, form: { csrf: csrfOf(link.text)! } })
    expect(redeemed.res.status).toBe(303)
    expect(redeemed.res.headers.get('location')).toBe('/console/approvals/apr_0123456789abcdefghijklmnop')
    // Gone to once: the cookie is ended with the sign-in.
    expect(redeemed.res.headers.getSetCookie().find((c) => c.startsWith('growth_next='))).toStartWith('growth_next=; Path=/console/signin; HttpOnly; SameSite=Lax; Max-Age=0')
    const cookie = cookieValue(redeemed.res, 'growth_session')!

    // Signed in already, the sign-in page goes on at once.
    const already = await fetchConsole('/console/signin?next=%2Fconsole%2Fagents', { cookie })
    expect(already.res.headers.get('location')).toBe('/console/agents')
  })

  test('never another site or a sign-in path: such a next is forgotten, and a forged cookie leads to the inbox', async () => {
    const ws = await makeWorkspace()
    for (const next of ['//evil.example/x', 'https://evil.example/', '/console//evil.example', '/console/signout', '/console/signin/gsl_x', '/console/../api/v1/missions', '/console/live', '/elsewhere', `/console/${'a'.repeat(500)}`]) {
      const page = await fetchConsole(`/console/signin?${new URLSearchParams({ next })}`)
      expect({ next, status: page.res.status }).toEqual({ next, status: 200 })
      expect({ next, cookie: page.res.headers.getSetCookie().find((c) => c.startsWith('growth_next='))?.split(';')[0] }).toEqual({ next, cookie: 'growth_next=' })
      expect(page.text).not.toContain('Sign in to open the page you followed a link to')
    }
    const { path } = await freshLink(ws.id, 'viewer', 'Vera Viewer')
    const link = await fetchConsole(path)
    const form = cookieValue(link.res, 'growth_signin')!
    const forged = `growth_next=${encodeURIComponent('https://evil.example/console/')}`
    const redeemed = await fetchConsole(path, { cookie: `${form}; ${forged}`, form: { csrf: csrfOf(link.text)! } })
    expect(redeemed.res.status).toBe(303)
    expect(redeemed.res.headers.get('location')).toBe('/console/')
  })
})
