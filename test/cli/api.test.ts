import { beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { OPERATIONS } from '../../sdk/src/generated/operations.ts'
import { buildProgram } from '../../cli/src/index.ts'
import { createDemoWorkspace, type DemoWorkspace } from '../../server/src/demo/index.ts'
import { call, getHarness, makeWorkspace, type Workspace } from '../harness.ts'
import { startFaultProxy } from '../sdk/support/fault-proxy.ts'
import { insertContacts } from '../write-fixtures.ts'
import { CLI_TIMEOUT, growthIn, type Run } from './run.ts'

/**
 * The CLI's API commands, black-box: `growth <resource> <verb>` run as a process against the test
 * server, through the SDK, with credentials from flags, the environment or a saved profile.
 */
const T = CLI_TIMEOUT
let demo: DemoWorkspace
let narrow: Workspace
let env: Record<string, string>
let configDir: string
let run: (args: string[], extra?: Record<string, string>) => Promise<Run>

beforeAll(async () => {
  const h = await getHarness()
  demo = await createDemoWorkspace(h.sql, { name: 'CLI API commands' })
  narrow = await makeWorkspace({ scoped: 'read:analytics' })
  configDir = mkdtempSync(join(tmpdir(), 'growth-cli-config-'))
  env = { GROWTH_BASE_URL: `${h.url}/api/v1`, GROWTH_TOKEN: demo.tokens.live, GROWTH_CONFIG_DIR: configDir, NO_COLOR: '' }
  const growth = growthIn(h.dataDir)
  run = (args, extra = {}) => growth(args, { ...env, ...extra })
}, T)

/** A --json run that succeeded: its stdout parsed, stderr empty. */
function jsonOf(r: Run, what: string): any {
  if (r.code !== 0) throw new Error(`growth ${what} exited ${r.code}: ${r.stderr}`)
  expect(r.stderr).toBe('')
  return JSON.parse(r.stdout)
}

const apiData = async (path: string, token = demo.tokens.live) => {
  const a = await call('GET', `/api/v1${path}`, { token })
  expect(a.status).toBe(200)
  return a.body.data
}

test('every operation the SDK has a method for is a command named as that method', async () => {
  const program = await buildProgram()
  for (const [operationId, op] of Object.entries(OPERATIONS)) {
    let cmd = program
    for (const word of op.sdk) cmd = cmd.commands.find((c) => c.name() === word)!
    expect(`${operationId}: ${cmd ? 'growth ' + op.sdk.join(' ') : 'no command'}`).toBe(`${operationId}: growth ${op.sdk.join(' ')}`)
  }
})

describe('reads: --json prints exactly the data the API answers', () => {
  const reads: [string[], string][] = [
    [['missions', 'list'], '/missions'],
    [['decisions', 'list', '--limit', '3'], '/decisions?limit=3'],
    [['signals', 'list', '--status', 'resolved'], '/signals?status=resolved'],
    [['opportunities', 'list', '--status', 'actioned'], '/opportunities?status=actioned'],
    [['experiments', 'list'], '/experiments'],
    [['approvals', 'list', '--status', 'pending', '--limit', '5'], '/approvals?status=pending&limit=5'],
    [['actions', 'list', '--limit', '4'], '/actions?limit=4'],
    [['customers', 'list', '--stage', 'repeat', '--limit', '10'], '/customers?stage=repeat&limit=10'],
    [['revenue', 'get'], '/revenue'],
    [['usage', 'get'], '/usage'],
    [['connections', 'list'], '/connections'],
    [['events', 'list', '--type', 'action.applied', '--limit', '5'], '/events?type=action.applied&limit=5'],
    [['agents', 'list'], '/agents'],
    [['agents', 'tools'], '/agents/tools'],
    [['agents', 'rules'], '/agents/rules'],
    [['agents', 'requests', '--limit', '3'], '/agents/requests?limit=3'],
    [['outcomes', 'get'], '/outcomes'],
  ]
  for (const [args, path] of reads) {
    test(
      `growth ${args.join(' ')}`,
      async () => {
        const printed = jsonOf(await run([...args, '--json']), args.join(' '))
        const data = await apiData(path)
        // Revenue's default window ends now: compare what does not move with the clock.
        if (path === '/revenue') expect(printed.currencies).toEqual(data.currencies)
        // Usage counts API calls, this test's own among them: compare the allowances.
        else if (path === '/usage') expect(printed.allowances).toEqual(data.allowances)
        else expect(printed).toEqual(data)
      },
      T,
    )
  }

  test(
    'a list without --json is a table for people: a header, one row per item, times in the terminal time zone, money in its currency',
    async () => {
      const r = await run(['decisions', 'list', '--limit', '3'], { TZ: 'Asia/Tokyo' })
      expect(r.code).toBe(0)
      const lines = r.stdout.trimEnd().split('\n')
      expect(lines[0]).toMatch(/^id\s+mission id\s+title/)
      expect(lines).toHaveLength(4)
      // The state and the time stay in view however far down the API lists them; a member that only
      // repeats another (an agent request's authorizationId is its id) takes no column.
      const requests = (await run(['agents', 'requests', '--limit', '3'])).stdout.split('\n')[0]!.trim().split(/\s{2,}/)
      expect(requests).toEqual(['id', 'agent id', 'agent name', 'tool', 'action', 'decision', 'created at'])
      const data = await apiData('/decisions?limit=3')
      const tokyo = new Date(new Date(data[0].createdAt).getTime() + 9 * 3_600_000).toISOString().slice(0, 16).replace('T', ' ')
      expect(lines[1]).toContain(data[0].id)
      expect(lines[1]).toContain(tokyo)
      expect(r.stdout).not.toContain('\u001b[')
      // More pages: said on stderr, with the flag that gets the next one.
      expect(r.stderr).toMatch(/^More: add --cursor \S+, or --all for every page\.\n$/)

      const revenue = await run(['revenue', 'get'], { LANG: 'en_US.UTF-8' })
      const usd = (await apiData('/revenue')).currencies.find((c: any) => c.currency === 'USD').total.amountMinor
      expect(revenue.stdout).toContain(new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' }).format(usd / 100))
    },
    T,
  )

  test(
    'growth revenue get for people: lines a person reads, money in each currency, no JSON among them',
    async () => {
      const r = await run(['revenue', 'get'], { LANG: 'en_US.UTF-8', TZ: 'UTC' })
      expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' })
      expect(r.stdout).not.toMatch(/[{}"]/)
      const data = await apiData('/revenue')
      const usd = data.currencies.find((c: any) => c.currency === 'USD')
      const money = (m: { amountMinor: number; currency: string }) => new Intl.NumberFormat('en-US', { style: 'currency', currency: m.currency }).format(m.amountMinor / 100)
      const lines = r.stdout.split('\n')
      // Each currency a block of its own; its marketing part a block inside it, a line per channel.
      expect(lines).toContain('currencies:')
      expect(lines).toContain('  - currency: USD')
      expect(lines).toContain(`    total: ${money(usd.total)}`)
      expect(lines).toContain('    marketing:')
      expect(lines).toContain(`      amount: ${money(usd.marketing.amount)}`)
      const channel = usd.marketing.byChannel[0]
      expect(lines.some((l) => l.startsWith(`        - channel=${channel.channel}  amount=${money(channel.amount)}`))).toBe(true)
    },
    T,
  )

  test(
    '--all walks every page; with --json one line per item, the same items as the API in the same order',
    async () => {
      const r = await run(['decisions', 'list', '--limit', '40', '--all', '--json'])
      expect(r.code).toBe(0)
      const ids = r.stdout.trimEnd().split('\n').map((l) => JSON.parse(l).id)
      const all: string[] = []
      let cursor: string | undefined
      do {
        const a = await call('GET', `/api/v1/decisions?limit=100${cursor ? `&cursor=${cursor}` : ''}`, { token: demo.tokens.live })
        all.push(...a.body.data.map((d: any) => d.id))
        cursor = a.body.meta?.nextCursor
      } while (cursor)
      expect(all.length).toBeGreaterThan(40)
      expect(ids).toEqual(all)
    },
    T,
  )
})

describe('writes', () => {
  test(
    'with a test token every write is simulated, its body built from the flags (nested args, typed facts and properties)',
    async () => {
      const t = { GROWTH_TOKEN: demo.tokens.test }
      const contactsFile = join(configDir, 'new-person.csv')
      writeFileSync(contactsFile, 'email,name\nnew.person@example.com,New Person\n')
      const f = demo.fixtures
      const writes = [
        ['experiments', 'create', '--kind', 'email_ab_test', '--subject-id', f.openAbTestId, '--hypothesis', 'The shorter subject line gets more opens.', '--expectation', 'b_better'],
        ['actions', 'create', '--kind', 'pause_campaign', '--campaign-id', f.campaignId],
        ['contacts', 'import', contactsFile],
        ['track', '--event', 'signup.completed', '--email', f.contactEmail, '--property', 'plan=pro', '--property', 'seats:=3'],
      ]
      for (const args of writes.filter((w) => w[1] !== 'import')) expect(jsonOf(await run([...args, '--json'], t), args.join(' '))).toEqual({ simulated: true })
      // An import's summary counts what the API answered: a test token's simulated batch creates nothing.
      expect(jsonOf(await run(['contacts', 'import', contactsFile, '--json'], t), 'contacts import')).toMatchObject({ rows: 1, batches: 1, simulated: 1, created: 0, updated: 0, refused: [] })
      const human = await run(writes[1]!, t)
      expect(human.stdout).toBe('Simulated with a test token: every check passed, and nothing was recorded.\n')
    },
    T,
  )

  test(
    'a live write is done once: the same --idempotency-key twice gives the same record',
    async () => {
      const key = `cli-${crypto.randomUUID()}`
      const args = ['track', '--event', 'cli.checked', '--email', demo.fixtures.contactEmail, '--property', 'source=cli', '--property', 'count:=2', '--idempotency-key', key, '--json']
      const first = jsonOf(await run(args), 'track')
      const second = jsonOf(await run(args), 'track')
      expect(second).toEqual(first)
      expect(first.event).toBe('cli.checked')
    },
    T,
  )

  test(
    'an agent authorizes with typed facts, reports its result, and reads itself',
    async () => {
      const a = { GROWTH_TOKEN: demo.agents[0]!.credential }
      const auth = jsonOf(
        await run(['agent', 'authorize', '--tool', 'ads', '--action', 'adjust_budget', '--resource', demo.fixtures.campaignId, '--fact', 'amountPercent=12', '--fact', 'increase=true', '--json'], a),
        'agent authorize',
      )
      expect(auth).toMatchObject({ decision: 'allowed', mayProceed: true })
      expect(auth.checks.find((c: any) => c.name === 'limits').detail).toContain('12%')
      const result = jsonOf(await run(['agent', 'result', '--authorization-id', auth.authorizationId, '--status', 'completed', '--summary', 'Raised by 12%.', '--json'], a), 'agent result')
      expect(result).toMatchObject({ authorizationId: auth.authorizationId, status: 'completed' })
      const me = jsonOf(await run(['agent', 'me', '--json'], a), 'agent me')
      expect(me.agent.id).toBe(demo.agents[0]!.id)
      const bad = await run(['agent', 'authorize', '--tool', 'ads', '--action', 'adjust_budget', '--fact', 'amountPercent=twelve'], a)
      expect(bad).toMatchObject({ code: 1, stdout: '' })
      expect(bad.stderr).toBe('error: --fact amountPercent must be a number, got "twelve"\n')
      const unknown = await run(['agent', 'authorize', '--tool', 'ads', '--action', 'adjust_budget', '--fact', 'colour=red'], a)
      expect(unknown.stderr).toMatch(/^error: --fact colour: no such name; the names are amountMinor, currency, /)
    },
    T,
  )
})

describe('refusals and failures', () => {
  test(
    'the API refuses: exit 1, its message, status, code and request id on stderr, nothing on stdout; with --json the envelope on stderr',
    async () => {
      const args = ['experiments', 'create', '--kind', 'email_ab_test', '--subject-id', 'abt_00000000000000000000000000', '--hypothesis', 'The shorter subject line gets more opens.', '--expectation', 'b_better']
      const r = await run(args)
      expect(r).toMatchObject({ code: 1, stdout: '' })
      expect(r.stderr).toMatch(/^error: No A\/B test abt_0+ in this workspace\. \(404 not_found, request req_\w+\)\n$/)
      const j = await run([...args, '--json'])
      expect(j).toMatchObject({ code: 1, stdout: '' })
      const envelope = JSON.parse(j.stderr)
      expect(Object.keys(envelope)).toEqual(['error'])
      expect(envelope.error).toMatchObject({ code: 'not_found', message: 'No A/B test abt_00000000000000000000000000 in this workspace.' })
      expect(envelope.error.requestId).toMatch(/^req_/)
    },
    T,
  )

  test(
    'every command, given a token the API does not know, is refused with exit 1 and the 401',
    async () => {
      writeFileSync(join(configDir, 'one.csv'), 'email\nsomeone@example.com\n')
      for (const op of Object.values(OPERATIONS)) {
        const required: Record<string, string[]> = {
          'experiments create': ['--kind', 'email_ab_test', '--subject-id', 'abt_x', '--hypothesis', 'Something to check here.', '--expectation', 'b_better'],
          'actions create': ['--kind', 'pause_campaign'],
          'contacts import': [join(configDir, 'one.csv')],
          track: ['--event', 'x', '--email', 'a@example.com'],
          'agent authorize': ['--tool', 'ads', '--action', 'pause_campaign'],
          'agent result': ['--authorization-id', 'auth_x', '--status', 'completed'],
        }
        const words = op.sdk.join(' ')
        const r = await run([...op.sdk, ...(required[words] ?? []), '--token', 'svc_live_notatoken'])
        expect(`${words}: ${r.code} ${r.stdout}${r.stderr.replace(/request req_\w+/, 'request …')}`).toBe(
          `${words}: 1 error: the token from --token (svc_live_…oken) was refused by the API at ${env.GROWTH_BASE_URL}: Missing or invalid credential. Send Authorization: Bearer <token> with a valid, unrevoked, unexpired token (401 unauthorized, request …)\n`,
        )
      }
    },
    60_000,
  )

  test(
    'a scope the token lacks is 403; a flag of the wrong type or value is named before anything is sent',
    async () => {
      const r = await run(['missions', 'list'], { GROWTH_TOKEN: narrow.scoped })
      expect(r.code).toBe(1)
      expect(r.stderr).toMatch(/\(403 forbidden, request req_\w+\)\n$/)
      const limit = await run(['decisions', 'list', '--limit', 'ten'])
      expect(limit).toMatchObject({ code: 1, stdout: '', stderr: 'error: --limit must be a whole number, got "ten"\n' })
      const status = await run(['signals', 'list', '--status', 'closed'])
      expect(status.stderr).toBe('error: --status must be one of open, resolved, dismissed; got "closed"\n')
      const json = await run(['decisions', 'list', '--limit', 'ten', '--json'])
      expect(JSON.parse(json.stderr)).toEqual({ error: { code: 'invalid_request', message: '--limit must be a whole number, got "ten"', requestId: null } })
      // Out of the schema's range: refused before any request (no server answers at this base URL).
      const nowhere = { GROWTH_BASE_URL: 'http://127.0.0.1:9/api/v1' }
      const over = await run(['decisions', 'list', '--limit', '500'], nowhere)
      expect(over).toMatchObject({ code: 1, stdout: '', stderr: 'error: --limit must be from 1 to 100, got "500"\n' })
      const under = await run(['signals', 'list', '--limit', '0', '--json'], nowhere)
      expect(under.code).toBe(1)
      expect(JSON.parse(under.stderr)).toEqual({ error: { code: 'invalid_request', message: '--limit must be from 1 to 500, got "0"', requestId: null } })
      const fact = await run(['agent', 'authorize', '--tool', 'ads', '--action', 'pause', '--fact', 'amountMinor=-5', '--fact', 'currency=USD'], nowhere)
      expect(fact).toMatchObject({ code: 1, stderr: 'error: --fact amountMinor must be at least 0, got "-5"\n' })
      const currency = await run(['agent', 'authorize', '--tool', 'ads', '--action', 'pause', '--fact', 'currency=usd'], nowhere)
      expect(currency.stderr).toMatch(/^error: --fact currency must be one of the \d+ codes the API lists \(EUR, JPY, USD, \.\.\.\); got "usd"\n$/)
      const missing = await run(['agent', 'result', '--status', 'completed'], { GROWTH_TOKEN: demo.agents[0]!.credential })
      expect(missing.code).toBe(1)
      expect(missing.stderr).toContain("required option '--authorization-id <string>' not specified")
    },
    T,
  )

  test(
    "with --json a usage error (a missing, unknown or invalid option, an unknown command) is the error envelope on one stderr line, as the CLI's other refusals are",
    async () => {
      const nowhere = { GROWTH_BASE_URL: 'http://127.0.0.1:9/api/v1' }
      const cases: [string[], string][] = [
        [['agent', 'result', '--status', 'completed', '--json'], "required option '--authorization-id <string>' not specified"],
        [['decisions', 'list', '--bogus', '--json'], "unknown option '--bogus'"],
        [['--json', 'decisons', 'list'], "unknown command 'decisons' (Did you mean decisions?)"],
        [['admin', 'workspace', 'create', '--name', 'X', '--plan', 'gold', '--json'], "option '--plan <plan>' argument 'gold' is invalid. Allowed choices are starter, growth, scale."],
      ]
      for (const [args, message] of cases) {
        const r = await run(args, nowhere)
        expect({ args, code: r.code, stdout: r.stdout, lines: r.stderr.trimEnd().split('\n').length }).toEqual({ args, code: 1, stdout: '', lines: 1 })
        expect(JSON.parse(r.stderr)).toEqual({ error: { code: 'invalid_request', message, requestId: null } })
      }
      // Without --json, commander's own line and the hint, as before.
      const plain = await run(['decisions', 'list', '--bogus'], nowhere)
      expect(plain).toMatchObject({ code: 1, stdout: '', stderr: "error: unknown option '--bogus'\n(add --help for usage)\n" })
    },
    T,
  )

  test(
    'an API that answers 500 or more after the retries is unexpected, not a refusal: exit 2, with its message, status and request id',
    async () => {
      // A real HTTP server answering as a failing API does: the envelope, 500, every time.
      let asked = 0
      const failing = Bun.serve({
        port: 0,
        hostname: '127.0.0.1',
        fetch: () => {
          asked++
          return Response.json({ error: { code: 'internal_error', message: 'Something went wrong on our side.', requestId: 'req_0123456789abcdefghijklmnop' } }, { status: 500 })
        },
      })
      try {
        const base = { GROWTH_BASE_URL: `http://127.0.0.1:${failing.port}/api/v1` }
        const r = await run(['missions', 'list'], base)
        expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 2, stdout: '' })
        expect(r.stderr).toBe('error: Something went wrong on our side. (500 internal_error, request req_0123456789abcdefghijklmnop)\n')
        // The SDK asked again before giving up.
        expect(asked).toBeGreaterThan(1)
        const json = await run(['missions', 'list', '--json'], base)
        expect(json.code).toBe(2)
        expect(JSON.parse(json.stderr)).toEqual({ error: { code: 'internal_error', message: 'Something went wrong on our side.', requestId: 'req_0123456789abcdefghijklmnop' } })
        // A write answered 500 may have been done: its key, to send it again with.
        const write = await run(['track', '--event', 'signup.completed', '--email', 'noor@example.com', '--idempotency-key', 'signup-noor-1'], base)
        expect({ code: write.code, stdout: write.stdout }).toEqual({ code: 2, stdout: '' })
        expect(write.stderr).toBe(
          'error: Something went wrong on our side. (500 internal_error, request req_0123456789abcdefghijklmnop)\n' +
            'It may have been done: run the same command with --idempotency-key signup-noor-1 within 24 hours to get its answer if it was, or to do it once if it was not.\n',
        )
        const writeJson = await run(['track', '--event', 'signup.completed', '--email', 'noor@example.com', '--idempotency-key', 'signup-noor-1', '--json'], base)
        expect(JSON.parse(writeJson.stderr)).toEqual({ error: { code: 'internal_error', message: 'Something went wrong on our side.', requestId: 'req_0123456789abcdefghijklmnop', idempotencyKey: 'signup-noor-1' } })
      } finally {
        failing.stop(true)
      }
    },
    T,
  )

  test(
    'a write that may have been done (its answer cut off, after the retries) says its key; run again with --idempotency-key, it is answered from the first and done once; a refused connection says nothing of the kind',
    async () => {
      const ws = await makeWorkspace()
      await insertContacts(ws.id, [{ email: 'noor@example.com' }])
      const { url, sql } = await getHarness()
      const proxy = await startFaultProxy(url)
      try {
        // Every attempt (the first and the SDK's two retries) reaches the server; each answer is cut off halfway.
        proxy.script([{ kind: 'drop', midAnswer: true }, { kind: 'drop', midAnswer: true }, { kind: 'drop', midAnswer: true }])
        const args = ['track', '--event', 'signup.completed', '--email', 'noor@example.com']
        const through = { GROWTH_BASE_URL: `${proxy.url}/api/v1`, GROWTH_TOKEN: ws.live }
        const lost = await run(args, through)
        const keys = [...new Set(proxy.seen.map((r) => r.idempotencyKey))]
        expect(proxy.seen.map((r) => r.upstream?.status)).toEqual([201, 201, 201])
        expect(keys).toHaveLength(1)
        const key = keys[0]!
        expect({ code: lost.code, stdout: lost.stdout }).toEqual({ code: 2, stdout: '' })
        expect(lost.stderr).toBe(
          `error: no answer from the API at ${proxy.url}/api/v1 (from GROWTH_BASE_URL): the connection was closed before an answer; is the server running, and is that its address?\n` +
            `It may have been done: run the same command with --idempotency-key ${key} within 24 hours to get its answer if it was, or to do it once if it was not.\n`,
        )
        const again = await run([...args, '--idempotency-key', key, '--json'], through)
        expect(again.code, again.stderr).toBe(0)
        expect(JSON.parse(again.stdout)).toMatchObject({ event: 'signup.completed' })
        expect(proxy.seen.at(-1)!.idempotencyKey).toBe(key)
        const [usage] = await sql<{ used: number }[]>`SELECT COALESCE(sum(used), 0)::int AS used FROM usage_counters WHERE workspace_id = ${ws.id} AND name = 'trackedEvents'`
        expect(usage!.used).toBe(1)

        // With --json, the key is a field of the envelope.
        proxy.script([{ kind: 'drop', midAnswer: true }, { kind: 'drop', midAnswer: true }, { kind: 'drop', midAnswer: true }])
        const json = await run(['track', '--event', 'signup.completed', '--email', 'noor@example.com', '--json'], through)
        expect(json.code).toBe(2)
        const envelope = JSON.parse(json.stderr).error
        expect(envelope).toMatchObject({ code: 'no_answer', requestId: null, idempotencyKey: proxy.seen.at(-1)!.idempotencyKey })
        expect(envelope.message).not.toContain('It may have been done')
      } finally {
        await proxy.stop()
      }
      // Nothing was sent: no key to reuse, nothing said of one.
      const refused = await run(['track', '--event', 'signup.completed', '--email', 'noor@example.com'], { GROWTH_BASE_URL: 'http://127.0.0.1:9/api/v1', GROWTH_TOKEN: ws.live })
      expect(refused).toMatchObject({ code: 2, stdout: '' })
      expect(refused.stderr).toBe('error: no answer from the API at http://127.0.0.1:9/api/v1 (from GROWTH_BASE_URL): the connection was refused; is the server running, and is that its address?\n')
    },
    T,
  )

  test(
    'no server at the base URL: exit 2, saying where it looked',
    async () => {
      const r = await run(['missions', 'list'], { GROWTH_BASE_URL: 'http://127.0.0.1:9/api/v1' })
      expect(r.code).toBe(2)
      expect(r.stdout).toBe('')
      // One sentence: the base URL and where it came from, why no answer came; no doubled punctuation.
      expect(r.stderr).toBe('error: no answer from the API at http://127.0.0.1:9/api/v1 (from GROWTH_BASE_URL): the connection was refused; is the server running, and is that its address?\n')
    },
    T,
  )
})

describe('credentials: flags, then the environment, then a profile saved by growth login', () => {
  test(
    'growth login checks the token, saves it in a file only its owner can read, and never prints it whole',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'growth-login-'))
      const noEnv = { GROWTH_TOKEN: '', GROWTH_BASE_URL: '', GROWTH_CONFIG_DIR: dir }
      const login = await run(['login', '--token', demo.tokens.live, '--base-url', env.GROWTH_BASE_URL!, '--profile', 'northwind'], noEnv)
      expect(login.code).toBe(0)
      expect(login.stdout).not.toContain(demo.tokens.live)
      expect(login.stdout).toContain(`svc_live_…${demo.tokens.live.slice(-4)}`)
      const file = join(dir, 'profiles.json')
      expect(statSync(file).mode & 0o777).toBe(0o600)
      expect(statSync(dir).mode & 0o777).toBe(0o700)
      expect(JSON.parse(readFileSync(file, 'utf8')).profiles.northwind).toEqual({ baseUrl: env.GROWTH_BASE_URL, token: demo.tokens.live })

      // The profile serves when nothing else names a token; --token comes first. A profile named by
      // --profile is a flag too: it wins over GROWTH_TOKEN, which wins over one named by GROWTH_PROFILE.
      const viaProfile = jsonOf(await run(['agents', 'list', '--profile', 'northwind', '--json'], noEnv), 'agents list --profile')
      expect(viaProfile.map((a: any) => a.id).sort()).toEqual(demo.agents.map((a) => a.id).sort())
      const other = await makeWorkspace()
      const profileFirst = jsonOf(await run(['agents', 'list', '--profile', 'northwind', '--json'], { ...noEnv, GROWTH_TOKEN: other.live, GROWTH_BASE_URL: 'http://127.0.0.1:9/api/v1' }), 'agents list')
      expect(profileFirst.map((a: any) => a.id).sort()).toEqual(demo.agents.map((a) => a.id).sort())
      const envFirst = jsonOf(await run(['agents', 'list', '--json'], { ...noEnv, GROWTH_TOKEN: other.live, GROWTH_PROFILE: 'northwind' }), 'agents list')
      expect(envFirst.map((a: any) => a.id)).toEqual([other.agent.id])
      const flagFirst = jsonOf(await run(['agents', 'list', '--profile', 'northwind', '--token', other.live, '--json'], noEnv), 'agents list')
      expect(flagFirst.map((a: any) => a.id)).toEqual([other.agent.id])

      const unknown = await run(['agents', 'list', '--profile', 'nowhere'], noEnv)
      expect(unknown.code).toBe(1)
      expect(unknown.stderr).toContain("no profile 'nowhere'")
      expect(unknown.stderr).toContain('there are: northwind')
      const refused = await run(['login', '--token', 'svc_live_notatoken', '--base-url', env.GROWTH_BASE_URL!], noEnv)
      expect(refused.code).toBe(1)
      expect(refused.stderr).toContain(`the token from --token (svc_live_…oken) was refused by the API at ${env.GROWTH_BASE_URL}`)
      expect(refused.stderr).not.toContain('svc_live_notatoken')
      const none = await run(['missions', 'list'], { ...noEnv, GROWTH_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'growth-empty-')) })
      expect(none.code).toBe(1)
      expect(none.stderr).toMatch(/^error: no token: --token was not given, GROWTH_TOKEN is not set, and there is no profile 'default' in \S+profiles\.json\. Pass --token, set GROWTH_TOKEN, or save a profile with growth login/)
    },
    T,
  )
})

const script = Bun.which('script')
test.skipIf(!script)(
  'colour only on a terminal, and never with NO_COLOR',
  async () => {
    const h = await getHarness()
    const inTerminal = async (extra: Record<string, string>) => {
      const proc = Bun.spawn([script!, '-qec', `${process.execPath} cli/bin/growth.ts missions list`, '/dev/null'], {
        cwd: join(import.meta.dir, '..', '..'),
        env: { ...process.env, GROWTH_BASE_URL: `${h.url}/api/v1`, GROWTH_TOKEN: demo.tokens.live, ...extra },
        stdout: 'pipe',
        stderr: 'pipe',
        stdin: 'ignore',
      })
      const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited])
      expect(code).toBe(0)
      return out
    }
    const coloured = await inTerminal({ NO_COLOR: '' })
    expect(coloured).toContain('\u001b[1mid')
    const plain = await inTerminal({ NO_COLOR: '1' })
    expect(plain).toContain('id')
    expect(plain).not.toContain('\u001b[')
    // Not a terminal: no colour either (every other test here reads a pipe).
    const piped = await run(['missions', 'list'])
    expect(piped.stdout).not.toContain('\u001b[')
  },
  T,
)

test(
  "--help shows each flag's type, allowed values and an example, from the OpenAPI document",
  async () => {
    // commander wraps help to the terminal's width: compare with whitespace collapsed
    const help = async (args: string[]) => {
      const r = await run(args)
      expect(r.code).toBe(0)
      return r.stdout.replace(/\s+/g, ' ')
    }
    const signals = await help(['signals', 'list', '--help'])
    expect(signals).toMatch(/--status <value> .*\(one of open, resolved, dismissed\) e\.g\. --status resolved/)
    expect(signals).toMatch(/--limit <integer> .*\(integer 1\.\.500\)/)
    const authorize = await help(['agent', 'authorize', '--help'])
    expect(authorize).toMatch(/--tool <string> .*required/)
    expect(authorize).toMatch(/--fact <name=value> .*name=value, repeatable.*e\.g\. --fact amountMinor=/)
    const action = await help(['actions', 'create', '--help'])
    expect(action).toMatch(/--kind <value> .*one of pause_campaign, resume_campaign, adjust_budget/)
    // A member that means something else in each shape says so, kind by kind (not the first kind's words for all).
    expect(action).toContain('--kind <value> pause_campaign: Pause an active campaign; resume_campaign: Resume a paused campaign; adjust_budget:')
    const experiment = await help(['experiments', 'create', '--help'])
    expect(experiment).toContain('--expectation <value> email_ab_test: a_better, b_better or no_difference; email_holdout or sms_holdout: send_adds or no_difference (one of a_better, b_better, no_difference, send_adds; required)')
    expect(action).toMatch(/--campaign-id <string> .*\(in args\)/)
    expect(action).toContain('POST /api/v1/actions (createAction)')
  },
  T,
)
