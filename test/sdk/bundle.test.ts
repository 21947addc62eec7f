import { describe, expect, test } from 'bun:test'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { signatureHeader } from '../../server/src/domain/webhook-signature.ts'
import { createDemoWorkspace } from '../../server/src/demo/index.ts'
import * as sdkExports from '../../sdk/src/index.ts'
import { getHarness } from '../harness.ts'
import { PACK_TIMEOUT, packedSdk, ROOT } from './support/pack.ts'

/**
 * The packed SDK as a worker or a browser page gets it: bundled and minified (as Wrangler, Vite and
 * Next.js do for production), then run where there is only fetch and Web Crypto: Deno with npm
 * resolution off and `process` and `Buffer` deleted before the bundle loads, as on Cloudflare
 * Workers without nodejs_compat. The errors keep their names through the minifier (a log line reads
 * `NotFoundError: ...`, not `M: ...`), calls and webhook checks work against the real test server.
 */

/**
 * Every error class the SDK exports, read from its exports (not listed by hand, so a new one is
 * checked too): each must keep, bundled and minified, the name it is exported under.
 */
const isErrorClass = (value: unknown) => typeof value === 'function' && value.prototype instanceof Error
const ERROR_CLASSES = Object.keys(sdkExports)
  .filter((name) => isErrorClass((sdkExports as Record<string, unknown>)[name]))
  .sort()

const SCRIPT = `
const { BASE_URL, TOKEN, BODY, HEADER, SECRET } = JSON.parse(Deno.env.get('SCENARIO'))
delete globalThis.process
delete globalThis.Buffer
const sdk = await import('./sdk.min.js')
const out = { runtime: { process: 'process' in globalThis, Buffer: 'Buffer' in globalThis } }

// Every error class exported, made as the SDK makes it: its name is the name it is exported under.
const authorization = { authorizationId: 'auth_x', reason: 'Denied.', checks: [], rules: [], approvalId: 'apr_x' }
const decision = { approvalId: 'apr_x', decidedBy: { kind: 'operator', name: 'ops' }, decidedAt: new Date().toISOString(), reason: null }
const args = {
  AgentDeniedError: [authorization],
  ApprovalRequiredError: [authorization],
  ApprovalRejectedError: [authorization, decision],
  ApprovalExpiredError: [authorization, 'apr_old'],
  WebhookVerificationError: ['missing_header', 'm'],
}
// The bundle's own error exports, found as the test finds the SDK's: the same, none lost on the way.
out.errorExports = Object.keys(sdk).filter((name) => typeof sdk[name] === 'function' && sdk[name].prototype instanceof Error).sort()
out.names = {}
for (const name of ${JSON.stringify(ERROR_CLASSES)}) out.names[name] = new sdk[name](...(args[name] ?? ['m'])).name

// A refusal from the server, as a worker would log it.
const growth = new sdk.Growth({ token: TOKEN, baseUrl: BASE_URL, maxRetries: 0 })
try {
  await growth.experiments.create({ kind: 'email_ab_test', subjectId: 'abt_0000000000000000000000000', hypothesis: 'The shorter subject line gets more opens.', expectation: 'b_better' })
} catch (error) {
  out.refusal = { notFound: error instanceof sdk.NotFoundError, text: String(error) }
}
try {
  await new sdk.Growth({ token: TOKEN, baseUrl: 'http://127.0.0.1:9/api/v1', maxRetries: 0 }).usage.get()
} catch (error) {
  out.noAnswer = String(error).split(':')[0]
}
let missions = 0
for await (const mission of growth.missions.list({ limit: 1 })) missions += mission.id.startsWith('msn_') ? 1 : 0
out.missions = missions
out.track = (await growth.track({ event: 'bundle.checked', email: 'olivia.bennett@gmail.com' }).withResponse()).replayed
out.verify = sdk.Webhooks.verify(BODY, HEADER, SECRET).id
out.verifyAsync = (await sdk.Webhooks.verifyAsync(new TextEncoder().encode(BODY), HEADER, [SECRET])).id
console.log(JSON.stringify(out))
`

describe('the packed SDK, bundled and minified for a worker', () => {
  test(
    'keeps every error’s name, and calls, pages and verifies webhooks with only fetch and Web Crypto',
    async () => {
      const { project } = await packedSdk()
      const entry = join(project, 'bundle-entry.mjs')
      writeFileSync(entry, "export * from '@growth-service/sdk'\n")
      const built = await Bun.build({ entrypoints: [entry], target: 'browser', format: 'esm', minify: true })
      expect(built.logs.filter((l) => l.level === 'error')).toEqual([])
      const bundle = await built.outputs[0]!.text()
      console.log(`@growth-service/sdk bundled whole and minified: ${(bundle.length / 1024).toFixed(1)} kB`)
      writeFileSync(join(project, 'sdk.min.js'), bundle)
      writeFileSync(join(project, 'bundle-run.mjs'), SCRIPT)

      const { sql, url } = await getHarness()
      const demo = await createDemoWorkspace(sql, { name: 'SDK bundle' })
      const body = JSON.stringify({ id: 'evt_bundle', event: 'contact.created', createdAt: new Date().toISOString(), workspaceId: demo.workspace.id, data: {} })
      const secret = 'whsec_bundle_0123456789abcdef0123456789abcdef'
      const scenario = { BASE_URL: `${url}/api/v1`, TOKEN: demo.tokens.live, BODY: body, HEADER: signatureHeader(body, [secret], Math.floor(Date.now() / 1000)), SECRET: secret }
      const deno = join(ROOT, 'node_modules', '.bin', 'deno')
      const proc = Bun.spawn([deno, 'run', '--no-npm', '--allow-net', '--allow-env=SCENARIO', '--no-prompt', 'bundle-run.mjs'], {
        cwd: project,
        stdout: 'pipe',
        stderr: 'pipe',
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1', SCENARIO: JSON.stringify(scenario) },
      })
      const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
      expect({ code, stderr }).toEqual({ code: 0, stderr: '' })
      const out = JSON.parse(stdout)
      expect(out.runtime).toEqual({ process: false, Buffer: false })
      // Read from the exports: the base class, the refusals and the receivers' error among them.
      expect(ERROR_CLASSES).toEqual(expect.arrayContaining(['GrowthError', 'NotFoundError', 'AgentDeniedError', 'WebhookVerificationError']))
      expect(out.errorExports).toEqual(ERROR_CLASSES)
      expect(out.names).toEqual(Object.fromEntries(ERROR_CLASSES.map((name) => [name, name])))
      expect(out.refusal).toEqual({ notFound: true, text: 'NotFoundError: No A/B test abt_0000000000000000000000000 in this workspace.' })
      expect(out.noAnswer).toBe('ConnectionError')
      expect(out.missions).toBeGreaterThan(1)
      expect(out.track).toBe(false)
      expect({ verify: out.verify, verifyAsync: out.verifyAsync }).toEqual({ verify: 'evt_bundle', verifyAsync: 'evt_bundle' })
    },
    PACK_TIMEOUT,
  )
})
