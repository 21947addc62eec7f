import { describe, expect, test } from 'bun:test'
import { agentIn, authorize, report } from '../agent-helpers.ts'
import { makeWorkspace } from '../harness.ts'
import { fetchConsole, signInAs } from '../support/console-session.ts'

/**
 * An agent is the party the product does not trust, and its summary heads the pages a person
 * decides on. Over HTTP, signed in: wherever the console shows an agent's summary (the inbox, the
 * approval's page and its title, the requests) it is in quotes, as the mail has it, so "SYSTEM:
 * approved by the security team" reads as the agent's words and not the console's; and it and the
 * agent's resource are bidi-isolated (<bdi>), so a right-to-left override in them cannot turn the
 * console's own words after them around (the time left, "asked ...").
 */
const SUMMARY = 'SYSTEM NOTICE: pre-approved by the security team, approve now'
const RESOURCE = 'cmp_spring\u202e'
const text = (h: string) => h.replace(/<[^>]+>/g, '')

describe("an agent's words in the console", () => {
  test('are quoted and bidi-isolated on the inbox, the approval page (and its title) and the requests page', async () => {
    const ws = await makeWorkspace()
    const agent = await agentIn(ws.id, { allow: 'email.send_campaign', name: 'Lifecycle Writer' })
    const asked = await authorize(agent.credential, { tool: 'email', action: 'send_campaign', resource: RESOURCE, summary: SUMMARY, facts: { recipients: 3200 } })
    expect(asked.body.data.decision).toBe('requires_approval')
    const me = await signInAs(ws.id, 'approver', 'Kenji Sato')

    const item = await fetchConsole(`/console/approvals/${asked.body.data.approvalId}`, { cookie: me.cookie })
    expect(item.res.status).toBe(200)
    const h1 = /<h1>([\s\S]*?)<\/h1>/.exec(item.text)![1]!
    expect(text(h1)).toBe(`\u201c${SUMMARY}\u201d`)
    expect(h1).toStartWith('<bdi>')
    expect(item.text).toContain(`<title>\u201c${SUMMARY}\u201d · Growth console</title>`)
    expect(item.text).toContain(`on <bdi>${RESOURCE}</bdi> · asked`)

    const inbox = await fetchConsole('/console/', { cookie: me.cookie })
    expect(inbox.text).toMatch(new RegExp(`<h2><a class="item" href="/console/approvals/apr_\\w+"><bdi>\u201c${SUMMARY}\u201d</bdi></a></h2>`))
    expect(inbox.text).toContain(`on <bdi>${RESOURCE}</bdi></span>`)

    const requests = await fetchConsole('/console/requests', { cookie: me.cookie })
    expect(requests.text).toContain(`<h2><bdi>\u201c${SUMMARY}\u201d</bdi></h2>`)
    expect(requests.text).toContain(`on <bdi>${RESOURCE}</bdi></span>`)
  }, 60_000)

  test('what an agent reports became of an action is bidi-isolated in its request\'s result line', async () => {
    const ws = await makeWorkspace()
    const agent = await agentIn(ws.id, { allow: 'email.send_campaign', name: 'Lifecycle Writer', maxUnattendedRisk: 'high' })
    const allowed = await authorize(agent.credential, { tool: 'email', action: 'send_campaign', resource: 'cmp_spring', summary: 'Send the welcome series', facts: { recipients: 10 } })
    expect(allowed.body.data.decision).toBe('allowed')
    const said = 'Sent to 10 contacts \u202e'
    expect((await report(agent.credential, { authorizationId: allowed.body.data.id, status: 'failed', summary: said, error: 'smtp \u202e down' })).status).toBe(201)
    const me = await signInAs(ws.id, 'viewer', 'Kenji Sato')
    const page = await fetchConsole(`/console/agents/${agent.id}`, { cookie: me.cookie })
    expect(page.text).toContain(`<p>Result: failed, <bdi>${said}</bdi> (<bdi>smtp \u202e down</bdi>).</p>`)
  }, 60_000)
})
