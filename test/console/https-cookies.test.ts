import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { loadConfig } from '../../server/src/config.ts'
import { createLogger } from '../../server/src/core/log.ts'
import { addPerson } from '../../server/src/domain/people.ts'
import { signInLink } from '../../server/src/domain/sign-in.ts'
import { type RunningServer, startServer } from '../../server/src/server.ts'
import { getHarness, makeWorkspace } from '../harness.ts'
import { consoleAt, csrfOf } from '../support/console-session.ts'

/**
 * A console whose public address (CONSOLE_URL) is https, served by this process over plain http,
 * as it is behind a proxy that ends TLS: every cookie it sets is Secure (the sign-in form's, the
 * session's, the shown-once page's, and the ones that end them), so a browser never sends them over
 * plain http; and every answer says Strict-Transport-Security.
 */
let server: RunningServer
let base: string

beforeAll(async () => {
  const harness = await getHarness()
  // The public address names no port of this process's, so any free one does.
  const config = loadConfig({ ...process.env, DATA_DIR: harness.dataDir, HOST: '127.0.0.1', PORT: '0', CONSOLE_URL: 'https://growth.example.com/console', WEBHOOK_WORKERS: '0' })
  server = await startServer(config, { db: harness.db, log: createLogger('silent') })
  base = new URL(server.url).origin
})
afterAll(() => server?.stop())

const cookiesOf = (res: Response) => res.headers.getSetCookie()

describe('the console behind a proxy that ends TLS (CONSOLE_URL https, served over http)', () => {
  test('every cookie it sets is Secure', async () => {
    const { sql } = await getHarness()
    const at = consoleAt(base)
    const ws = await makeWorkspace()
    const person = await addPerson(sql, { workspaceId: ws.id, email: `owner-${crypto.randomUUID().slice(0, 8)}@example.com`, name: 'Maya Chen', role: 'owner' })
    const path = new URL((await signInLink(sql, { personId: person.id, consoleUrl: 'https://growth.example.com/console' })).url).pathname
    const set: string[] = []

    const opened = await at(path)
    set.push(...cookiesOf(opened.res))
    const form = set.find((c) => c.startsWith('growth_signin='))!.split(';')[0]!
    const redeemed = await at(path, { cookie: form, form: { csrf: csrfOf(opened.text)! } })
    expect(redeemed.res.status).toBe(303)
    set.push(...cookiesOf(redeemed.res))
    const cookie = cookiesOf(redeemed.res).find((c) => c.startsWith('growth_session='))!.split(';')[0]!
    const csrf = csrfOf((await at('/console/', { cookie })).text)!

    const made = await at('/console/tokens', { cookie, form: { csrf, mode: 'test' } })
    expect(made.posted?.status).toBe(303)
    set.push(...cookiesOf(made.posted!), ...cookiesOf(made.res))
    const out = await at('/console/signout', { cookie, form: { csrf } })
    expect(out.res.status).toBe(303)
    set.push(...cookiesOf(out.res))

    expect(set.map((c) => c.split('=')[0]).sort()).toEqual(['growth_session', 'growth_session', 'growth_shown', 'growth_shown', 'growth_signin', 'growth_signin'])
    expect(set.filter((c) => !/; Secure(;|$)/.test(c))).toEqual([])
  })

  test('every page, redirect and refusal tells the browser to use https alone (Strict-Transport-Security); a console at an http address says nothing of it', async () => {
    const at = consoleAt(base)
    const answers = [
      (await at('/console/signin')).res,
      (await at('/console/agents')).res,
      (await at('/console/signin/gsl_unknown')).res,
      (await at('/console/no-such-page')).res,
      (await at('/console/signout', { form: { csrf: 'x' } })).res,
    ]
    expect(answers.map((r) => r.status)).toEqual([200, 303, 404, 303, 401])
    for (const r of answers) expect(r.headers.get('strict-transport-security')).toBe('max-age=31536000')
    // The harness's console: CONSOLE_URL unset, served over http.
    const plain = consoleAt(new URL((await getHarness()).url).origin)
    for (const path of ['/console/signin', '/console/agents', '/console/no-such-page']) {
      expect((await plain(path)).res.headers.get('strict-transport-security')).toBeNull()
    }
  })
})
