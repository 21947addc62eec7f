import { describe, expect, test } from 'bun:test'
import { agentIn, authorize } from '../agent-helpers.ts'
import { getHarness, makeWorkspace } from '../harness.ts'
import { fetchConsole, signInAs } from '../support/console-session.ts'

/**
 * GET /console/live over HTTP: only for a signed-in person (401 otherwise, so a browser's
 * EventSource stops instead of reconnecting), with the console's security headers; a person hears
 * of their own workspace's changes and never of another's, and only while their session lasts.
 */

async function waitingIn(workspaceId: string, summary: string) {
  const agent = await agentIn(workspaceId, { allow: 'email.send_campaign', name: 'Lifecycle Writer' })
  const asked = await authorize(agent.credential, { tool: 'email', action: 'send_campaign', resource: 'cmp_spring', summary, facts: { recipients: 3200 } })
  expect(asked.body.data.decision).toBe('requires_approval')
  return asked.body.data.approvalId as string
}

/** Reads the stream until an event `change` arrives (or `ms` pass): its data. */
async function nextChange(reader: ReadableStreamDefaultReader<Uint8Array>, ms = 5_000): Promise<{ types: string[]; ids: string[] }> {
  const decoder = new TextDecoder()
  let text = ''
  const deadline = Date.now() + ms
  while (Date.now() < deadline) {
    const read = await Promise.race([reader.read(), Bun.sleep(deadline - Date.now()).then(() => null)])
    if (!read || read.done) break
    text += decoder.decode(read.value)
    const m = /event: change\ndata: (.*)\n\n/.exec(text)
    if (m) return JSON.parse(m[1]!)
  }
  throw new Error(`no change within ${ms} ms; the stream said: ${JSON.stringify(text)}`)
}

describe('the console\'s live stream', () => {
  test('without a session: 401; with one: an event stream with the console\'s headers', async () => {
    const { url } = await getHarness()
    const anonymous = await fetch(`${url}/console/live`, { redirect: 'manual' })
    expect(anonymous.status).toBe(401)
    await anonymous.text()
    const ws = await makeWorkspace()
    const me = await signInAs(ws.id, 'viewer', 'Kenji Sato')
    const abort = new AbortController()
    const res = await fetch(`${url}/console/live`, { headers: { Cookie: me.cookie }, signal: abort.signal })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/event-stream')
    expect(res.headers.get('content-security-policy')).toContain("default-src 'self'")
    expect(res.headers.get('x-frame-options')).toBe('DENY')
    abort.abort()
  })

  test('a person hears of what starts waiting in their workspace, and nothing of another workspace', async () => {
    const { url } = await getHarness()
    const mine = await makeWorkspace()
    const theirs = await makeWorkspace()
    const me = await signInAs(mine.id, 'approver', 'Maya Chen')
    const abort = new AbortController()
    const res = await fetch(`${url}/console/live`, { headers: { Cookie: me.cookie }, signal: abort.signal })
    const reader = res.body!.getReader()
    // `ready`: the watcher knows where the stream stands; what commits from now on reaches the page.
    expect(new TextDecoder().decode((await reader.read()).value)).toContain('event: ready')
    const elsewhere = await waitingIn(theirs.id, 'Their send')
    const here = await waitingIn(mine.id, 'My send')
    const change = await nextChange(reader)
    abort.abort()
    expect(change.types).toContain('approval.requested')
    expect(change.ids).toContain(here)
    expect(change.ids).not.toContain(elsewhere)
  })

  test('a stream opened before its person signed out ends, and tells nothing of what happens after', async () => {
    const { url } = await getHarness()
    const ws = await makeWorkspace()
    const leaving = await signInAs(ws.id, 'approver', 'Ana Ruiz')
    const staying = await signInAs(ws.id, 'approver', 'Maya Chen')
    const open = async (cookie: string) => {
      const abort = new AbortController()
      const res = await fetch(`${url}/console/live`, { headers: { Cookie: cookie }, signal: abort.signal })
      const reader = res.body!.getReader()
      expect(new TextDecoder().decode((await reader.read()).value)).toContain('event: ready')
      return { reader, abort }
    }
    const theirs = await open(leaving.cookie)
    const mine = await open(staying.cookie)
    const out = await fetchConsole('/console/signout', { cookie: leaving.cookie, form: { csrf: leaving.csrf } })
    expect(out.res.status).toBe(303)
    const asked = await waitingIn(ws.id, 'Sent after the sign-out')
    // The person still signed in hears of it: the change was there to be told.
    expect((await nextChange(mine.reader)).ids).toContain(asked)
    mine.abort.abort()
    // The one who signed out hears nothing of it, and their stream ends.
    const decoder = new TextDecoder()
    let said = ''
    let ended = false
    const deadline = Date.now() + 5_000
    while (Date.now() < deadline) {
      const read = await Promise.race([theirs.reader.read(), Bun.sleep(deadline - Date.now()).then(() => null)])
      if (!read) break
      if (read.done) {
        ended = true
        break
      }
      said += decoder.decode(read.value)
    }
    theirs.abort.abort()
    expect(said).not.toContain('event: change')
    expect(ended).toBe(true)
  })
})
