import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import type { BrowserContext, Page } from 'playwright-core'
import { hasChromium, launchChromium, NO_CHROMIUM } from '../../scripts/chromium.ts'

/**
 * The browser tests' harness: headless Chromium (scripts/chromium.ts, shared with the screenshot
 * script), what the Content-Security-Policy refused, recorded in the page, and axe-core's
 * accessibility check run in it. A test file calls `skipWithoutChromium(what)` and guards its browser
 * tests with `test.skipIf(!hasChromium)`.
 */
export { hasChromium, launchChromium }

export function skipWithoutChromium(what: string) {
  if (!hasChromium) console.warn(`skipped: ${what} ${NO_CHROMIUM}`)
}

type Violation = { directive: string; blocked: string }

/** Records every Content-Security-Policy violation of the pages of a context, read by `cspViolations`. */
export async function recordCspViolations(page: Page) {
  await page.addInitScript(() => {
    const w = window as unknown as { __violations: Violation[] }
    w.__violations = []
    document.addEventListener('securitypolicyviolation', (e) => w.__violations.push({ directive: e.violatedDirective, blocked: e.blockedURI }))
  })
}

/**
 * The context's page, watched as every console browser test watches it: what the
 * Content-Security-Policy refuses recorded (cspViolations), and each uncaught page error pushed to
 * `errors` (a new list unless one is given, e.g. a file's shared one).
 */
export async function watchedPage(context: BrowserContext, errors: string[] = []): Promise<{ page: Page; errors: string[] }> {
  const page = context.pages()[0] ?? (await context.newPage())
  await recordCspViolations(page)
  page.on('pageerror', (e) => errors.push(`page error: ${e.message}`))
  return { page, errors }
}

export const cspViolations = (page: Page) =>
  page.evaluate(() => (window as unknown as { __violations: Violation[] }).__violations.map((v) => `${v.directive} ${v.blocked}`))

const AXE = readFileSync(fileURLToPath(import.meta.resolve('axe-core/axe.min.js')), 'utf8')

/**
 * axe-core's check of the page as it is now: the serious and critical violations, each as
 * `rule: nodes (help)`. axe is evaluated through the debugging protocol, which the page's
 * Content-Security-Policy does not govern (an injected <script> would be refused).
 */
export async function seriousA11yViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE)
  const results = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(ctx: Document, opts: unknown): Promise<{ violations: { id: string; impact: string; help: string; nodes: { target: string[] }[] }[] }> } }).axe
    return axe.run(document, { resultTypes: ['violations'] })
  })
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')} (${v.help})`)
}
