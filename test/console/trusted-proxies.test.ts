import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { loadConfig } from '../../server/src/config.ts'
import { createLogger } from '../../server/src/core/log.ts'
import { listAudit } from '../../server/src/domain/audit.ts'
import { addPerson } from '../../server/src/domain/people.ts'
import { signInLink } from '../../server/src/domain/sign-in.ts'
import { SIGN_IN_LIMITS } from '../../server/src/domain/sign-in-limits.ts'
import { MemoryLimiter } from '../../server/src/http/rate-limit.ts'
import { type RunningServer, startServer } from '../../server/src/server.ts'
import { getHarness, makeWorkspace } from '../harness.ts'
import { MINUTE_MS, withinOneWindow } from '../support/clock-window.ts'

/**
 * TRUSTED_PROXIES (docs/operations.md, "Behind a reverse proxy"): a server of this file's own, on the
 * shared database, that trusts this machine as its reverse proxy, beside the harness's server, which
 * trusts none. Every request here comes from 127.0.0.1; X-Forwarded-For says whom the proxy saw.
 */

let server: RunningServer
let base: string

beforeAll(async () => {
  const harness = await getHarness()
  const config = loadConfig({ ...process.env, DATA_DIR: harness.dataDir, HOST: '127.0.0.1', PORT: '0', WEBHOOK_WORKERS: '0', TRUSTED_PROXIES: '127.0.0.1,::1' })
  // Three failed authentications a minute per address: enough to see whose address the API counts.
  server = await startServer(config, { db: harness.db, log: createLogger('silent'), authFailures: new MemoryLimiter(3, 60_000) })
  base = new URL(server.url).origin
})
afterAll(() => server?.stop())

const cookieOf = (res: Response, name: string) => res.headers.getSetCookie().find((c) => c.startsWith(`${name}=`))?.split(';')[0]
const csrfOf = (text: string) => /name="csrf" value="([^"]+)"/.exec(text)![1]!

/** Opens a sign-in link's page and presses its button, as the proxy passes on a client at `forwardedFor`. */
async function signIn(at: string, path: string, forwardedFor: string): Promise<{ page: number; signedIn: number }> {
  const headers = { 'X-Forwarded-For': forwardedFor }
  const page = await fetch(`${at}${path}`, { headers, redirect: 'manual' })
  const text = await page.text()
  if (page.status !== 200) return { page: page.status, signedIn: 0 }
  const posted = await fetch(`${at}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { ...headers, 'Content-Type': 'application/x-www-form-urlencoded', Cookie: cookieOf(page, 'growth_signin')! },
    body: new URLSearchParams({ csrf: csrfOf(text) }).toString(),
  })
  return { page: 200, signedIn: posted.status }
}

const signInAddresses = async (workspaceId: string) =>
  (await listAudit((await getHarness()).sql, workspaceId)).entries.filter((e) => e.action === 'person.signed_in').map((e) => (e.detail as { address?: string }).address)

describe('behind a trusted reverse proxy', () => {
  test('the client is the address the proxy forwarded: its failed links count apart from another client\'s, a good link works from either, and each sign-in is audited with its client', async () => {
    const ws = await makeWorkspace()
    const { sql } = await getHarness()
    const person = await addPerson(sql, { workspaceId: ws.id, email: `${crypto.randomUUID().slice(0, 8)}@example.com`, name: 'Ada Proxy', role: 'viewer' })
    // Failed links are counted an hour of the clock: all of this test's in one hour.
    await withinOneWindow()
    const n = Date.now() % 250
    const guesser = `203.0.113.${n + 1}`
    const colleague = `198.51.100.${n + 1}`
    // One client behind the proxy guesses links until its hour's allowance of failures is used.
    for (let i = 0; i < SIGN_IN_LIMITS.failedRedeemsPerAddress; i++) {
      const guessed = await fetch(`${base}/console/signin/gsl_nothing${i}`, { headers: { 'X-Forwarded-For': guesser } })
      expect(guessed.status).toBe(404)
    }
    // That client's next guess is refused as over the limit; a colleague's is not, and a client's
    // own X-Forwarded-For entry further left is not believed.
    const limited = await fetch(`${base}/console/signin/gsl_nothingmore`, { headers: { 'X-Forwarded-For': guesser } })
    expect(limited.status).toBe(429)
    // The page says the link does not work (a good one would), not to try it again later.
    expect(await limited.text()).toContain('This sign-in link does not work, and too many that did not were opened from this network this hour')
    expect((await fetch(`${base}/console/signin/gsl_nothingmore`, { headers: { 'X-Forwarded-For': `${guesser}, ${colleague}` } })).status).toBe(404)
    // A good link signs its person in from any address, the guesser's too: others' failures never lock a person out.
    const path = new URL((await signInLink(sql, { personId: person.id, consoleUrl: `${base}/console` })).url).pathname
    expect(await signIn(base, path, `${guesser}, ${colleague}`)).toEqual({ page: 200, signedIn: 303 })
    const again = new URL((await signInLink(sql, { personId: person.id, consoleUrl: `${base}/console` })).url).pathname
    expect(await signIn(base, again, guesser)).toEqual({ page: 200, signedIn: 303 })
    expect(await signInAddresses(ws.id)).toEqual([guesser, colleague])
  })

  test('the API counts failed authentications by the forwarded client too: one client throttled, another behind the proxy not', async () => {
    // Failed authentications are counted a minute of the clock: all of this test's in one minute.
    await withinOneWindow(MINUTE_MS, 5_000)
    const n = Date.now() % 250
    const get = (forwardedFor: string) => fetch(`${base}/api/v1/missions`, { headers: { Authorization: 'Bearer svc_live_guess', 'X-Forwarded-For': forwardedFor } })
    for (let i = 0; i < 3; i++) expect((await get(`203.0.113.${n + 1}`)).status).toBe(401)
    const throttled = await get(`203.0.113.${n + 1}`)
    expect(throttled.status).toBe(429)
    expect(((await throttled.json()) as { error: { code: string } }).error.code).toBe('rate_limited')
    expect((await get(`198.51.100.${n + 1}`)).status).toBe(401)
  })

  test('a server that trusts no proxy believes no X-Forwarded-For', async () => {
    const { url, sql } = await getHarness()
    const ws = await makeWorkspace()
    const person = await addPerson(sql, { workspaceId: ws.id, email: `${crypto.randomUUID().slice(0, 8)}@example.com`, name: 'Ben Direct', role: 'viewer' })
    const path = new URL((await signInLink(sql, { personId: person.id, consoleUrl: `${url}/console` })).url).pathname
    expect(await signIn(url, path, '203.0.113.250')).toEqual({ page: 200, signedIn: 303 })
    const [address] = await signInAddresses(ws.id)
    expect(address).not.toBe('203.0.113.250')
    expect(['127.0.0.1', '::1', '::ffff:127.0.0.1']).toContain(address!)
  })
})
