import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { BrowserContext, Page } from 'playwright-core'
import { agentIn, authorize } from '../agent-helpers.ts'
import { getHarness, makeWorkspace } from '../harness.ts'
import { cspViolations, hasChromium, launchChromium, seriousA11yViolations, skipWithoutChromium, watchedPage } from '../support/browser.ts'
import { signInAs } from '../support/console-session.ts'

/**
 * /console/policy in headless Chromium: an owner writes a rule requiring approval above an amount
 * with the form, reads the backtest (the agent's earlier request that would now wait), applies it,
 * and the agent's next such request waits for a person. axe-core finds no serious or critical
 * violation, nothing is refused by the Content-Security-Policy, and nothing scrolls sideways, at
 * 1280 and 320 px. A form's answer (the plan, the policy tests' result) has the focus, with the
 * heading above it still on screen.
 */
skipWithoutChromium('the console policy browser test')

let browser: { context: BrowserContext; close(): Promise<void> } | undefined
let page: Page
const errors: string[] = []

beforeAll(async () => {
  if (!hasChromium) return
  browser = await launchChromium()
  page = (await watchedPage(browser.context, errors)).page
})
afterAll(async () => {
  await browser?.close()
})

const raise = (credential: string, usd: number) =>
  authorize(credential, { tool: 'ads', action: 'adjust_budget', resource: 'cmp_spring', summary: `Raise the budget by ${usd} USD`, facts: { amountMinor: usd * 100, currency: 'USD', amountPercent: 10, increase: true } })

async function checked(width: number) {
  await page.setViewportSize({ width, height: 900 })
  expect(await cspViolations(page)).toEqual([])
  expect(await seriousA11yViolations(page)).toEqual([])
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)
  expect({ width, overflow }).toEqual({ width, overflow: 0 })
}

/** The focused element once the page has settled (the browser moves the focus to a #fragment as it finishes loading, console.js to a refused field): its id, and whether it is on screen. */
const focusedInView = () =>
  page.evaluate(
    () =>
      new Promise<{ id: string | undefined; inView: boolean }>((resolve) =>
        setTimeout(() => {
          const el = document.activeElement!
          const box = el.getBoundingClientRect()
          resolve({ id: el.id || el.tagName, inView: box.top >= 0 && box.top < innerHeight - 20 })
        }, 50),
      ),
  )

describe('the policy page in Chromium', () => {
  test.skipIf(!hasChromium)(
    'an owner writes a rule requiring approval above an amount, reads the backtest, applies it; the next request waits',
    async () => {
      const { url } = await getHarness()
      const ws = await makeWorkspace()
      const pacer = await agentIn(ws.id, { allow: 'ads.adjust_budget', name: 'Budget Pacer', ceilings: { amounts: [{ amountMinor: 200_000, currency: 'USD' }], amountPercent: 50 } })
      const before = await raise(pacer.credential, 600)
      expect(before.body.data.decision).toBe('allowed')
      const owner = await signInAs(ws.id, 'owner', 'Maya Chen')
      await browser!.context.addCookies([{ name: 'growth_session', value: owner.token, url: `${url}/console` }])

      await page.goto(`${url}/console/policy`, { waitUntil: 'load' })
      await checked(1280)
      await checked(320)
      await page.setViewportSize({ width: 1280, height: 900 })
      await page.getByLabel('For the tool action').selectOption('ads.adjust_budget')
      await page.getByLabel('When').selectOption('amount')
      await page.getByLabel('Value').fill('500')
      await page.getByLabel('Currency (for an amount)').fill('USD')
      await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Plan this rule' }).click()])
      const plan = page.locator('#plan')
      await expect(plan.innerText()).resolves.toContain('1 would be decided otherwise')
      expect(await plan.innerText()).toContain(before.body.data.id)
      expect(await plan.innerText()).toMatch(/Budget Pacer.*would need a person instead of being allowed/)
      await checked(1280)
      await checked(320)

      await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Apply 1 change' }).click()])
      expect(await page.locator('main').innerText()).toContain('Applied 1 change')
      expect(await page.locator('main').innerText()).toMatch(/by Maya Chen/i)
      await checked(1280)
      expect((await raise(pacer.credential, 600)).body.data.decision).toBe('requires_approval')
      expect((await raise(pacer.credential, 100)).body.data.decision).toBe('allowed')

      // The policy tests: their result is where the page opens, not far below the document's editor, and has the focus.
      await page.getByLabel('Cases (YAML or JSON)').fill('- { name: big raise, agent: Budget Pacer, tool: ads, action: adjust_budget, facts: { amountMinor: 60000, currency: USD, amountPercent: 10, increase: true }, expect: requires_approval }')
      await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Run the policy tests' }).click()])
      expect(await page.locator('#tests [role=status] .status').innerText()).toBe('ok: 1 passed, 0 failed.')
      expect(await focusedInView()).toEqual({ id: 'tested', inView: true })

      // A refused form puts the focus on what to correct, in view: the field its refusal describes, or the refusal itself.
      await page.getByLabel('Value').fill('lots')
      await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Plan this rule' }).click()])
      expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-describedby'))).toBe('policy-error')
      expect(await focusedInView()).toEqual({ id: 'rule-value', inView: true })
      await page.getByLabel('Cases (YAML or JSON)').fill('- { name: no agent }')
      await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Run the policy tests' }).click()])
      expect(await focusedInView()).toEqual({ id: 'policy-cases', inView: true })
      expect(errors).toEqual([])
    },
    120_000,
  )

  test.skipIf(!hasChromium)('a form answered on this long page opens at its answer with the heading above it still in view, at 1280x720 and at 320 px', async () => {
    const { url } = await getHarness()
    const ws = await makeWorkspace()
    await agentIn(ws.id, { allow: 'email.send_campaign', name: 'Lifecycle Writer' })
    const owner = await signInAs(ws.id, 'owner', 'Maya Chen')
    await browser!.context.clearCookies()
    await browser!.context.addCookies([{ name: 'growth_session', value: owner.token, url: `${url}/console` }])
    /** Where the focus is, and whether `heading` (wholly) and the focused element's top are on screen. */
    const shown = (heading: string) =>
      page.evaluate(
        (heading) =>
          new Promise<{ focus: string; heading: boolean; answer: boolean }>((resolve) =>
            setTimeout(() => {
              const h = [...document.querySelectorAll('main :is(h1, h2)')].find((e) => e.textContent === heading)!.getBoundingClientRect()
              const a = document.activeElement!.getBoundingClientRect()
              resolve({ focus: document.activeElement!.id, heading: h.top >= 0 && h.bottom <= innerHeight, answer: a.top >= 0 && a.top < innerHeight })
            }, 50),
          ),
        heading,
      )
    for (const [width, height] of [[1280, 720], [320, 640]]) {
      await page.setViewportSize({ width: width!, height: height! })
      // A plan: the page's heading, "Policy", stays above it (the browser would put the plan at the very top).
      await page.goto(`${url}/console/policy`, { waitUntil: 'load' })
      await page.getByLabel('Value').fill('5000')
      await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Plan this rule' }).click()])
      expect({ width, ...(await shown('Policy')) }).toEqual({ width, focus: 'plan', heading: true, answer: true })
      // The policy tests' result, far down the page: its section's heading stays above it.
      await page.getByLabel('Cases (YAML or JSON)').fill('- { name: no pausing, agent: Lifecycle Writer, tool: ads, action: pause_campaign, facts: {}, expect: denied }')
      await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Run the policy tests' }).click()])
      expect({ width, ...(await shown('Policy tests')) }).toEqual({ width, focus: 'tested', heading: true, answer: true })
    }
    expect(errors).toEqual([])
  }, 60_000)
})
