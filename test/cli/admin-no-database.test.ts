import { afterAll, expect, test } from 'bun:test'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expectRefused, ROOT, type Run } from './run.ts'

/**
 * An operator command run where there is no embedded database (another directory, no DATA_DIR):
 * one that only reads or changes what is there is refused, naming where it looked and what to set,
 * and makes nothing (no database, no secrets key file); only the commands that start a database (admin migrate, admin demo, admin
 * workspace create) make one there.
 */
const elsewhere = mkdtempSync(join(tmpdir(), 'growth-elsewhere-'))
afterAll(() => rmSync(elsewhere, { recursive: true, force: true }))

/** `growth` run from `cwd`, with neither DATA_DIR nor DATABASE_URL unless given. */
async function growthFrom(cwd: string, args: string[], env: Record<string, string> = {}): Promise<Run> {
  const { DATA_DIR: _d, DATABASE_URL: _u, ...rest } = process.env
  const proc = Bun.spawn([process.execPath, join(ROOT, 'cli/bin/growth.ts'), ...args], { cwd, env: { ...rest, ...env }, stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' })
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  return { code, stdout, stderr }
}

const SET = "Set DATA_DIR to the server's data directory, or DATABASE_URL to its PostgreSQL database; growth admin migrate, admin demo or admin workspace create makes a new one."

test(
  'from a directory with no database and no DATA_DIR, admin commands that read or change a workspace are refused and make nothing',
  async () => {
    const dir = join(elsewhere, 'empty')
    rmSync(dir, { recursive: true, force: true })
    mkdirSync(dir)
    const looked = join(dir, '.data')
    for (const args of [
      ['admin', 'webhook', 'list', '--workspace', 'ws_none'],
      ['admin', 'token', 'create', '--workspace', 'ws_none'],
      ['admin', 'agents', 'stop', '--workspace', 'ws_none', '--reason', 'freeze'],
      ['admin', 'approval', 'approve', 'apr_none'],
    ]) {
      const r = await growthFrom(dir, args)
      expectRefused(r)
      expect(r.stderr).toBe(`error: no embedded database in ${looked} (DATA_DIR is not set: .data in the current directory), and this command does not make one. ${SET}\n`)
    }
    const json = await growthFrom(dir, ['admin', 'webhook', 'list', '--workspace', 'ws_none', '--json'])
    expect(json.code).toBe(1)
    expect(JSON.parse(json.stderr).error.message).toStartWith(`no embedded database in ${looked}`)
    // Nothing was made: no .data, no database.
    expect(readdirSync(dir)).toEqual([])
    // DATA_DIR naming a directory without a database: named as DATA_DIR.
    const named = await growthFrom(dir, ['admin', 'person', 'list', '--workspace', 'ws_none'], { DATA_DIR: join(elsewhere, 'not-here') })
    expectRefused(named)
    expect(named.stderr).toBe(`error: no embedded database in ${join(elsewhere, 'not-here')} (DATA_DIR), and this command does not make one. ${SET}\n`)
    expect(existsSync(join(elsewhere, 'not-here'))).toBe(false)
    // Nor a secrets key file where there was none: a refused command leaves no key behind.
    const keyFile = join(elsewhere, 'keys', 'secrets.key')
    expectRefused(await growthFrom(dir, ['admin', 'person', 'list', '--workspace', 'ws_none'], { GROWTH_SECRETS_KEY: '', GROWTH_SECRETS_KEY_FILE: keyFile }))
    expect(existsSync(join(elsewhere, 'keys'))).toBe(false)
  },
  60_000,
)

test(
  'admin workspace create there makes the database (and says so); then the other commands use it',
  async () => {
    const dir = join(elsewhere, 'new')
    mkdirSync(dir, { recursive: true })
    const created = await growthFrom(dir, ['admin', 'workspace', 'create', '--name', 'Elsewhere'])
    expect(created.code).toBe(0)
    expect(created.stderr).toContain(`Created a new embedded database in ${join(dir, '.data')}`)
    const id = /Created workspace (ws_\w+)/.exec(created.stdout)![1]!
    const listed = await growthFrom(dir, ['admin', 'webhook', 'list', '--workspace', id, '--json'])
    expect(listed.code).toBe(0)
    expect(JSON.parse(listed.stdout)).toEqual({ endpoints: [] })
  },
  60_000,
)
