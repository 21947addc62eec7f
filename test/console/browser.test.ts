import { describe, expect, test } from 'bun:test'
import { getHarness } from '../harness.ts'
import { cspViolations, hasChromium, launchChromium, seriousA11yViolations, skipWithoutChromium, watchedPage } from '../support/browser.ts'

/**
 * The console's pages without a session, in headless Chromium: under the strict
 * Content-Security-Policy nothing is refused and nothing fails; axe-core finds no serious or
 * critical violation; at 320 px nothing scrolls sideways; the keyboard reaches everything, with a
 * visible focus.
 */
skipWithoutChromium('the console browser tests')

const PAGES = ['/console/signin', '/console/signin/tok_browser-test']

describe('console pages in Chromium', () => {
  test.skipIf(!hasChromium)(
    'the sign-in pages: no CSP violation, no error, no serious accessibility violation, readable at 320 px and 1280 px',
    async () => {
      const { url } = await getHarness()
      for (const width of [1280, 320]) {
        const { context, close } = await launchChromium({ viewport: { width, height: 720 } })
        try {
          const { page, errors } = await watchedPage(context)
          page.on('console', (m) => {
            if (m.type() === 'error') errors.push(`console: ${m.text()}`)
          })
          page.on('requestfailed', (r) => errors.push(`failed: ${r.url()} (${r.failure()?.errorText})`))
          for (const path of PAGES) {
            const res = await page.goto(`${url}${path}`, { waitUntil: 'load' })
            expect(res?.status()).toBe(200)
            expect(await page.evaluate(() => typeof (window as unknown as { htmx?: unknown }).htmx)).toBe('object')
            expect(await cspViolations(page)).toEqual([])
            expect(await seriousA11yViolations(page)).toEqual([])
            const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)
            expect({ path, width, overflow }).toEqual({ path, width, overflow: 0 })
          }
          expect(errors).toEqual([])
        } finally {
          await close()
        }
      }
    },
    60_000,
  )

  test.skipIf(!hasChromium)(
    'with the keyboard alone: the skip link first, then the Sign in button, each with a visible focus; pressing it answers a page that is also accessible',
    async () => {
      const { url } = await getHarness()
      const { context, close } = await launchChromium()
      try {
        const { page } = await watchedPage(context)
        await page.goto(`${url}/console/signin/tok_keyboard`, { waitUntil: 'load' })
        const focused = async () =>
          page.evaluate(() => {
            const el = document.activeElement as HTMLElement
            const style = getComputedStyle(el)
            return { text: el.innerText.trim(), outline: style.outlineStyle !== 'none' && style.outlineWidth !== '0px' }
          })
        await page.keyboard.press('Tab')
        expect(await focused()).toEqual({ text: 'Skip to content', outline: true })
        await page.keyboard.press('Tab')
        expect((await focused()).text).toBe('Growth console')
        await page.keyboard.press('Tab')
        expect(await focused()).toEqual({ text: 'Sign in', outline: true })
        const [res] = await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')])
        // Until people exist every link is unknown: the page says so, and signs no one in.
        expect(res?.status()).toBe(404)
        expect(await page.locator('main').innerText()).toContain('This sign-in link is not one we know')
        expect((await context.cookies()).filter((c) => c.name === 'growth_session')).toEqual([])
        expect(await cspViolations(page)).toEqual([])
        expect(await seriousA11yViolations(page)).toEqual([])
      } finally {
        await close()
      }
    },
    60_000,
  )

  test.skipIf(!hasChromium)('the accessibility check finds what it should (a control without a label)', async () => {
    const { context, close } = await launchChromium()
    try {
      const page = context.pages()[0] ?? (await context.newPage())
      await page.setContent('<!doctype html><html lang="en"><title>t</title><main><input type="text"></main></html>')
      expect((await seriousA11yViolations(page)).some((v) => v.startsWith('label:'))).toBe(true)
    } finally {
      await close()
    }
  }, 60_000)
})
