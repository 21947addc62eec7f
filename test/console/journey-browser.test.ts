import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { loadConfig } from '../../server/src/config.ts'
import { createAgent } from '../../server/src/domain/agents.ts'
import { addPerson } from '../../server/src/domain/people.ts'
import { signInLink } from '../../server/src/domain/sign-in.ts'
import { createWorkspace } from '../../server/src/domain/workspaces.ts'
import { type RunningServer, startServer } from '../../server/src/server.ts'
import { Webhooks } from '../../sdk/src/index.ts'
import { getHarness } from '../harness.ts'
import { cspViolations, hasChromium, launchChromium, seriousA11yViolations, skipWithoutChromium, watchedPage } from '../support/browser.ts'
import { signInAs } from '../support/console-session.ts'
import { until } from '../webhooks/support.ts'

/**
 * An owner runs a new workspace from the console alone, in headless Chromium (issue 31's walk): from
 * a one-time sign-in link, issues a token on the Tokens page and a real `curl` uses it; with the
 * workspace's agent (registered with its amount ceilings, which the console's registration form
 * does not set: an owner writes them in the policy document; registering in Chromium is in
 * live.test.ts), writes a policy that requires approval above an amount on the Policy page and applies it
 * after reading the backtest; adds a webhook endpoint on the Webhooks page (the secret shown once);
 * the agent's next request then waits in the inbox and the owner approves it; the receiver in this
 * test gets the signed approval.approved delivery and verifies it with that secret; the Request log
 * shows the agent's calls. An approver and a viewer posting the owner's forms by hand are refused
 * on the server. The server here lets endpoints on this machine through and runs delivery workers.
 */
skipWithoutChromium('the console journey browser test')

type Got = { body: string; headers: Headers }
const got: Got[] = []
const rx = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  async fetch(req) {
    got.push({ body: await req.text(), headers: req.headers })
    return new Response('ok')
  },
})
let server: RunningServer

beforeAll(async () => {
  const h = await getHarness()
  const config = loadConfig({ ...process.env, DATA_DIR: h.dataDir, PORT: '0', HOST: '127.0.0.1', WEBHOOK_ALLOW_PRIVATE_NETWORKS: '127.0.0.0/8', WEBHOOK_WORKERS: '1', CALL_COUNT_FLUSH_MS: '100' })
  server = await startServer(config, { db: h.db, log: { info() {}, warn() {}, error() {} } })
}, 90_000)
afterAll(async () => {
  await server?.stop()
  rx.stop(true)
})

const ask = (credential: string, usd: number) =>
  fetch(`${server.url}/api/v1/agent/authorize`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${credential}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ tool: 'ads', action: 'adjust_budget', resource: 'cmp_spring', summary: `Raise the spring budget by ${usd} USD`, facts: { amountMinor: usd * 100, currency: 'USD', amountPercent: 10, increase: true } }),
  }).then(async (r) => (await r.json()) as { data: { id: string; decision: string; approvalId?: string } })

describe('an owner runs a new workspace from the console', () => {
  test.skipIf(!hasChromium)('token and curl, the policy planned and applied, a webhook, the inbox, the request log; other roles refused on the server', async () => {
    const { sql } = await getHarness()
    const ws = await createWorkspace(sql, { name: 'Harbor Tea Co.' })
    const pacer = await createAgent(sql, { workspaceId: ws.id, name: 'Budget Pacer', allow: 'ads.adjust_budget', ceilings: { amounts: [{ amountMinor: 200_000, currency: 'USD' }], amountPercent: 50 } })
    const earlier = await ask(pacer.credential, 600)
    expect(earlier.data.decision).toBe('allowed')
    const owner = await addPerson(sql, { workspaceId: ws.id, email: `owner-${crypto.randomUUID().slice(0, 8)}@example.com`, name: 'Mara Owner', role: 'owner' })
    const link = await signInLink(sql, { personId: owner.id, consoleUrl: `${server.url}/console` })

    const { context, close } = await launchChromium({ viewport: { width: 1280, height: 900 } })
    try {
      const { page, errors } = await watchedPage(context)
      const settle = async () => {
        expect(await cspViolations(page)).toEqual([])
        expect(await seriousA11yViolations(page)).toEqual([])
      }

      // Signed in from the link: one click.
      await page.goto(link.url, { waitUntil: 'load' })
      await Promise.all([page.waitForURL(`${server.url}/console/`), page.getByRole('button', { name: /sign in/i }).click()])

      // A token, shown once, used by curl.
      await page.getByRole('link', { name: 'Tokens' }).click()
      await page.getByLabel('read:logs').check()
      await page.getByRole('button', { name: 'Issue the token' }).click()
      const token = await page.locator('#secret').inputValue()
      expect(token).toMatch(/^svc_(live|test)_/)
      await settle()
      const curl = Bun.spawn(['curl', '-s', '-o', '/dev/null', '-w', '%{http_code}', '--max-time', '30', '-H', `Authorization: Bearer ${token}`, `${server.url}/api/v1/logs?limit=1`], { stdout: 'pipe' })
      expect(await new Response(curl.stdout).text()).toBe('200')

      // The policy: approval above 500 USD, planned (the earlier 600 USD request would now wait), applied.
      await page.getByRole('link', { name: 'Policy' }).click()
      await page.getByLabel('For the tool action').selectOption('ads.adjust_budget')
      await page.getByLabel('When').selectOption('amount')
      await page.getByLabel('Value').fill('500')
      await page.getByLabel('Currency (for an amount)').fill('USD')
      await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Plan this rule' }).click()])
      const plan = await page.locator('#plan').innerText()
      expect(plan).toContain(earlier.data.id)
      expect(plan).toMatch(/Budget Pacer.*would need a person instead of being allowed/)
      await settle()
      await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Apply 1 change' }).click()])
      expect(await page.locator('main').innerText()).toContain('Applied 1 change')

      // A webhook endpoint for decisions, its secret shown once.
      await page.getByRole('link', { name: 'Webhooks' }).click()
      await page.getByLabel('Its URL').fill(`http://127.0.0.1:${rx.port}/hooks`)
      await page.getByLabel('approval.approved').check()
      await page.getByRole('button', { name: 'Add the endpoint' }).click()
      const secret = await page.locator('#secret').inputValue()
      expect(secret).toMatch(/^whsec_/)
      await settle()

      // The agent asks again: it waits; the owner approves it in the inbox.
      const waiting = await ask(pacer.credential, 600)
      expect(waiting.data.decision).toBe('requires_approval')
      await page.getByRole('link', { name: 'Inbox' }).click()
      await page.locator(`a[href="/console/approvals/${waiting.data.approvalId}"]`).click()
      await page.getByLabel('Note (optional)').fill('Spring demand is up; go ahead.')
      await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Approve' }).click()])
      expect(await page.locator('main').innerText()).toMatch(/Decided by Mara Owner/i)
      await settle()

      // The receiver gets approval.approved, signed with the secret the page showed once.
      await until('approval.approved at the receiver', () => got.some((g) => JSON.parse(g.body).event === 'approval.approved'), 20_000)
      const delivery = got.find((g) => JSON.parse(g.body).event === 'approval.approved')!
      const event = Webhooks.verify(delivery.body, delivery.headers, secret)
      expect(event.event).toBe('approval.approved')
      expect(JSON.stringify(event.data)).toContain(waiting.data.approvalId!)
      expect((await ask(pacer.credential, 600)).data.decision).toBe('allowed')

      // The request log shows the agent's calls.
      await until('the agent\'s calls in the request log', async () => {
        await page.goto(`${server.url}/console/logs?operation=authorizeAgentAction`, { waitUntil: 'load' })
        return (await page.locator('ol.calls li').count()) >= 3
      }, 15_000)
      await settle()
      for (const shown of [token, secret, pacer.credential]) expect(await page.content()).not.toContain(shown)
      expect(errors).toEqual([])
    } finally {
      await close()
    }

    // An approver and a viewer posting the owner's forms by hand: refused on the server.
    for (const role of ['approver', 'viewer'] as const) {
      const p = await signInAs(ws.id, role, `The ${role}`)
      const forms: [string, Record<string, string>][] = [
        ['/console/tokens', { mode: 'live', scope: 'read:logs' }],
        ['/console/webhooks', { url: `http://127.0.0.1:${rx.port}/other`, events: 'contact.created' }],
        ['/console/policy/apply', { document: 'tools: []', plan: 'plan_forged' }],
      ]
      for (const [path, fields] of forms) {
        const res = await fetch(`${server.url}${path}`, {
          method: 'POST',
          redirect: 'manual',
          headers: { Cookie: p.cookie, 'Content-Type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ csrf: p.csrf, ...fields }).toString(),
        })
        expect({ role, path, status: res.status }).toEqual({ role, path, status: 403 })
      }
    }
  }, 240_000)
})
