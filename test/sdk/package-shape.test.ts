import { beforeAll, describe, expect, test } from 'bun:test'
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import ts from 'typescript'
import { PACK_TIMEOUT, type PackedSdk, packedSdk, ROOT, SDK_DIR } from './support/pack.ts'

/**
 * The package a user installs (npm pack of sdk/, installed into an empty project): what it holds,
 * what its package.json promises, that nothing in it needs `node:` (save the guarded look-up of
 * node:crypto for the synchronous webhook check), and that its types work for a consumer compiled
 * with the strictest settings.
 */

let sdk: PackedSdk
let installed: string

beforeAll(async () => {
  sdk = await packedSdk()
  installed = join(sdk.project, 'node_modules', '@growth-service', 'sdk')
}, PACK_TIMEOUT)

/** Every file under `dir`, as paths relative to `base`. */
function filesUnder(dir: string, base = dir): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name), base) : [relative(base, join(dir, e.name))]))
}

/** The text of every string, template and regular-expression literal of a module (comments are not literals). */
function stringLiterals(path: string, text: string): string[] {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true)
  const found: string[] = []
  const visit = (node: ts.Node) => {
    if (ts.isStringLiteralLike(node) || ts.isTemplateLiteralToken(node) || ts.isRegularExpressionLiteral(node)) found.push(node.text)
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

/** What a module imports or re-exports from (static and dynamic), and its triple-slash references. */
function moduleReferences(path: string, text: string): string[] {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true)
  const specifiers: string[] = []
  const visit = (node: ts.Node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) specifiers.push(node.moduleSpecifier.text)
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) specifiers.push(node.arguments[0] && ts.isStringLiteral(node.arguments[0]) ? node.arguments[0].text : '<computed>')
    if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'require') specifiers.push(`require:${node.arguments[0]?.getText()}`)
    if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) specifiers.push(node.argument.literal.text)
    ts.forEachChild(node, visit)
  }
  visit(source)
  for (const ref of [...source.typeReferenceDirectives, ...source.referencedFiles, ...source.libReferenceDirectives]) specifiers.push(`/// <reference ${ref.fileName}>`)
  return specifiers
}

describe('the packed @growth-service/sdk', () => {
  test('holds dist/*.js and dist/*.d.ts for every module of sdk/src, README.md and package.json, and nothing else', () => {
    const modules = filesUnder(join(SDK_DIR, 'src'))
      .filter((f) => f.endsWith('.ts'))
      .map((f) => f.slice(0, -'.ts'.length))
      .sort()
    expect(modules).toContain('index')
    expect(modules).toContain('webhooks/hmac')
    const expected = ['README.md', 'package.json', ...modules.flatMap((m) => [`dist/${m}.d.ts`, `dist/${m}.js`])].sort()
    expect(sdk.packed.files.map((f) => f.path).sort()).toEqual(expected)
    // Installed as packed.
    expect(filesUnder(installed).sort()).toEqual(expected)
    expect(readFileSync(join(installed, 'README.md'), 'utf8')).toContain('@growth-service/sdk')
    const kb = (n: number) => `${(n / 1024).toFixed(1)} kB`
    console.log(`@growth-service/sdk packed: ${kb(sdk.packed.size)} (${sdk.packed.size} bytes), unpacked ${kb(sdk.packed.unpackedSize)}, ${sdk.packed.files.length} files`)
    expect(sdk.packed.size).toBeGreaterThan(0)
  })

  test("sdk/README's Install section gives the package's size and file count as npm pack prints them (kB of 1000 bytes), within a tenth", () => {
    const readme = readFileSync(join(SDK_DIR, 'README.md'), 'utf8')
    const stated = /about (\d+) kB packed \((\d+) files, (\d+) kB unpacked/.exec(readme)
    expect(stated).not.toBeNull()
    const [packedKb, files, unpackedKb] = stated!.slice(1).map(Number) as [number, number, number]
    const actual = { packed: sdk.packed.size / 1000, files: sdk.packed.files.length, unpacked: sdk.packed.unpackedSize / 1000 }
    const within = (said: number, is: number) => Math.abs(is - said) <= is / 10
    const context = { stated: { packedKb, files, unpackedKb }, actual }
    expect({ ...context, close: { packed: within(packedKb, actual.packed), files: files === actual.files, unpacked: within(unpackedKb, actual.unpacked) } }).toEqual({
      ...context,
      close: { packed: true, files: true, unpacked: true },
    })
  })

  test('package.json: ESM with an exports map (types, then default) for the root and the tools subpaths, free of side effects, Node.js >= 20, no dependencies but optional peers', () => {
    const pkg = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8'))
    expect(pkg.name).toBe('@growth-service/sdk')
    expect(pkg.type).toBe('module')
    expect(pkg.sideEffects).toBe(false)
    expect(pkg.engines).toEqual({ node: '>=20' })
    expect(pkg.exports['.']).toEqual({ types: './dist/index.d.ts', default: './dist/index.js' })
    expect(pkg.exports['./tools']).toEqual({ types: './dist/tools/index.d.ts', default: './dist/tools/index.js' })
    expect(pkg.exports['./tools/ai']).toEqual({ types: './dist/tools/ai.d.ts', default: './dist/tools/ai.js' })
    expect(pkg.exports['./tools/openai-agents']).toEqual({ types: './dist/tools/openai-agents.d.ts', default: './dist/tools/openai-agents.js' })
    // TypeScript takes the first condition that matches: `types` must come before `default`.
    for (const [subpath, target] of Object.entries(pkg.exports)) {
      if (typeof target === 'object') expect({ subpath, conditions: Object.keys(target as object) }).toEqual({ subpath, conditions: ['types', 'default'] })
    }
    expect(pkg.types).toBe('./dist/index.d.ts')
    for (const field of ['dependencies', 'optionalDependencies', 'bundleDependencies', 'bundledDependencies', 'devDependencies']) {
      expect({ field, value: pkg[field] }).toEqual({ field, value: undefined })
    }
    // The frameworks the tools adapters fit are peers, every one optional: never installed for the SDK's sake.
    expect(Object.keys(pkg.peerDependencies).sort()).toEqual(['@openai/agents', 'ai'])
    expect(pkg.peerDependenciesMeta).toEqual({ '@openai/agents': { optional: true }, ai: { optional: true } })
    // Nothing but the package itself was installed into the empty project.
    expect(readdirSync(join(sdk.project, 'node_modules')).filter((n) => !n.startsWith('.'))).toEqual(['@growth-service'])
  })

  test('imports nothing outside itself, and uses node: only in the guarded look-up of node:crypto for the synchronous webhook check', () => {
    const dist = filesUnder(join(installed, 'dist')).sort()
    // A literal that is a whole node: specifier is something loaded; node: in a sentence (an error
    // message telling node:http users where the raw body is) or in a comment loads nothing.
    const loads: { file: string; literal: string }[] = []
    const prose: string[] = []
    for (const file of dist) {
      const text = readFileSync(join(installed, 'dist', file), 'utf8')
      // Every import and re-export is relative (into the package), static, and no file references types
      // from elsewhere: the tools adapters take the framework's own function, they import nothing of it.
      const outside = moduleReferences(file, text).filter((s) => !/^\.\.?\//.test(s))
      expect({ file, outside }).toEqual({ file, outside: [] })
      for (const literal of stringLiterals(file, text)) if (/^node:[\w/]+$/.test(literal.trim())) loads.push({ file, literal })
      if (text.includes('node:') && !loads.some((c) => c.file === file)) prose.push(file)
    }
    expect(loads).toEqual([{ file: 'webhooks/hmac.js', literal: 'node:crypto' }])
    // The look-up: through process.getBuiltinModule when there is one, inside a try, at call time.
    const hmac = readFileSync(join(installed, 'dist', 'webhooks', 'hmac.js'), 'utf8')
    expect(hmac).toMatch(/try\s*\{\s*const \w+ = globalThis\.process\?\.getBuiltinModule\?\.\('node:crypto'\);/)
    expect(hmac.match(/node:crypto'/g)).toHaveLength(1)
    console.log(`dist files naming node: only in comments or messages: ${prose.join(', ') || 'none'}`)
  })

  test(
    'types for a consumer under tsc --strict (nodenext, bundler and node10): a test token’s writes are { simulated: true }, bodies and items typed',
    async () => {
      const dir = join(sdk.project, 'typecheck')
      mkdirSync(dir, { recursive: true })
      writeFileSync(join(dir, 'consumer.ts'), CONSUMER)
      writeFileSync(join(dir, 'wrong.ts'), WRONG)
      const configs: Record<string, { compilerOptions: object; files: string[] }> = {}
      for (const [name, options] of Object.entries(CONFIGS)) {
        const compilerOptions = { ...options, target: 'ES2022', lib: ['ES2022', 'DOM', 'DOM.Iterable'], types: [], strict: true, noEmit: true, skipLibCheck: false, exactOptionalPropertyTypes: true, noUncheckedIndexedAccess: true }
        configs[name] = { compilerOptions, files: ['consumer.ts'] }
        // The same check fails when a type is wrong: a live token's write taken for a simulated one.
        if (name === 'nodenext') configs.wrong = { compilerOptions, files: ['wrong.ts'] }
      }
      const tsc = async (name: string) => {
        writeFileSync(join(dir, `tsconfig.${name}.json`), JSON.stringify(configs[name], null, 2))
        const proc = Bun.spawn([join(ROOT, 'node_modules', '.bin', 'tsc'), '-p', `tsconfig.${name}.json`, '--noEmit', '--strict'], { cwd: dir, stdout: 'pipe', stderr: 'pipe' })
        const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
        return [name, { code, output: `${out}${err}`.trim() }] as const
      }
      const results = Object.fromEntries(await Promise.all(Object.keys(configs).map(tsc)))
      const { wrong, ...consumer } = results
      expect(consumer).toEqual({ nodenext: { code: 0, output: '' }, bundler: { code: 0, output: '' }, node10: { code: 0, output: '' } })
      expect(wrong!.code).not.toBe(0)
      expect(wrong!.output).toContain('wrong.ts(')
      expect(wrong!.output).toContain('simulated')
    },
    60_000,
  )
})

const CONFIGS = {
  nodenext: { module: 'nodenext', moduleResolution: 'nodenext' },
  bundler: { module: 'esnext', moduleResolution: 'bundler' },
  // The resolution many projects on TypeScript 5 still have, which reads no exports map.
  node10: { module: 'esnext', moduleResolution: 'node' },
}

/** A consumer's program: compiles only if the package's types say what the contract says. */
const CONSUMER = `import {
  BadRequestError,
  ConnectionError,
  Growth,
  GrowthError,
  isSimulated,
  NotFoundError,
  Page,
  RateLimitError,
  type Experiment,
  type Mission,
  type Simulated,
  type WithResponse,
  Webhooks,
} from '@growth-service/sdk'
import { AgentDeniedError, ApprovalRequiredError, guarded } from '@growth-service/sdk/tools'
import { guardTool } from '@growth-service/sdk/tools/ai'
import { guardedTool } from '@growth-service/sdk/tools/openai-agents'

export async function main(): Promise<void> {
  const body = { hypothesis: 'Subject line A wins on opens.', kind: 'email_ab_test', subjectId: 'abt_1', expectation: 'a_better' } as const

  // A test token's write is { simulated: true }, and only that.
  const testing = new Growth({ token: 'svc_test_abc' as const })
  const simulated = await testing.experiments.create(body)
  const s: { simulated: true } = simulated
  const s2: Simulated = await testing.track({ event: 'signup', email: 'a@example.com' })
  // @ts-expect-error a simulated write has no id
  simulated.id

  // A live token's write is the record.
  const live = new Growth({ token: 'svc_live_abc' as const })
  const experiment = await live.experiments.create(body)
  const e: Experiment = experiment
  const id: string = experiment.id
  // @ts-expect-error a live token's write is not { simulated: true }
  const notSimulated: { simulated: true } = experiment

  // A token whose prefix the types cannot see: either, told apart by isSimulated.
  const token: string = 'svc_live_abc'
  const either = await new Growth({ token }).contacts.import({ contacts: [{ email: 'a@example.com' }] })
  // @ts-expect-error it may be simulated: check first
  either.totals
  if (!isSimulated(either)) {
    const created: number = either.totals.created
    void created
  }

  // Bodies are checked: an unknown field, a missing one, a wrong value.
  // @ts-expect-error no such field
  await live.experiments.create({ ...body, colour: 'blue' })
  // @ts-expect-error hypothesis is required
  await live.experiments.create({ kind: 'email_ab_test', subjectId: 'abt_1', expectation: 'a_better' })
  // @ts-expect-error not a kind of action
  await live.actions.create({ kind: 'launch_rocket', args: {} })
  // @ts-expect-error signals have no such status
  live.signals.list({ status: 'ignored' })

  // Lists: a page of typed items, every page with for await.
  const page = await live.missions.list({ limit: 2 })
  const pageIsPage: Page<Mission> = page
  const first: Mission | undefined = page.data[0]
  const name: string | undefined = first?.name
  // @ts-expect-error a mission has no such field
  first?.colour
  if (page.hasNextPage()) {
    const next: Page<Mission> = await page.nextPage()
    void next
  }
  for await (const decision of live.decisions.list({ limit: 50 })) {
    const title: string = decision.title
    void title
  }
  for await (const p of page.iterPages()) void p.data.length

  // withResponse, errors.
  const answer: WithResponse<unknown> = await live.usage.get().withResponse()
  const remaining: number | undefined = answer.rateLimit?.remaining
  const requestId: string | undefined = answer.requestId
  const replayed: boolean = answer.replayed
  try {
    await live.decisions.list({ missionId: 'msn_x' })
  } catch (err) {
    if (err instanceof RateLimitError) {
      const wait: number | undefined = err.retryAfter
      void wait
    } else if (err instanceof NotFoundError) {
      // A status's class types the code that status always carries.
      const code: 'not_found' = err.code
      void code
    } else if (err instanceof GrowthError) {
      const status: number | undefined = err.status
      const code: string | undefined = err.code
      void [status, code, err.requestId]
    }
  }
  const invalid: 'invalid_parameter' | 'invalid_body' | 'invalid_request' = new BadRequestError('bad').code
  const limited: 'rate_limited' = new RateLimitError('slow down').code
  // @ts-expect-error a 404 never carries rate_limited
  const notLimited: 'rate_limited' = new NotFoundError('gone').code
  // No answer, no code.
  const noCode: undefined = new ConnectionError('down').code
  void [invalid, limited, notLimited, noCode]

  // Agents, with an agent credential.
  const agent = new Growth({ token: 'svc_agt_abc' as const })
  const auth = await agent.agent.authorize({ tool: 'ads', action: 'pause_campaign', facts: { amountMinor: 100, currency: 'USD' } })
  const mayProceed: boolean = auth.mayProceed
  // A credential read from the environment (a string whose prefix the types cannot see): the gateway
  // never simulates, so its answers are the authorization and the result, with no check first.
  const agentToken: string = 'svc_agt_abc'
  const fromEnv = new Growth({ token: agentToken })
  const asked = await fromEnv.agent.authorize({ tool: 'ads', action: 'pause_campaign' })
  const decision: 'allowed' | 'denied' | 'requires_approval' = asked.decision
  const reported: string = (await fromEnv.agent.result({ authorizationId: asked.authorizationId, status: 'completed' })).id
  // The answer narrows on decision: what each decision always carries, typed as such.
  if (asked.decision === 'allowed') {
    const until: string = asked.expiresAt
    const yes: true = asked.mayProceed
    void [until, yes]
  } else if (asked.decision === 'requires_approval') {
    const approvalId: string = asked.approvalId
    const no: false = asked.mayProceed
    void [approvalId, no]
  } else {
    const no: false = asked.mayProceed
    const none: null = asked.expiresAt
    void [no, none]
  }
  if (asked.mayProceed) {
    const allowed: 'allowed' = asked.decision
    void allowed
  }
  // @ts-expect-error not a fact
  await agent.agent.authorize({ tool: 'ads', action: 'pause_campaign', facts: { colour: 'red' } })
  // @ts-expect-error options are checked too
  new Growth({ token: 'svc_live_abc', maxRetries: '2' })

  // Guarded tools: the same signature, a promise of the same value; facts typed by the contract.
  const send = guarded((to: string[], subject: string) => ({ sent: to.length, subject }), {
    client: agent,
    tool: 'email',
    action: 'send_campaign',
    resource: (_to, subject) => subject,
    facts: (to) => ({ recipients: to.length }),
  })
  const sent: { sent: number; subject: string } = await send(['a@example.com'], 'Hello')
  // @ts-expect-error the guarded function takes the arguments of the function it guards
  await send('a@example.com', 'Hello')
  // @ts-expect-error not a fact
  guarded(() => 1, { tool: 'ads', action: 'pause_campaign', facts: () => ({ colour: 'red' }) })
  const aiShaped = guardTool({ description: 'x', execute: async (input: { id: string }, _options: { toolCallId: string }) => input.id }, { tool: 'ads', action: 'pause_campaign', resource: (input) => input.id })
  const fromAi: string = await aiShaped.execute(input0, { toolCallId: 'c' })
  const agentsShaped = guardedTool((o: { name: string }) => ({ tool: o.name }), { name: 'pause', execute: async (input: { id: string }) => input.id }, { tool: 'ads', action: 'pause_campaign', resource: (input) => input.id })
  const agentsName: string = agentsShaped.tool
  try {
    await send(['a@example.com'], 'Hello')
  } catch (err) {
    if (err instanceof AgentDeniedError) void err.checks
    if (err instanceof ApprovalRequiredError) void err.approvalId
  }

  void [s, s2, e, id, notSimulated, pageIsPage, name, remaining, requestId, replayed, mayProceed, decision, reported, sent, fromAi, agentsName]
}

// Under exactOptionalPropertyTypes, an optional setting, filter or field may be passed as a value that may
// be undefined (forwarded from the environment or the caller's own options): the SDK leaves it out.
export async function forwarded(env: { GROWTH_TOKEN?: string; GROWTH_BASE_URL?: string }, opts: { signal?: AbortSignal; timeout?: number }, missionId?: string): Promise<void> {
  const growth = new Growth({ token: env.GROWTH_TOKEN, baseUrl: env.GROWTH_BASE_URL, maxRetries: undefined })
  await growth.usage.get(undefined, { signal: opts.signal, timeout: opts.timeout, idempotencyKey: undefined })
  await growth.decisions.list({ missionId, limit: 50 })
  await growth.agent.authorize({ tool: 'ads', action: 'pause_campaign', resource: missionId, facts: { amountMinor: undefined, currency: 'USD' } })
  await growth.agent.guard({ tool: 'ads', action: 'pause_campaign', resource: missionId }, () => 1, { signal: opts.signal, waitForApproval: { timeoutMs: opts.timeout } })
  Webhooks.verify('{}', null, 'whsec_x', { tolerance: opts.timeout, now: undefined })
  // @ts-expect-error a required field is still required
  await growth.track({ event: 'signup', email: missionId })
  const recipients: number | undefined = opts.timeout
  guarded((to: string[]) => to.length, { tool: 'email', action: 'send_campaign', resource: missionId, facts: () => ({ recipients }), waitForApproval: undefined, client: undefined })
}

// A webhook receiver: checking event narrows data to that event type's payload.
export function receive(body: string, headers: Headers): string {
  const event = Webhooks.verify(body, headers, 'whsec_x')
  if (event.event === 'action.applied') {
    const status: string = event.data.action.status
    const applied: string | null = event.data.action.appliedAt
    return \`\${status} \${applied}\`
  }
  if (event.event === 'webhook.test') {
    // @ts-expect-error a test delivery carries no action
    event.data.action
    return event.data.endpoint.url
  }
  // @ts-expect-error data is not known until event is checked
  event.data.action
  return event.id
}
const input0 = { id: 'cmp_1' }
`

/** The same package, a wrong claim: must not compile. */
const WRONG = `import { Growth } from '@growth-service/sdk'
export async function wrong(): Promise<{ simulated: true }> {
  const live = new Growth({ token: 'svc_live_abc' as const })
  return live.experiments.create({ hypothesis: 'Subject line A wins on opens.', kind: 'email_ab_test', subjectId: 'abt_1', expectation: 'a_better' })
}
`
