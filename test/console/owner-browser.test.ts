import { describe, expect, test } from 'bun:test'
import { addPerson } from '../../server/src/domain/people.ts'
import { signInLink } from '../../server/src/domain/sign-in.ts'
import { getHarness, makeWorkspace } from '../harness.ts'
import { cspViolations, hasChromium, launchChromium, seriousA11yViolations, skipWithoutChromium, watchedPage } from '../support/browser.ts'

/**
 * An owner's pages in headless Chromium: from a one-time sign-in link, the owner issues a token on
 * the Tokens page, and a real `curl` uses it; the Tokens, Audit and Request log pages (the call shown) have
 * no CSP violation, no serious or critical axe-core violation and nothing scrolling sideways at
 * 320 px and 1280 px; the audit list filtered with its own form.
 */
skipWithoutChromium('the owner console browser tests')

describe('an owner in Chromium', () => {
  test.skipIf(!hasChromium)('signs in from a link, issues a token that curl then uses, reads the call in the request log; the pages are accessible at 320 and 1280 px', async () => {
    const { url, sql } = await getHarness()
    const ws = await makeWorkspace()
    const owner = await addPerson(sql, { workspaceId: ws.id, email: `owner-${crypto.randomUUID().slice(0, 8)}@example.com`, name: 'Mara Owner', role: 'owner' })
    const link = await signInLink(sql, { personId: owner.id, consoleUrl: `${url}/console` })
    const { context, close } = await launchChromium({ viewport: { width: 1280, height: 800 } })
    try {
      const { page, errors } = await watchedPage(context)
      await page.goto(link.url, { waitUntil: 'load' })
      await page.getByRole('button', { name: /sign in/i }).click()
      await page.waitForURL(`${url}/console/`)
      await page.getByRole('link', { name: 'Tokens' }).click()
      await page.getByLabel('test (svc_test_…)').check()
      await page.getByLabel('read:logs').check()
      await page.getByRole('button', { name: 'Issue the token' }).click()
      const token = await page.locator('#secret').inputValue()
      expect(token).toMatch(/^svc_test_/)
      expect(await seriousA11yViolations(page)).toEqual([])

      // Spawned, not spawnSync: the server under test answers on this process's event loop.
      const curl = Bun.spawn(['curl', '-s', '-o', '/dev/null', '-w', '%{http_code}', '--max-time', '30', '-H', `Authorization: Bearer ${token}`, `${url}/api/v1/logs?limit=1`], { stdout: 'pipe' })
      expect(await new Response(curl.stdout).text()).toBe('200')

      for (const width of [1280, 320]) {
        await page.setViewportSize({ width, height: 800 })
        for (const path of ['/console/tokens', '/console/audit', '/console/people', '/console/logs?operation=listRequestLogs']) {
          const deadline = Date.now() + 15_000
          for (;;) {
            await page.goto(`${url}${path}`, { waitUntil: 'load' })
            if (!path.startsWith('/console/logs') || (await page.locator('ol.calls li').count()) > 0 || Date.now() > deadline) break
            await page.waitForTimeout(200)
          }
          expect(await page.content()).not.toContain(token)
          expect(await cspViolations(page)).toEqual([])
          expect(await seriousA11yViolations(page)).toEqual([])
          const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)
          expect({ path, width, overflow }).toEqual({ path, width, overflow: 0 })
          // Every field one types into wears the console's field style (a bare input is drawn small, as the browser's default).
          const bare = await page.evaluate(() =>
            [...document.querySelectorAll('main input:not([type=hidden]):not([type=checkbox]):not([type=radio])')].filter((i) => getComputedStyle(i).borderRadius !== '6px').map((i) => (i as HTMLInputElement).name),
          )
          expect({ path, width, bare }).toEqual({ path, width, bare: [] })
          // Every option of every select can be read whole in its select (a closed select cuts its text).
          const cut = await page.evaluate(() => {
            const measure = document.createElement('canvas').getContext('2d')!
            return [...document.querySelectorAll('select')].flatMap((select) => {
              const style = getComputedStyle(select)
              measure.font = style.font
              const room = select.clientWidth - Number.parseFloat(style.paddingLeft) - Number.parseFloat(style.paddingRight) - 20 // the arrow
              return [...select.options].filter((o) => measure.measureText(o.text).width > room).map((o) => `${select.id}: ${o.text}`)
            })
          })
          expect({ path, width, cut }).toEqual({ path, width, cut: [] })
        }
      }
      expect(await page.locator('ol.calls li').count()).toBeGreaterThan(0)
      // The audit list filtered with its form: only the tokens' entries, the issued one first, by the owner.
      await page.goto(`${url}/console/audit`, { waitUntil: 'load' })
      await page.getByLabel('What').selectOption('tokens')
      await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Show' }).click()])
      expect(new URL(page.url()).searchParams.get('kind')).toBe('tokens')
      const first = page.locator('ol.audit > li').first()
      expect(await first.innerText()).toContain('Mara Owner issued the token')
      expect(await page.locator('ol.audit > li code', { hasText: /^[a-z]+\.[a-z_]+$/ }).allInnerTexts()).toSatisfy((codes: string[]) => codes.length > 0 && codes.every((c) => c.startsWith('token.')))
      expect(await seriousA11yViolations(page)).toEqual([])
      expect(errors).toEqual([])
    } finally {
      await close()
    }
  }, 240_000)
})
