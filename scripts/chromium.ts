import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type BrowserContext, chromium } from 'playwright-core'

/**
 * Debian's Chromium, headless, driven by playwright-core: the browser of the browser tests and of
 * the screenshot script. Where it is not installed, callers skip and say how to install it.
 */
const CHROMIUM = '/usr/bin/chromium'
export const hasChromium = existsSync(CHROMIUM)
export const NO_CHROMIUM = `needs ${CHROMIUM}; install Debian's chromium package (apt-get install -y chromium) to run it`

/**
 * A fresh headless Chromium context (its own profile directory, removed by `close`). As root it needs
 * --no-sandbox. `timezoneId` and `locale` set the zone and language the pages see (default: the machine's).
 */
export async function launchChromium(opts: { viewport?: { width: number; height: number }; timezoneId?: string; locale?: string } = {}): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  const userDataDir = mkdtempSync(join(tmpdir(), 'growth-chromium-'))
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: opts.viewport ?? { width: 1280, height: 800 },
    ...(opts.timezoneId ? { timezoneId: opts.timezoneId } : {}),
    ...(opts.locale ? { locale: opts.locale } : {}),
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  })
  return {
    context,
    close: async () => {
      await context.close()
      rmSync(userDataDir, { recursive: true, force: true })
    },
  }
}
