import { describe, expect, test } from 'bun:test'
import { call, makeWorkspace } from '../harness.ts'
import { fetchConsole, signInAs } from '../support/console-session.ts'

/**
 * /console/logs over HTTP: the request log of GET /api/v1/logs as a page, read by every role;
 * filtered by status, operation and credential; a refused call opens to its error's code and
 * message and its request id (the one its answer carried); a wrong filter is a 400 naming it.
 */

/** The log page once it shows `wanted` (calls reach the log within about a second: waited on, not slept). */
async function logShowing(path: string, cookie: string, wanted: string) {
  const deadline = Date.now() + 15_000
  for (;;) {
    const page = await fetchConsole(path, { cookie })
    if (page.text.includes(wanted) || Date.now() > deadline) return page
    await Bun.sleep(100)
  }
}

describe('the console: the request log', () => {
  for (const role of ['owner', 'approver', 'viewer'] as const) {
    test(`${role}: filtered by status, operation and credential; a refused call shows what refused it and its request id`, async () => {
      const ws = await makeWorkspace()
      const me = await signInAs(ws.id, role, `Lee ${role}`)
      const ok = await call('GET', '/api/v1/logs?limit=1', { token: ws.live })
      expect(ok.status).toBe(200)
      const refused = await call('GET', '/api/v1/logs?limit=1', { token: ws.scoped })
      expect(refused.status).toBe(403)
      const refusedId = refused.headers.get('x-request-id')!
      const okId = ok.headers.get('x-request-id')!

      const all = await logShowing('/console/logs', me.cookie, refusedId)
      expect(all.res.status).toBe(200)
      expect(all.text).toContain(refusedId)
      expect(all.text).toContain(okId)
      const body = refused.body as { error: { code: string; message: string } }
      expect(all.text).toContain(`<code>${body.error.code}</code>`)

      const only4xx = await fetchConsole('/console/logs?status=4xx', { cookie: me.cookie })
      expect(only4xx.text).toContain(refusedId)
      expect(only4xx.text).not.toContain(okId)
      const byOperation = await fetchConsole('/console/logs?operation=listRequestLogs&status=2xx', { cookie: me.cookie })
      expect(byOperation.text).toContain(okId)
      expect(byOperation.text).not.toContain(refusedId)
      const live = (await call('GET', '/api/v1/logs?limit=5', { token: ws.live })).body as { data: { id: string; credential: { id: string } }[] }
      const liveCred = live.data.find((e) => e.id === okId)!.credential.id
      const byCredential = await fetchConsole(`/console/logs?credential=${liveCred}`, { cookie: me.cookie })
      expect(byCredential.text).toContain(okId)
      expect(byCredential.text).not.toContain(refusedId)
    }, 60_000)
  }

  test('a wrong filter is a 400 naming it; another workspace\'s credential is not found; signed out, the sign-in page', async () => {
    const ws = await makeWorkspace()
    const me = await signInAs(ws.id, 'viewer', 'Lee Viewer')
    for (const [query, words] of [['status=6xx', 'status must be'], ['operation=drop%20table', 'operation must be'], ['operation=nope', 'operation is not an operation of this API'], ['credential=tok_1', 'credential must be'], ['after=yesterday', 'after must be']] as const) {
      const page = await fetchConsole(`/console/logs?${query}`, { cookie: me.cookie })
      expect(page.res.status, query).toBe(400)
      expect(page.text).toContain(words)
    }
    // The refusal is beside the filter form, which keeps what was typed, the wrong field marked.
    const typo = await fetchConsole('/console/logs?status=4xx&operation=createdecision', { cookie: me.cookie })
    expect(typo.res.status).toBe(400)
    expect(typo.text).toMatch(/<p class="failed" role="alert" id="filter-error">operation is not an operation of this API[^<]*Correct it, or empty the field, and show again.<\/p>/)
    expect(typo.text).toContain('name="status" value="4xx"')
    expect(typo.text).toContain('name="operation" value="createdecision" placeholder="createExperiment" size="18" aria-invalid="true" aria-describedby="filter-error"')
    const unknown = await fetchConsole('/console/logs?credential=cred_01zzzzzzzzzzzzzzzzzzzzzzzz', { cookie: me.cookie })
    expect(unknown.text).toContain('name="credential" value="cred_01zzzzzzzzzzzzzzzzzzzzzzzz" placeholder="cred_…" size="30" aria-invalid="true"')
    const other = await makeWorkspace()
    const theirs = (await call('GET', '/api/v1/logs?limit=1', { token: other.live })).headers.get('x-request-id')!
    const theirPage = await fetchConsole('/console/logs', { cookie: me.cookie })
    expect(theirPage.text).not.toContain(theirs)
    expect((await fetchConsole('/console/logs?credential=cred_01zzzzzzzzzzzzzzzzzzzzzzzz', { cookie: me.cookie })).res.status).toBe(404)
    expect((await fetchConsole('/console/logs')).res.status).toBe(303)
  }, 60_000)
})
