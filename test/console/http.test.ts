import { describe, expect, test } from 'bun:test'
import { connect } from 'node:net'
import { getHarness, makeWorkspace } from '../harness.ts'
import { addPerson } from '../../server/src/domain/people.ts'
import { signInLink } from '../../server/src/domain/sign-in.ts'
import { freshLink } from '../support/console-session.ts'

/**
 * The console's front door over HTTP, without a session: the security headers on every answer, the
 * sign-in pages, CSRF refusals, the redirect to sign-in, and API tokens and console cookies each
 * opening nothing of the other.
 */

const CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"

async function get(path: string, headers: Record<string, string> = {}) {
  const { url } = await getHarness()
  const res = await fetch(`${url}${path}`, { redirect: 'manual', headers })
  return { res, text: await res.text() }
}

async function post(path: string, form: Record<string, string> | null, headers: Record<string, string> = {}) {
  const { url } = await getHarness()
  const body = form ? new URLSearchParams(form).toString() : undefined
  const res = await fetch(`${url}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { ...(form ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {}), ...headers },
    body,
  })
  return { res, text: await res.text() }
}

function expectSecurityHeaders(res: Response) {
  expect(res.headers.get('content-security-policy')).toBe(CSP)
  expect(res.headers.get('x-frame-options')).toBe('DENY')
  expect(res.headers.get('referrer-policy')).toBe('same-origin')
  expect(res.headers.get('x-content-type-options')).toBe('nosniff')
}

/** The sign-in form token a GET of a sign-in page set, as the browser would send it back (cookie and field). */
function formTokenOf(res: Response, html: string) {
  const cookie = res.headers.getSetCookie().find((c) => c.startsWith('growth_signin='))!
  const value = cookie.split(';')[0]!.slice('growth_signin='.length)
  const field = /name="csrf" value="([^"]+)"/.exec(html)![1]!
  return { cookie: `growth_signin=${value}`, value, field }
}

/** The path of a sign-in link that would sign a new person in. */
async function linkPath() {
  return (await freshLink((await makeWorkspace()).id, 'viewer', 'Vic Viewer')).path
}

describe('every console answer carries the security headers', () => {
  test('pages, redirects, refusals, not-found and static files', async () => {
    const answers = [
      (await get('/console/signin')).res,
      (await get(await linkPath())).res,
      (await get('/console/')).res,
      (await get('/console/approvals/apr_nothing')).res,
      (await get('/console/assets/console.css')).res,
      (await get('/console/assets/htmx.min.js')).res,
      (await get('/console/assets/nothing.js')).res,
      (await post('/console/signout', { csrf: 'x' })).res,
      (await post('/console/signin/some-link-token', null)).res,
      (await get('/console/signin/some-link-token')).res,
    ]
    for (const res of answers) expectSecurityHeaders(res)
    // Pages are never stored; static files may be.
    for (const res of [answers[0]!, answers[1]!, answers[2]!, answers[7]!, answers[9]!]) expect(res.headers.get('cache-control')).toBe('no-store')
    expect(answers[4]!.headers.get('content-type')).toBe('text/css; charset=utf-8')
    expect(answers[5]!.headers.get('content-type')).toBe('text/javascript; charset=utf-8')
    expect(answers[6]!.status).toBe(404)
  })

  test('no page has an inline script, an inline style or anything from another origin', async () => {
    for (const path of ['/console/signin', await linkPath()]) {
      const { res, text } = await get(path)
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8')
      for (const script of text.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)) {
        expect(script[1]).toMatch(/src="\/console\/assets\/[^"]+"/)
        expect(script[2]).toBe('')
      }
      expect(text).not.toMatch(/<style|\sstyle=|\son[a-z]+=/i)
      expect(text).not.toMatch(/(src|href)="(https?:)?\/\//)
      // htmx is told not to add its own inline style.
      expect(text).toContain('"includeIndicatorStyles":false')
    }
  })
})

describe('sign-in pages', () => {
  test('without mail, the sign-in page says what the console is and to ask for a link; no email form', async () => {
    const { res, text } = await get('/console/signin')
    expect(res.status).toBe(200)
    expect(text).toContain('<title>Sign in · Growth console</title>')
    expect(text).toContain("ask your workspace's owner or operator for a sign-in link")
    expect(text).toContain('see what waits for a person')
    expect(text).not.toContain('type="email"')
  })

  test('opening a link signs no one in: one button posting back, with a form token also set as a Strict cookie', async () => {
    const path = await linkPath()
    const { res, text } = await get(path)
    expect(res.status).toBe(200)
    expect(res.headers.getSetCookie().some((c) => c.startsWith('growth_session='))).toBe(false)
    expect(text).toContain(`<form method="post" action="${path}">`)
    expect([...text.matchAll(/<button[^>]*>([^<]*)<\/button>/g)].map((m) => m[1])).toEqual(['Sign in'])
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('growth_signin='))!
    expect(cookie).toContain('HttpOnly')
    expect(cookie).toContain('SameSite=Strict')
    expect(cookie).toContain('Path=/console/signin')
    expect(cookie).not.toContain('Secure') // served over http
    const { value, field } = formTokenOf(res, text)
    expect(field).toBe(value)
  })

  test('a link token is never echoed into the page as markup', async () => {
    const { text } = await get(`/console/signin/${encodeURIComponent('"><script>alert(1)</script>')}`)
    expect(text).not.toContain('<script>alert(1)</script>')
    expect(text).not.toContain('"><script>')
  })

  test('opening a link the console does not know says so at once: 404, no button, no form token, the way to the sign-in page', async () => {
    const { res, text } = await get('/console/signin/gsl_not-one-of-ours')
    expect(res.status).toBe(404)
    expectSecurityHeaders(res)
    expect(text).toContain('This sign-in link is not one we know. Check that the whole link was copied.')
    expect(text).toContain('<a href="/console/signin">Go to the sign-in page</a>')
    expect(text).not.toContain('<button')
    expect(res.headers.getSetCookie()).toEqual([])
  })

  test('opening a used or an expired link says so at once (410), with no button: nothing to click that would only fail', async () => {
    const { sql, url } = await getHarness()
    const ws = await makeWorkspace()
    const used = await linkPath()
    const form = await get(used)
    const t = formTokenOf(form.res, form.text)
    expect((await post(used, { csrf: t.field }, { Cookie: t.cookie })).res.status).toBe(303)
    const person = await addPerson(sql, { workspaceId: ws.id, email: `late-${crypto.randomUUID().slice(0, 8)}@example.com`, name: 'Lee Late', role: 'viewer' })
    const expired = new URL((await signInLink(sql, { personId: person.id, consoleUrl: `${url}/console`, at: new Date(Date.now() - 16 * 60_000) })).url).pathname
    for (const [path, words] of [
      [used, 'This sign-in link was already used: a link works once.'],
      [expired, 'This sign-in link has expired (a link works for 15 minutes).'],
    ] as const) {
      const { res, text } = await get(path)
      expect({ path, status: res.status }).toEqual({ path, status: 410 })
      expect(text).toContain(words)
      expect(text).toContain('Ask your workspace’s owner or operator for a new one.')
      expect(text).not.toContain('<button')
      expect(res.headers.getSetCookie()).toEqual([])
    }
  })

  test('redeeming a link the console does not know: no session, a page saying so', async () => {
    // The form token of another link's page (a form posted from a page opened before): the cookie is the sign-in pages' own.
    const page = await get(await linkPath())
    const t = formTokenOf(page.res, page.text)
    const { res, text } = await post('/console/signin/tok_unknown', { csrf: t.field }, { Cookie: t.cookie })
    expect(res.status).toBe(404)
    expectSecurityHeaders(res)
    expect(text).toContain('This sign-in link is not one we know. Check that the whole link was copied. Ask your workspace’s owner or operator for a new one.')
    // Not a dead end: the way back to the sign-in page.
    expect(text).toContain('<a href="/console/signin">Go to the sign-in page</a>')
    expect(res.headers.getSetCookie().some((c) => c.startsWith('growth_session='))).toBe(false)
  })
})

describe('CSRF: every POST carries the token, or nothing is done', () => {
  test('a sign-in POST without the token, with a wrong one, or with the field but not the cookie is 403 saying so', async () => {
    const page = await get(await linkPath())
    const t = formTokenOf(page.res, page.text)
    const refusals = [
      await post('/console/signin/tok_x', {}, { Cookie: t.cookie }),
      await post('/console/signin/tok_x', { csrf: 'wrong' }, { Cookie: t.cookie }),
      await post('/console/signin/tok_x', { csrf: t.field }),
      await post('/console/signin/tok_x', { csrf: `${t.field}x` }, { Cookie: t.cookie }),
      await post('/console/signin/tok_x', null, { Cookie: t.cookie }),
      await post('/console/signin', { email: 'maya@example.com' }),
    ]
    for (const { res, text } of refusals) {
      expect(res.status).toBe(403)
      expect(text).toContain('missing its security token or carried a wrong one')
      expect(text).not.toMatch(/at .*\.ts:\d+/)
    }
  })

  test('a GET changes nothing: opening a link twice sets only the form token, and the link still signs in', async () => {
    const path = await linkPath()
    for (let i = 0; i < 2; i++) {
      const { res } = await get(path)
      expect(res.status).toBe(200)
      expect(res.headers.getSetCookie().filter((c) => !c.startsWith('growth_signin='))).toEqual([])
    }
    const page = await get(path)
    const t = formTokenOf(page.res, page.text)
    const { res } = await post(path, { csrf: t.field }, { Cookie: t.cookie })
    expect(res.status).toBe(303)
    expect(res.headers.getSetCookie().some((c) => c.startsWith('growth_session='))).toBe(true)
  })
})

describe('no session', () => {
  test('a page redirects to /console/signin (303) saying where it was going, also with an API token in Authorization', async () => {
    const ws = await makeWorkspace()
    const expected: [string, string][] = [
      ['/console/', '/console/signin'],
      ['/console', '/console/signin'],
      ['/console/approvals/apr_x', '/console/signin?next=%2Fconsole%2Fapprovals%2Fapr_x'],
      ['/console/actions/act_x', '/console/signin?next=%2Fconsole%2Factions%2Fact_x'],
      ['/console/agents', '/console/signin?next=%2Fconsole%2Fagents'],
      ['/console/not-a-page', '/console/signin?next=%2Fconsole%2Fnot-a-page'],
      ['/console/audit?kind=people', '/console/signin?next=%2Fconsole%2Faudit%3Fkind%3Dpeople'],
    ]
    for (const [path, location] of expected) {
      for (const headers of [{}, { Authorization: `Bearer ${ws.live}` }] as Record<string, string>[]) {
        const { res } = await get(path, headers)
        expect({ path, status: res.status, location: res.headers.get('location') }).toEqual({ path, status: 303, location })
        expectSecurityHeaders(res)
      }
    }
  })

  test('a POST is 401 with a page, API token or not; nothing is decided', async () => {
    const ws = await makeWorkspace()
    for (const path of ['/console/approvals/apr_x', '/console/actions/act_x', '/console/signout']) {
      for (const headers of [{}, { Authorization: `Bearer ${ws.live}` }] as Record<string, string>[]) {
        const { res, text } = await post(path, { csrf: 'x', decision: 'approve' }, headers)
        expect(res.status).toBe(401)
        expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8')
        expect(text).toContain('You are not signed in')
      }
    }
  })

  test('a console cookie opens nothing under /api/v1: the API reads only its own credentials', async () => {
    const { url } = await getHarness()
    const res = await fetch(`${url}/api/v1/approvals`, { headers: { Cookie: 'growth_session=anything; growth_signin=x' } })
    expect(res.status).toBe(401)
    expect(((await res.json()) as any).error.code).toBe('unauthorized')
  })

  test('the console is not in the API: not in the OpenAPI document', async () => {
    const { url } = await getHarness()
    const doc = (await (await fetch(`${url}/api/v1/openapi.json`)).json()) as any
    expect(Object.keys(doc.paths).filter((p) => p.includes('console'))).toEqual([])
  })

  test('a form sent in chunks is refused (413) once it passes the bound, without waiting for the rest of it', async () => {
    const { url } = await getHarness()
    const { hostname, port } = new URL(url)
    // No Content-Length, 32 KiB of a form in one chunk, and the body never ended: a server that reads
    // the whole body before weighing it (any size a sender likes, before any sign-in) never answers.
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect({ host: hostname, port: Number(port) }, () => {
        const chunk = `csrf=x&email=${'a'.repeat(32 * 1024)}`
        socket.write(`POST /console/signin HTTP/1.1\r\nHost: ${hostname}:${port}\r\nContent-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\n\r\n`)
        socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`)
      })
      let text = ''
      socket.on('data', (d) => {
        text += d.toString()
        if (text.includes('\r\n\r\n')) {
          socket.destroy()
          resolve(text)
        }
      })
      socket.on('error', reject)
      setTimeout(() => {
        socket.destroy()
        resolve(text)
      }, 5_000)
    })
    expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 413 Payload Too Large')
  })
})
