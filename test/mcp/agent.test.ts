import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { agentIn } from '../agent-helpers.ts'
import { growthIn } from '../cli/run.ts'
import { call, getHarness, makeWorkspace, type Workspace } from '../harness.ts'
import { callTool, type Connected, connect, textOf, TRANSPORTS } from './support.ts'

/**
 * `growth mcp` with an agent credential, over stdio and over Streamable HTTP: the agent asks
 * permission for an allowed, a denied and an approval-needing action; a person approves the last
 * with `growth admin approval approve` (the CLI as its own process); asked again it is allowed; the
 * agent reports the results, and GET /agents/requests (the workspace's view, through the API)
 * shows each decision with what was reported under it.
 */

for (const transport of TRANSPORTS) {
  describe(`growth mcp over ${transport}, an agent credential`, () => {
    let ws: Workspace
    let agent: { id: string; credential: string }
    let mcp: Connected

    beforeAll(async () => {
      ws = await makeWorkspace()
      // May pause campaigns (low risk) and send email campaigns (high risk: a person approves); nothing else.
      agent = await agentIn(ws.id, { name: `MCP agent (${transport})`, allow: 'ads.pause_campaign,email.send_campaign' })
      mcp = await connect(transport, agent.credential)
    }, 30_000)

    afterAll(async () => {
      await mcp?.close()
    })

    test('its tools are the gateway\'s: request_permission, report_result, my_profile; the instructions name the agent', async () => {
      const { tools } = await mcp.client.listTools()
      expect(tools.map((t) => t.name).sort()).toEqual(['my_profile', 'report_result', 'request_permission'])
      expect(mcp.client.getInstructions()).toContain(`You act as the agent MCP agent (${transport}) (${agent.id})`)
      const me = await callTool(mcp, 'my_profile')
      expect(me.structuredContent.agent).toEqual({ id: agent.id, name: `MCP agent (${transport})`, owner: 'workspace' })
      expect(textOf(me)).toContain(`You are MCP agent (${transport}) (${agent.id}).`)
      expect(textOf(me)).toContain('action: pause_campaign')
    })

    test('allowed, denied and requires_approval are answers (not errors); the person approves, the same request is then allowed; results are reported and the workspace sees them', async () => {
      // Allowed.
      const pause = { tool: 'ads', action: 'pause_campaign', resource: 'cmp_mcp_1', summary: 'Pause the campaign overnight.' }
      const allowed = await callTool(mcp, 'request_permission', pause)
      expect(allowed.isError).toBeFalsy()
      // (Values are read before toMatchObject: bun's puts its matchers into the object it is given.)
      const allowedAuth = allowed.structuredContent.authorizationId
      expect(allowedAuth).toMatch(/^auth_/)
      expect(allowed.structuredContent).toMatchObject({ decision: 'allowed', mayProceed: true })
      expect(textOf(allowed)).toContain(`authorizationId: ${allowedAuth}`)
      expect(textOf(allowed)).toContain('Do the action now, then call report_result')

      // Denied: not permitted. The reason and the checks that failed, as a result the model reads.
      const budget = { tool: 'ads', action: 'adjust_budget', resource: 'cmp_mcp_1', facts: { amountPercent: 10, increase: true } }
      const denied = await callTool(mcp, 'request_permission', budget)
      expect(denied.isError).toBeFalsy()
      expect(denied.structuredContent).toMatchObject({ decision: 'denied', mayProceed: false })
      const failed = denied.structuredContent.checks.filter((c: { passed: boolean }) => !c.passed)
      expect(failed.map((c: { name: string }) => c.name)).toContain('permission')
      const deniedText = textOf(denied)
      expect(deniedText.startsWith(`${denied.structuredContent.reason}\nChecks that failed:\n`)).toBe(true)
      for (const c of failed) expect(deniedText).toContain(`- ${c.name}: ${c.detail}`)
      expect(deniedText).toContain('Do not do this action.')

      // Requires approval: a high-risk send. The approvalId, and that a person must decide.
      const send = { tool: 'email', action: 'send_campaign', resource: 'winter-newsletter', summary: 'Send the winter newsletter.', facts: { recipients: 1200 } }
      const waiting = await callTool(mcp, 'request_permission', send)
      expect(waiting.isError).toBeFalsy()
      const approvalId = waiting.structuredContent.approvalId
      expect(approvalId).toMatch(/^apr_/)
      expect(waiting.structuredContent).toMatchObject({ decision: 'requires_approval', mayProceed: false })
      expect(textOf(waiting)).toContain(`approvalId: ${approvalId} (pending: a person must decide)`)
      expect(textOf(waiting)).toContain('Do not try to decide the approval yourself: a person of the workspace decides it')
      // Never how to decide it: a model with a shell could run the command itself.
      expect(textOf(waiting)).not.toContain('growth admin approval')
      expect(textOf(waiting)).toContain('Do not do the action now.')

      // A person approves it, with the CLI.
      const { dataDir } = await getHarness()
      const approved = await growthIn(dataDir)(['admin', 'approval', 'approve', approvalId, '--by', 'Maya Chen', '--reason', 'Send it after 9:00 only.'])
      expect(`${approved.code} ${approved.stderr}`).toBe('0 ')

      // The same request again: allowed, once, under that approval; the model reads the approver's note.
      const again = await callTool(mcp, 'request_permission', send)
      const sendAuth = again.structuredContent.authorizationId
      expect(again.structuredContent).toMatchObject({ decision: 'allowed', mayProceed: true, approvalId })
      const approvedText = textOf(again).split('\n')
      expect(approvedText[0]).toBe(again.structuredContent.reason)
      expect(approvedText[1]).toMatch(/^\S+ \(operator\) approved it \(approval apr_\w+\) with the note "Send it after 9:00 only\."\.$/)
      expect(approvedText[1]).toContain(approvalId)

      // Another send, rejected with a reason: asked again, the model reads who rejected it and why.
      const spring = { ...send, resource: 'spring-newsletter', summary: 'Send the spring newsletter.' }
      const springApproval = (await callTool(mcp, 'request_permission', spring)).structuredContent.approvalId
      const rejected = await growthIn(dataDir)(['admin', 'approval', 'reject', springApproval, '--reason', 'The spring list is still being cleaned.'])
      expect(`${rejected.code} ${rejected.stderr}`).toBe('0 ')
      const refused = await callTool(mcp, 'request_permission', spring)
      expect(refused.isError).toBeFalsy()
      expect(refused.structuredContent).toMatchObject({ decision: 'denied', approvalDecision: { approvalId: springApproval, status: 'rejected', reason: 'The spring list is still being cleaned.' } })
      expect(textOf(refused)).toMatch(new RegExp(`^\\S+ \\(operator\\) rejected this request \\(approval ${springApproval}\\) with the reason "The spring list is still being cleaned\\."\\.\n`))
      expect(textOf(refused)).toContain('Do not do this action.')
      // The person's reason is said up front and in the check it decided, not a third time as the gateway's reason.
      expect(textOf(refused).split('The spring list is still being cleaned.').length - 1).toBe(2)

      // The agent reports what became of both allowed actions.
      const r1 = await callTool(mcp, 'report_result', { authorizationId: allowedAuth, status: 'completed', summary: 'Paused until 06:00.' })
      expect(r1.isError).toBeFalsy()
      expect(textOf(r1)).toBe(`Recorded: completed for ${allowedAuth} (${r1.structuredContent.id}). It is kept as your report, not verified.`)
      expect(r1.structuredContent.idempotencyKey).toMatch(/^mcp-/)
      expect(r1.structuredContent).toMatchObject({ authorizationId: allowedAuth, status: 'completed', verified: false })
      const r2 = await callTool(mcp, 'report_result', { authorizationId: sendAuth, status: 'failed', error: 'The email platform timed out.' })
      expect(r2.structuredContent).toMatchObject({ status: 'failed', error: 'The email platform timed out.' })

      // A report the API refuses (a second one for the same authorization) is a tool error with its code.
      const twice = await callTool(mcp, 'report_result', { authorizationId: allowedAuth, status: 'completed' })
      expect(twice.isError).toBe(true)
      const { code, status, requestId } = twice.structuredContent.error
      expect({ code: typeof code, status: typeof status, requestId }).toEqual({ code: 'string', status: 'number', requestId: expect.stringMatching(/^req_/) })

      // The workspace's view, through the API.
      const listed = await call('GET', `/api/v1/agents/requests?agentId=${agent.id}&limit=100`, { token: ws.live })
      expect(listed.status).toBe(200)
      const byAuth = new Map((listed.body.data as any[]).map((q) => [q.authorizationId, q]))
      expect(byAuth.get(allowedAuth)).toMatchObject({ decision: 'allowed', tool: 'ads', action: 'pause_campaign', result: { status: 'completed', summary: 'Paused until 06:00.' } })
      expect(byAuth.get(denied.structuredContent.authorizationId)).toMatchObject({ decision: 'denied', action: 'adjust_budget', result: null })
      expect(byAuth.get(waiting.structuredContent.authorizationId)).toMatchObject({ decision: 'requires_approval', approvalId, result: null })
      expect(byAuth.get(sendAuth)).toMatchObject({ decision: 'allowed', approvalId, result: { status: 'failed', error: 'The email platform timed out.' } })
    }, 30_000)

    test('stopped by the kill switch: the denial says no other request is allowed either, not to ask for something else', async () => {
      const { dataDir } = await getHarness()
      const growth = growthIn(dataDir)
      expect((await growth(['admin', 'agents', 'stop', '--workspace', ws.id, '--reason', 'Budget review'])).code).toBe(0)
      try {
        const stopped = await callTool(mcp, 'request_permission', { tool: 'ads', action: 'pause_campaign', resource: 'cmp_mcp_stop' })
        expect(stopped.structuredContent).toMatchObject({ decision: 'denied', mayProceed: false })
        expect(textOf(stopped)).toContain('Budget review')
        expect(textOf(stopped)).toContain('Do not do this action, nor any other: every request is denied until a person of the workspace resumes the agents (my_profile says whether they are stopped). Tell the person.')
        expect(textOf(stopped)).not.toContain('ask for something within these checks')
      } finally {
        expect((await growth(['admin', 'agents', 'resume', '--workspace', ws.id])).code).toBe(0)
      }
      // Running again: a denial for another cause keeps its own advice.
      const denied = await callTool(mcp, 'request_permission', { tool: 'ads', action: 'adjust_budget', resource: 'cmp_mcp_stop', facts: { amountPercent: 1, increase: true } })
      expect(textOf(denied)).toContain('Do not do this action. Tell the person why, or ask for something within these checks.')
    }, 30_000)

    test('facts of the wrong type are named before anything is asked; a rule the API judges comes back as its refusal', async () => {
      const bad = await callTool(mcp, 'request_permission', { tool: 'ads', action: 'pause_campaign', facts: 'lots' })
      expect(bad.structuredContent.error).toEqual({ code: 'invalid_request', message: 'facts must be a JSON object; got "lots"', requestId: null, argument: 'facts' })
      const noCurrency = await callTool(mcp, 'request_permission', { tool: 'ads', action: 'pause_campaign', facts: { amountMinor: 500 } })
      expect(noCurrency.isError).toBe(true)
      expect(noCurrency.structuredContent.error).toMatchObject({ code: 'invalid_request', status: 400 })
      expect(noCurrency.structuredContent.error.message).toContain('currency')
      const missing = await callTool(mcp, 'report_result', { status: 'completed' })
      expect(missing.structuredContent.error).toMatchObject({ argument: 'authorizationId', message: 'authorizationId is required' })
    })
  })
}
