import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ERROR_CODES } from '../../server/src/core/errors.ts'
import { EVENT_TYPES } from '../../server/src/core/event-types.ts'
import { ROOT } from '../cli/run.ts'
import { getHarness } from '../harness.ts'
import { hasChromium, launchChromium, skipWithoutChromium } from '../support/browser.ts'

/**
 * The API reference page (/api/v1/reference): Scalar, served by this server, rendering the live
 * OpenAPI document. The browser test drives Debian's Chromium; where it is not installed it is
 * skipped, with a message saying how to run it.
 */
skipWithoutChromium('the reference page browser test')


describe('GET /api/v1/reference', () => {
  test('is an HTML page that loads everything from this server, under a same-origin Content-Security-Policy', async () => {
    const { url } = await getHarness()
    const res = await fetch(`${url}/api/v1/reference`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8')
    const csp = res.headers.get('content-security-policy') ?? ''
    expect(csp).toContain("default-src 'self'")
    expect(csp).toContain("script-src 'self';")
    expect(csp).toContain("connect-src 'self'")
    const html = await res.text()
    expect(html).toContain('<title>Growth Automation Service API reference</title>')
    expect(html).not.toMatch(/(https?:)?\/\/[a-z0-9.-]+\.[a-z]/i)
    const scripts = [...html.matchAll(/<script src="([^"]+)"><\/script>/g)].map((m) => m[1]!)
    expect(scripts.length).toBe(2)
    for (const src of scripts) {
      expect(src.startsWith('/api/v1/reference/')).toBe(true)
      const asset = await fetch(`${url}${src}`)
      expect(asset.status).toBe(200)
      expect(asset.headers.get('content-type')).toBe('text/javascript; charset=utf-8')
      expect(asset.headers.get('cache-control')).toContain('max-age=31536000')
      expect((await asset.text()).length).toBeGreaterThan(0)
    }

    const missing = await fetch(`${url}/api/v1/reference/nothing.js`)
    expect(missing.status).toBe(404)
    expect(((await missing.json()) as any).error.code).toBe('not_found')
  })

  test.skipIf(!hasChromium)(
    'renders every operation, model, event and rule in headless Chromium, bearer auth preselected, with no request but to this server',
    async () => {
      const { url } = await getHarness()
      const origin = new URL(url).origin
      const doc = (await (await fetch(`${url}/api/v1/openapi.json`)).json()) as any
      const summaries: string[] = []
      for (const methods of Object.values<any>(doc.paths)) {
        for (const op of Object.values<any>(methods)) summaries.push(op.summary)
      }
      const models = Object.keys(doc.components.schemas)
      expect(summaries.length).toBeGreaterThan(20)
      expect(models).toContain('Mission')
      // Every event a webhook receives, by its type (the webhook's summary), with its body's model.
      const events = Object.values<any>(doc.webhooks).map((w) => w.post.summary as string)
      expect(events).toEqual(EVENT_TYPES)

      const { context, close } = await launchChromium()
      try {
        // Every request the page or the browser context makes, and every one that failed.
        const requested = new Set<string>()
        const failed: string[] = []
        const errors: string[] = []
        const offsite = (u: string) => !u.startsWith('data:') && !u.startsWith('blob:') && new URL(u).origin !== origin
        context.on('request', (r) => requested.add(r.url()))
        // Should anything try to leave the machine, it is recorded (above) and never sent.
        await context.route((u) => offsite(u.href), (route) => route.abort('blockedbyclient'))
        // What the Content-Security-Policy blocked never becomes a request: record it in the page.
        await context.addInitScript(() => {
          const w = window as unknown as { __violations: { directive: string; blocked: string }[] }
          w.__violations = []
          document.addEventListener('securitypolicyviolation', (e) =>
            w.__violations.push({ directive: e.violatedDirective, blocked: e.blockedURI }),
          )
        })

        const page = context.pages()[0] ?? (await context.newPage())
        page.on('request', (r) => requested.add(r.url()))
        page.on('requestfailed', (r) => failed.push(`${r.url()} (${r.failure()?.errorText})`))
        page.on('console', (m) => {
          if (m.type() === 'error') errors.push(`console: ${m.text()}`)
        })
        page.on('pageerror', (e) => errors.push(`page error: ${e.message}`))

        // (a) the page itself
        const res = await page.goto(`${url}/api/v1/reference`, { waitUntil: 'load' })
        expect(res?.status()).toBe(200)
        expect(res?.headers()['content-type']).toContain('text/html')
        expect(await page.title()).toBe('Growth Automation Service API reference')

        // (b), (c) Each operation renders as a heading holding its summary, and each model as a
        // heading holding its name. Collect the headings the browser actually shows (visible, and
        // their rendered text, not just what is in the DOM) while stepping down the page a screen
        // at a time, so that sections rendered late or only near the viewport are seen too; stop
        // when all are there.
        const expected = [...summaries, ...models, ...events]
        const seen = new Set<string>()
        let absent = expected
        const deadline = Date.now() + 40_000
        for (;;) {
          const headings = await page.evaluate(() =>
            [...document.querySelectorAll('h1, h2, h3, h4, h5, h6, [role="heading"]')]
              .filter((h) => h.checkVisibility())
              .map((h) => (h as HTMLElement).innerText.replace(/\s+/g, ' ').trim()),
          )
          for (const h of headings) seen.add(h)
          absent = expected.filter((name) => !seen.has(name))
          if (absent.length === 0 || Date.now() > deadline) break
          await page.evaluate(() => {
            const bottom = document.documentElement.scrollHeight - window.innerHeight
            window.scrollTo(0, window.scrollY >= bottom - 1 ? 0 : window.scrollY + window.innerHeight)
          })
          await page.waitForTimeout(150)
        }
        expect(absent).toEqual([])

        // (d) the rules from info.description: authentication, idempotency, rate limits, error codes
        const text = await page.evaluate(() => document.body.innerText)
        // Each event's section shows its payload's schema (above) and its example, by the example's event id;
        // docs/webhooks.md links each event type to its section, by the anchor the page gives it.
        for (const w of Object.values<any>(doc.webhooks)) expect(text).toContain(w.post.requestBody.content['application/json'].example.id)
        const linked = [...readFileSync(join(ROOT, 'docs', 'webhooks.md'), 'utf8').matchAll(/\/api\/v1\/reference#([^)\s]+)/g)].map((m) => m[1]!)
        expect(linked).toEqual(EVENT_TYPES.map((t) => `api-1/tag/events/webhook/POST/${t.replaceAll('.', '')}`))
        const anchored = await page.evaluate((ids) => ids.filter((id) => !document.getElementById(id)), linked)
        expect(anchored).toEqual([])
        for (const word of ['Idempotency-Key', 'Idempotent-Replayed', 'X-RateLimit-Limit', 'Retry-After', 'svc_test_', 'svc_live_', 'svc_agt_', ...ERROR_CODES]) {
          expect(text).toContain(word)
        }

        // (g) the workspace token (bearer) is the authentication the page starts with, its token field shown
        const auth = page.locator('.scalar-reference-intro-auth')
        await auth.waitFor({ timeout: 20_000 })
        const authText = (await auth.innerText()).replace(/\s+/g, ' ')
        expect(authText).toContain('Selected Auth Type: WorkspaceToken')
        expect(authText).not.toContain('No authentication selected')
        expect(authText).toContain('Bearer Token')
        expect(await auth.locator('input').count()).toBe(1)

        // (e) nothing but this server was asked for anything
        expect([...requested].filter(offsite)).toEqual([])
        expect(failed).toEqual([])
        // The one violation allowed is zod's probe for eval (`new Function('')` in a try, inside the
        // bundle): refused by script-src 'self', it falls back to parsing without compiled code.
        const violations = await page.evaluate(
          () => (window as unknown as { __violations: { directive: string; blocked: string }[] }).__violations,
        )
        expect(violations.filter((v) => v.blocked !== 'eval').map((v) => `${v.directive} ${v.blocked}`)).toEqual([])
        expect(requested.has(`${url}/api/v1/openapi.json`)).toBe(true)

        // (f) no error on the console, no uncaught exception
        expect(errors).toEqual([])
      } finally {
        await close()
      }
    },
    60_000,
  )
})
