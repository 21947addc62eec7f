import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { execFileSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { createDemoWorkspace } from '../server/src/demo/index.ts'
import { signatureHeader } from '../server/src/domain/webhook-signature.ts'
import { createEndpoint } from '../server/src/domain/webhooks.ts'
import { growthIn } from './cli/run.ts'
import { call, getHarness, makeWorkspace, type Workspace } from './harness.ts'
import { packedSdk, PACK_TIMEOUT, ROOT } from './sdk/support/pack.ts'
import { attemptsOf, type Rig, rig, settings, until } from './webhooks/support.ts'
import { freePorts } from './support/ports.ts'

/**
 * examples/ cannot rot: each example is copied out of the repository into a project of its own,
 * gets the SDK from the packed tarball (`npm install` of it, offline: the package has no
 * dependencies) and its other packages (express, hono, csv-parse) from the toolkit's own
 * node_modules, as a user's `npm install` would have brought them, and is run as its README says
 * against the live test server. What each one does is checked from outside: what it prints, and
 * what the API (or, for counts of thousands, the database) shows it did.
 */

const EXAMPLES = join(ROOT, 'examples')
const NAMES = ['agent-loop', 'webhook-receivers', 'bulk-import', 'event-poller', 'mcp', 'mcp/guard', 'ai-sdk-agent'] as const
type Name = (typeof NAMES)[number]
const SDK_VERSION = JSON.parse(readFileSync(join(ROOT, 'sdk', 'package.json'), 'utf8')).version as string
const NODE = Bun.which('node') ?? 'node'

const projects = {} as Record<Name, string>
let base = ''

function packageOf(name: Name): { type?: string; private?: boolean; scripts?: Record<string, string>; dependencies?: Record<string, string> } {
  return JSON.parse(readFileSync(join(EXAMPLES, name, 'package.json'), 'utf8'))
}

async function run(cmd: string[], cwd: string, env: Record<string, string> = {}) {
  const proc = Bun.spawn(cmd, { cwd, stdin: 'ignore', stdout: 'pipe', stderr: 'pipe', env: envOf(env) })
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  return { code, stdout, stderr }
}

/** What a user's shell would have: a PATH and a HOME, and what `source .data/demo.env` (or the README) sets. */
function envOf(env: Record<string, string>): Record<string, string> {
  return { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? tmpdir(), NO_COLOR: '1', npm_config_update_notifier: 'false', ...env }
}

/** An example's copy in a new folder, installed from the tarball, with its other packages linked from the toolkit's. */
async function install(name: Name, tarball: string): Promise<string> {
  const dir = join(mkdtempSync(join(tmpdir(), `growth-example-${name.replace(/\//g, '-')}-`)), name)
  process.once('exit', () => rmSync(join(dir, '..'), { recursive: true, force: true }))
  const made = new Set(['node_modules', 'package-lock.json', 'contacts.csv', 'poller-state.json'])
  cpSync(join(EXAMPLES, name), dir, { recursive: true, filter: (src) => !made.has(basename(src)) && !src.endsWith('.tgz') })
  const pkg = packageOf(name)
  const others = Object.keys(pkg.dependencies ?? {}).filter((d) => d !== '@growth-service/sdk')
  // npm would fetch express and the rest from the registry; this machine may have no registry. The
  // SDK comes from the tarball alone, and the rest from the toolkit's node_modules below.
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ ...pkg, dependencies: {} }, null, 2))
  if (pkg.dependencies?.['@growth-service/sdk']) {
    const npm = await run(['npm', 'install', '--offline', '--no-audit', '--no-fund', '--no-package-lock', tarball], dir)
    if (npm.code !== 0) throw new Error(`npm install in ${dir} exited ${npm.code}: ${npm.stderr}`)
  }
  for (const dep of others) {
    mkdirSync(join(dir, 'node_modules', dep, '..'), { recursive: true })
    symlinkSync(join(ROOT, 'node_modules', dep), join(dir, 'node_modules', dep))
  }
  return dir
}

/** The command of one of the example's package.json scripts (`node x.js`, `bun x.js`), run directly so signals reach it. */
function scriptCommand(name: Name, script: string): string[] {
  const line = packageOf(name).scripts?.[script]
  if (!line) throw new Error(`examples/${name}/package.json has no script ${script}`)
  const [runtime, ...args] = line.split(' ')
  if (runtime === 'node') return [NODE, ...args]
  if (runtime === 'bun') return [process.execPath, ...args]
  throw new Error(`examples/${name}: script ${script} runs ${runtime}, which this test does not know`)
}

/** A background process and what it has printed so far. */
type Running = ReturnType<typeof start>

function start(cmd: string[], cwd: string, env: Record<string, string>) {
  const proc = Bun.spawn(cmd, { cwd, stdin: 'ignore', stdout: 'pipe', stderr: 'pipe', env: envOf(env) })
  const stdout = collect(proc.stdout)
  const stderr = collect(proc.stderr)
  const what = cmd.slice(1).join(' ')
  return {
    proc,
    stdout: () => stdout.text,
    stderr: () => stderr.text,
    /** Waits until `probe` gives a value (checked as output arrives), or fails with what the process printed. */
    async waitFor<T>(description: string, probe: () => T | undefined | false | Promise<T | undefined | false>, ms = 30_000): Promise<T> {
      const deadline = Date.now() + ms
      for (;;) {
        const value = await probe()
        if (value !== undefined && value !== false) return value
        if (proc.exitCode !== null) throw new Error(`${what} exited ${proc.exitCode} before ${description}:\n${stdout.text}\n${stderr.text}`)
        if (Date.now() > deadline) throw new Error(`no ${description} from ${what} within ${ms} ms:\n${stdout.text}\n${stderr.text}`)
        await Promise.race([Bun.sleep(100), stdout.next(), stderr.next()])
      }
    },
    /** Stops it and waits for its output to end. */
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      proc.kill(signal)
      const code = await proc.exited
      await Promise.all([stdout.done, stderr.done])
      return code
    },
  }
}

/** Everything a stream has given so far, read in the background; `next()` resolves when more comes. */
function collect(stream: ReadableStream<Uint8Array>) {
  const state = { text: '', wake: () => {}, next: () => new Promise<void>((r) => (state.wake = r)), done: Promise.resolve() }
  const decoder = new TextDecoder()
  const reader = stream.getReader()
  state.done = (async () => {
    for (let r = await reader.read(); !r.done; r = await reader.read()) {
      state.text += decoder.decode(r.value, { stream: true })
      state.wake()
    }
    state.wake()
  })()
  return state
}

const esc = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')


/** n new contacts in a workspace, 100 a request: n contact.created events. */
async function addContacts(ws: Workspace, n: number, prefix: string) {
  for (let i = 0; i < n; i += 100) {
    const contacts = Array.from({ length: Math.min(100, n - i) }, (_, j) => ({ email: `${prefix}.${i + j}@example.com` }))
    const r = await call('POST', '/api/v1/contacts', { token: ws.live, body: { contacts } })
    expect(r.status).toBe(201)
  }
}

/** Every event of a workspace through the API, in the stream's order. */
async function eventsOf(ws: Workspace): Promise<{ id: string; event: string; data: any }[]> {
  const events: { id: string; event: string; data: any }[] = []
  let after = ''
  for (;;) {
    const r = await call('GET', `/api/v1/events?limit=100${after ? `&after=${after}` : ''}`, { token: ws.live })
    expect(r.status).toBe(200)
    events.push(...r.body.data)
    if (r.body.data.length < 100) return events
    after = r.body.meta.nextCursor
  }
}

beforeAll(async () => {
  const [{ tarball }, { url }] = await Promise.all([packedSdk(), getHarness()])
  base = `${url}/api/v1`
  const dirs = await Promise.all(NAMES.map((name) => install(name, tarball)))
  NAMES.forEach((name, i) => (projects[name] = dirs[i]!))
}, PACK_TIMEOUT)

describe('examples/', () => {
  test('each example is a project of its own: ESM, the SDK from the packed tarball, the rest at versions the toolkit has; a README that says how to run it', () => {
    // An example may sit one folder down (mcp/guard): the top-level folders are the examples' first segments.
    const folders = [...new Set(NAMES.map((n) => n.split('/')[0]!))].sort()
    expect(readdirSync(EXAMPLES, { withFileTypes: true }).filter((d) => d.isDirectory() && d.name !== 'node_modules').map((d) => d.name).sort()).toEqual(folders)
    const index = readFileSync(join(EXAMPLES, 'README.md'), 'utf8')
    for (const name of NAMES) {
      const pkg = packageOf(name)
      expect(pkg.type).toBe('module')
      expect(pkg.private).toBe(true)
      // The MCP examples are MCP clients (and a server): the growth CLI serves the API and does the guarding.
      const usesSdk = name !== 'mcp/guard' && name !== 'mcp'
      const up = '../'.repeat(name.split('/').length)
      expect(pkg.dependencies?.['@growth-service/sdk']).toBe(usesSdk ? `file:${up}growth-service-sdk-${SDK_VERSION}.tgz` : undefined)
      for (const [dep, range] of Object.entries(pkg.dependencies ?? {})) {
        if (dep === '@growth-service/sdk') continue
        const installed = JSON.parse(readFileSync(join(ROOT, 'node_modules', dep, 'package.json'), 'utf8')).version
        expect(`${dep}@${installed} satisfies ${range}: ${Bun.semver.satisfies(installed, range)}`).toBe(`${dep}@${installed} satisfies ${range}: true`)
      }
      for (const script of Object.keys(pkg.scripts ?? {})) expect(existsSync(join(EXAMPLES, name, scriptCommand(name, script).at(-1)!))).toBe(true)
      const readme = readFileSync(join(EXAMPLES, name, 'README.md'), 'utf8')
      if (usesSdk) {
        expect(readme).toContain('npm pack -w sdk --pack-destination examples')
        expect(readme).toContain(`growth-service-sdk-${SDK_VERSION}.tgz`)
      }
      expect(readme).toMatch(/npm start/)
      expect(index).toContain(`[${name}](${name})`)
    }
    // The index is one table (a blank line between rows would end it, and render the rest as text),
    // with a row for every example.
    const lines = index.split('\n')
    const rows = lines.flatMap((line, i) => (line.startsWith('|') ? [i] : []))
    expect(rows.at(-1)! - rows[0]! + 1).toBe(rows.length)
    expect(rows.slice(2).map((i) => /^\| \[([\w/-]+)\]/.exec(lines[i]!)?.[1]).sort()).toEqual([...NAMES].sort())
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8')).toContain('[examples/](examples/)')
  })

  test(
    'agent-loop: the allowed action runs and is reported, the denied one prints its failed checks and the loop goes on, the one a person approves runs once approved',
    async () => {
      const { sql, dataDir } = await getHarness()
      const demo = await createDemoWorkspace(sql, { name: 'Examples: agent loop' })
      const pacer = demo.agents[0]!
      const campaign = demo.fixtures.campaignId
      const pendingApprovals = async () => {
        const r = await call('GET', '/api/v1/approvals?status=pending&limit=100', { token: demo.tokens.live })
        expect(r.body.meta?.nextCursor).toBeUndefined()
        return (r.body.data as { id: string; kind: string }[]).filter((a) => a.kind === 'agent_request').map((a) => a.id)
      }
      const before = new Set(await pendingApprovals())
      const agent = start(scriptCommand('agent-loop', 'start'), projects['agent-loop'], { GROWTH_BASE_URL: base, AGENT: pacer.credential, CAMPAIGN: campaign })
      let approvalId: string
      try {
        // The person's view: the new approval the agent's request waits on, as GET /approvals shows it.
        approvalId = await agent.waitFor('a pending approval', async () => (await pendingApprovals()).find((id) => !before.has(id)))
        expect(approvalId).toMatch(/^apr_/)
        // The agent says which approval it waits on, and the command that decides it.
        await agent.waitFor('the approval named', () => agent.stdout().includes(`  waits for a person: growth admin approval approve ${approvalId}\n`))
        const approved = await growthIn(dataDir)(['admin', 'approval', 'approve', approvalId, '--reason', 'Weekend sale, within budget'])
        expect(`${approved.code} ${approved.stderr}`).toBe('0 ')
        expect(await agent.proc.exited).toBe(0)
      } finally {
        await agent.stop()
      }
      expect(agent.stderr()).toBe('')

      // Every line as the README shows it; the ids it printed are read back through the API below.
      const AUTH = '(auth_[A-Za-z0-9_-]+)'
      const expected = [
        esc('Budget Pacer: 3 planned actions'),
        esc(`ads.pause_campaign ${campaign}: Pause the campaign overnight: it spends without converting after 22:00.`),
        `  allowed \\(${AUTH}\\): ${esc('Allowed: Budget Pacer may pause a campaign (ads.pause_campaign) and every check passed.')}`,
        esc('  reported completed: Done: Pause the campaign overnight: it spends without converting after 22:00.'),
        esc('email.send_campaign winter-newsletter: Send the winter newsletter to every subscriber.'),
        `  denied \\(${AUTH}\\): (Denied: .+)`,
        // The failed checks, one line each, and the loop goes on to the next action.
        `((?:    \\w+: .+\\n)+)${esc(`ads.adjust_budget ${campaign}: Raise the daily budget by 18% for the weekend sale.`)}`,
        esc(`  waits for a person: growth admin approval approve ${approvalId}`),
        `  allowed \\(${AUTH}\\): ${esc(`Allowed once: ${execFileSync('id', ['-un'], { encoding: 'utf8' }).trim()} approved this request (${approvalId}).`)}`,
        esc('  reported completed: Done: Raise the daily budget by 18% for the weekend sale.'),
      ]
      const out = agent.stdout()
      const m = new RegExp(`^${expected.join('\n')}\n$`).exec(out)
      expect(m ? 'the lines of the README' : out).toBe('the lines of the README')
      const [, pausedAuth, deniedAuth, deniedReason, failedLines, raisedAuth] = m!
      const printedFailures = failedLines!.trimEnd().split('\n').map((l) => l.trim().split(':')[0])
      expect(printedFailures).toContain('permission')

      // The workspace's view of the agent's requests: each decision, and what the agent reported under it.
      const r = await call('GET', `/api/v1/agents/requests?agentId=${pacer.id}&limit=100`, { token: demo.tokens.live })
      expect(r.status).toBe(200)
      type Req = { authorizationId: string; tool: string; resource: string | null; action: string; decision: string; approvalId: string | null; reason: string; checks: { name: string; passed: boolean }[]; result: { status: string; summary: string | null } | null }
      const mine = (r.body.data as Req[]).filter((q) => q.resource === 'winter-newsletter' || (q.tool === 'ads' && [pausedAuth, raisedAuth].includes(q.authorizationId)) || q.approvalId === approvalId)
      const byAuth = new Map(mine.map((q) => [q.authorizationId, q]))
      expect(byAuth.get(pausedAuth!)).toMatchObject({ action: 'pause_campaign', decision: 'allowed', result: { status: 'completed', summary: 'Done: Pause the campaign overnight: it spends without converting after 22:00.' } })
      const denied = byAuth.get(deniedAuth!)!
      expect(denied).toMatchObject({ tool: 'email', action: 'send_campaign', decision: 'denied', reason: deniedReason, result: null })
      expect(denied.checks.filter((c) => !c.passed).map((c) => c.name)).toEqual(printedFailures)
      expect(byAuth.get(raisedAuth!)).toMatchObject({ action: 'adjust_budget', decision: 'allowed', approvalId, result: { status: 'completed', summary: 'Done: Raise the daily budget by 18% for the weekend sale.' } })
      // While it waited, each ask was answered with the same approval, and nothing was reported under those.
      const waits = mine.filter((q) => q.decision === 'requires_approval')
      expect(waits.length).toBeGreaterThanOrEqual(2)
      expect(waits.every((q) => q.approvalId === approvalId && q.result === null)).toBe(true)
      // Only the two actions that ran were reported.
      expect(mine.filter((q) => q.result !== null).map((q) => q.authorizationId).sort()).toEqual([pausedAuth, raisedAuth].sort())
      expect(mine.filter((q) => q.tool === 'email').map((q) => q.authorizationId)).toEqual([deniedAuth])
    },
    60_000,
  )

  describe('webhook-receivers', () => {
    // Delivery workers in this process, as `growth worker` runs them, allowed to send to this machine
    // (the shared test server runs none); stopped, and the endpoints disabled, when this block ends.
    const scripts = Object.keys(packageOf('webhook-receivers').scripts ?? {})
    let workers: Rig
    let ports: number[]
    beforeAll(async () => {
      workers = await rig()
      ports = await freePorts(scripts.length)
    })
    afterAll(async () => {
      await workers?.done()
    })

    // The receivers run at once: each waits on growth listen, which polls no faster than the token's
    // calls left in the hour allow (up to 6 s apart).
    for (const [i, script] of scripts.entries()) {
      test.concurrent(
        `${script}: prints an event growth listen forwarded and one the delivery workers sent, verified; refuses a forged one`,
        async () => {
          const { sql } = await getHarness()
          const port = ports[i]!
          const url = `http://127.0.0.1:${port}/webhooks`
          // One workspace whose events a real endpoint gets, one whose events growth listen forwards.
          const [delivered, forwarded] = await Promise.all([makeWorkspace(), makeWorkspace()])
          const endpoint = await createEndpoint(sql, { workspaceId: delivered.id, url, events: 'contact.created' }, { addresses: settings().addresses })
          workers.endpoints.push(endpoint.id)

          const receiver = start(scriptCommand('webhook-receivers', script), projects['webhook-receivers'], { PORT: String(port), WEBHOOK_SECRET: endpoint.secret })
          let listen: Running | undefined
          const printed: string[] = []
          try {
            await receiver.waitFor('its Listening line', () => receiver.stdout().startsWith(`Listening on ${url}\n`))
            const forged = JSON.stringify({ id: 'evt_forged', event: 'contact.created', createdAt: new Date().toISOString(), workspaceId: delivered.id, data: {} })
            const refused = await fetch(url, {
              method: 'POST',
              headers: { 'Content-Type': 'application/json', 'X-Service-Signature': signatureHeader(forged, ['whsec_not_the_endpoints_secret'], Math.floor(Date.now() / 1000)) },
              body: forged,
            })
            expect(`${refused.status} ${await refused.text()}`).toBe('400 no_matching_signature')

            // (a) growth listen, signing with the same secret, forwards what commits after it is ready.
            listen = start(
              [process.execPath, 'cli/bin/growth.ts', 'listen', '--forward-to', url, '--secret', endpoint.secret, '--interval', '200'],
              ROOT,
              { GROWTH_BASE_URL: base, GROWTH_TOKEN: forwarded.live, GROWTH_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'growth-example-listen-')) },
            )
            await listen.waitFor('its Ready line', () => listen!.stderr().includes('Ready. Forwarding events to '))
            await addContacts(forwarded, 1, `listen.${script}`)
            const [viaListen] = (await eventsOf(forwarded)).filter((e) => e.event === 'contact.created')
            printed.push(`received contact.created ${viaListen!.id}`)
            await receiver.waitFor('the forwarded event', () => receiver.stdout().includes(`${printed[0]}\n`))
            await listen.waitFor('the forwarding line', () => new RegExp(`${viaListen!.id} +-> 200 `).test(listen!.stdout()))

            // (b) the server's delivery workers deliver an event of the endpoint's workspace.
            await addContacts(delivered, 1, `delivered.${script}`)
            const [viaEngine] = (await eventsOf(delivered)).filter((e) => e.event === 'contact.created')
            printed.push(`received contact.created ${viaEngine!.id}`)
            await receiver.waitFor('the delivered event', () => receiver.stdout().includes(`${printed[1]}\n`))
            // The worker records the attempt once the receiver's answer is in.
            await until('the attempt recorded', async () => (await attemptsOf(endpoint.id)).length > 0)
            expect((await attemptsOf(endpoint.id)).map((a) => [a.event_id, a.status_code])).toEqual([[viaEngine!.id, 200]])
          } finally {
            await listen?.stop('SIGINT')
            await receiver.stop()
          }
          // Each verified event printed once; the forged one not at all.
          expect(receiver.stdout()).toBe([`Listening on ${url}`, ...printed, ''].join('\n'))
        },
        60_000,
      )
    }
  })

  test(
    'bulk-import: generate.js writes 10,000 rows; growth contacts import and import.js each make 10,000 contacts in a fresh workspace; import.js run again does nothing twice',
    async () => {
      const dir = projects['bulk-import']
      const { url, sql } = await getHarness()
      const generated = await run(scriptCommand('bulk-import', 'generate'), dir)
      expect(`${generated.code} ${generated.stderr}${generated.stdout}`).toBe('0 Wrote 10000 contacts to contacts.csv\n')
      const csv = readFileSync(join(dir, 'contacts.csv'), 'utf8').split('\n')
      expect(csv[0]).toBe('email,first_name,last_name,company,tags')
      expect(csv.length).toBe(10_002) // the header, 10,000 rows, and the empty string after the last newline

      const [viaCli, viaSdk] = await Promise.all([makeWorkspace(), makeWorkspace()])
      const env = (ws: Workspace) => ({ GROWTH_BASE_URL: `${url}/api/v1`, GROWTH_TOKEN: ws.live })
      const [cli, sdk] = await Promise.all([
        run([process.execPath, 'cli/bin/growth.ts', 'contacts', 'import', join(dir, 'contacts.csv'), '--json'], ROOT, env(viaCli)),
        run([...scriptCommand('bulk-import', 'import'), 'contacts.csv'], dir, env(viaSdk)),
      ])
      expect(`${cli.code} ${cli.stderr}`).toBe('0 ')
      expect(JSON.parse(cli.stdout)).toMatchObject({ rows: 10_000, batches: 100, replayedBatches: 0, created: 10_000, updated: 0, refused: [] })
      expect(`${sdk.code} ${sdk.stderr}`).toBe('0 ')
      expect(sdk.stdout).toBe('Imported contacts.csv: 10000 rows in 100 requests (0 done before, answered again)\n  created 10000, updated 0, skipped 0\n')

      // The same file again: every request answered from the first run's keys, nothing imported twice.
      const again = await run([...scriptCommand('bulk-import', 'import'), 'contacts.csv'], dir, env(viaSdk))
      expect(`${again.code} ${again.stderr}`).toBe('0 ')
      expect(again.stdout).toBe('Imported contacts.csv: 10000 rows in 100 requests (100 done before, answered again)\n  created 10000, updated 0, skipped 0\n')

      // What each import made: the first events through the API, with the CSV's fields; the count of
      // all 10,000 from the database (paging them through the API would take 100 calls a workspace:
      // within its 600 an hour, but seconds of this test for what one query says).
      for (const ws of [viaCli, viaSdk]) {
        const first = await call('GET', '/api/v1/events?type=contact.created&limit=2', { token: ws.live })
        expect(first.body.data.map((e: any) => e.data.contact)).toMatchObject([
          { email: 'ana.garcia.0@example.com', firstName: 'Ana', lastName: 'Garcia', company: 'Northwind Traders', tags: ['newsletter'] },
          { email: 'ben.garcia.1@example.com', firstName: 'Ben', lastName: 'Garcia', company: 'Contoso', tags: ['trial', 'newsletter'] },
        ])
        const [count] = await sql<{ events: number; emails: number }[]>`
          SELECT count(*)::int AS events, count(DISTINCT data->'contact'->>'email')::int AS emails
          FROM events WHERE workspace_id = ${ws.id} AND type = 'contact.created'`
        expect(count).toEqual({ events: 10_000, emails: 10_000 })
      }
    },
    90_000,
  )

  describe('event-poller', () => {
    const dir = () => projects['event-poller']
    const poller = (ws: Workspace, stateFile: string) => start(scriptCommand('event-poller', 'start'), dir(), { GROWTH_BASE_URL: base, GROWTH_TOKEN: ws.live, STATE_FILE: stateFile, POLL_INTERVAL_MS: '200' })
    /** The event ids a run printed, in order (`<createdAt>  <type>  <id>` a line). */
    const printed = (p: Running) =>
      p
        .stdout()
        .split('\n')
        .slice(0, -1) // complete lines only
        .map((line) => {
          const m = /^\d{4}-\d\d-\d\dT[\d:.]+Z {2}[a-z_.]+ {2}(evt_\S+)$/.exec(line)
          if (!m) throw new Error(`not an event line: ${JSON.stringify(line)}`)
          return m[1]!
        })
    const lastSaved = (stateFile: string) => (existsSync(stateFile) ? (JSON.parse(readFileSync(stateFile, 'utf8')).lastEventId as string) : undefined)

    test(
      'killed between events, with events committed while it is down and after it restarts: each printed once, in order',
      async () => {
        const ws = await makeWorkspace()
        const stateFile = join(dir(), 'poller-state.json') // where the README says it is
        await addContacts(ws, 150, 'poll.a') // two pages
        const firstBatch = (await eventsOf(ws)).map((e) => e.id)
        const first = poller(ws, stateFile)
        await first.waitFor('the first events', () => printed(first).length >= firstBatch.length)
        // Killed once it has saved the last event it printed: whatever it was doing next is lost.
        await first.waitFor('its state saved', () => lastSaved(stateFile) === firstBatch.at(-1))
        expect(await first.stop('SIGKILL')).not.toBe(0)
        expect(first.stderr()).toBe('Reading the stream from its start\n')

        await addContacts(ws, 30, 'poll.b') // while it is down
        const second = poller(ws, stateFile)
        try {
          await second.waitFor('the events of the gap', () => printed(second).length >= 30)
          await addContacts(ws, 30, 'poll.c') // while it runs
          const all = (await eventsOf(ws)).map((e) => e.id)
          expect(all.length).toBe(firstBatch.length + 60)
          await second.waitFor('the new events', () => printed(second).includes(all.at(-1)!))
          expect(second.stderr()).toBe(`Resuming after ${firstBatch.at(-1)}\n`)
          expect([...printed(first), ...printed(second)]).toEqual(all)
        } finally {
          await second.stop('SIGKILL')
        }
      },
      60_000,
    )

    test(
      'killed while it works through a page: the restart repeats at most the one event being handled, misses none',
      async () => {
        const ws = await makeWorkspace()
        const stateFile = join(mkdtempSync(join(tmpdir(), 'growth-example-poller-')), 'state.json')
        await addContacts(ws, 300, 'poll.burst')
        const all = (await eventsOf(ws)).map((e) => e.id)
        const first = poller(ws, stateFile)
        // Killed once it has printed a few: most likely in the middle of its first page.
        await first.waitFor('a few events', () => printed(first).length >= 5)
        await first.stop('SIGKILL')
        const before = printed(first)
        const second = poller(ws, stateFile)
        try {
          await second.waitFor('the rest', () => printed(second).includes(all.at(-1)!))
          const after = printed(second)
          // What the first run printed is the stream's start; the second goes on from the event after
          // the last one saved, which is the last one printed or (killed between printing and saving) the one before.
          expect(before).toEqual(all.slice(0, before.length))
          const repeated = before.length + after.length - all.length
          expect(repeated === 0 || repeated === 1).toBe(true)
          expect(after).toEqual(all.slice(before.length - repeated))
        } finally {
          await second.stop('SIGKILL')
        }

        // Where the kill lands is up to the machine; the state a kill in the middle of the second page
        // leaves (the page's position, the last event handled) is written here as the README describes it.
        const page1 = await call('GET', '/api/v1/events?limit=100', { token: ws.live })
        writeFileSync(stateFile, JSON.stringify({ after: page1.body.meta.nextCursor, lastEventId: all[142] }))
        const third = poller(ws, stateFile)
        try {
          await third.waitFor('the rest of the stream', () => printed(third).includes(all.at(-1)!))
          expect(third.stderr()).toBe(`Resuming after ${all[142]}\n`)
          expect(printed(third)).toEqual(all.slice(143))
        } finally {
          await third.stop('SIGKILL')
        }
      },
      60_000,
    )
  })
  /** An agent that may send e-mail campaigns unattended to at most 3 people at a time, registered as the READMEs say. */
  async function mailAssistant() {
    const { dataDir } = await getHarness()
    const ws = await makeWorkspace()
    const made = await growthIn(dataDir)([
      'admin', 'agent', 'create', '--workspace', ws.id, '--name', 'Mail assistant', '--allow', 'email.send_campaign', '--max-recipients', '3', '--max-risk', 'high', '--json',
    ])
    expect(`${made.code} ${made.stderr}`).toBe('0 ')
    const agent = JSON.parse(made.stdout) as { id: string; credential: string }
    const requests = async () => {
      const r = await call('GET', `/api/v1/agents/requests?agentId=${agent.id}&limit=100`, { token: ws.live })
      expect(r.status).toBe(200)
      return (r.body.data as { resource: string; decision: string; facts: object; result: { status: string; summary: string | null } | null }[]).reverse()
    }
    return { agent, requests }
  }

  test(
    'mcp/guard: the desktop client configuration starts growth mcp guard in front of the e-mail server; the allowed send reaches it, the denied one and the unmapped tool do not',
    async () => {
      const dir = projects['mcp/guard']
      const { agent, requests } = await mailAssistant()
      const r = await run(scriptCommand('mcp/guard', 'start'), dir, { GROWTH_BASE_URL: base, AGENT: agent.credential, GROWTH_CLI: join(ROOT, 'cli', 'bin', 'growth.js') })
      expect(`${r.code}`).toBe('0')
      expect(r.stdout).toBe(
        [
          'tools: send_email, delete_outbox',
          'send_email "Winter sale": Sent "Winter sale" to 2 recipient(s).',
          "send_email \"Everyone\": refused: The agent gateway denied send_email; it was not run. Denied: Over Mail assistant's ceilings: asked 5 recipients, ceiling 3 recipients.",
          'delete_outbox "": refused: The tool delete_outbox is not mapped in the guard\'s configuration, so it is refused and never reaches the server. Ask the owner to map it to a gateway tool and action in guard.json.',
          '',
        ].join('\n'),
      )
      expect(r.stderr).toContain(`growth mcp guard: acting as agent Mail assistant (${agent.id})\n`)
      expect(r.stderr).toContain('growth mcp guard: guarding node email-server.js: send_email as email.send_campaign\n')
      expect(r.stderr).toContain('growth mcp guard: refusing delete_outbox: not mapped in guard.json, so never passed through\n')
      // Only the allowed message reached the server, and the outbox was never emptied.
      expect(readFileSync(join(dir, 'outbox.jsonl'), 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l).subject)).toEqual(['Winter sale'])
      // The client closed at once: the guard sent the report it owed before it exited.
      expect(await requests()).toMatchObject([
        { resource: 'Winter sale', decision: 'allowed', facts: { recipients: 2 }, result: { status: 'completed', summary: 'Sent "Winter sale" to 2 recipient(s).' } },
        { resource: 'Everyone', decision: 'denied', facts: { recipients: 5 }, result: null },
      ])
      rmSync(join(dir, 'outbox.jsonl'))
    },
    60_000,
  )

  test(
    'mcp/guard issues: a tool the owner added to the policy (github.create_issue); the first issue opens, the second waits for a person, the unmapped tool is refused',
    async () => {
      const dir = projects['mcp/guard']
      const growth = growthIn((await getHarness()).dataDir)
      const ws = await makeWorkspace()
      const made = await growth(['admin', 'agent', 'create', '--workspace', ws.id, '--name', 'Issue triager', '--allow', 'ads.read_performance', '--json'])
      expect(`${made.code} ${made.stderr}`).toBe('0 ')
      const agent = JSON.parse(made.stdout) as { id: string; credential: string }
      // The README's steps: export as JSON, the owner's edit (add-github.js), plan, apply.
      const exported = await growth(['admin', 'policy', 'export', '--workspace', ws.id, '--json'])
      expect(exported.code).toBe(0)
      writeFileSync(join(dir, 'policy.json'), exported.stdout)
      const edited = await run([...scriptCommand('mcp/guard', 'add-github'), 'policy.json', 'Issue triager'], dir)
      expect(`${edited.code} ${edited.stderr}`).toBe('0 ')
      const plan = await growth(['admin', 'policy', 'plan', '--workspace', ws.id, join(dir, 'policy.json'), '--json'])
      expect(`${plan.code} ${plan.stderr}`).toBe('0 ')
      const applied = await growth(['admin', 'policy', 'apply', '--workspace', ws.id, join(dir, 'policy.json'), '--plan', JSON.parse(plan.stdout).planId])
      expect(`${applied.code} ${applied.stderr}`).toBe('0 ')

      const r = await run(scriptCommand('mcp/guard', 'issues'), dir, { GROWTH_BASE_URL: base, AGENT: agent.credential, GROWTH_CLI: join(ROOT, 'cli', 'bin', 'growth.js') })
      expect(`${r.code}`).toBe('0')
      const lines = r.stdout.trimEnd().split('\n')
      expect(lines.slice(0, 2)).toEqual(['tools: create_issue, close_all_issues', 'create_issue "Checkout fails on Safari": Opened "Checkout fails on Safari".'])
      expect(lines[2]).toMatch(/^create_issue "Checkout fails on Firefox": refused: create_issue was not run: a person must approve it first \(approval apr_\w+\)\. Needs a person's approval: Ask a person before Issue triager uses github\.create_issue \(open an issue\) when it has already been allowed to do so at least 1 time in the last 24 hours\./)
      expect(lines[3]).toStartWith('close_all_issues "": refused: The tool close_all_issues is not mapped in the guard\'s configuration')
      expect(r.stderr).toContain('growth mcp guard: guarding node issues-server.js: create_issue as github.create_issue\n')
      expect(readFileSync(join(dir, 'issues.jsonl'), 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l).title)).toEqual(['Checkout fails on Safari'])
      rmSync(join(dir, 'issues.jsonl'))
      rmSync(join(dir, 'policy.json'))
    },
    90_000,
  )

  test(
    'ai-sdk-agent: the guarded send-email tool sends to 2 and is reported; to 5 it throws AgentDeniedError and sends nothing',
    async () => {
      const { agent, requests } = await mailAssistant()
      const r = await run(scriptCommand('ai-sdk-agent', 'start'), projects['ai-sdk-agent'], { GROWTH_BASE_URL: base, AGENT: agent.credential })
      expect(`${r.code} ${r.stderr}`).toBe('0 ')
      expect(r.stdout).toBe(
        [
          'send_email "Winter sale": Sent "Winter sale" to 2 recipient(s).',
          "send_email \"Everyone\": AgentDeniedError: Denied: Over Mail assistant's ceilings: asked 5 recipients, ceiling 3 recipients.",
          'outbox: Winter sale',
          '',
        ].join('\n'),
      )
      expect(await requests()).toMatchObject([
        { resource: 'Winter sale', decision: 'allowed', facts: { recipients: 2 }, result: { status: 'completed', summary: 'Sent "Winter sale" to 2 recipient(s).' } },
        { resource: 'Everyone', decision: 'denied', facts: { recipients: 5 }, result: null },
      ])
    },
    60_000,
  )

  test(
    'mcp: drive.js starts growth mcp as claude_desktop_config.json says (credentials from growth login profiles), reads and pages, asks, acts and reports as the agent; the workspace sees it',
    async () => {
      const { sql } = await getHarness()
      const demo = await createDemoWorkspace(sql, { name: 'Examples: MCP' })
      const pacer = demo.agents[0]!
      const campaign = demo.fixtures.campaignId
      // `growth` on the PATH, as npm link puts it there, and a home of its own for the profiles.
      const home = mkdtempSync(join(tmpdir(), 'growth-example-mcp-home-'))
      mkdirSync(join(home, 'bin'))
      symlinkSync(join(ROOT, 'cli', 'bin', 'growth.js'), join(home, 'bin', 'growth'))
      const shell = { HOME: home, PATH: `${join(home, 'bin')}:${process.env.PATH ?? ''}` }
      const dir = projects.mcp
      for (const [profile, token] of [['default', demo.tokens.live], ['agent', pacer.credential]] as const) {
        const login = await run([join(home, 'bin', 'growth'), 'login', '--profile', profile, '--token', token, '--base-url', base], dir, shell)
        expect(`${login.code} ${login.stderr}`).toBe('0 ')
      }
      const r = await run(scriptCommand('mcp', 'start'), dir, { ...shell, GROWTH_BASE_URL: base, CAMPAIGN: campaign })
      expect(r.code).toBe(0)
      // What each growth mcp wrote to stderr, shown under its name: which credential, how many tools.
      expect(r.stderr).toMatch(
        new RegExp(
          `^${esc('[growth] growth mcp: 22 tools for a live workspace token (scopes: ')}[^)]+\\); ${esc(`svc_live_…${demo.tokens.live.slice(-4)} from profile 'default', API at ${base}; serving MCP over stdio`)}\n` +
            `${esc(`[growth-agent] growth mcp: 3 agent tools for Budget Pacer (${pacer.id}); svc_agt_…${pacer.credential.slice(-4)} from profile 'agent', API at ${base}; serving MCP over stdio`)}\n$`,
        ),
      )
      const out = r.stdout

      // The workspace token's tools: every one of them, a list paged with its cursor, money in its format.
      expect(out).toMatch(/^growth: 22 tools \(listMissions, listDecisions, listSignals, listOpportunities, \.\.\.\)\n> listDecisions \{"limit":2\}\n {2}2 items:\n {2}- id: dec_/)
      // The second page: the first answer's nextCursor, which the API pages with.
      const cursor = /\n> listDecisions \{"limit":2,"cursor":"([^"]+)"\}\n {2}2 items:\n/.exec(out)?.[1]
      expect(cursor).toBeDefined()
      const page2 = await call('GET', `/api/v1/decisions?limit=2&cursor=${cursor}`, { token: demo.tokens.live })
      expect(page2.status).toBe(200)
      expect(out).toMatch(/> getRevenue \{\}\n {2}from: \S+\n {2}to: \S+\n {2}currencies:\n {4}- currency: EUR\n {6}orders: \d+\n {6}total: €[\d,]+\.\d\d\n/)

      // The agent's tools: who it is, allowed and reported, denied with its failed checks.
      expect(out).toContain(`> my_profile {}\n  You are Budget Pacer (${pacer.id}).\n`)
      const allowed = new RegExp(`> request_permission \\{"tool":"ads","action":"pause_campaign","resource":"${campaign}",[^\\n]+\\n {2}Allowed: Budget Pacer may pause a campaign \\(ads\\.pause_campaign\\) and every check passed\\.\\n {2}authorizationId: (auth_\\w+) \\(valid until `).exec(out)
      expect(allowed).not.toBeNull()
      const auth = allowed![1]!
      expect(out).toContain(`> report_result {"authorizationId":"${auth}","status":"completed","summary":"Paused until 06:00."}\n  Recorded: completed for ${auth} (res_`)
      expect(out).toMatch(/> request_permission \{"tool":"email","action":"send_campaign",[^\n]+\n {2}Denied: Budget Pacer is not permitted to send an email campaign[^\n]+\n {2}Checks that failed:\n {2}- permission: /)
      expect(out).toMatch(/Budget Pacer's last requests, as the workspace sees them:\n {2}denied email\.send_campaign winter-newsletter: nothing reported\n {2}allowed ads\.pause_campaign cmp_\w+: reported completed\n$/)

      // Through the API: the two decisions, and the result reported under the allowed one.
      const requests = await call('GET', `/api/v1/agents/requests?agentId=${pacer.id}&limit=2`, { token: demo.tokens.live })
      expect(requests.body.data.map((q: any) => [q.decision, q.tool, q.action, q.result?.status ?? null])).toEqual([
        ['denied', 'email', 'send_campaign', null],
        ['allowed', 'ads', 'pause_campaign', 'completed'],
      ])
      expect(requests.body.data[1].authorizationId).toBe(auth)
    },
    60_000,
  )

  test(
    "mcp: drive.js passes the caller's environment to growth mcp and shows what it says: no token is said as such, not as a closed connection",
    async () => {
      const home = mkdtempSync(join(tmpdir(), 'growth-example-mcp-bare-'))
      mkdirSync(join(home, 'bin'))
      symlinkSync(join(ROOT, 'cli', 'bin', 'growth.js'), join(home, 'bin', 'growth'))
      const shell = { HOME: home, PATH: `${join(home, 'bin')}:${process.env.PATH ?? ''}` }
      // No profile, no GROWTH_TOKEN: growth mcp's own message, then which server did not start.
      const none = await run(scriptCommand('mcp', 'start'), projects.mcp, shell)
      expect(none.code).toBe(1)
      expect(none.stdout).toBe('')
      expect(none.stderr).toStartWith('[growth] error: no token: --token was not given, GROWTH_TOKEN is not set, and there is no profile ')
      expect(none.stderr).toMatch(/\ngrowth: growth mcp did not start \(.*\); what it said is above\.\n$/)

      // GROWTH_TOKEN and GROWTH_BASE_URL of the caller reach growth mcp (the workspace's tools answer);
      // the agent's server names the profile it lacks.
      const { sql } = await getHarness()
      const demo = await createDemoWorkspace(sql, { name: 'Examples: MCP environment' })
      const env = await run(scriptCommand('mcp', 'start'), projects.mcp, { ...shell, GROWTH_TOKEN: demo.tokens.live, GROWTH_BASE_URL: base })
      expect(env.code).toBe(1)
      expect(env.stdout).toStartWith('growth: 22 tools (')
      expect(env.stderr).toContain(`[growth] growth mcp: 22 tools for a live workspace token`)
      expect(env.stderr).toContain(`[growth-agent] error: no profile 'agent' in ${join(home, '.config')}`)
      expect(env.stderr).toMatch(/\ngrowth-agent: growth mcp --profile agent did not start \(.*\); what it said is above\.\n$/)
    },
    60_000,
  )
})
