/**
 * Screenshots of the console's pages for docs/console.md, taken in headless Chromium from a server
 * on a fresh embedded database with the demo workspace: `bun scripts/console-screenshots.ts`
 * (npm run console:screenshots). Each page at 1280 px and at 320 px wide, into docs/console/.
 *
 * Until people and sessions are wired in, the pages are those without a session (sign-in, and a
 * sign-in link opened); the signed-in pages join this list when a sign-in link can be made here.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadConfig } from '../server/src/config.ts'
import { createLogger } from '../server/src/core/log.ts'
import { createDemoWorkspace } from '../server/src/demo/index.ts'
import { startServer } from '../server/src/server.ts'
import { openDatabase } from '../server/src/store/driver/db.ts'
import { hasChromium, launchChromium, NO_CHROMIUM } from './chromium.ts'

const OUT = join(import.meta.dir, '..', 'docs', 'console')
const CONSOLE_SCREENSHOTS = [
  { name: 'signin', path: '/console/signin' },
  { name: 'signin-link', path: '/console/signin/example-one-time-token' },
] as const
const WIDTHS = [1280, 320] as const

if (!hasChromium) {
  console.error(`console-screenshots ${NO_CHROMIUM}`)
  process.exit(1)
}

mkdirSync(OUT, { recursive: true })
const dataDir = mkdtempSync(join(tmpdir(), 'growth-screenshots-'))
const config = loadConfig({ DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', WEBHOOK_WORKERS: '0' })
const db = await openDatabase({ dataDir, databaseUrl: undefined })
const server = await startServer(config, { db, log: createLogger('warn') })
try {
  await createDemoWorkspace(db.sql)
  for (const width of WIDTHS) {
    const { context, close } = await launchChromium({ viewport: { width, height: width === 320 ? 640 : 800 } })
    try {
      const page = context.pages()[0] ?? (await context.newPage())
      for (const shot of CONSOLE_SCREENSHOTS) {
        const res = await page.goto(`${server.url}${shot.path}`, { waitUntil: 'load' })
        if (!res || res.status() !== 200) throw new Error(`${shot.path} answered ${res?.status()}`)
        const file = join(OUT, `${shot.name}-${width}.png`)
        await page.screenshot({ path: file, fullPage: true })
        console.log(`wrote ${file}`)
      }
    } finally {
      await close()
    }
  }
} finally {
  await server.stop()
  await db.close()
  rmSync(dataDir, { recursive: true, force: true })
}
