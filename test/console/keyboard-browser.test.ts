import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { BrowserContext, Page } from 'playwright-core'
import { addPerson } from '../../server/src/domain/people.ts'
import { agentIn, authorize } from '../agent-helpers.ts'
import { getHarness, makeWorkspace } from '../harness.ts'
import { hasChromium, launchChromium, seriousA11yViolations, skipWithoutChromium, watchedPage } from '../support/browser.ts'
import { signInAs } from '../support/console-session.ts'

/**
 * The console with the keyboard alone, as a person with a screen reader uses it, in headless
 * Chromium (one browser for the file): Tab to a control, type, Enter or Space; what each answer
 * puts in front of them.
 */
skipWithoutChromium('the console keyboard tests')

let browser: { context: BrowserContext; close(): Promise<void> } | undefined
let page: Page
const errors: string[] = []

beforeAll(async () => {
  if (!hasChromium) return
  browser = await launchChromium()
  page = (await watchedPage(browser.context, errors)).page
  // The forms that cannot be undone ask first (console.js): the person says yes.
  page.on('dialog', (d) => void d.accept())
})
afterAll(async () => {
  await browser?.close()
})

/** A workspace with an agent whose sends wait for a person, one waiting, and an owner signed in in the browser. */
async function setUp() {
  const { url } = await getHarness()
  const ws = await makeWorkspace()
  const agent = await agentIn(ws.id, { allow: 'email.send_campaign', name: 'Lifecycle Writer' })
  const asked = await authorize(agent.credential, { tool: 'email', action: 'send_campaign', resource: 'cmp_spring', summary: 'Send the spring launch', facts: { recipients: 3200 } })
  expect(asked.body.data.decision).toBe('requires_approval')
  const owner = await signInAs(ws.id, 'owner', 'Maya Chen')
  await browser!.context.clearCookies()
  await browser!.context.addCookies([{ name: 'growth_session', value: owner.token, url: `${url}/console` }])
  return { url, ws, agent, approvalId: asked.body.data.approvalId as string }
}

/** Presses Tab until the focus is on what `selector` matches (at most 200 times). */
async function tabTo(selector: string) {
  for (let n = 0; n < 200; n++) {
    await page.keyboard.press('Tab')
    if (await page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector)) return
  }
  throw new Error(`Tab never reached ${selector}`)
}

/** Presses `key` on the focused control and waits for the page it leads to. */
async function press(key: string) {
  await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.keyboard.press(key)])
}

/** The focused element once the page has settled: its role and its text, or 'body'. */
const focused = () =>
  page.evaluate(
    () =>
      new Promise<string>((resolve) =>
        // Two frames: the browser moves the focus to a #fragment as the page finishes loading.
        requestAnimationFrame(() =>
          requestAnimationFrame(() => {
            const el = document.activeElement as HTMLElement | null
            resolve(!el || el === document.body ? 'body' : `${el.getAttribute('role') ?? el.tagName.toLowerCase()}: ${el.innerText.trim().replace(/\s+/g, ' ')}`)
          }),
        ),
      ),
  )

describe('the console with the keyboard alone', () => {
  test.skipIf(!hasChromium)(
    'the answer to a form has the focus as its page opens: a decision, a secret shown once, a notice, a plan, the policy tests\' result, the stop switch',
    async () => {
      const { url, approvalId } = await setUp()

      // Reject: the page again, the focus on what was decided.
      await page.goto(`${url}/console/approvals/${approvalId}`, { waitUntil: 'load' })
      await tabTo('#reject-reason')
      await page.keyboard.type('Not this week')
      await page.keyboard.press('Tab')
      await press('Enter')
      expect(await focused()).toStartWith('status: Rejected Decided by Maya Chen')
      // Opened again later, the page starts at its top as any page does.
      await page.goto(`${url}/console/approvals/${approvalId}`, { waitUntil: 'load' })
      expect(await focused()).toBe('body')

      // A token issued: the focus on what to do with the secret shown once; then revoked, on the notice.
      await page.goto(`${url}/console/tokens`, { waitUntil: 'load' })
      await tabTo('main form[action="/console/tokens"] button')
      await press('Enter')
      expect(await focused()).toStartWith('status: This is the only time the token is shown')
      await page.goto(`${url}/console/tokens`, { waitUntil: 'load' })
      await tabTo('main form[action$="/revoke"] button')
      await press('Enter')
      expect(await focused()).toStartWith('status: Token revoked')

      // A person invited: the focus on the link to pass on and what to do with it.
      await page.goto(`${url}/console/people`, { waitUntil: 'load' })
      await tabTo('#invite-email')
      await page.keyboard.type(`kenji-${crypto.randomUUID().slice(0, 8)}@example.com`)
      await page.keyboard.press('Tab')
      await page.keyboard.type('Kenji Sato')
      await tabTo('main form[action="/console/people"] button')
      await press('Enter')
      expect(await focused()).toStartWith('status: Kenji Sato')

      // A rule planned: the focus on the plan; applied: on the notice saying so.
      await page.goto(`${url}/console/policy`, { waitUntil: 'load' })
      await tabTo('main form input[name=value]')
      await page.keyboard.type('5000')
      await tabTo('main button')
      await press('Enter')
      expect(await focused()).toStartWith('section: The plan 1 change')
      await tabTo('form[action="/console/policy/apply"] button')
      await press('Enter')
      expect(await focused()).toStartWith('status: Applied 1 change')
      // The policy tests run: the focus on their result, which cases passed and which failed.
      await tabTo('#policy-cases')
      await page.keyboard.type('- { name: no pausing, agent: Lifecycle Writer, tool: ads, action: pause_campaign, facts: {}, expect: denied }')
      await tabTo('main form[action^="/console/policy/test"] button')
      await press('Enter')
      expect(await focused()).toStartWith('status: ok: 1 passed, 0 failed. ok no pausing: denied')

      // The stop switch: the focus on what it now says.
      await page.goto(`${url}/console/agents`, { waitUntil: 'load' })
      await tabTo('main textarea')
      await page.keyboard.type('Walk test')
      await page.keyboard.press('Tab')
      await press('Enter')
      expect(await focused()).toStartWith('section: Stop switch Agents are stopped')
      await tabTo('form[action="/console/agents"] button')
      await press('Enter')
      expect(await focused()).toStartWith('section: Stop switch Agents are running')

      expect(await seriousA11yViolations(page)).toEqual([])
      expect(errors).toEqual([])
    },
    120_000,
  )
})

describe('names read out of context', () => {
  test.skipIf(!hasChromium)(
    "on every page, links and buttons of one name lead to one place: a screen reader's list of them says which is which",
    async () => {
      const { url, ws, agent } = await setUp()
      const { sql } = await getHarness()
      // Two waiting requests, two people whose role the owner may change.
      await authorize(agent.credential, { tool: 'email', action: 'send_campaign', resource: 'cmp_summer', summary: 'Send the summer launch', facts: { recipients: 3200 } })
      for (const name of ['Kenji Sato', 'Lin Park']) await addPerson(sql, { workspaceId: ws.id, email: `${crypto.randomUUID().slice(0, 8)}@example.com`, name, role: 'approver' })
      const pages = ['/console/', '/console/requests', '/console/agents', `/console/agents/${agent.id}`, '/console/policy', '/console/tokens', '/console/people', '/console/webhooks', '/console/logs', '/console/audit']
      for (const path of pages) {
        await page.goto(`${url}${path}`, { waitUntil: 'load' })
        const ambiguous = await page.evaluate(() => {
          const nameOf = (el: Element) => (el.getAttribute('aria-label') ?? (el as HTMLElement).textContent ?? '').replace(/\s+/g, ' ').trim()
          const targets = new Map<string, Set<string>>()
          for (const el of document.querySelectorAll('a[href], button')) {
            const target = el instanceof HTMLAnchorElement ? el.href : `${(el as HTMLButtonElement).form?.action ?? ''} ${new URLSearchParams(new FormData((el as HTMLButtonElement).form ?? undefined) as unknown as string).toString()}`
            const name = `${el.tagName.toLowerCase()} "${nameOf(el)}"`
            targets.set(name, (targets.get(name) ?? new Set()).add(target))
          }
          return [...targets].filter(([, t]) => t.size > 1).map(([name, t]) => `${name} (${t.size} places)`)
        })
        expect({ path, ambiguous }).toEqual({ path, ambiguous: [] })
      }
      expect(errors).toEqual([])
    },
    120_000,
  )
})

describe('the headings outline', () => {
  test.skipIf(!hasChromium)('on every page no heading skips a level, and what is listed under a heading is headed one level below it', async () => {
    const { url, agent } = await setUp()
    const pages = ['/console/', '/console/requests', '/console/agents', `/console/agents/${agent.id}`, '/console/policy', '/console/tokens', '/console/people', '/console/webhooks', '/console/logs', '/console/audit', '/console/account']
    for (const path of pages) {
      await page.goto(`${url}${path}`, { waitUntil: 'load' })
      const outline = await page.evaluate(() => [...document.querySelectorAll('main :is(h1, h2, h3, h4, h5, h6)')].map((h) => ({ level: Number(h.tagName[1]), text: (h as HTMLElement).innerText.trim() })))
      expect({ path, first: outline[0]?.level }).toEqual({ path, first: 1 })
      const skips = outline.filter((h, i) => i > 0 && h.level > outline[i - 1]!.level + 1).map((h) => h.text)
      expect({ path, skips }).toEqual({ path, skips: [] })
    }
    // An agent's recent requests are the items of its section: each headed below "Recent requests".
    await page.goto(`${url}/console/agents/${agent.id}`, { waitUntil: 'load' })
    const recent = await page.evaluate(() => {
      const all = [...document.querySelectorAll('main :is(h2, h3)')]
      const at = all.findIndex((h) => h.textContent === 'Recent requests')
      return all.slice(at + 1).map((h) => `${h.tagName.toLowerCase()}: ${h.textContent}`)
    })
    expect(recent).toEqual(['h3: “Send the spring launch”'])
  }, 120_000)
})

describe('the inbox read out of context', () => {
  test.skipIf(!hasChromium)('each waiting item is a link named by what it asks, not by every word of its card; the whole card opens it, and shows the focus', async () => {
    const { url, approvalId } = await setUp()
    await page.goto(`${url}/console/`, { waitUntil: 'load' })
    // The accessible name as Chromium computes it for a screen reader.
    expect(await page.getByRole('link', { name: '“Send the spring launch”', exact: true }).count()).toBe(1)
    await tabTo('main a[href^="/console/approvals/"]')
    const card = await page.evaluate(() => {
      const style = getComputedStyle(document.activeElement!.closest('article')!)
      return { outline: style.outlineStyle, width: style.outlineWidth }
    })
    expect(card).toEqual({ outline: 'solid', width: '3px' })
    expect(await seriousA11yViolations(page)).toEqual([])
    // A click anywhere on the card, its facts too, opens the item.
    await Promise.all([page.waitForURL(`${url}/console/approvals/${approvalId}`), page.locator('main article dl').click({ force: true })])
  }, 60_000)
})

describe('a secret shown once, copied with the keyboard', () => {
  test.skipIf(!hasChromium)('Enter on Copy copies it and leaves the focus on the button, which now says Copied', async () => {
    const { url } = await setUp()
    await browser!.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: url })
    await page.goto(`${url}/console/tokens`, { waitUntil: 'load' })
    await tabTo('main form[action="/console/tokens"] button')
    await press('Enter')
    const secret = await page.locator('#secret').inputValue()
    await tabTo('button[data-copy]')
    await page.keyboard.press('Enter')
    await page.waitForFunction(() => document.querySelector('button[data-copy]')?.textContent === 'Copied')
    expect(await focused()).toBe('button: Copied')
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret)
  }, 60_000)
})

describe('the focus is always visible', () => {
  test.skipIf(!hasChromium)('on a date field, its day, month and year and its calendar button too', async () => {
    const { url } = await setUp()
    await page.goto(`${url}/console/tokens`, { waitUntil: 'load' })
    await tabTo('input[type=date]')
    const outlines: string[] = []
    // Month, day, year, then the calendar button: the focus stays in the field for all four.
    for (let stop = 0; stop < 4; stop++) {
      if (stop) await page.keyboard.press('Tab')
      outlines.push(await page.evaluate(() => {
        const el = document.activeElement as HTMLInputElement
        const s = getComputedStyle(el)
        return `${el.type} ${s.outlineStyle} ${s.outlineWidth}`
      }))
    }
    expect(outlines).toEqual(Array(4).fill('date solid 3px'))
  }, 60_000)
})
