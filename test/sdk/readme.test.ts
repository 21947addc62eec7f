import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createDemoWorkspace, type DemoWorkspace } from '../../server/src/demo/index.ts'
import { signatureHeader } from '../../server/src/domain/webhook-signature.ts'
import { growthIn } from '../cli/run.ts'
import { getHarness } from '../harness.ts'
import { PACK_TIMEOUT, packedSdk, ROOT } from './support/pack.ts'
import { freePort } from '../support/ports.ts'

/**
 * sdk/README.md cannot rot: its install commands are run as written (the first half in the
 * toolkit's repository, the second in a new empty project), every TypeScript example is
 * type-checked together against the installed package and then run with Bun in that project against
 * the real test server, with the environment `source .data/demo.env` gives (GROWTH_BASE_URL,
 * GROWTH_TOKEN, TEST_TOKEN, AGENT, CAMPAIGN, LIST). A `ts receiver` example is started, sent a
 * delivery signed by the server's own signer (200 expected) and a forged one (400 expected); the
 * `ts approval` example waits until a person approves its request with the real CLI.
 */

const README = readFileSync(join(ROOT, 'sdk', 'README.md'), 'utf8')
const blocks = [...README.matchAll(/```(\w+)([^\n]*)\n([\s\S]*?)```/g)].map((m) => ({ lang: m[1]!, kind: m[2]!.trim(), code: m[3]! }))
const examples = blocks.filter((b) => b.lang === 'ts')
/** The ES module and CommonJS examples (`js mjs`, `js cjs`, `js dynamic`), run with Node.js. */
const moduleExample = (kind: string) => {
  const found = blocks.filter((b) => b.lang === 'js' && b.kind === kind)
  if (found.length !== 1) throw new Error(`sdk/README.md has ${found.length} \`js ${kind}\` examples, not one`)
  return found[0]!.code
}
/** The toolkit's README shows the SDK too: its examples run here as well, the same way. */
const rootExamples = [...readFileSync(join(ROOT, 'README.md'), 'utf8').matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!)

/** What each plain example prints, in the README's order: it ran, and did what it says. */
const PRINTS: RegExp[] = [
  /emails: \d+ of \d+/, // first call
  /not found: not_found No A\/B test[\s\S]*\n400 invalid_parameter .*limit/, // errors
  /^\d+ measured decisions\n\[/, // paging
  /^false true\n\[/, // retries and idempotency
  /^\d+ open signals req_\w+ 200 false\n\d+ of \d+ calls left until \d{4}-/, // withResponse
  /^checked, not done\n$/, // test mode
  /^a new contact evt_1\nevt_1\nbody_not_raw\n$/, // webhooks
  /^Budget Pacer may .*ads\.pause_campaign.*\nPaused under auth_\w+\.\ndenied: Denied: Budget Pacer is not permitted .* permission, /, // agents
]

const WEBHOOK_SECRET = 'whsec_readme_receivers_0123456789abcdef'

let project = ''
let demo: DemoWorkspace
let env: Record<string, string> = {}

async function run(cmd: string[], cwd: string, extraEnv: Record<string, string> = {}) {
  const proc = Bun.spawn(cmd, { cwd, stdin: 'ignore', stdout: 'pipe', stderr: 'pipe', env: { ...process.env, ...extraEnv } })
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  return { code, stdout, stderr }
}


beforeAll(async () => {
  // The test run's own pack builds sdk/dist too; let it finish first so the two builds never overlap.
  await packedSdk()
  const install = blocks.find((b) => b.lang === 'sh' && b.code.includes('npm pack'))
  if (!install) throw new Error('sdk/README.md has no install commands')
  const [inRepository, inProject] = install.code.split('# in your project')
  project = join(mkdtempSync(join(tmpdir(), 'growth-sdk-readme-')), 'my-app')
  mkdirSync(project)
  const npmEnv = { npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' }
  // A new project as the README makes it: npm init -y, which is CommonJS.
  const init = await run(['npm', 'init', '-y'], project, npmEnv)
  expect(`${init.code} ${init.stderr}`).toStartWith('0 ')
  const packed = await run(['bash', '-euo', 'pipefail', '-c', inRepository!], ROOT, npmEnv)
  expect(`${packed.code} ${packed.stderr}`).toStartWith('0 ')
  const installed = await run(['bash', '-euo', 'pipefail', '-c', inProject!], project, npmEnv)
  expect(`${installed.code} ${installed.stderr}`).toStartWith('0 ')

  // The receivers' frameworks and the types the examples use (Bun's, Node's, Express's), from the
  // toolkit's own dev dependencies: a user's project would have installed them itself.
  for (const name of ['express', 'hono', '@types']) {
    mkdirSync(join(project, 'node_modules', name, '..'), { recursive: true })
    symlinkSync(join(ROOT, 'node_modules', name), join(project, 'node_modules', name))
  }
  examples.forEach((e, i) => writeFileSync(join(project, `example-${i + 1}.ts`), e.code))
  rootExamples.forEach((code, i) => writeFileSync(join(project, `example-root-${i + 1}.ts`), code))
  writeFileSync(
    join(project, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { target: 'ES2022', module: 'ESNext', moduleResolution: 'bundler', lib: ['ES2022', 'DOM', 'DOM.Iterable'], types: ['bun'], strict: true, noEmit: true, skipLibCheck: true },
      include: ['example-*.ts'],
    }),
  )

  const { sql, url } = await getHarness()
  demo = await createDemoWorkspace(sql, { name: 'SDK README' })
  env = {
    GROWTH_BASE_URL: `${url}/api/v1`,
    GROWTH_TOKEN: demo.tokens.live,
    TEST_TOKEN: demo.tokens.test,
    AGENT: demo.agents[0]!.credential,
    CAMPAIGN: demo.fixtures.campaignId,
    LIST: demo.fixtures.listId,
  }
}, PACK_TIMEOUT)

afterAll(() => {
  if (project) rmSync(join(project, '..'), { recursive: true, force: true })
})

describe('sdk/README.md', () => {
  test('has the examples this test knows: plain ones, four receivers and one that waits for a person', () => {
    expect(examples.filter((e) => e.kind === '').length).toBe(PRINTS.length)
    expect(examples.filter((e) => e.kind === 'receiver').map((e) => /Bun\.serve|createServer|express\(\)|new Hono/.exec(e.code)?.[0])).toEqual([
      'Bun.serve',
      'createServer',
      'express()',
      'new Hono',
    ])
    expect(examples.filter((e) => e.kind === 'approval').length).toBe(1)
  })

  test(
    'ES modules and CommonJS, in the CommonJS project npm init -y makes, under Node.js: .mjs, "type": "module", require, import() and TypeScript compiled to CommonJS as the README says',
    async () => {
      const node = async (dir: string, file: string, code: string) => {
        writeFileSync(join(dir, file), code)
        return run(['node', file], dir, env)
      }
      expect(JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')).type).toBe('commonjs')
      const PRINTED = /^\d+ allowances\n$/
      const esm = moduleExample('mjs')
      // What a new user met: the ES module example as a .js file of a CommonJS project is refused.
      const refused = await node(project, 'esm-as-commonjs.js', esm)
      expect(refused.code).not.toBe(0)
      expect(refused.stderr).toContain('Cannot use import statement outside a module')
      // As .mjs it runs.
      const mjs = await node(project, 'first-call.mjs', esm)
      expect(`${mjs.code} ${mjs.stderr}${mjs.stdout}`).toMatch(/^0 \d+ allowances\n$/)
      // As .js once npm pkg set type=module (a second project, sharing the installed package).
      const esmProject = join(project, '..', 'my-esm-app')
      mkdirSync(esmProject)
      const npmEnv = { npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' }
      for (const cmd of [['npm', 'init', '-y'], ['npm', 'pkg', 'set', 'type=module']]) {
        const r = await run(cmd, esmProject, npmEnv)
        expect(`${r.code} ${r.stderr}`).toStartWith('0 ')
      }
      symlinkSync(join(project, 'node_modules'), join(esmProject, 'node_modules'))
      const typeModule = await node(esmProject, 'first-call.js', esm)
      expect(`${typeModule.code} ${typeModule.stderr}`).toBe('0 ')
      expect(typeModule.stdout).toMatch(PRINTED)
      // In the CommonJS project: require (Node.js 20.19 and later), and import() on any Node.js 20.
      for (const kind of ['cjs', 'dynamic']) {
        const r = await node(project, `first-call-${kind}.js`, moduleExample(kind))
        expect(`${kind}: ${r.code} ${r.stderr}`).toBe(`${kind}: 0 `)
        expect(r.stdout).toMatch(PRINTED)
      }
      // TypeScript in the CommonJS project, "module": "nodenext": tsc emits require, and Node.js runs it.
      const commonjs = blocks.filter((b) => b.lang === 'ts' && b.kind === 'commonjs')
      expect(commonjs.length).toBe(1)
      writeFileSync(join(project, 'first-call-commonjs.ts'), commonjs[0]!.code)
      const compilerOptions = { module: 'nodenext', target: 'ES2022', lib: ['ES2022', 'DOM'], types: [], strict: true, skipLibCheck: false, outDir: 'commonjs-out' }
      writeFileSync(join(project, 'tsconfig.commonjs.json'), JSON.stringify({ compilerOptions, files: ['first-call-commonjs.ts'] }))
      const tsc = await run([join(ROOT, 'node_modules', '.bin', 'tsc'), '-p', 'tsconfig.commonjs.json'], project)
      expect(`${tsc.code} ${tsc.stdout}${tsc.stderr}`).toBe('0 ')
      const emitted = join(project, 'commonjs-out', 'first-call-commonjs.js')
      expect(readFileSync(emitted, 'utf8')).toContain('require("@growth-service/sdk")')
      const compiled = await run(['node', emitted], project, env)
      expect(`${compiled.code} ${compiled.stderr}`).toBe('0 ')
      expect(compiled.stdout).toMatch(PRINTED)
    },
    60_000,
  )

  test(
    'Deno runs the first example from the same project, with the command and permissions the README gives',
    async () => {
      const deno = blocks.filter((b) => b.lang === 'sh' && b.kind === 'deno')
      expect(deno.length).toBe(1)
      writeFileSync(join(project, 'first-call.ts'), examples.find((e) => e.kind === '')!.code)
      const r = await run(['bash', '-euo', 'pipefail', '-c', deno[0]!.code], project, {
        ...env,
        PATH: `${join(ROOT, 'node_modules', '.bin')}:${process.env.PATH ?? ''}`,
        DENO_NO_UPDATE_CHECK: '1',
        NO_COLOR: '1',
      })
      expect(`${r.code} ${r.stderr}`).toBe('0 ')
      expect(r.stdout).toMatch(PRINTS[0]!)
    },
    60_000,
  )

  test(
    'every example type-checks against the installed package',
    async () => {
      const tsc = await run([join(ROOT, 'node_modules', '.bin', 'tsc'), '-p', 'tsconfig.json'], project)
      expect(tsc.stdout + tsc.stderr).toBe('')
      expect(tsc.code).toBe(0)
    },
    PACK_TIMEOUT,
  )

  test(
    'every plain example runs against the server and prints what it says',
    async () => {
      let n = 0
      for (const [i, e] of examples.entries()) {
        if (e.kind !== '') continue
        const r = await run([process.execPath, `example-${i + 1}.ts`], project, env)
        const where = `example ${i + 1} (${e.code.split('\n').find((l) => l.includes('await') || l.includes('Webhooks'))?.trim()})`
        expect(`${where} exited ${r.code}: ${r.stderr}`).toBe(`${where} exited 0: `)
        expect(r.stdout).toMatch(PRINTS[n++]!)
      }
    },
    120_000,
  )

  test(
    "the toolkit README's SDK example runs against the server: every decision's title, across pages",
    async () => {
      expect(rootExamples.length).toBe(1)
      const { url } = await getHarness()
      const first = await fetch(`${url}/api/v1/decisions?limit=100`, { headers: { Authorization: `Bearer ${demo.tokens.live}` } })
      expect(((await first.json()) as { meta?: { nextCursor?: string } }).meta?.nextCursor).toBeString()
      const r = await run([process.execPath, 'example-root-1.ts'], project, env)
      expect(`${r.code} ${r.stderr}`).toBe('0 ')
      const titles = r.stdout.trimEnd().split('\n')
      expect(titles.length).toBeGreaterThan(100)
      expect(titles.every((t) => t.trim().length > 0)).toBe(true)
    },
    60_000,
  )

  for (const [i, e] of examples.entries()) {
    if (e.kind !== 'receiver') continue
    const framework = /Bun\.serve|createServer|express\(\)|new Hono/.exec(e.code)?.[0]
    test(
      `the ${framework} receiver accepts a delivery signed by the server and refuses a forged one`,
      async () => {
        const port = await freePort()
        const proc = Bun.spawn([process.execPath, `example-${i + 1}.ts`], {
          cwd: project,
          stdin: 'ignore',
          stdout: 'pipe',
          stderr: 'pipe',
          env: { ...process.env, PORT: String(port), WEBHOOK_SECRET },
        })
        try {
          const post = async (body: string, signature: string) => {
            for (let attempt = 0; ; attempt++) {
              try {
                return await fetch(`http://127.0.0.1:${port}/webhooks`, {
                  method: 'POST',
                  headers: { 'Content-Type': 'application/json', 'X-Service-Signature': signature },
                  body,
                })
              } catch (error) {
                // Not listening yet: the receiver is starting.
                if (attempt > 100 || proc.exitCode !== null) throw error
                await Bun.sleep(100)
              }
            }
          }
          const body = JSON.stringify({ id: 'evt_readme', event: 'contact.created', createdAt: new Date().toISOString(), workspaceId: demo.workspace.id, data: { contact: { email: 'ünïcode@example.com' } } })
          const now = Math.floor(Date.now() / 1000)
          const good = await post(body, signatureHeader(body, [WEBHOOK_SECRET], now))
          expect(good.status).toBe(200)
          const forged = await post(body, signatureHeader(body, ['whsec_someone_else'], now))
          expect(forged.status).toBe(400)
          const stale = await post(body, signatureHeader(body, [WEBHOOK_SECRET], now - 3_600))
          expect(stale.status).toBe(400)
          // The receiver printed the event it verified, once.
          proc.kill()
          const out = await new Response(proc.stdout).text()
          expect(out).toBe('received contact.created evt_readme\n')
        } finally {
          proc.kill()
          await proc.exited
        }
      },
      30_000,
    )
  }

  test(
    'the example that waits for approval goes on once a person approves with growth admin approval approve',
    async () => {
      const { url, dataDir } = await getHarness()
      const pending = async () => {
        const res = await fetch(`${url}/api/v1/approvals?status=pending&limit=100`, { headers: { Authorization: `Bearer ${demo.tokens.live}` } })
        const page = (await res.json()) as { data: { id: string; kind: string }[]; meta?: { nextCursor?: string } }
        expect(page.meta?.nextCursor).toBeUndefined()
        return page.data.filter((a) => a.kind === 'agent_request').map((a) => a.id)
      }
      const before = new Set(await pending())
      const i = examples.findIndex((e) => e.kind === 'approval')
      const proc = Bun.spawn([process.execPath, `example-${i + 1}.ts`], { cwd: project, stdin: 'ignore', stdout: 'pipe', stderr: 'pipe', env: { ...process.env, ...env } })
      try {
        // The person's view: the new pending approval the agent's request waits on.
        let approvalId: string | undefined
        for (let tries = 0; !approvalId && tries < 100; tries++) {
          approvalId = (await pending()).find((id) => !before.has(id))
          if (!approvalId) await Bun.sleep(100)
        }
        expect(approvalId).toMatch(/^apr_/)
        const approved = await growthIn(dataDir)(['admin', 'approval', 'approve', approvalId!, '--by', 'Maya Chen'])
        expect(`${approved.code} ${approved.stderr}`).toBe('0 ')
        const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
        expect(`${code} ${err}`).toBe('0 ')
        expect(out).toBe('Daily budget raised by 18%.\n')
      } finally {
        proc.kill()
      }
    },
    60_000,
  )
})
