/**
 * Screenshots of the console's pages for docs/console.md, taken in headless Chromium from a server
 * on a fresh embedded database with the demo workspace: `bun scripts/console-screenshots.ts`
 * (npm run console:screenshots). Each page at 1280 px and at 320 px wide, into docs/console/.
 *
 * First the sign-in page without a session; then the demo owner's one-time link opened, and, signed
 * in through it (its button clicked, as a person does; an approver invited beside them, not signed in yet), the inbox and the first
 * approval and proposed change waiting in it, the agents and the first agent's page, and the
 * requests; the policy and a plan of a rule written with its form; last, their account page with a passkey added through Chromium's virtual authenticator.
 * Served at http://localhost:PORT (CONSOLE_URL): passkeys need a host name. The browser is set to
 * New York's time zone, so the times show in a person's own zone.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadConfig } from '../server/src/config.ts'
import { createLogger } from '../server/src/core/log.ts'
import { createDemoWorkspace } from '../server/src/demo/index.ts'
import { demoOwner } from '../server/src/demo/owner.ts'
import { listTokens, rotateToken } from '../server/src/domain/credentials.ts'
import { addPerson } from '../server/src/domain/people.ts'
import { signInLink } from '../server/src/domain/sign-in.ts'
import { createEndpoint, listAttempts, sendTestEvent } from '../server/src/domain/webhooks.ts'
import { startServer } from '../server/src/server.ts'
import { openDatabase } from '../server/src/store/driver/db.ts'
import { hasChromium, launchChromium, NO_CHROMIUM } from './chromium.ts'

const OUT = join(import.meta.dir, '..', 'docs', 'console')
const CONSOLE_SCREENSHOTS = [{ name: 'signin', path: '/console/signin' }] as const
const WIDTHS = [1280, 320] as const

if (!hasChromium) {
  console.error(`console-screenshots ${NO_CHROMIUM}`)
  process.exit(1)
}

mkdirSync(OUT, { recursive: true })
const dataDir = mkdtempSync(join(tmpdir(), 'growth-screenshots-'))
// A port free a moment ago: the console's address (CONSOLE_URL) must be known before the server starts.
const port = await new Promise<number>((resolve, reject) => {
  const probe = createServer().once('error', reject)
  probe.listen(0, '127.0.0.1', () => {
    const { port } = probe.address() as { port: number }
    probe.close(() => resolve(port))
  })
})
const base = `http://localhost:${port}`
// One delivery worker and a receiver on this machine, so the webhook pages show real attempts.
const config = loadConfig({ DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', CONSOLE_URL: `${base}/console`, WEBHOOK_WORKERS: '1', WEBHOOK_ALLOW_PRIVATE_NETWORKS: '127.0.0.0/8' })
const receiver = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response('ok') })
const db = await openDatabase({ dataDir, databaseUrl: undefined })
const server = await startServer(config, { db, log: createLogger('warn') })
try {
  const demo = await createDemoWorkspace(db.sql)
  const owner = await demoOwner(db.sql, demo.workspace.id)
  // Invited and not signed in yet: the People page shows the owner's form for a new link.
  await addPerson(db.sql, { workspaceId: demo.workspace.id, email: 'lin@example.com', name: 'Lin Park', role: 'approver', by: { kind: 'person', id: owner.id, name: owner.name } })
  // The test token rotated with a day's overlap: the Tokens page shows the old one "Replaced by" the new.
  const testToken = (await listTokens(db.sql, demo.workspace.id)).tokens.find((t) => t.mode === 'test')
  if (testToken) await rotateToken(db.sql, testToken.id, 24 * 60 * 60 * 1000, { by: { kind: 'person', id: owner.id, name: owner.name } })
  const hook = await createEndpoint(db.sql, { workspaceId: demo.workspace.id, url: `http://127.0.0.1:${receiver.port}/hooks/growth`, events: 'approval.approved,approval.rejected,action.applied' }, { addresses: config.webhooks.addresses })
  for (const type of ['webhook.test', 'action.applied']) await sendTestEvent(db.sql, hook.id, type)
  for (let waited = 0; (await listAttempts(db.sql, hook.id, 10)).attempts.length < 2; waited += 100) {
    if (waited > 10_000) throw new Error('the test deliveries did not arrive at the screenshots\' receiver')
    await Bun.sleep(100)
  }
  for (const width of WIDTHS) {
    const { context, close } = await launchChromium({ viewport: { width, height: width === 320 ? 640 : 800 }, timezoneId: 'America/New_York', locale: 'en-US' })
    try {
      const page = context.pages()[0] ?? (await context.newPage())
      for (const shot of CONSOLE_SCREENSHOTS) {
        const res = await page.goto(`${base}${shot.path}`, { waitUntil: 'load' })
        if (!res || res.status() !== 200) throw new Error(`${shot.path} answered ${res?.status()}`)
        const file = join(OUT, `${shot.name}-${width}.png`)
        await page.screenshot({ path: file, fullPage: true })
        console.log(`wrote ${file}`)
      }
      // Signed in: the link's one button, then the inbox and the first item of each kind in it.
      const link = await signInLink(db.sql, { personId: owner.id, consoleUrl: `${base}/console` })
      await page.goto(link.url, { waitUntil: 'load' })
      const linkFile = join(OUT, `signin-link-${width}.png`)
      await page.screenshot({ path: linkFile, fullPage: true })
      console.log(`wrote ${linkFile}`)
      await Promise.all([page.waitForURL(`${base}/console/`), page.getByRole('button', { name: 'Sign in' }).click()])
      const signedIn = [{ name: 'inbox', path: '/console/' }]
      for (const kind of ['approvals', 'actions']) {
        const href = await page.locator(`a[href^="/console/${kind}/"]`).first().getAttribute('href')
        if (href) signedIn.push({ name: kind.slice(0, -1), path: href })
      }
      await page.goto(`${base}/console/agents`, { waitUntil: 'load' })
      signedIn.push({ name: 'agents', path: '/console/agents' })
      const agent = await page.locator('a[href^="/console/agents/agt_"]').first().getAttribute('href')
      if (agent) signedIn.push({ name: 'agent', path: agent })
      signedIn.push({ name: 'requests', path: '/console/requests' })
      signedIn.push({ name: 'policy', path: '/console/policy' })
      signedIn.push({ name: 'webhooks', path: '/console/webhooks' })
      signedIn.push({ name: 'webhook', path: `/console/webhooks/${hook.id}` })
      signedIn.push({ name: 'audit', path: '/console/audit' })
      signedIn.push({ name: 'tokens', path: '/console/tokens' })
      signedIn.push({ name: 'people', path: '/console/people' })
      signedIn.push({ name: 'logs', path: '/console/logs' })
      for (const shot of signedIn) {
        const res = await page.goto(`${base}${shot.path}`, { waitUntil: 'load' })
        if (!res || res.status() !== 200) throw new Error(`${shot.path} answered ${res?.status()}`)
        const file = join(OUT, `${shot.name}-${width}.png`)
        await page.screenshot({ path: file, fullPage: true })
        console.log(`wrote ${file}`)
      }
      // The plan of a rule written with the policy page's form: its change and the backtest (nothing is applied).
      await page.goto(`${base}/console/policy`, { waitUntil: 'load' })
      await page.getByLabel('For the tool action').selectOption('ads.adjust_budget')
      await page.getByLabel('When').selectOption('amountPercent')
      await page.getByLabel('Value').fill('5')
      await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Plan this rule' }).click()])
      const planFile = join(OUT, `policy-plan-${width}.png`)
      await page.locator('#plan').screenshot({ path: planFile })
      console.log(`wrote ${planFile}`)
      // The account page, with a passkey added as a person adds one (a virtual authenticator here).
      const cdp = await context.newCDPSession(page)
      await cdp.send('WebAuthn.enable')
      await cdp.send('WebAuthn.addVirtualAuthenticator', {
        options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
      })
      await page.goto(`${base}/console/account`, { waitUntil: 'load' })
      await page.waitForFunction(() => (document.querySelector('form[data-passkey] button[type=submit]') as HTMLButtonElement | null)?.disabled === false)
      await page.getByLabel('Name for the new passkey').fill(width === 320 ? 'Phone' : 'Work laptop')
      await Promise.all([page.waitForURL(`${base}/console/account?done=added#answer`, { timeout: 10_000 }), page.getByRole('button', { name: 'Add a passkey' }).click()]).catch(async (err) => {
        throw new Error(`adding a passkey failed: ${await page.locator('main').innerText()}`, { cause: err })
      })
      const file = join(OUT, `account-${width}.png`)
      await page.screenshot({ path: file, fullPage: true })
      console.log(`wrote ${file}`)
      await context.clearCookies()
    } finally {
      await close()
    }
  }
} finally {
  await server.stop()
  receiver.stop(true)
  await db.close()
  rmSync(dataDir, { recursive: true, force: true })
}
