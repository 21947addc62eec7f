import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { BrowserContext, Page } from 'playwright-core'
import { loadConfig } from '../../server/src/config.ts'
import { agentOf, createAgent, listAgents, retireAgent } from '../../server/src/domain/agents.ts'
import { createEndpoint } from '../../server/src/domain/webhooks.ts'
import { agentIn, authorize } from '../agent-helpers.ts'
import { growthIn } from '../cli/run.ts'
import { getHarness, makeWorkspace } from '../harness.ts'
import { cspViolations, hasChromium, launchChromium, seriousA11yViolations, skipWithoutChromium, watchedPage } from '../support/browser.ts'
import { signInAs } from '../support/console-session.ts'

/**
 * The console live, in headless Chromium (one browser for the file): an open inbox loses an item
 * decided from the CLI and gains a new one without reloading; an open item page shows a decision
 * made elsewhere; an item that expires leaves it; the status line a screen reader hears says what changed; the stop switch pressed in the browser denies the next authorize and resuming
 * allows it again; times are shown in the browser's zone; and axe-core finds no serious or
 * critical violation on any signed-in page, at 320 px and at desktop width.
 */
skipWithoutChromium('the console live-update tests')

const ZONE = 'America/New_York'
let browser: { context: BrowserContext; close(): Promise<void> } | undefined
let page: Page
const errors: string[] = []

beforeAll(async () => {
  if (!hasChromium) return
  browser = await launchChromium({ timezoneId: ZONE, locale: 'en-US' })
  page = (await watchedPage(browser.context, errors)).page
})
afterAll(async () => {
  await browser?.close()
})

/** A workspace with an agent whose sends need a person, and a person of it signed in in the browser. */
async function setUp(role: 'owner' | 'approver' | 'viewer' = 'approver') {
  const { url } = await getHarness()
  const ws = await makeWorkspace()
  const agent = await agentIn(ws.id, { allow: 'email.send_campaign', name: 'Lifecycle Writer' })
  const person = await signInAs(ws.id, role, role === 'viewer' ? 'Kenji Sato' : 'Maya Chen')
  await browser!.context.clearCookies()
  await browser!.context.addCookies([{ name: 'growth_session', value: person.token, url: `${url}/console` }])
  return { ws, agent, person, url }
}

async function waitingSend(credential: string, summary: string) {
  const asked = await authorize(credential, { tool: 'email', action: 'send_campaign', resource: `cmp_${crypto.randomUUID().slice(0, 8)}`, summary, facts: { recipients: 3200 } })
  expect(asked.body.data.decision).toBe('requires_approval')
  return asked.body.data.approvalId as string
}

/** What the page's status line says to a screen reader after its last update. */
const liveStatus = (p: Page) => p.locator('#live-status').textContent()

/** The page's live connection is open and placed (every event from now on reaches it). */
const liveOpen = (p: Page) => p.locator('main[data-live-ready="yes"]').waitFor({ timeout: 10_000 })

describe('the console, live', () => {
  test.skipIf(!hasChromium)(
    'an open inbox: an item rejected from the CLI disappears within 2 seconds, a new one appears, without reloading; times in the browser\'s zone',
    async () => {
      const { agent, url } = await setUp()
      const first = await waitingSend(agent.credential, 'Send the spring newsletter')
      await page.goto(`${url}/console/`, { waitUntil: 'load' })
      await liveOpen(page)
      // Marked, to prove later that the page was never reloaded.
      await page.evaluate(() => ((window as unknown as { __sameDocument: boolean }).__sameDocument = true))
      const item = page.locator(`a[href="/console/approvals/${first}"]`)
      expect(await item.count()).toBe(1)

      // Times: the browser's zone, not the server's UTC.
      const time = page.locator('time[datetime]').first()
      const iso = (await time.getAttribute('datetime'))!
      const expected = new Intl.DateTimeFormat('en-US', { year: 'numeric', month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit', timeZoneName: 'short', timeZone: ZONE }).format(new Date(iso))
      expect(await time.innerText()).toBe(expected)
      expect(await time.getAttribute('title')).toBe(`${iso.slice(0, 16).replace('T', ' ')} UTC`)

      const rejected = await growthIn((await getHarness()).dataDir)(['admin', 'approval', 'reject', first, '--reason', 'Not this week', '--json'])
      expect({ code: rejected.code, stderr: rejected.stderr }).toEqual({ code: 0, stderr: '' })
      const decidedAt = Date.now()
      await item.waitFor({ state: 'detached', timeout: 2_000 })
      expect(Date.now() - decidedAt).toBeLessThan(2_000)
      expect(await page.locator('main').innerText()).toContain('Nothing waits for a person')
      // A screen reader hears what changed, in words to act on (the status line), not just "Updated".
      expect(await liveStatus(page)).toBe('1 request was decided elsewhere.')

      const second = await waitingSend(agent.credential, 'Send the summer newsletter')
      await page.locator(`a[href="/console/approvals/${second}"]`).waitFor({ timeout: 2_000 })
      expect(await liveStatus(page)).toBe('1 new request waits for a decision.')
      expect(await page.evaluate(() => (window as unknown as { __sameDocument?: boolean }).__sameDocument)).toBe(true)
      // The new item's time is in the browser's zone too.
      expect(await page.locator('main time[datetime]').first().innerText()).toMatch(/ [AP]M E[SD]T$/)
      expect(await cspViolations(page)).toEqual([])
      expect(errors).toEqual([])
    },
    90_000,
  )

  test.skipIf(!hasChromium)('an open item page shows the decision made elsewhere, without reloading', async () => {
    const { agent, url } = await setUp()
    const id = await waitingSend(agent.credential, 'Send the autumn newsletter')
    await page.goto(`${url}/console/approvals/${id}`, { waitUntil: 'load' })
    await liveOpen(page)
    expect(await page.locator('button', { hasText: 'Approve' }).count()).toBe(1)
    const approved = await growthIn((await getHarness()).dataDir)(['admin', 'approval', 'approve', id, '--json'])
    expect(approved.code).toBe(0)
    await page.locator('main', { hasText: 'Decided by' }).waitFor({ timeout: 2_000 })
    expect(await page.locator('button', { hasText: 'Approve' }).count()).toBe(0)
    // The status line says the decision: what the person needs to know to stop deciding it.
    expect(await liveStatus(page)).toMatch(/^Approved\. Decided by .+ \(operator\), .+\.$/)
  }, 60_000)

  test.skipIf(!hasChromium)('an update waits while a form of the page is being filled in, keeps what was typed, comes once it is left; a focused button keeps its focus', async () => {
    const { agent, url } = await setUp('owner')
    await page.goto(`${url}/console/agents/${agent.id}`, { waitUntil: 'load' })
    await liveOpen(page)
    const overlap = page.locator('input[name="overlap"]').first()
    await overlap.fill('15')
    await waitingSend(agent.credential, 'Send the winter newsletter')
    // The change arrives while the owner types: the page says so and keeps the field as typed, focused.
    await page.locator('#live-status.notice', { hasText: 'changed elsewhere' }).waitFor({ timeout: 5_000 })
    expect(await overlap.inputValue()).toBe('15')
    expect(await page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('overlap')
    expect(await page.locator('main').innerText()).not.toContain('Send the winter newsletter')
    // Left as it was (the value in force again, focus on to the Rotate button): the update comes, the button keeps the focus.
    await overlap.fill('60')
    await page.keyboard.press('Tab')
    await page.locator('main', { hasText: 'Send the winter newsletter' }).waitFor({ timeout: 5_000 })
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Rotate')
    expect(await page.locator('#live-status').getAttribute('class')).toBe('visually-hidden')
    expect(await cspViolations(page)).toEqual([])
    expect(errors).toEqual([])
  }, 60_000)

  test.skipIf(!hasChromium)('items that expire leave the open inbox by themselves (expiry is no event), and the status line says so', async () => {
    const { ws, agent, url } = await setUp()
    const ids = [await waitingSend(agent.credential, 'Send the expiring newsletter'), await waitingSend(agent.credential, 'Send the expiring reminder')]
    const { sql } = await getHarness()
    await sql`UPDATE approvals SET expires_at = now() + interval '3 seconds' WHERE workspace_id = ${ws.id} AND id IN ${sql(ids)}`
    await page.goto(`${url}/console/`, { waitUntil: 'load' })
    const item = page.locator(`a[href="/console/approvals/${ids[0]}"]`)
    expect(await item.count()).toBe(1)
    await item.waitFor({ state: 'detached', timeout: 10_000 })
    expect(await page.locator('main').innerText()).toContain('Nothing waits for a person')
    expect(await liveStatus(page)).toBe('2 requests expired without a decision.')
  }, 60_000)

  test.skipIf(!hasChromium)('an open Requests page: a request the gateway decided by itself appears, and the status line says how it was decided, not just "Updated"', async () => {
    const { ws, agent, url } = await setUp()
    const pauser = await agentIn(ws.id, { allow: 'ads.pause_campaign', name: 'Ad Pauser' })
    await page.goto(`${url}/console/requests`, { waitUntil: 'load' })
    await liveOpen(page)
    const allowed = await authorize(pauser.credential, { tool: 'ads', action: 'pause_campaign', resource: 'cmp_spring', summary: 'Pause the spring ads' })
    expect(allowed.body.data.decision).toBe('allowed')
    await page.locator(`article[aria-label="Request ${allowed.body.data.id}"]`).waitFor({ timeout: 5_000 })
    expect(await liveStatus(page)).toBe('1 new agent request: allowed.')
    const denied = await authorize(pauser.credential, { tool: 'email', action: 'send_campaign', resource: 'cmp_spring', summary: 'Send as the pauser' })
    expect(denied.body.data.decision).toBe('denied')
    await page.locator(`article[aria-label="Request ${denied.body.data.id}"]`).waitFor({ timeout: 5_000 })
    expect(await liveStatus(page)).toBe('1 new agent request: denied.')
    // One that needs a person is said as waiting, once, not as a new request too.
    const waiting = await waitingSend(agent.credential, 'Send the spring newsletter')
    await page.locator(`a[href="/console/approvals/${waiting}"]`).waitFor({ timeout: 5_000 })
    expect(await liveStatus(page)).toBe('1 new request waits for a decision.')
    expect(errors).toEqual([])
  }, 60_000)

  test.skipIf(!hasChromium)('the stop switch pressed in the browser denies the next authorize; resuming allows again', async () => {
    const { agent, url } = await setUp('owner')
    const allowedAgent = await agentIn((await agentOfWorkspace(agent)).workspaceId, { allow: 'ads.pause_campaign', name: 'Ad Pauser' })
    const pause = () => authorize(allowedAgent.credential, { tool: 'ads', action: 'pause_campaign', resource: 'cmp_spring', summary: 'Pause the spring ads' })
    expect((await pause()).body.data.decision).toBe('allowed')
    await page.goto(`${url}/console/agents`, { waitUntil: 'load' })
    await page.getByLabel('Why stop them').fill('The spring ads overspent.')
    await Promise.all([page.waitForURL(`${url}/console/agents#switch`), page.getByRole('button', { name: 'Stop all agents' }).click()])
    expect(await page.locator('.switch').innerText()).toContain('Agents are stopped')
    const denied = await pause()
    expect(denied.body.data.decision).toBe('denied')
    expect(denied.body.data.checks[0].detail).toContain('The spring ads overspent.')
    await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Resume the agents' }).click()])
    expect(await page.locator('.switch').innerText()).toContain('Agents are running')
    expect((await pause()).body.data.decision).toBe('allowed')
  }, 60_000)

  test.skipIf(!hasChromium)('a viewer sees the switch\'s state and no button', async () => {
    const { url } = await setUp('viewer')
    await page.goto(`${url}/console/agents`, { waitUntil: 'load' })
    expect(await page.locator('.switch').innerText()).toContain('an owner or approver stops and resumes the agents')
    expect(await page.locator('.switch button').count()).toBe(0)
  }, 60_000)

  test.skipIf(!hasChromium)('every signed-in page: no serious or critical accessibility violation, nothing sideways, at 320 px and 1280 px', async () => {
    // An owner: the webhook pages show their forms (the add form's every event type, the endpoint's three).
    const { ws, agent, url } = await setUp('owner')
    const id = await waitingSend(agent.credential, 'Send the winter newsletter')
    const hook = await createEndpoint((await getHarness()).sql, { workspaceId: ws.id, url: 'http://127.0.0.1:9/hooks', events: 'approval.approved' }, { addresses: loadConfig({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: '127.0.0.0/8' }).webhooks.addresses })
    // A retired agent: its page and the list's Retired agents.
    const { sql } = await getHarness()
    const gone = await createAgent(sql, { workspaceId: ws.id, name: 'Old Hand', allow: 'ads.pause_campaign' })
    await retireAgent(sql, ws.id, gone.id)
    const paths = ['/console/', `/console/approvals/${id}`, '/console/agents', `/console/agents/${agent.id}`, `/console/agents/${gone.id}`, '/console/requests', '/console/audit', '/console/people', '/console/webhooks', `/console/webhooks/${hook.id}`]
    // The answers of the owner's agent forms (register, rotate: a credential shown once), reached by submitting them.
    const submitted: Record<string, () => Promise<unknown>> = {
      'register an agent': async () => {
        await page.goto(`${url}/console/agents`, { waitUntil: 'load' })
        await page.fill('#agent-name', `Pacer ${crypto.randomUUID().slice(0, 6)}`)
        await page.check('input[name="allow"][value="ads.pause_campaign"]')
        await Promise.all([page.waitForURL(`${url}/console/shown/agent#answer`), page.click('button:has-text("Register the agent")')])
      },
      'rotate a credential': async () => {
        await page.goto(`${url}/console/agents/${agent.id}`, { waitUntil: 'load' })
        await Promise.all([page.waitForURL(`${url}/console/shown/agent#answer`), page.locator('form[action$="/rotate"] button').first().click()])
      },
    }
    for (const width of [320, 1280]) {
      await page.setViewportSize({ width, height: 800 })
      for (const [path, submit] of Object.entries(submitted)) {
        await submit()
        await page.waitForSelector('input.secret')
        expect({ path, width, violations: await seriousA11yViolations(page) }).toEqual({ path, width, violations: [] })
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)
        expect({ path, width, overflow }).toEqual({ path, width, overflow: 0 })
      }
      for (const path of paths) {
        const res = await page.goto(`${url}${path}`, { waitUntil: 'load' })
        expect({ path, status: res?.status() }).toEqual({ path, status: 200 })
        // With every request's details open, as a person reading them would.
        await page.evaluate(() => document.querySelectorAll('details').forEach((d) => d.setAttribute('open', '')))
        expect({ path, width, violations: await seriousA11yViolations(page) }).toEqual({ path, width, violations: [] })
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)
        expect({ path, width, overflow }).toEqual({ path, width, overflow: 0 })
      }
    }
    // Reloading the page that showed a credential shows it no more and registers no second agent.
    const agentsBefore = (await listAgents(sql, ws.id, { limit: 500 })).length
    await submitted['register an agent']!()
    expect(await page.locator('input.secret').count()).toBe(1)
    await page.reload({ waitUntil: 'load' })
    expect(await page.locator('main').innerText()).toContain('It was shown once, on the page right after it was made')
    expect(await page.locator('input.secret').count()).toBe(0)
    expect((await listAgents(sql, ws.id, { limit: 500 })).length).toBe(agentsBefore + 1)

    // Retiring cannot be undone, so the browser asks first: "no" sends nothing, "yes" retires it.
    const doomed = await createAgent(sql, { workspaceId: ws.id, name: 'Short Lived', allow: 'ads.pause_campaign' })
    await page.goto(`${url}/console/agents/${doomed.id}`, { waitUntil: 'load' })
    const asked: string[] = []
    page.once('dialog', (d) => void (asked.push(d.message()), d.dismiss()))
    await page.getByRole('button', { name: 'Retire Short Lived' }).click()
    await page.waitForTimeout(300)
    expect(asked).toEqual(['Retire Short Lived? Its credentials stop working at once, and this cannot be undone.'])
    expect(page.url()).toBe(`${url}/console/agents/${doomed.id}`)
    expect((await agentOf(sql, ws.id, doomed.id))!.retiredAt).toBeNull()
    page.once('dialog', (d) => void d.accept())
    await Promise.all([page.waitForURL(`${url}/console/agents/${doomed.id}?done=retired#answer`), page.getByRole('button', { name: 'Retire Short Lived' }).click()])
    expect((await agentOf(sql, ws.id, doomed.id))!.retiredAt).toBeString()

    // Rotating with no overlap ends the credential at once, so the browser asks first; with an overlap it does not.
    const rotated = await createAgent(sql, { workspaceId: ws.id, name: 'Rotated Twice', allow: 'ads.pause_campaign' })
    await page.goto(`${url}/console/agents/${rotated.id}`, { waitUntil: 'load' })
    const overlap = page.getByLabel(/Overlap in minutes/)
    await overlap.fill('0')
    const rotateAsked: string[] = []
    page.once('dialog', (d) => void (rotateAsked.push(d.message()), d.dismiss()))
    await page.getByRole('button', { name: /^Rotate / }).click()
    await page.waitForTimeout(300)
    expect(rotateAsked).toEqual([expect.stringMatching(/^Rotate \S+ \(ends in .{4}\) with no overlap\? The agent is refused with it from its next request, until it is given the new one\.$/)])
    expect(page.url()).toBe(`${url}/console/agents/${rotated.id}`)
    await overlap.fill('30')
    const unasked: string[] = []
    page.on('dialog', (d) => void (unasked.push(d.message()), d.dismiss()))
    await Promise.all([page.waitForURL(/\/console\/shown\//), page.getByRole('button', { name: /^Rotate / }).click()])
    expect(unasked).toEqual([])
    expect(await cspViolations(page)).toEqual([])
    expect(errors).toEqual([])
  }, 90_000)
})

async function agentOfWorkspace(agent: { id: string }) {
  const { sql } = await getHarness()
  const [row] = await sql<{ workspace_id: string }[]>`SELECT workspace_id FROM agents WHERE id = ${agent.id}`
  return { workspaceId: row!.workspace_id }
}
