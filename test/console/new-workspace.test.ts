import { describe, expect, test } from 'bun:test'
import { createAgent } from '../../server/src/domain/agents.ts'
import { addPerson } from '../../server/src/domain/people.ts'
import { createWorkspace } from '../../server/src/domain/workspaces.ts'
import { getHarness } from '../harness.ts'
import { fetchConsole, signInAs } from '../support/console-session.ts'

/**
 * A workspace an operator has just made (no token, no agent, none of the demo's data), as its
 * people read it: each empty list says so in the calm panel the other lists use, and says what comes
 * next to whoever can do it.
 */

describe('the console of a brand-new workspace', () => {
  test('the Tokens and Agents pages are empty in words, each pointing the owner to the form that fills it', async () => {
    const ws = await createWorkspace((await getHarness()).sql, { name: 'Acme Outdoor', plan: 'growth' })
    const owner = await signInAs(ws.id, 'owner', 'Ana Ruiz')
    const tokens = (await fetchConsole('/console/tokens', { cookie: owner.cookie })).text
    expect(tokens).toContain('<p class="lead">The API tokens of Acme Outdoor: what its programs call the API with.</p>')
    expect(tokens).toContain('<div class="panel empty" role="status"><p>No token yet: issue one with the form above.</p></div>')
    const agents = (await fetchConsole('/console/agents', { cookie: owner.cookie })).text
    expect(agents).toContain('<div class="panel empty" role="status"><p>No active agent yet: register one with the form above.</p></div>')

    // Someone who cannot issue or register is told who does.
    const approver = await signInAs(ws.id, 'approver', 'Kenji Sato')
    expect((await fetchConsole('/console/tokens', { cookie: approver.cookie })).text).toContain('<p>No token yet: an owner issues them.</p>')
    expect((await fetchConsole('/console/agents', { cookie: approver.cookie })).text).toContain('<p>No active agent yet: an owner registers them here, or an operator with growth admin agent create.</p>')
  }, 60_000)

  test('the inbox of a workspace with no agent says why nothing waits, and where agents are registered', async () => {
    const { sql } = await getHarness()
    const ws = await createWorkspace(sql, { name: 'Acme Outdoor', plan: 'growth' })
    const owner = await signInAs(ws.id, 'owner', 'Ana Ruiz')
    const inbox = (await fetchConsole('/console/', { cookie: owner.cookie })).text
    expect(inbox).toContain('<p>Nothing waits for a person. New requests and proposed changes appear here.</p><p>No agent is registered yet, so none can ask: <a href="/console/agents">register one on the Agents page</a>.</p>')
    const approver = await signInAs(ws.id, 'approver', 'Kenji Sato')
    expect((await fetchConsole('/console/', { cookie: approver.cookie })).text).toContain('<p>No agent is registered yet, so none can ask: an owner registers them on the <a href="/console/agents">Agents page</a>.</p>')
    await createAgent(sql, { workspaceId: ws.id, name: 'Budget Pacer', allow: 'ads.pause_campaign' })
    expect((await fetchConsole('/console/', { cookie: owner.cookie })).text).not.toContain('No agent is registered yet')
  }, 60_000)

  test("the Webhooks form describes the events an owner's own console actions cause as theirs too, not as an operator's alone", async () => {
    const ws = await createWorkspace((await getHarness()).sql, { name: 'Acme Outdoor', plan: 'growth' })
    const owner = await signInAs(ws.id, 'owner', 'Ana Ruiz')
    const page = (await fetchConsole('/console/webhooks', { cookie: owner.cookie })).text
    expect(page).toContain('The workspace&#39;s agent policy was applied (by an owner in the console, or an operator with growth admin policy apply).')
    expect(page).toContain('A test delivery (an owner&#39;s Send in the console, or growth admin webhook test).')
    expect(page).not.toContain('An operator applied')
  }, 60_000)

  test("the only owner's card offers no Remove or role change that could only be refused, and says why; a second owner brings them back", async () => {
    const { sql } = await getHarness()
    const ws = await createWorkspace(sql, { name: 'Acme Outdoor', plan: 'growth' })
    const owner = await signInAs(ws.id, 'owner', 'Ana Ruiz')
    const alone = (await fetchConsole('/console/people', { cookie: owner.cookie })).text
    expect(alone).not.toContain(`action="/console/people/${owner.person.id}/remove"`)
    expect(alone).not.toContain(`action="/console/people/${owner.person.id}/role"`)
    expect(alone).toContain('<p class="hint">The only owner of Acme Outdoor: a workspace keeps one, so make someone else an owner before changing this role or removing Ana Ruiz.</p>')
    await addPerson(sql, { workspaceId: ws.id, email: 'kenji@example.com', name: 'Kenji Sato', role: 'owner' })
    const two = (await fetchConsole('/console/people', { cookie: owner.cookie })).text
    expect(two).toContain(`action="/console/people/${owner.person.id}/remove"`)
    expect(two).toContain(`action="/console/people/${owner.person.id}/role"`)
    expect(two).not.toContain('The only owner of')
  }, 60_000)

  test("an agent registered with nothing ticked says it may do nothing yet, and where what it may do is changed: the owner's Policy page", async () => {
    const ws = await createWorkspace((await getHarness()).sql, { name: 'Acme Outdoor', plan: 'growth' })
    const owner = await signInAs(ws.id, 'owner', 'Ana Ruiz')
    const registered = await fetchConsole('/console/agents/register', { cookie: owner.cookie, form: { csrf: owner.csrf, name: 'Budget Pacer', risk: 'medium' } })
    expect(registered.posted?.status).toBe(303)
    const id = /href="\/console\/agents\/(agt_[0-9a-z]+)"/.exec((await fetchConsole('/console/agents', { cookie: owner.cookie })).text)![1]!
    const page = (await fetchConsole(`/console/agents/${id}`, { cookie: owner.cookie })).text
    expect(page).toContain('Budget Pacer may do nothing yet.')
    expect(page).toContain(`<p class="hint">What Budget Pacer may do, the data it may use, its ceilings and its risk level are the policy's: <a href="/console/policy">change them on the Policy page</a>.</p>`)
    const approver = await signInAs(ws.id, 'approver', 'Kenji Sato')
    expect((await fetchConsole(`/console/agents/${id}`, { cookie: approver.cookie })).text).toContain(`are the policy's: <a href="/console/policy">an owner changes them on the Policy page</a>.</p>`)
  }, 60_000)
})
