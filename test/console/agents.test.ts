import { describe, expect, test } from 'bun:test'
import { listAudit } from '../../server/src/domain/audit.ts'
import { agentIn, authorize, report } from '../agent-helpers.ts'
import { getHarness, makeWorkspace } from '../harness.ts'
import { csrfOf, fetchConsole, signInAs } from '../support/console-session.ts'

/**
 * /console/agents, /console/agents/{id} and /console/requests over HTTP, signed in: each agent with
 * what it may do in sentences, its requests with decision, checks and result, the requests
 * filtered and paged; the stop switch (a reason required, owners and approvers only, CSRF) denying
 * the next authorize and resuming allowing it again, both in the audit list with the person.
 */

const send = (credential: string, summary: string, recipients = 10) =>
  authorize(credential, { tool: 'email', action: 'send_campaign', resource: 'cmp_spring', summary, facts: { recipients } })

async function agentsWith() {
  const ws = await makeWorkspace()
  const writer = await agentIn(ws.id, { allow: 'email.send_campaign', name: 'Lifecycle Writer', maxUnattendedRisk: 'high' })
  const pauser = await agentIn(ws.id, { allow: 'ads.pause_campaign', name: 'Ad Pauser' })
  const allowed = await send(writer.credential, 'Send the welcome series')
  expect(allowed.body.data.decision).toBe('allowed')
  const denied = await authorize(pauser.credential, { tool: 'email', action: 'send_campaign', summary: 'Send as the pauser' })
  expect(denied.body.data.decision).toBe('denied')
  return { ws, writer, pauser, allowedId: allowed.body.data.id as string, deniedId: denied.body.data.id as string }
}

describe('the console: agents and requests', () => {
  test('the agents page says what each agent may do; an agent\'s page lists its requests with decision and checks', async () => {
    const { ws, writer, pauser, allowedId, deniedId } = await agentsWith()
    const me = await signInAs(ws.id, 'viewer', 'Kenji Sato')
    const page = await fetchConsole('/console/agents', { cookie: me.cookie })
    expect(page.res.status).toBe(200)
    expect(page.text).toContain('Lifecycle Writer may send an email campaign (email.send_campaign).')
    expect(page.text).toContain('Ad Pauser may pause a campaign (ads.pause_campaign).')
    expect(page.text).toContain('Agents are running')
    // Who it belongs to, as a person reads it: not 'registered by the workspace' of an agent they registered.
    expect(page.text).toContain('<span>registered in this workspace</span>')
    // A viewer sees the switch's state and no button.
    expect(page.text).not.toContain('name="switch"')

    const one = await fetchConsole(`/console/agents/${writer.id}`, { cookie: me.cookie })
    expect(one.res.status).toBe(200)
    expect(one.text).toContain(`Request ${allowedId}`)
    expect(one.text).not.toContain(`Request ${deniedId}`)
    expect(one.text).toContain('Allowed')
    expect(one.text).toContain('No result reported yet.')
    // The result the agent reports, in one sentence.
    expect((await report(writer.credential, { authorizationId: allowedId, status: 'completed', summary: 'Sent to 10 contacts.' })).status).toBe(201)
    expect((await fetchConsole(`/console/agents/${writer.id}`, { cookie: me.cookie })).text).toContain('<p>Result: completed, <bdi>Sent to 10 contacts.</bdi></p>')
    const theirs = await fetchConsole(`/console/agents/${pauser.id}`, { cookie: me.cookie })
    expect(theirs.text).toContain('Denied')
    expect(theirs.text).toMatch(/Failed: [^<]*email\.send_campaign/)

    // Another workspace's agent is not found; nor an unknown id.
    const stranger = await signInAs((await makeWorkspace()).id, 'owner', 'Ana Lima')
    expect((await fetchConsole(`/console/agents/${writer.id}`, { cookie: stranger.cookie })).res.status).toBe(404)
    expect((await fetchConsole('/console/agents/agt_nothing', { cookie: me.cookie })).res.status).toBe(404)
  }, 60_000)

  test("a request waiting for a person reads 'Needs a person' for each check that asked for one, not 'Failed'", async () => {
    const ws = await makeWorkspace()
    const writer = await agentIn(ws.id, { allow: 'email.send_campaign', name: 'Careful Writer' })
    const waits = await authorize(writer.credential, { tool: 'email', action: 'send_campaign', resource: 'cmp_spring', summary: 'Send to 3,200', facts: { recipients: 3200 } })
    expect(waits.body.data.decision).toBe('requires_approval')
    const me = await signInAs(ws.id, 'viewer', 'Vic Viewer')
    for (const path of [`/console/agents/${writer.id}`, '/console/requests']) {
      const page = (await fetchConsole(path, { cookie: me.cookie })).text
      const from = page.indexOf(`Request ${waits.body.data.id}`)
      expect(from).toBeGreaterThan(-1)
      const card = page.slice(from, page.indexOf('</article>', from))
      expect(card).toMatch(/<li>Needs a person: [^<]+<\/li>/)
      expect(card).toMatch(/<li>Passed: [^<]+<\/li>/)
      expect(card).not.toContain('<li>Failed:')
    }
  }, 60_000)

  test('a request that waited says how the person decided it, approved or rejected, on the requests page and the agent\'s', async () => {
    const ws = await makeWorkspace()
    const writer = await agentIn(ws.id, { allow: 'email.send_campaign', name: 'Lifecycle Writer' })
    // Two sends of other sizes: two approvals (the same ask again would wait on the first).
    const asked = await Promise.all([send(writer.credential, 'Send the spring newsletter', 10), send(writer.credential, 'Send the summer newsletter', 20)])
    const [toApprove, toReject] = asked.map((a) => a.body.data.approvalId as string)
    const me = await signInAs(ws.id, 'approver', 'Maya Chen')
    for (const [id, form] of [[toApprove, { decision: 'approve', reason: '' }], [toReject, { decision: 'reject', reason: 'Not before the sale.' }]] as const) {
      expect((await fetchConsole(`/console/approvals/${id}`, { cookie: me.cookie, form: { ...form, csrf: me.csrf } })).res.status).toBe(303)
    }
    // Back on the item's page after the click, the decision is the first thing under its title, not below every check.
    for (const [id, status] of [[toApprove, 'Approved'], [toReject, 'Rejected']] as const) {
      const item = (await fetchConsole(`/console/approvals/${id}`, { cookie: me.cookie })).text
      expect(item.indexOf(`<p class="status">${status}</p>`)).toBeGreaterThan(item.indexOf('<h1>'))
      expect(item.indexOf(`<p class="status">${status}</p>`)).toBeLessThan(item.indexOf('What exactly'))
    }
    for (const path of ['/console/requests', `/console/agents/${writer.id}`]) {
      const text = (await fetchConsole(path, { cookie: me.cookie })).text
      expect(text).toMatch(/Approved by Maya Chen, <time[^>]*>[^<]*<\/time>\./)
      expect(text).toMatch(/Rejected by Maya Chen, <time[^>]*>[^<]*<\/time>: Not before the sale\.<\/p>/)
      expect(text).not.toContain('Decided by')
    }
  }, 60_000)

  test('requests: filtered by decision and agent, paged by position; a wrong filter is a clear 400 or 404', async () => {
    const { ws, writer, pauser, allowedId, deniedId } = await agentsWith()
    const me = await signInAs(ws.id, 'approver', 'Maya Chen')
    const all = await fetchConsole('/console/requests', { cookie: me.cookie })
    expect(all.res.status).toBe(200)
    expect(all.text).toContain(`Request ${allowedId}`)
    expect(all.text).toContain(`Request ${deniedId}`)
    const denied = await fetchConsole('/console/requests?decision=denied', { cookie: me.cookie })
    expect(denied.text).not.toContain(`Request ${allowedId}`)
    expect(denied.text).toContain(`Request ${deniedId}`)
    const byAgent = await fetchConsole(`/console/requests?agent=${writer.id}`, { cookie: me.cookie })
    expect(byAgent.text).toContain(`Request ${allowedId}`)
    expect(byAgent.text).not.toContain(`Request ${deniedId}`)
    expect((await fetchConsole(`/console/requests?agent=${pauser.id}&decision=allowed`, { cookie: me.cookie })).text).toContain('No request matches this filter')

    // 26 more requests: the first page holds 25, and its link leads to the rest, none twice.
    await Promise.all(Array.from({ length: 26 }, (_, i) => send(writer.credential, `Send number ${i}`)))
    const first = await fetchConsole(`/console/requests?agent=${writer.id}`, { cookie: me.cookie })
    const ids = (t: string) => [...t.matchAll(/aria-label="Request ([^"]+)"/g)].map((m) => m[1]!)
    expect(ids(first.text)).toHaveLength(25)
    const next = /href="(\/console\/requests\?[^"]*after=[^"]+)"/.exec(first.text)![1]!.replaceAll('&amp;', '&')
    const second = await fetchConsole(next, { cookie: me.cookie })
    expect(ids(second.text)).toHaveLength(2)
    expect(new Set([...ids(first.text), ...ids(second.text)]).size).toBe(27)
    expect(second.text).not.toContain('Older requests')

    const bad = await fetchConsole('/console/requests?decision=maybe', { cookie: me.cookie })
    expect(bad.res.status).toBe(400)
    expect(bad.text).toContain('decision must be one of allowed, denied, requires_approval (got &quot;maybe&quot;)')
    expect((await fetchConsole('/console/requests?after=yesterday', { cookie: me.cookie })).res.status).toBe(400)
    expect((await fetchConsole('/console/requests?agent=agt_nobody', { cookie: me.cookie })).res.status).toBe(404)
  })

  test('the stop switch: a reason required; a viewer and a forged form refused; stopping denies the next authorize, resuming allows it; both audited with the person', async () => {
    const { ws, writer } = await agentsWith()
    const viewer = await signInAs(ws.id, 'viewer', 'Kenji Sato')
    const maya = await signInAs(ws.id, 'approver', 'Maya Chen')
    const refusedByViewer = await fetchConsole('/console/agents', { cookie: viewer.cookie, form: { csrf: viewer.csrf, switch: 'stop', reason: 'I think so' } })
    expect(refusedByViewer.res.status).toBe(403)
    const forged = await fetchConsole('/console/agents', { cookie: maya.cookie, form: { csrf: 'forged', switch: 'stop', reason: 'A forged form' } })
    expect(forged.res.status).toBe(403)
    const noCookie = await fetchConsole('/console/agents', { form: { csrf: maya.csrf, switch: 'stop', reason: 'No session' } })
    expect(noCookie.res.status).toBe(401)
    const noReason = await fetchConsole('/console/agents', { cookie: maya.cookie, form: { csrf: maya.csrf, switch: 'stop', reason: '  ' } })
    expect(noReason.res.status).toBe(400)
    expect(noReason.text).toContain('Stopping the agents needs a reason')
    // A reason the rule refuses is kept in its field, beside the refusal.
    const pasted = await fetchConsole('/console/agents', { cookie: maya.cookie, form: { csrf: maya.csrf, switch: 'stop', reason: 'Wrong list \u001b[0m sent' } })
    expect(pasted.res.status).toBe(400)
    // In the words of the person who pasted it, not the API's.
    expect(pasted.text).toContain('The reason holds a control character (U+001B), as text pasted from a terminal can: take it out and try again.')
    expect(pasted.text).toContain('aria-describedby="switch-error">Wrong list \u001b[0m sent</textarea>')
    const unknown = await fetchConsole('/console/agents', { cookie: maya.cookie, form: { csrf: maya.csrf, switch: 'pause' } })
    expect(unknown.res.status).toBe(400)
    expect((await send(writer.credential, 'Still running')).body.data.decision).toBe('allowed')

    const stopped = await fetchConsole('/console/agents', { cookie: maya.cookie, form: { csrf: csrfOf((await fetchConsole('/console/agents', { cookie: maya.cookie })).text)!, switch: 'stop', reason: 'The spring send went to the wrong list.' } })
    expect(stopped.res.status).toBe(303)
    const after = await send(writer.credential, 'Send while stopped')
    expect(after.body.data.decision).toBe('denied')
    expect(after.body.data.checks[0]).toMatchObject({ name: 'agents_enabled', passed: false })
    expect(after.body.data.checks[0].detail).toContain('The spring send went to the wrong list.')
    const page = await fetchConsole('/console/agents', { cookie: viewer.cookie })
    expect(page.text).toContain('Agents are stopped')
    expect(page.text).toContain(' by Maya Chen.')
    expect(page.text).toContain('Reason: The spring send went to the wrong list.')
    expect(page.text).not.toContain('name="switch"')

    const resumed = await fetchConsole('/console/agents', { cookie: maya.cookie, form: { csrf: maya.csrf, switch: 'resume' } })
    expect(resumed.res.status).toBe(303)
    expect((await send(writer.credential, 'Send after resuming')).body.data.decision).toBe('allowed')

    const { entries } = await listAudit((await getHarness()).sql, ws.id)
    const actor = { kind: 'person', id: maya.person.id, name: 'Maya Chen' }
    expect(entries.filter((e) => e.action.startsWith('agents.')).map((e) => [e.action, e.actor, e.detail])).toEqual([
      ['agents.resumed', actor, {}],
      ['agents.stopped', actor, { reason: 'The spring send went to the wrong list.' }],
    ])
  })
})
