import { beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { call, getHarness, makeWorkspace, type Workspace } from '../harness.ts'
import { CLI_TIMEOUT, growthIn, jsonOf, ROOT, type Run } from './run.ts'

/**
 * Where `growth` takes its credentials from, black-box: the CLI as a process against the test server.
 * The credentials option (--token, --base-url, --profile) and --json may stand before the command
 * as well as after it; a refused token, or a base URL with no server, is told with where it came from.
 */
const T = CLI_TIMEOUT
const NOWHERE = 'http://127.0.0.1:9/api/v1'
let ws: Workspace
let baseUrl: string
let configDir: string
let run: (args: string[], env?: Record<string, string>) => Promise<Run>

beforeAll(async () => {
  const h = await getHarness()
  ws = await makeWorkspace()
  baseUrl = `${h.url}/api/v1`
  configDir = mkdtempSync(join(tmpdir(), 'growth-credentials-'))
  // Profiles written as growth login writes them: `agent` holds a token the API does not know.
  writeFileSync(
    join(configDir, 'profiles.json'),
    JSON.stringify({ profiles: { work: { baseUrl, token: ws.live }, agent: { baseUrl, token: 'svc_agt_revokedlongago0000wxyz' } } }),
    { mode: 0o600 },
  )
  const growth = growthIn(h.dataDir)
  // Nothing from the environment of whoever runs the tests.
  run = (args, env = {}) => growth(args, { GROWTH_TOKEN: '', GROWTH_BASE_URL: '', GROWTH_PROFILE: '', GROWTH_CONFIG_DIR: configDir, ...env })
}, T)

const missionIds = async () => (await call('GET', '/api/v1/missions', { token: ws.live })).body.data.map((m: any) => m.id)

/** A --json list that succeeded: the ids of what it printed. */
function idsOf(r: Run): string[] {
  expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' })
  return JSON.parse(r.stdout).map((item: any) => item.id)
}

test(
  'an explicit --profile is a flag: it wins over GROWTH_TOKEN and GROWTH_BASE_URL',
  async () => {
    const r = await run(['missions', 'list', '--profile', 'work', '--json'], { GROWTH_TOKEN: 'svc_live_fromtheenvironment0000', GROWTH_BASE_URL: NOWHERE })
    expect(idsOf(r)).toEqual(await missionIds())
  },
  T,
)

describe('a refused token says which token and where it came from', () => {
  test(
    'from GROWTH_TOKEN',
    async () => {
      const r = await run(['missions', 'list'], { GROWTH_TOKEN: 'svc_live_notarealtoken0000abcd', GROWTH_BASE_URL: baseUrl })
      expect(r.code).toBe(1)
      expect(r.stdout).toBe('')
      expect(r.stderr).toStartWith(`error: the token from GROWTH_TOKEN (svc_live_…abcd) was refused by the API at ${baseUrl}: `)
      expect(r.stderr).toMatch(/\(401 unauthorized, request req_\w+\)\n$/)
      expect(r.stderr).not.toContain('notarealtoken')
    },
    T,
  )

  test(
    "from profile 'agent', also with --json",
    async () => {
      const r = await run(['agent', 'me', '--profile', 'agent', '--json'])
      expect(r.code).toBe(1)
      expect(r.stdout).toBe('')
      const envelope = JSON.parse(r.stderr)
      expect(envelope.error.code).toBe('unauthorized')
      expect(envelope.error.message).toStartWith(`the token from profile 'agent' (svc_agt_…wxyz) was refused by the API at ${baseUrl}: `)
    },
    T,
  )
})

describe('global flags stand before the command as well as after it', () => {
  test(
    '--token, --base-url and --json before the command',
    async () => {
      expect(idsOf(await run(['--token', ws.live, '--base-url', baseUrl, '--json', 'missions', 'list']))).toEqual(await missionIds())
    },
    T,
  )

  test(
    '--profile before the command; --json before the command, between its words and after it',
    async () => {
      const ids = await missionIds()
      expect(idsOf(await run(['--profile', 'work', 'missions', 'list', '--json']))).toEqual(ids)
      expect(idsOf(await run(['--json', 'missions', 'list'], { GROWTH_TOKEN: ws.live, GROWTH_BASE_URL: baseUrl }))).toEqual(ids)
      expect(idsOf(await run(['missions', '--json', 'list', '--profile', 'work']))).toEqual(ids)
    },
    T,
  )

  test(
    'given before and after, the one after the command wins',
    async () => {
      const r = await run(['--token', 'svc_live_before0000', '--base-url', NOWHERE, 'missions', 'list', '--token', ws.live, '--base-url', baseUrl, '--json'])
      expect(idsOf(r)).toEqual(await missionIds())
    },
    T,
  )

  test(
    'the commands beyond the generated ones take them too (growth --base-url ... mcp, growth --json contacts import)',
    async () => {
      const mcp = await run(['--base-url', NOWHERE, 'mcp', '--token', 'svc_agt_nosuchagent0000'])
      expect(mcp.code).toBe(1)
      expect(mcp.stderr).toContain(`no answer from the API at ${NOWHERE} (from --base-url): the connection was refused`)
      const file = join(configDir, 'one.csv')
      writeFileSync(file, 'email,name\nglobal.flags@example.com,Global Flags\n')
      const imported = await run(['--json', '--profile', 'work', 'contacts', 'import', file])
      expect(jsonOf(imported, 'contacts import')).toMatchObject({ rows: 1, created: 1 })
    },
    T,
  )

  test(
    'a command that does not take a flag given before it refuses it by name',
    async () => {
      const r = await run(['--token', ws.live, 'webhooks', 'verify', '--secret', 'whsec_x', '--header', 't=1,v1=00', 'nothing.json'])
      expect(r).toMatchObject({ code: 1, stdout: '', stderr: 'error: --token does not apply to growth webhooks verify (see growth webhooks verify --help)\n' })
      // growth mcp has commands under it, but takes no --json itself.
      const mcp = await run(['mcp', '--json', '--token', ws.live])
      expect(mcp.code).toBe(1)
      expect(JSON.parse(mcp.stderr).error.message).toBe('--json does not apply to growth mcp (see growth mcp --help)')
    },
    T,
  )
})

describe('no answer from the API: one sentence, or one JSON object with --json; exit 2', () => {
  test(
    'a base URL with no server',
    async () => {
      const r = await run(['missions', 'list', '--token', ws.live, '--base-url', NOWHERE])
      expect(r).toMatchObject({ code: 2, stdout: '' })
      expect(r.stderr).toBe(`error: no answer from the API at ${NOWHERE} (from --base-url): the connection was refused; is the server running, and is that its address?\n`)
      expect(r.stderr).not.toMatch(/[.?:;,]{2}/)
    },
    T,
  )

  test(
    'with --json: the error envelope, code no_answer, as one line on stderr',
    async () => {
      for (const args of [
        ['missions', 'list', '--json'],
        ['--json', 'login', '--token', ws.live],
      ]) {
        const r = await run(args, { GROWTH_TOKEN: ws.live, GROWTH_BASE_URL: NOWHERE })
        expect({ args, code: r.code, stdout: r.stdout }).toEqual({ args, code: 2, stdout: '' })
        const lines = r.stderr.trimEnd().split('\n')
        expect(lines).toHaveLength(1)
        expect(JSON.parse(lines[0]!)).toEqual({
          error: { code: 'no_answer', message: `no answer from the API at ${NOWHERE} (from GROWTH_BASE_URL): the connection was refused; is the server running, and is that its address?`, requestId: null },
        })
      }
    },
    T,
  )
})

test('the credentials option is declared in one place, for every command that calls the API', () => {
  const files = readdirSync(join(ROOT, 'cli/src'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'))
  const declaring = files.filter((f) => /['"`]--(token|base-url|profile) </.test(readFileSync(join(ROOT, 'cli/src', f), 'utf8')))
  expect(declaring).toEqual(['api/credentials.ts'])
})

describe('growth login --with-token', () => {
  /** growth login with `input` on its standard input (a pipe), in a config directory of its own. */
  async function login(args: string[], input: string) {
    const dir = mkdtempSync(join(tmpdir(), 'growth-with-token-'))
    const proc = Bun.spawn([process.execPath, 'cli/bin/growth.ts', 'login', ...args], {
      cwd: ROOT,
      env: { ...process.env, GROWTH_TOKEN: '', GROWTH_BASE_URL: '', GROWTH_PROFILE: '', GROWTH_CONFIG_DIR: dir },
      stdin: new Blob([input]),
      stdout: 'pipe',
      stderr: 'pipe',
    })
    const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
    return { code, stdout, stderr, dir }
  }

  test(
    'reads the token from standard input (out of the process list), checks it and saves it',
    async () => {
      const r = await login(['--with-token', '--base-url', baseUrl, '--profile', 'piped', '--json'], `${ws.live}\n`)
      expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' })
      expect(JSON.parse(r.stdout)).toMatchObject({ profile: 'piped', baseUrl })
      expect(r.stdout).not.toContain(ws.live)
      const saved = JSON.parse(readFileSync(join(r.dir, 'profiles.json'), 'utf8'))
      expect(saved.profiles.piped).toEqual({ baseUrl, token: ws.live })
    },
    T,
  )

  test(
    'nothing piped, a refused token, or --token beside it: each told, nothing saved',
    async () => {
      const empty = await login(['--with-token', '--base-url', baseUrl], '\n')
      expect(empty).toMatchObject({ code: 1, stdout: '', stderr: 'error: --with-token found nothing on standard input: pipe the token in (growth login --with-token < token.txt)\n' })
      const both = await login(['--with-token', '--token', ws.live, '--base-url', baseUrl], ws.live)
      expect(both).toMatchObject({ code: 1, stdout: '', stderr: 'error: --with-token reads the token from standard input: pass it there, or with --token, not both\n' })
      const refused = await login(['--with-token', '--base-url', baseUrl], 'svc_live_notonethisapiknows0000abcd')
      expect(refused.code).toBe(1)
      expect(refused.stderr).toStartWith('error: the token from standard input (')
      for (const r of [empty, both, refused]) expect(readdirSync(r.dir)).not.toContain('profiles.json')
    },
    T,
  )
})

describe('a base URL without /api/v1', () => {
  test(
    'the 404 it meets says the base URL should end in /api/v1, naming it and where it came from',
    async () => {
      const root = baseUrl.replace(/\/api\/v1$/, '')
      const r = await run(['missions', 'list', '--token', ws.live, '--base-url', root])
      expect(r.code).toBe(1)
      expect(r.stdout).toBe('')
      expect(r.stderr).toContain(`the base URL ${root} (from --base-url) should end in /api/v1, as ${root}/api/v1`)
      // With /api/v1 it answers; a 404 of a right base URL says nothing of it.
      expect((await run(['missions', 'list', '--token', ws.live, '--base-url', baseUrl])).code).toBe(0)
    },
    T,
  )
})
