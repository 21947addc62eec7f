import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Page } from 'playwright-core'
import { addPerson } from '../../server/src/domain/people.ts'
import { signInLink } from '../../server/src/domain/sign-in.ts'
import { ApprovalRejectedError, Growth } from '../../sdk/src/index.ts'
import { agentIn } from '../agent-helpers.ts'
import { call, getHarness, makeWorkspace, type Workspace } from '../harness.ts'
import { insertCampaign, insertConnection } from '../write-fixtures.ts'
import { hasChromium, launchChromium, skipWithoutChromium } from '../support/browser.ts'

/**
 * A person's decision in the console reaches what waits on it, end to end in headless Chromium: a
 * person signs in with a one-time link and decides in the browser, as they would; SDK agents
 * waiting with `guard(..., { waitForApproval })` go ahead once approved or receive the person's
 * reason once rejected; a proposed change approved in the browser is carried out (`applied`).
 * What the agent and the API see is read back through the API, never from the page.
 */
skipWithoutChromium('the console decision tests')

/** A high-risk send: an agent allowed up to medium risk waits for a person. */
const send = (resource: string, summary: string) => ({ tool: 'email', action: 'send_campaign', resource, summary, facts: { recipients: 3_200 } })
/** Asks often, so that the agent's next ask comes a quarter of a second after the decision; gives up rather than hangs. */
const WAIT = { intervalMs: 250, maxIntervalMs: 250, timeoutMs: 30_000 }

let ws: Workspace
let baseUrl: string
let maya: { id: string; name: string }
let page: Page
let close: (() => Promise<void>) | undefined

beforeAll(async () => {
  if (!hasChromium) return
  const { sql, url } = await getHarness()
  baseUrl = `${url}/api/v1`
  ws = await makeWorkspace()
  maya = await addPerson(sql, { workspaceId: ws.id, email: `maya-${crypto.randomUUID().slice(0, 8)}@example.com`, name: 'Maya Chen', role: 'approver' })
  const browser = await launchChromium()
  close = browser.close
  page = browser.context.pages()[0] ?? (await browser.context.newPage())
  // Signed in as a person is: the one-time link, then its one button.
  const link = await signInLink(sql, { personId: maya.id, consoleUrl: `${url}/console` })
  await page.goto(link.url)
  await Promise.all([page.waitForURL(`${url}/console/`), page.getByRole('button', { name: 'Sign in' }).click()])
}, 60_000)

afterAll(async () => {
  await close?.()
})

/** The pending approval of this agent's request, as the API lists it, once the agent has asked. */
async function pendingFor(summary: string): Promise<string> {
  for (let tries = 0; tries < 200; tries++) {
    const r = await call('GET', '/api/v1/approvals?status=pending&limit=100', { token: ws.live })
    const found = (r.body.data as { id: string; summary: string }[]).find((a) => a.summary === summary)
    if (found) return found.id
    await Bun.sleep(50)
  }
  throw new Error(`no pending approval "${summary}"`)
}

/** From the inbox to the item, as a person goes: its link in the inbox. */
async function openFromInbox(href: string) {
  const { url } = await getHarness()
  await page.goto(`${url}/console/`)
  await Promise.all([page.waitForURL(`${url}${href}`), page.locator(`a[href="${href}"]`).first().click()])
}

/** Waits for the item's page to show its decision (the answer to the form's POST). */
const decided = (text: string) => page.getByRole('status').filter({ hasText: text }).first().waitFor({ timeout: 15_000 })

describe("a person's decision in the browser reaches agents and proposed changes", () => {
  test.skipIf(!hasChromium)(
    'approved in the browser: the SDK agent waiting with waitForApproval goes ahead, under an authorization that names the person',
    async () => {
      const agent = await agentIn(ws.id, { allow: 'email.send_campaign', name: 'Lifecycle Writer' })
      const growth = new Growth({ token: agent.credential, baseUrl })
      const request = send('cmp_spring', 'Send the spring newsletter to 3,200 subscribers')
      let ranAt = 0
      const waiting = growth.agent.guard(
        request,
        ({ authorization }) => {
          ranAt = Date.now()
          return authorization
        },
        { waitForApproval: WAIT },
      )
      const approvalId = await pendingFor(request.summary)
      expect(ranAt).toBe(0)

      await openFromInbox(`/console/approvals/${approvalId}`)
      await page.getByLabel('Note (optional)').fill('Go: the list was cleaned on Monday.')
      const clickedAt = Date.now()
      await page.getByRole('button', { name: 'Approve' }).click()
      // The page the decision answers with says it is decided.
      await decided('Approved')

      const authorization = await waiting
      expect(ranAt).toBeGreaterThanOrEqual(clickedAt)
      expect(authorization).toMatchObject({
        decision: 'allowed',
        approvalId,
        approvalDecision: { approvalId, status: 'approved', decidedBy: { kind: 'person', id: maya.id, name: 'Maya Chen' }, reason: 'Go: the list was cleaned on Monday.' },
      })
      // The gateway recorded the allowed request that used the approval, and the result the guard reported.
      const r = await call('GET', `/api/v1/agents/requests?agentId=${agent.id}&limit=100`, { token: ws.live })
      expect(r.body.data[0]).toMatchObject({ authorizationId: authorization.authorizationId, decision: 'allowed', approvalId, result: { status: 'completed' } })
    },
    60_000,
  )

  test.skipIf(!hasChromium)(
    "rejected in the browser with a reason: the waiting SDK agent gets ApprovalRejectedError with the person's reason and name",
    async () => {
      const agent = await agentIn(ws.id, { allow: 'email.send_campaign', name: 'Winback Writer' })
      const growth = new Growth({ token: agent.credential, baseUrl })
      const request = send('cmp_winback', 'Send the win-back offer to 3,200 lapsed customers')
      let ran = false
      const waiting = growth.agent.guard(request, () => (ran = true), { waitForApproval: WAIT }).then(
        () => null,
        (e: unknown) => e,
      )
      const approvalId = await pendingFor(request.summary)

      await openFromInbox(`/console/approvals/${approvalId}`)
      // A rejection needs a reason: the browser itself holds the empty form back.
      await page.getByRole('button', { name: 'Reject' }).click()
      expect(await page.getByLabel(/Reason for rejecting/).evaluate((el) => (el as HTMLTextAreaElement).validity.valueMissing)).toBe(true)
      const reason = 'Too soon after the spring send; try again in two weeks.'
      await page.getByLabel(/Reason for rejecting/).fill(reason)
      await page.getByRole('button', { name: 'Reject' }).click()
      await decided(`Reason: ${reason}`)

      const error = await waiting
      expect(ran).toBe(false)
      expect(error).toBeInstanceOf(ApprovalRejectedError)
      expect(error).toMatchObject({
        name: 'ApprovalRejectedError',
        approvalId,
        reason,
        decisionReason: reason,
        decidedBy: { kind: 'person', id: maya.id, name: 'Maya Chen' },
        message: `Maya Chen rejected approval ${approvalId}: ${reason}`,
      })
      // The API says the same to the workspace: the approval, and the agent's last request, denied.
      const approvals = await call('GET', '/api/v1/approvals?status=rejected&limit=100', { token: ws.live })
      expect((approvals.body.data as { id: string }[]).find((a) => a.id === approvalId)).toMatchObject({ decisionReason: reason, decidedBy: { kind: 'person', id: maya.id } })
      const r = await call('GET', `/api/v1/agents/requests?agentId=${agent.id}&limit=1`, { token: ws.live })
      expect(r.body.data[0]).toMatchObject({ decision: 'denied', result: null })
      expect(r.body.data[0].reason).toContain(JSON.stringify(reason))
    },
    60_000,
  )

  test.skipIf(!hasChromium)(
    'a proposed budget change approved in the browser is carried out: applied, with the new budget, decided by the person',
    async () => {
      const connectionId = await insertConnection(ws.id, { name: 'Meta Ads – Spring' })
      const campaignId = await insertCampaign(ws.id, { budget: 15_000, currency: 'JPY', connectionId })
      const proposed = await call('POST', '/api/v1/actions', { token: ws.live, body: { kind: 'adjust_budget', args: { campaignId, changePercent: 20 } } })
      expect(proposed.status).toBe(201)
      const id = proposed.body.data.id as string
      expect(proposed.body.data.status).toBe('proposed')

      await openFromInbox(`/console/actions/${id}`)
      await page.getByRole('button', { name: 'Approve' }).click()
      await decided('Approved and applied')

      const actions = await call('GET', '/api/v1/actions?status=applied&limit=100', { token: ws.live })
      expect((actions.body.data as { id: string }[]).find((a) => a.id === id)).toMatchObject({
        status: 'applied',
        decidedBy: { kind: 'person', id: maya.id, name: 'Maya Chen' },
        outcome: { ok: true, detail: 'Daily budget set to 18,000 JPY on Meta Ads – Spring.' },
      })
      const { sql } = await getHarness()
      const [campaign] = await sql<{ daily_budget_minor: number }[]>`SELECT daily_budget_minor FROM campaigns WHERE workspace_id = ${ws.id} AND id = ${campaignId}`
      expect(campaign!.daily_budget_minor).toBe(18_000)
    },
    60_000,
  )
})
