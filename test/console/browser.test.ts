import { describe, expect, test } from 'bun:test'
import { getHarness, makeWorkspace } from '../harness.ts'
import { freshLink } from '../support/console-session.ts'
import { cspViolations, hasChromium, launchChromium, seriousA11yViolations, skipWithoutChromium, watchedPage } from '../support/browser.ts'

/**
 * The console's pages without a session, in headless Chromium: under the strict
 * Content-Security-Policy nothing is refused and nothing fails; axe-core finds no serious or
 * critical violation; at 320 px nothing scrolls sideways; the keyboard reaches everything, with a
 * visible focus.
 */
skipWithoutChromium('the console browser tests')

/** The pages, with the status each answers: a link that would sign in, and one that would not. */
const pages = async () => [
  ['/console/signin', 200],
  [(await freshLink((await makeWorkspace()).id, 'viewer', 'Bo Browser')).path, 200],
  ['/console/signin/gsl_not-one-of-ours', 404],
] as const

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
          for (const [path, status] of await pages()) {
            const res = await page.goto(`${url}${path}`, { waitUntil: 'load' })
            expect({ path, status: res?.status() }).toEqual({ path, status })
            expect(await page.evaluate(() => typeof (window as unknown as { htmx?: unknown }).htmx)).toBe('object')
            expect(await cspViolations(page)).toEqual([])
            expect(await seriousA11yViolations(page)).toEqual([])
            const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)
            expect({ path, width, overflow }).toEqual({ path, width, overflow: 0 })
            // Chromium reports a page answered 404 as a resource that failed to load: that one is meant.
            const meant = errors.indexOf('console: Failed to load resource: the server responded with a status of 404 (Not Found)')
            if (status === 404 && meant >= 0) errors.splice(meant, 1)
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
    'with the keyboard alone: the skip link first, then the Sign in button, each with a visible focus; pressing it signs in, on a page that is also accessible',
    async () => {
      const { url } = await getHarness()
      const { context, close } = await launchChromium()
      try {
        const { page } = await watchedPage(context)
        await page.goto(`${url}${(await freshLink((await makeWorkspace()).id, 'approver', 'Kay Keyboard')).path}`, { waitUntil: 'load' })
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
        // Signed in: the inbox.
        expect(res?.status()).toBe(200)
        expect(new URL(page.url()).pathname).toBe('/console/')
        expect((await context.cookies()).filter((c) => c.name === 'growth_session')).toHaveLength(1)
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
