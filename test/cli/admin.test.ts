import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SCOPES } from '../../server/src/routes/operation.ts'
import { openDatabase } from '../../server/src/store/db.ts'
import { migrate } from '../../server/src/store/migrate.ts'

/**
 * The growth operator CLI, black-box: every test spawns `growth` as a real process, as an operator
 * would run it. The database is the PostgreSQL server at DATABASE_URL when set (never assumed
 * empty), otherwise one embedded database in a temporary DATA_DIR shared by the whole file.
 * Spawning bun and opening PGlite takes a second or two per command, hence the timeouts.
 */

const ROOT = join(import.meta.dir, '..', '..')
const dataDir = mkdtempSync(join(tmpdir(), 'growth-cli-test-'))
const T = 30_000

type Run = { code: number; stdout: string; stderr: string }

async function growth(args: string[], env: Record<string, string> = {}): Promise<Run> {
  const proc = Bun.spawn([process.execPath, 'cli/bin/growth.ts', ...args], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dataDir, ...env },
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  return { code, stdout, stderr }
}

/** Run a command with --json; it must succeed and print exactly one JSON object, nothing else. */
async function growthJson(args: string[], env: Record<string, string> = {}): Promise<any> {
  const r = await growth([...args, '--json'], env)
  if (r.code !== 0) throw new Error(`growth ${args.join(' ')} exited ${r.code}: ${r.stderr}`)
  const parsed = JSON.parse(r.stdout)
  expect(parsed).toBeObject()
  expect(Array.isArray(parsed)).toBe(false)
  return parsed
}

/** The command must be refused: non-zero exit, `error: ...` on stderr, nothing on stdout. */
function expectRefused(r: Run, message?: RegExp) {
  expect(r.stdout).toBe('')
  expect(r.code).not.toBe(0)
  expect(r.stderr).toMatch(/^error: /)
  if (message) expect(r.stderr).toMatch(message)
}

let workspaceId: string

beforeAll(async () => {
  const ws = await growthJson(['admin', 'workspace', 'create', '--name', 'CLI test workspace'])
  workspaceId = ws.id
}, T)

afterAll(() => {
  rmSync(dataDir, { recursive: true, force: true })
})

describe('growth', () => {
  test('with no arguments prints help and exits 0', async () => {
    const r = await growth([])
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('Usage: growth')
    expect(r.stdout).toContain('admin')
  }, T)

  test('an unknown command or option exits 1 with a clear message', async () => {
    const unknownCommand = await growth(['admin', 'workspaces', 'create'])
    expectRefused(unknownCommand, /unknown command 'workspaces'/)
    expect(unknownCommand.code).toBe(1)
    const unknownOption = await growth(['admin', 'workspace', 'create', '--name', 'X', '--colour', 'red', '--json'])
    expectRefused(unknownOption, /unknown option '--colour'/)
    expect(unknownOption.code).toBe(1)
  }, T)
})

describe('growth admin migrate', () => {
  test('works twice; the second time applies nothing', async () => {
    const first = await growthJson(['admin', 'migrate'])
    expect(first.applied).toBeArray()
    const second = await growthJson(['admin', 'migrate'])
    expect(second).toEqual({ applied: [], alreadyApplied: expect.any(Number) })
    expect(second.alreadyApplied).toBeGreaterThanOrEqual(1)
  }, T)
})

describe('growth admin workspace create', () => {
  test('--json prints exactly one JSON object with id, name and plan', async () => {
    const r = await growth(['admin', 'workspace', 'create', '--name', 'Acme', '--plan', 'scale', '--json'])
    expect(r.code).toBe(0)
    const ws = JSON.parse(r.stdout)
    expect(ws).toEqual({ id: expect.stringMatching(/^ws_[0-9a-z]{26}$/), name: 'Acme', plan: 'scale' })
    expect(r.stdout.trim().startsWith('{')).toBe(true)
    expect(r.stdout.trim().endsWith('}')).toBe(true)
    expect(workspaceId).toMatch(/^ws_/)
  }, T)

  test('for people, says what it created', async () => {
    const r = await growth(['admin', 'workspace', 'create', '--name', 'Acme People'])
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/^Created workspace ws_[0-9a-z]{26} "Acme People" on plan growth\n/)
  }, T)

  test('a bad --plan is refused, with a message on stderr and nothing on stdout', async () => {
    expectRefused(await growth(['admin', 'workspace', 'create', '--name', 'Acme', '--plan', 'gold', '--json']), /gold/)
  }, T)

  test('a missing --name is refused', async () => {
    expectRefused(await growth(['admin', 'workspace', 'create', '--json']), /--name/)
  }, T)
})

describe('growth admin token create', () => {
  test('gives a live token with every scope by default', async () => {
    const t = await growthJson(['admin', 'token', 'create', '--workspace', workspaceId])
    expect(t).toEqual({
      id: expect.stringMatching(/^cred_/),
      token: expect.stringMatching(/^svc_live_/),
      mode: 'live',
      scopes: [...SCOPES],
      expiresAt: null,
    })
  }, T)

  test('--test gives a test token; --scopes and --expires-at are kept', async () => {
    const t = await growthJson([
      'admin', 'token', 'create', '--workspace', workspaceId, '--test', '--scopes', 'read:growth', '--expires-at', '2031-01-31T00:00:00Z',
    ])
    expect(t.mode).toBe('test')
    expect(t.token).toMatch(/^svc_test_/)
    expect(t.scopes).toEqual(['read:growth'])
    expect(t.expiresAt).toBe('2031-01-31T00:00:00.000Z')
  }, T)

  test('an unknown scope is refused', async () => {
    expectRefused(await growth(['admin', 'token', 'create', '--workspace', workspaceId, '--scopes', 'read:growth,write:everything', '--json']), /write:everything/)
  }, T)

  test('a bad --expires-at is refused', async () => {
    expectRefused(await growth(['admin', 'token', 'create', '--workspace', workspaceId, '--expires-at', 'next tuesday', '--json']), /--expires-at/)
    expectRefused(await growth(['admin', 'token', 'create', '--workspace', workspaceId, '--expires-at', '2020-01-01T00:00:00Z', '--json']), /in the past/)
  }, T)

  test('an unknown workspace is refused', async () => {
    expectRefused(await growth(['admin', 'token', 'create', '--workspace', 'ws_00000000000000000000000000', '--json']), /ws_00000000000000000000000000/)
  }, T)
})

describe('growth admin token revoke', () => {
  test('revokes a token; a second time says it already was', async () => {
    const t = await growthJson(['admin', 'token', 'create', '--workspace', workspaceId])
    const r = await growth(['admin', 'token', 'revoke', t.id])
    expect(r.code).toBe(0)
    expect(r.stdout).toContain(t.id)
    const again = await growthJson(['admin', 'token', 'revoke', t.id])
    expect(again).toEqual({ id: t.id, revoked: true, alreadyRevoked: true })
  }, T)

  test('an unknown id exits non-zero', async () => {
    expectRefused(await growth(['admin', 'token', 'revoke', 'cred_00000000000000000000000000']), /cred_00000000000000000000000000/)
  }, T)
})

describe('growth admin agent create', () => {
  test('registers an agent allowed a tool action and prints its credential', async () => {
    const a = await growthJson(['admin', 'agent', 'create', '--workspace', workspaceId, '--name', 'Budget Pacer', '--allow', 'ads.pause_campaign'])
    expect(a.id).toMatch(/^agt_/)
    expect(a.credential).toMatch(/^svc_agt_/)
    expect(a.name).toBe('Budget Pacer')
  }, T)

  test('an unknown tool action is refused', async () => {
    expectRefused(
      await growth(['admin', 'agent', 'create', '--workspace', workspaceId, '--name', 'Rogue', '--allow', 'ads.launch_rockets', '--json']),
      /ads\.launch_rockets/,
    )
  }, T)
})

describe('growth admin agents stop / resume', () => {
  test('stop without --reason is refused', async () => {
    expectRefused(await growth(['admin', 'agents', 'stop', '--workspace', workspaceId, '--json']), /--reason/)
  }, T)

  test('stop with a reason, then resume', async () => {
    const stopped = await growthJson(['admin', 'agents', 'stop', '--workspace', workspaceId, '--reason', 'Runaway spend'])
    expect(stopped).toMatchObject({ workspaceId, agentsStopped: true, reason: 'Runaway spend' })
    expect(stopped.actor).toMatch(/^operator:/)
    const resumed = await growthJson(['admin', 'agents', 'resume', '--workspace', workspaceId])
    expect(resumed).toMatchObject({ workspaceId, agentsStopped: false })
  }, T)
})

const demoDataReady = existsSync(join(ROOT, 'server', 'src', 'store', 'demo-data.ts'))

describe('growth admin demo', () => {
  test.skipIf(!demoDataReady)('--json gives the workspace, its tokens, its agents and the fixtures', async () => {
    const demo = await growthJson(['admin', 'demo'])
    expect(demo.workspace).toEqual({ id: expect.stringMatching(/^ws_/), name: expect.any(String), plan: expect.any(String) })
    expect(demo.tokens.live).toMatch(/^svc_live_/)
    expect(demo.tokens.test).toMatch(/^svc_test_/)
    expect(demo.agents.length).toBeGreaterThanOrEqual(1)
    for (const a of demo.agents) expect(a).toMatchObject({ id: expect.stringMatching(/^agt_/), name: expect.any(String), credential: expect.stringMatching(/^svc_agt_/) })
    expect(demo.fixtures).toBeObject()
  }, T)
})

describe('while another process owns the embedded database', () => {
  test('the CLI works through its socket, and the owner sees the result', async () => {
    // This process plays the running server: it owns DATA_DIR. The CLI must not take it over.
    const owner = await openDatabase({ dataDir })
    try {
      expect(owner.kind).toBe('embedded-owner')
      await migrate(owner.sql)
      // DATABASE_URL emptied: this test is about the embedded database even when the suite runs on a server.
      const ws = await growthJson(['admin', 'workspace', 'create', '--name', 'Made while owned'], { DATABASE_URL: '' })
      const rows = await owner.sql<{ name: string }[]>`SELECT name FROM workspaces WHERE workspace_id = ${ws.id}`
      expect(rows.map((r) => r.name)).toEqual(['Made while owned'])
      // The owner is still serving after the CLI is gone.
      const [one] = await owner.sql`SELECT 1 AS one`
      expect(one!.one).toBe(1)
    } finally {
      await owner.close()
    }
  }, T)
})

describe.skipIf(Boolean(process.env.DATABASE_URL))('several commands at once on the embedded database', () => {
  test('with no server running, concurrent commands all succeed: the first owns the database and waits for the others', async () => {
    const fresh = mkdtempSync(join(tmpdir(), 'growth-cli-concurrent-'))
    try {
      const runs = await Promise.all(
        [1, 2, 3, 4].map((i) => growth(['admin', 'workspace', 'create', '--name', `Concurrent ${i}`, '--json'], { DATA_DIR: fresh })),
      )
      for (const r of runs) expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' })
      const ids = new Set(runs.map((r) => JSON.parse(r.stdout).id))
      expect(ids.size).toBe(4)
    } finally {
      rmSync(fresh, { recursive: true, force: true })
    }
  }, 60_000)
})
