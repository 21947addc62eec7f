import { describe, expect, test } from 'bun:test'
import { actionPage, approvalPage } from '../../server/src/console/pages/item.ts'
import { escapeHtml } from '../../server/src/console/html.ts'
import { inboxPage } from '../../server/src/console/pages/inbox.ts'
import type { ConsoleRole, ConsoleSession } from '../../server/src/console/session-port.ts'
import { NotFoundError } from '../../server/src/core/errors.ts'
import { decideAction } from '../../server/src/domain/actions.ts'
import { decideApproval } from '../../server/src/domain/approvals.ts'
import { personDecider } from '../../server/src/domain/deciders.ts'
import { actionIn, approvalIn, listInbox } from '../../server/src/domain/inbox.ts'
import { newId } from '../../server/src/core/ids.ts'
import { insertApproval } from '../../server/src/store/approvals.ts'
import { agentIn, authorize } from '../agent-helpers.ts'
import { insertEmailSend } from '../fixtures.ts'
import { fetchConsole, signInAs } from '../support/console-session.ts'
import { call, getHarness, makeWorkspace } from '../harness.ts'

/**
 * The inbox and item pages rendered from real data: a workspace whose agent asked over HTTP for
 * something that needs a person, and a change proposed over HTTP; read by the same domain functions
 * the console's pages call, rendered by the page functions, decided through the domain as the
 * console does. (Signed-in tests over HTTP come with people and sessions.)
 */

const inAWeek = () => new Date(Date.now() + 7 * 86_400_000).toISOString()

function sessionIn(ws: { id: string }, role: ConsoleRole = 'approver'): ConsoleSession {
  return { person: { id: 'per_01JD0000000000000000000000', name: 'Maya Chen', role, email: 'maya@example.com' }, workspace: { id: ws.id, name: 'Corner Shop <b>' }, csrf: 'csrf-token-1', signedInAt: new Date().toISOString() }
}

/** A workspace with one agent request waiting for a person, then one proposed change. */
async function waitingWorkspace() {
  const ws = await makeWorkspace()
  const agent = await agentIn(ws.id, { allow: 'email.send_campaign', name: 'Lifecycle <Writer>' })
  const asked = await authorize(agent.credential, { tool: 'email', action: 'send_campaign', resource: 'cmp_spring', summary: 'Send the <spring> newsletter to 3,200', facts: { recipients: 3200 } })
  expect(asked.status).toBe(201)
  expect(asked.body.data.decision).toBe('requires_approval')
  const proposed = await call('POST', '/api/v1/actions', { token: ws.live, body: { kind: 'create_discount', args: { code: 'SPRING10', percentOff: 10, expiresAt: inAWeek() } } })
  expect(proposed.status).toBe(201)
  expect(proposed.body.data.status).toBe('proposed')
  return { ws, approvalId: asked.body.data.approvalId as string, actionId: proposed.body.data.id as string, checks: asked.body.data.checks as { name: string; passed: boolean; detail: string }[] }
}

describe('the inbox', () => {
  test('lists what waits, oldest first, with who asked, what exactly, the facts, the failed checks and the time left; values escaped', async () => {
    const { sql } = await getHarness()
    const { ws, approvalId, actionId, checks } = await waitingWorkspace()
    const now = new Date()
    const page = await listInbox(sql, ws.id, { limit: 25, now })
    expect(page.items.map((p) => (p.item.kind === 'approval' ? p.item.approval.id : p.item.action.id))).toEqual([approvalId, actionId])
    expect(page.next).toBeNull()

    const out = inboxPage({ session: sessionIn(ws), items: page.items.map((p) => p.item), next: null, now }).text
    expect(out).toContain(`href="/console/approvals/${approvalId}"`)
    expect(out).toContain(`href="/console/actions/${actionId}"`)
    expect(out).toContain('Lifecycle &lt;Writer&gt;')
    expect(out).toContain('email.send_campaign on <bdi>cmp_spring</bdi>')
    expect(out).toContain(`<h2><a class="item" href="/console/approvals/${approvalId}"><bdi>\u201cSend the &lt;spring&gt; newsletter to 3,200\u201d</bdi></a></h2>`)
    expect(out).toContain('<dt>recipients</dt><dd>3,200</dd>')
    expect(out).toMatch(/expires in \d+/)
    for (const c of checks.filter((c) => !c.passed)) expect(out).toContain(escapeHtml(c.detail))
    expect(out).toContain('What waits for a person in Corner Shop &lt;b&gt;')
    expect(out).not.toMatch(/<(spring|Writer|b)>/)
  })

  test('is keyset-paged: a page of one, then the next after it, then none', async () => {
    const { sql } = await getHarness()
    const { ws, approvalId, actionId } = await waitingWorkspace()
    const first = await listInbox(sql, ws.id, { limit: 1 })
    expect(first.items.map((p) => p.position.id)).toEqual([approvalId])
    expect(first.next).toEqual(first.items[0]!.position)
    const second = await listInbox(sql, ws.id, { limit: 1, after: first.next! })
    expect(second.items.map((p) => p.position.id)).toEqual([actionId])
    const out = inboxPage({ session: sessionIn(ws), items: first.items.map((p) => p.item), next: first.next, now: new Date() }).text
    expect(out).toContain(`href="/console/?after=${encodeURIComponent(`${first.next!.t}~${first.next!.id}`)}"`)
    expect((await listInbox(sql, ws.id, { limit: 1, after: second.items[0]!.position })).items).toEqual([])
  })

  test('another workspace sees none of it: its inbox is empty, the ids are not found, and deciding them is refused as not found', async () => {
    const { sql } = await getHarness()
    const { approvalId, actionId } = await waitingWorkspace()
    const other = await makeWorkspace()
    expect((await listInbox(sql, other.id, { limit: 25 })).items).toEqual([])
    expect(await approvalIn(sql, other.id, approvalId)).toBeNull()
    expect(await actionIn(sql, other.id, actionId)).toBeNull()
    const decider = personDecider({ id: 'per_x', name: 'Intruder' })
    await expect(decideApproval(sql, { id: approvalId, approve: true, decider, workspaceId: other.id })).rejects.toBeInstanceOf(NotFoundError)
    await expect(decideAction(sql, { actionId, decision: 'approve', decider, workspaceId: other.id })).rejects.toBeInstanceOf(NotFoundError)
    const empty = inboxPage({ session: sessionIn(other), items: [], next: null, now: new Date() }).text
    expect(empty).toContain('Nothing waits for a person')
  })
})

describe('an item and its decision', () => {
  test('the approval page shows every check with its detail and the decide forms to an approver; a viewer gets none', async () => {
    const { sql } = await getHarness()
    const { ws, approvalId, checks } = await waitingWorkspace()
    const item = (await approvalIn(sql, ws.id, approvalId))!
    const out = approvalPage({ session: sessionIn(ws), item, now: new Date() }).text
    for (const c of checks) expect(out).toContain(`${c.name}: ${escapeHtml(c.detail)}`)
    // A check that did not pass asked for a person (a denying one would have denied the request): it has not failed.
    expect(checks.some((c) => !c.passed)).toBe(true)
    for (const c of checks) expect(out).toContain(c.passed ? `<span class="passed">Passed</span> ${c.name}:` : `<span class="needs-person">Needs a person</span> ${c.name}:`)
    expect(out).not.toContain('>Failed<')
    expect(out).toContain(`<form method="post" action="/console/approvals/${approvalId}" class="decide">`)
    expect(out.match(/name="csrf" value="csrf-token-1"/g)?.length).toBe(3) // approve, reject, sign out
    expect(out).toContain('<textarea id="reject-reason" name="reason" required')
    expect(out).toContain('<label for="reject-reason">')

    const viewer = approvalPage({ session: sessionIn(ws, 'viewer'), item, now: new Date() }).text
    expect(viewer).not.toContain('class="decide"')
    expect(viewer).toContain('an owner or approver decides it')
  })

  test('a send waiting for a person shows what would go out: its subject line, how many it goes to, its campaign, who asked', async () => {
    const { sql } = await getHarness()
    const ws = await makeWorkspace()
    const sendId = await insertEmailSend(ws.id, 'open')
    const id = newId('approval')
    await sql.begin((tx) => insertApproval(tx, ws.id, { id, kind: 'send', summary: 'Send the lonely-beans mail', subjectId: sendId, requestedBy: 'Lifecycle Writer', expiresAt: new Date(Date.now() + 86_400_000), createdAt: new Date() }))
    const me = await signInAs(ws.id, 'approver', 'Ana Lima')
    const page = await fetchConsole(`/console/approvals/${id}`, { cookie: me.cookie })
    expect(page.res.status).toBe(200)
    expect(page.text).toContain('<h2 id="asked-h">What exactly</h2>')
    expect(page.text).toContain(`<dt>email send</dt><dd><code>${sendId}</code></dd><dt>subject line</dt><dd>Your beans are getting lonely</dd><dt>recipients</dt><dd>4,200</dd>`)
    expect(page.text).toContain('<dt>campaign</dt><dd>none</dd><dt>requested by</dt><dd>Lifecycle Writer</dd>')
    expect(page.text).toContain('approved, it goes to 4,200 recipients')
  })

  test('a person rejecting through the domain, as the console does: recorded with their id, name and reason, shown on the page, gone from the inbox', async () => {
    const { sql } = await getHarness()
    const { ws, approvalId, actionId } = await waitingWorkspace()
    const session = sessionIn(ws)
    const decider = personDecider(session.person)
    await decideApproval(sql, { id: approvalId, approve: false, decider, reason: 'Not before the <sale>', workspaceId: ws.id })
    const seen = await call('GET', '/api/v1/approvals', { token: ws.live })
    expect(seen.body.data.find((a: { id: string }) => a.id === approvalId)).toMatchObject({ status: 'rejected', decidedBy: { kind: 'person', id: session.person.id, name: 'Maya Chen' }, decisionReason: 'Not before the <sale>' })
    const out = approvalPage({ session, item: (await approvalIn(sql, ws.id, approvalId))!, now: new Date() }).text
    expect(out).toContain('Rejected</p>')
    expect(out).toContain('Decided by Maya Chen, <time')
    expect(out).toContain('Reason: Not before the &lt;sale&gt;')
    expect(out).not.toContain('class="decide"')
    // Decided, it no longer counts down to an expiry.
    expect(out).not.toMatch(/expires in|class="expiring"/)

    const decided = await decideAction(sql, { actionId, decision: 'approve', decider, workspaceId: ws.id })
    expect(decided.decidedBy).toEqual({ kind: 'person', id: session.person.id, name: 'Maya Chen' })
    const actionOut = actionPage({ session, action: (await actionIn(sql, ws.id, actionId))! }).text
    expect(actionOut).toContain(decided.status === 'applied' ? 'Approved and applied' : 'Approved, but carrying it out failed')
    expect(actionOut).toContain('Decided by Maya Chen')
    expect((await listInbox(sql, ws.id, { limit: 25 })).items).toEqual([])
  })

  test('the action page states the planned effect in words and figures, and whether it is within the limits', async () => {
    const { sql } = await getHarness()
    const { ws, actionId } = await waitingWorkspace()
    const action = (await actionIn(sql, ws.id, actionId))!
    const out = actionPage({ session: sessionIn(ws), action }).text
    expect(out).toContain(escapeHtml(action.plannedEffect.summary))
    expect(out).toContain('Within the workspace’s limits.')
    expect(out).toContain(`<form method="post" action="/console/actions/${actionId}" class="decide">`)
  })
})
