import { expect, test } from 'bun:test'
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import pkg from '../../package.json'
import { ROOT } from './run.ts'

/**
 * The `growth` bin as npm installs it (npm link, npm install -g): a symlink to cli/bin/growth.js,
 * run by Node.js on a PATH where there is no Bun at all. It must run the CLI (with the Bun that npm
 * installed as a dependency), print only what the CLI prints, and pass the exit code through.
 */
test('the growth bin runs on a machine with only Node.js: no bun on PATH, nothing printed but the CLI\'s own output', async () => {
  const bin = mkdtempSync(join(tmpdir(), 'growth-bin-'))
  try {
    symlinkSync(join(ROOT, pkg.bin.growth), join(bin, 'growth'))
    const node = Bun.which('node')!
    // Only the directory of node and the system's own; no Bun anywhere.
    const env = { PATH: [bin, dirname(node), '/usr/bin', '/bin'].join(':'), HOME: process.env.HOME ?? '/tmp', DATA_DIR: join(bin, 'data') }
    expect(Bun.spawnSync(['sh', '-c', 'command -v bun'], { env }).exitCode).not.toBe(0)

    const version = Bun.spawnSync(['growth', '--version'], { env, cwd: bin })
    expect(version.stderr.toString()).toBe('')
    expect(version.stdout.toString()).toBe(`${pkg.version}\n`)
    expect(version.exitCode).toBe(0)

    const refused = Bun.spawnSync(['growth', 'admin', 'no-such-command'], { env, cwd: bin })
    expect(refused.stdout.toString()).toBe('')
    expect(refused.stderr.toString()).toContain("unknown command 'no-such-command'")
    expect(refused.exitCode).toBe(1)
  } finally {
    rmSync(bin, { recursive: true, force: true })
  }
}, 30_000)

test('through the Node.js launcher an API command reaches the server, and npx growth runs it in the repository', async () => {
  const { getHarness, makeWorkspace } = await import('../harness.ts')
  const h = await getHarness()
  const ws = await makeWorkspace()
  const env = { ...process.env, GROWTH_BASE_URL: `${h.url}/api/v1`, GROWTH_TOKEN: ws.live }
  const run = async (cmd: string[]) => {
    const proc = Bun.spawn(cmd, { cwd: ROOT, env, stdout: 'pipe', stderr: 'pipe' })
    const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
    return { stdout, stderr, code }
  }
  const viaNode = await run([Bun.which('node')!, join(ROOT, pkg.bin.growth), 'agents', 'list', '--json'])
  expect(viaNode.code).toBe(0)
  expect(JSON.parse(viaNode.stdout).map((a: { id: string }) => a.id)).toEqual([ws.agent.id])
  const viaNpx = await run(['npx', '--no-install', 'growth', 'agents', 'list', '--json'])
  expect(viaNpx.code).toBe(0)
  expect(JSON.parse(viaNpx.stdout).map((a: { id: string }) => a.id)).toEqual([ws.agent.id])
}, 60_000)
