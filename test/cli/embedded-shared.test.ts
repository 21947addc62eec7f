import { afterAll, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ROOT, type Run } from './run.ts'

/**
 * Operator commands run at the same moment on one embedded database: the first to start opens it
 * and serves it to the others on its socket. One that ends while another is about to connect must
 * not fail that one: before, one command in ten exited 2 ("lost the connection ... exited during
 * this command") with nothing done, its owner gone between its look at the lock and its first
 * statement. Each command here must succeed, and each answered create must be there once.
 */
const dataDir = mkdtempSync(join(tmpdir(), 'growth-shared-'))
afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

/** `growth` on this embedded database, whatever DATABASE_URL the run was given. */
async function growth(args: string[]): Promise<Run> {
  const { DATABASE_URL: _u, ...rest } = process.env
  const proc = Bun.spawn([process.execPath, join(ROOT, 'cli/bin/growth.ts'), ...args], {
    cwd: ROOT,
    env: { ...rest, DATA_DIR: dataDir },
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  return { code, stdout, stderr }
}

// The embedded database's own sharing, whatever DATABASE_URL says: run on the embedded leg only.
test.skipIf(!!process.env.DATABASE_URL)(
  'commands started together on one embedded database all succeed, and every answered write is there once',
  async () => {
    expect((await growth(['admin', 'migrate'])).code).toBe(0)
    const created: string[] = []
    for (let round = 0; round < 5; round++) {
      const names = [0, 1, 2].map((i) => `Shared ${round}.${i}`)
      const runs = await Promise.all([
        ...names.map((name) => growth(['admin', 'workspace', 'create', '--name', name, '--json'])),
        ...[0, 1, 2].map(() => growth(['admin', 'workspace', 'list', '--json'])),
      ])
      for (const r of runs) expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' })
      for (const r of runs.slice(0, 3)) created.push(JSON.parse(r.stdout).name)
      for (const r of runs.slice(3)) expect(JSON.parse(r.stdout).workspaces).toBeArray()
    }
    const all = await growth(['admin', 'workspace', 'list', '--limit', '100', '--json'])
    expect(all.code).toBe(0)
    const names = (JSON.parse(all.stdout).workspaces as { name: string }[]).map((w) => w.name)
    expect(names.sort()).toEqual(created.sort())
  },
  180_000,
)
