import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SCOPES } from '../../server/src/core/caller.ts'
import { openDatabase } from '../../server/src/store/driver/db.ts'
import { migrate } from '../../server/src/store/driver/migrate.ts'
import { CLI_TIMEOUT, expectRefused, growthIn, jsonOf } from './run.ts'

/**
 * The growth operator CLI, black-box: every test spawns `growth` as a real process, as an operator
 * would run it. The database is the PostgreSQL server at DATABASE_URL when set (never assumed
 * empty), otherwise one embedded database in a temporary DATA_DIR shared by the whole file.
 * Spawning bun and opening PGlite takes a second or two per command, hence the timeouts.
 */

const dataDir = mkdtempSync(join(tmpdir(), 'growth-cli-test-'))
const T = CLI_TIMEOUT
const growth = growthIn(dataDir)

/** Run a command with --json; it must succeed and print exactly one JSON object, nothing else. */
const growthJson = async (args: string[], env: Record<string, string> = {}) => jsonOf(await growth([...args, '--json'], env), args.join(' '))

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
    expect(second).toEqual({ applied: [], alreadyApplied: expect.any(Number), edited: [] })
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
    // A day that does not exist, trailing text, and a time without a zone are refused, not rolled over or guessed.
    for (const bad of ['2031-02-30', '2031-01-01junk', '2031-01-31T00:00:00']) {
      expectRefused(await growth(['admin', 'token', 'create', '--workspace', workspaceId, '--expires-at', bad, '--json']), /--expires-at must be/)
    }
    expectRefused(await growth(['admin', 'token', 'create', '--workspace', workspaceId, '--expires-at', '2020-01-01T00:00:00Z', '--json']), /in the past/)
  }, T)

  test('an unknown workspace is refused', async () => {
    expectRefused(await growth(['admin', 'token', 'create', '--workspace', 'ws_00000000000000000000000000', '--json']), /ws_00000000000000000000000000/)
  }, T)
})

describe('growth admin token create --scopes', () => {
  test('a scope a letter off is answered with the one meant, and the list; one close to none with the list alone', async () => {
    const r = await growth(['admin', 'token', 'create', '--workspace', workspaceId, '--scopes', 'read:growth,read:logz'])
    expectRefused(r, /^error: Unknown scope read:logz \(did you mean read:logs\?\); scopes are read:growth, .* or all\. \(--scopes\)$/m)
    expectRefused(await growth(['admin', 'token', 'create', '--workspace', workspaceId, '--scopes', 'admin']), /^error: Unknown scope admin; scopes are read:growth, .* or all\. \(--scopes\)$/m)
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

  test('a token given in place of its id (what an operator holds when one leaks) is refused naming its id and the command, never printing the token', async () => {
    const t = await growthJson(['admin', 'token', 'create', '--workspace', workspaceId])
    for (const json of [[], ['--json']]) {
      const r = await growth(['admin', 'token', 'revoke', t.token, ...json])
      expectRefused(r, new RegExp(`is a token, not its id: revoke takes the credential id, here ${t.id}: growth admin token revoke ${t.id}`))
      expect(r.stderr).toContain(`…${t.token.slice(-4)}`)
      expect(r.stderr).not.toContain(t.token.slice(-12))
    }
    // A token of no credential here: said so, still without the token.
    const unknown = `${t.token.slice(0, -8)}00000000`
    const r = await growth(['admin', 'token', 'revoke', unknown])
    expectRefused(r, /is a token, not its id, and no credential of this database is that token/)
    expect(r.stderr).not.toContain(unknown.slice(-12))
    // Still in force: nothing was revoked.
    expect((await growthJson(['admin', 'token', 'revoke', t.id])).alreadyRevoked).toBe(false)
  }, T * 2)
})

describe('growth admin token list', () => {
  test("a workspace's API tokens, those in force first and each newest first, by id, state and last four, never the token; another workspace's and agents' credentials not", async () => {
    const ws = await growthJson(['admin', 'workspace', 'create', '--name', 'Token list'])
    const empty = await growth(['admin', 'token', 'list', '--workspace', ws.id])
    expect({ code: empty.code, stdout: empty.stdout.trim() }).toEqual({ code: 0, stdout: `No API token in workspace ${ws.id}. Issue one: growth admin token create --workspace ${ws.id}` })

    const revoked = await growthJson(['admin', 'token', 'create', '--workspace', ws.id])
    await growthJson(['admin', 'token', 'revoke', revoked.id])
    const live = await growthJson(['admin', 'token', 'create', '--workspace', ws.id])
    const test = await growthJson(['admin', 'token', 'create', '--workspace', ws.id, '--test', '--scopes', 'read:growth,read:logs', '--expires-at', '2031-01-31T00:00:00Z'])
    await growthJson(['admin', 'agent', 'create', '--workspace', ws.id, '--name', 'Not a token', '--allow', 'ads.pause_campaign'])
    await growthJson(['admin', 'token', 'create', '--workspace', workspaceId])

    const r = await growthJson(['admin', 'token', 'list', '--workspace', ws.id])
    expect(r.more).toBe(false)
    expect(r.tokens.map((t: { id: string }) => t.id)).toEqual([test.id, live.id, revoked.id])
    expect(r.tokens[0]).toEqual({
      id: test.id, mode: 'test', state: 'active', hint: test.token.slice(-4), scopes: ['read:growth', 'read:logs'],
      createdAt: expect.any(String), lastUsedAt: null, expiresAt: '2031-01-31T00:00:00.000Z', revokedAt: null, replacedBy: null,
    })
    expect(r.tokens[2]).toMatchObject({ state: 'revoked', revokedAt: expect.any(String) })

    const human = await growth(['admin', 'token', 'list', '--workspace', ws.id])
    expect({ code: human.code, stderr: human.stderr }).toEqual({ code: 0, stderr: '' })
    const lines = human.stdout.trimEnd().split('\n')
    expect(lines[0]).toMatch(/^ID +MODE +STATE +SCOPES +ENDS WITH +CREATED +LAST USED +EXPIRES$/)
    expect(lines.slice(1).map((l) => l.split(/ {2,}/).slice(0, 5))).toEqual([
      [test.id, 'test', 'active', 'read:growth,read:logs', `…${test.token.slice(-4)}`],
      [live.id, 'live', 'active', 'all', `…${live.token.slice(-4)}`],
      [revoked.id, 'live', 'revoked', 'all', `…${revoked.token.slice(-4)}`],
    ])
    for (const t of [revoked, live, test]) expect(human.stdout + JSON.stringify(r)).not.toContain(t.token.slice(-12))

    expectRefused(await growth(['admin', 'token', 'list', '--workspace', 'ws_00000000000000000000000000', '--json']), /No workspace ws_00000000000000000000000000/)
  }, T * 3)
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

describe('growth admin workspace list', () => {
  test('lists the database\'s workspaces newest first, with plan and stop switch; --limit bounds it and says there are more', async () => {
    const a = await growthJson(['admin', 'workspace', 'create', '--name', 'List A', '--plan', 'starter'])
    const b = await growthJson(['admin', 'workspace', 'create', '--name', 'List B'])
    await growthJson(['admin', 'agents', 'stop', '--workspace', b.id, '--reason', 'Listing'])
    const all = await growthJson(['admin', 'workspace', 'list', '--limit', '1000'])
    expect(Object.keys(all).sort()).toEqual(['more', 'workspaces'])
    const ids = all.workspaces.map((w: { id: string }) => w.id)
    expect(ids.slice(0, 2)).toEqual([b.id, a.id])
    expect(ids).toContain(workspaceId)
    const createdAts = all.workspaces.map((w: { createdAt: string }) => Date.parse(w.createdAt))
    expect([...createdAts].sort((x, y) => y - x)).toEqual(createdAts)
    expect(all.workspaces[0]).toEqual({ id: b.id, name: 'List B', plan: 'growth', agentsStopped: true, createdAt: expect.any(String) })
    expect(all.workspaces[1]).toEqual({ id: a.id, name: 'List A', plan: 'starter', agentsStopped: false, createdAt: expect.any(String) })
    const two = await growth(['admin', 'workspace', 'list', '--limit', '2', '--json'])
    expect(jsonOf(two, 'workspace list')).toEqual({ workspaces: all.workspaces.slice(0, 2), more: true })
    // For a person: a table, and a note on stderr that there are more.
    const human = await growth(['admin', 'workspace', 'list', '--limit', '2'])
    expect(human.stdout).toMatch(/^ID\s+PLAN\s+AGENTS\s+CREATED\s+NAME\n/)
    expect(human.stdout).toMatch(new RegExp(`^${b.id}\\s+growth\\s+stopped\\s+\\S+\\s+List B$`, 'm'))
    expect(human.stdout.trim().split('\n')).toHaveLength(3)
    expect(human.stderr).toContain('More than 2 workspaces; --limit 4 shows more.')
    expectRefused(await growth(['admin', 'workspace', 'list', '--limit', '0']), /--limit must be a whole number from 1 to 1000 \(got 0\)/)
  }, T)

  test.skipIf(Boolean(process.env.DATABASE_URL))('a database without a workspace says so and how to make one', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'growth-cli-empty-'))
    try {
      const inEmpty = growthIn(empty)
      expect((await inEmpty(['admin', 'migrate'])).code).toBe(0)
      const listed = await inEmpty(['admin', 'workspace', 'list'])
      expect(listed.code).toBe(0)
      expect(listed.stdout).toBe(`No workspace in the embedded database in ${empty} yet. Make one: growth admin workspace create --name NAME (or growth admin demo).\n`)
      expect(jsonOf(await inEmpty(['admin', 'workspace', 'list', '--json']), 'workspace list')).toEqual({ workspaces: [], more: false })
    } finally {
      rmSync(empty, { recursive: true, force: true })
    }
    // Four commands, the first migrating a new embedded database from nothing: 27 s on a loaded machine.
  }, T * 2)
})

describe('growth admin agents stop / resume', () => {
  test('stop without --reason is refused', async () => {
    expectRefused(await growth(['admin', 'agents', 'stop', '--workspace', workspaceId, '--json']), /--reason/)
  }, T)

  test('a reason with a control character, or longer than 500 characters, is refused as a decision\'s reason is', async () => {
    expectRefused(await growth(['admin', 'agents', 'stop', '--workspace', workspaceId, '--reason', 'Spend \u001b[2J gone', '--json']), /control characters other than line breaks and tabs \(got U\+001B\)/)
    expectRefused(await growth(['admin', 'agents', 'stop', '--workspace', workspaceId, '--reason', 'x'.repeat(501), '--json']), /at most 500 characters \(got 501\)/)
    expect((await growthJson(['admin', 'agents', 'resume', '--workspace', workspaceId])).changed).toBe(false)
  }, T)

  test('stop with a reason, then resume', async () => {
    const stopped = await growthJson(['admin', 'agents', 'stop', '--workspace', workspaceId, '--reason', 'Runaway spend'])
    expect(stopped).toMatchObject({ workspaceId, agentsStopped: true, reason: 'Runaway spend' })
    // Who, as the audit list writes an actor; for a person at a terminal, the login and its kind.
    expect(stopped.actor).toEqual({ kind: 'operator', name: expect.any(String) })
    const resumed = await growth(['admin', 'agents', 'resume', '--workspace', workspaceId])
    expect(resumed.stdout).toBe(`Resumed the agents of workspace ${workspaceId}\n  By: ${stopped.actor.name} (operator)\n`)
    const stoppedAgain = await growth(['admin', 'agents', 'stop', '--workspace', workspaceId, '--reason', 'Runaway spend'])
    expect(stoppedAgain.stdout).toContain(`  By:     ${stopped.actor.name} (operator)\n`)
    expect(await growthJson(['admin', 'agents', 'resume', '--workspace', workspaceId])).toMatchObject({ workspaceId, agentsStopped: false, actor: stopped.actor })
  }, T)

  test('a stop when stopped, or a resume when running, changes nothing and records nothing; the first stop\'s reason stands', async () => {
    const audited = async () => ((await growthJson(['admin', 'audit', '--workspace', workspaceId, '--limit', '100'])).entries as { action: string }[]).filter((e) => e.action.startsWith('agents.')).length
    const before = await audited()
    expect(await growthJson(['admin', 'agents', 'stop', '--workspace', workspaceId, '--reason', 'Runaway spend'])).toMatchObject({ changed: true })
    const again = await growthJson(['admin', 'agents', 'stop', '--workspace', workspaceId, '--reason', 'Still runaway'])
    expect(again).toMatchObject({ workspaceId, agentsStopped: true, changed: false, reason: 'Runaway spend' })
    // The standing stop's actor, the same shape as a stop just made.
    expect(again.actor).toEqual({ kind: 'operator', name: expect.any(String) })
    expect(Date.parse(again.since)).toBeGreaterThan(Date.now() - 60_000)
    const told = await growth(['admin', 'agents', 'stop', '--workspace', workspaceId, '--reason', 'Once more'])
    expect(told.code).toBe(0)
    expect(told.stdout).toContain(`The agents of workspace ${workspaceId} were already stopped; nothing changed. The standing stop:`)
    expect(told.stdout).toContain('Reason: Runaway spend')
    expect(await audited()).toBe(before + 1)
    expect(await growthJson(['admin', 'agents', 'resume', '--workspace', workspaceId])).toMatchObject({ changed: true })
    const running = await growth(['admin', 'agents', 'resume', '--workspace', workspaceId])
    expect(running.code).toBe(0)
    expect(running.stdout).toContain(`The agents of workspace ${workspaceId} were not stopped; nothing changed.`)
    expect(await growthJson(['admin', 'agents', 'resume', '--workspace', workspaceId])).toMatchObject({ agentsStopped: false, changed: false })
    expect(await audited()).toBe(before + 2)
  }, T)
})

describe('a database that cannot be opened', () => {
  test('is a refusal (exit 1) naming the setting to fix, not a crash', async () => {
    // Said as the server says it at start: the URL (its password hidden), the cause, and what to check.
    const refused = await growth(['admin', 'workspace', 'create', '--name', 'x'], { DATABASE_URL: 'postgres://postgres:s3cret@127.0.0.1:1/none' })
    expectRefused(refused, /^error: Cannot connect to the PostgreSQL server at DATABASE_URL \(postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:1\/none\): connection refused\. Check DATABASE_URL \(postgres:\/\/user:password@host:port\/database\) and that PostgreSQL is running and reachable there\.$/m)
    expect(refused.stderr).not.toContain('s3cret')
    const file = join(dataDir, 'not-a-directory')
    await Bun.write(file, 'x')
    expectRefused(await growth(['admin', 'workspace', 'create', '--name', 'x'], { DATABASE_URL: '', DATA_DIR: file }), /cannot open the embedded database in .*not-a-directory \(DATA_DIR\)/)
  }, T)
})

describe('growth admin demo', () => {
  test('--json gives the workspace, its tokens with every scope, its agents and the fixtures the contract names', async () => {
    const demo = await growthJson(['admin', 'demo'])
    expect(Object.keys(demo).sort()).toEqual(['agents', 'fixtures', 'tokens', 'workspace'])
    expect(demo.workspace).toEqual({ id: expect.stringMatching(/^ws_/), name: expect.any(String), plan: expect.any(String) })
    expect(demo.tokens).toEqual({ live: expect.stringMatching(/^svc_live_/), test: expect.stringMatching(/^svc_test_/) })
    expect(demo.agents.length).toBeGreaterThanOrEqual(1)
    for (const a of demo.agents) expect(a).toMatchObject({ id: expect.stringMatching(/^agt_/), name: expect.any(String), credential: expect.stringMatching(/^svc_agt_/) })
    expect(demo.fixtures).toEqual({
      openAbTestId: expect.stringMatching(/^abt_/),
      decidedAbTestId: expect.stringMatching(/^abt_/),
      emailSendId: expect.stringMatching(/^snd_/),
      decisionId: expect.stringMatching(/^dec_/),
      listId: expect.stringMatching(/^lst_/),
      contactEmail: expect.stringContaining('@'),
      doNotContactEmail: expect.stringContaining('@'),
      trackedEvent: expect.any(String),
      // beyond the contract's list: what the README's tour uses
      missionId: expect.stringMatching(/^msn_/),
      campaignId: expect.stringMatching(/^cmp_/),
    })
    // What the fixtures say they are, read back from the database the CLI wrote.
    const db = await openDatabase({ databaseUrl: process.env.DATABASE_URL, dataDir })
    try {
      const ws = demo.workspace.id
      const f = demo.fixtures
      const creds = await db.sql<{ kind: string; scopes: string[] }[]>`
        SELECT kind, scopes FROM credentials WHERE workspace_id = ${ws} AND kind IN ('live', 'test') ORDER BY kind`
      expect(creds.map((c) => c.kind)).toEqual(['live', 'test'])
      for (const c of creds) expect([...c.scopes].sort()).toEqual([...SCOPES].sort())
      const [facts] = await db.sql<any[]>`
        SELECT (SELECT status FROM ab_tests WHERE workspace_id = ${ws} AND id = ${f.openAbTestId}) AS open_test,
               (SELECT status FROM ab_tests WHERE workspace_id = ${ws} AND id = ${f.decidedAbTestId}) AS decided_test,
               (SELECT holdout_status FROM email_sends WHERE workspace_id = ${ws} AND id = ${f.emailSendId}) AS send_holdout,
               (SELECT count(*)::int FROM decisions WHERE workspace_id = ${ws} AND id = ${f.decisionId}) AS decisions,
               (SELECT count(*)::int FROM lists WHERE workspace_id = ${ws} AND id = ${f.listId}) AS lists,
               (SELECT count(*)::int FROM contacts WHERE workspace_id = ${ws} AND email_key = lower(${f.contactEmail})) AS contacts,
               (SELECT count(*)::int FROM do_not_contact WHERE workspace_id = ${ws} AND email_key = lower(${f.doNotContactEmail})) AS blocked,
               (SELECT count(*)::int FROM workflows WHERE workspace_id = ${ws} AND trigger_event = lower(${f.trackedEvent}) AND status = 'active') AS listening,
               (SELECT count(*)::int FROM missions WHERE workspace_id = ${ws} AND id = ${f.missionId}) AS missions,
               (SELECT status FROM campaigns WHERE workspace_id = ${ws} AND id = ${f.campaignId} AND daily_budget_minor > 0) AS campaign`
      expect(facts).toEqual({
        open_test: 'running', decided_test: 'decided', send_holdout: 'open', decisions: 1, lists: 1, contacts: 1, blocked: 1,
        listening: expect.any(Number), missions: 1, campaign: 'active',
      })
      expect(facts.listening).toBeGreaterThan(0)
    } finally {
      await db.close()
    }
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
