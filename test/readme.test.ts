import { expect, test } from 'bun:test'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'

/**
 * The README cannot rot: its tour is run, command by command, as a person would paste it, against
 * a server started with `npm start` in a fresh copy of the repository (its files linked into an
 * empty folder, with no .data yet). Every curl must get a 2xx answer and every command must
 * succeed. The docs' shell examples are run after it, against the same server.
 */
const ROOT = resolve(import.meta.dir, '..')
const DOCS = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)]

/** The ```sh blocks of a Markdown file, from the heading `from` on (README: the tour, not the set-up commands). */
function shellBlocks(file: string, from?: string): string[] {
  let text = readFileSync(join(ROOT, file), 'utf8')
  if (from) text = text.slice(text.indexOf(from))
  return [...text.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!)
}

test('the README says the two commands word for word, and links only to files of the repository that exist', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
  expect(readme).toContain('npm install && npm start')
  expect(readme).toContain('npm install && npm test')
  for (const file of DOCS) {
    const text = readFileSync(join(ROOT, file), 'utf8')
    for (const [, target] of text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
      if (/^https?:/.test(target!)) continue
      const path = resolve(ROOT, dirname(file), target!)
      expect(`${file} -> ${target}: ${path.startsWith(`${ROOT}/`) && existsSync(path) ? 'in the repository' : 'missing or outside'}`).toBe(
        `${file} -> ${target}: in the repository`,
      )
    }
    expect(text).not.toContain('../shared')
    expect(text).not.toContain('uuidgen')
  }
})

test('the tour of the README, and the shell examples of the docs, run as written against npm start', async () => {
  const clone = mkdtempSync(join(tmpdir(), 'growth-readme-'))
  for (const entry of ['package.json', 'package-lock.json', 'node_modules', 'server', 'cli', 'sdk', 'scripts', 'docs', 'examples', 'README.md']) {
    symlinkSync(join(ROOT, entry), join(clone, entry))
  }
  // As the tour says to start it for its webhook part: receivers on this machine allowed.
  // growth login saves its profile in the copy, not in the home folder of whoever runs the tests.
  // LOG_FORMAT=pretty: the banner as a person pasting the tour sees it in a terminal.
  const env = { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', LOG_FORMAT: 'pretty', DATA_DIR: '', WEBHOOK_ALLOW_PRIVATE_NETWORKS: '127.0.0.0/8', GROWTH_CONFIG_DIR: join(clone, '.config-growth') }
  delete (env as Record<string, string | undefined>).DATABASE_URL
  // Its own process group, so that whatever the tour leaves running ends with the test.
  const server = Bun.spawn(['npm', 'start'], { cwd: clone, env, stdout: 'pipe', stderr: 'pipe', detached: true })
  try {
    // npm start prints its banner, then the lines to try it with, once the demo is seeded.
    const reader = server.stdout.getReader()
    let banner = ''
    const deadline = Date.now() + 60_000
    while (!banner.includes('Try it')) {
      if (Date.now() > deadline) throw new Error(`npm start printed no banner: ${banner}`)
      const { value, done } = await reader.read()
      if (done) throw new Error(`npm start exited: ${banner}${await new Response(server.stderr).text()}`)
      banner += new TextDecoder().decode(value)
    }
    reader.releaseLock()
    expect(banner).toContain('source ')
    expect(banner).toMatch(/fixtures: openAbTestId=abt_/)

    const blocks = [...shellBlocks('README.md', '## A five-minute tour'), ...DOCS.slice(1).flatMap((f) => shellBlocks(f))]
    expect(blocks.length).toBeGreaterThan(5)
    // Each block in turn, in one shell, as pasted: any failing command, or any curl answered 4xx or 5xx, stops it.
    const script = ['set -euo pipefail', 'curl() { command curl --fail-with-body "$@"; }', ...blocks.map((b, i) => `echo "--- block ${i + 1}" >&2\n${b}`)].join('\n')
    const run = Bun.spawn(['bash', '-c', script], { cwd: clone, env: { ...env, DATA_DIR: '' }, stdout: 'pipe', stderr: 'pipe' })
    const [out, err, code] = await Promise.all([new Response(run.stdout).text(), new Response(run.stderr).text(), run.exited])
    if (code !== 0) throw new Error(`a documented command failed (exit ${code}):\n${err.slice(-3000)}\n--- stdout:\n${out.slice(-3000)}`)
    expect(out).toContain('"data"')
    // the tour's receiver got the test event, signed
    expect(out).toMatch(/t=\d+,v1=[0-9a-f]{64} \{"id":"evt_\w+","event":"webhook.test"/)
    // docs/webhooks.md's plain-Python receiver verified a real delivery's Standard Webhooks signature
    expect(out).toMatch(/\{"verified": true, "webhookId": "evt_\w+", "id": "evt_\w+", "event": "webhook.test"\}/)
    expect(out).not.toContain('"error":{"code"')
  } finally {
    // The whole group (npm, its shell, the server), and the clone removed only once the server has
    // closed its database: removed under a closing server, its shutdown never ended.
    const signal = (sig: NodeJS.Signals | 0) => {
      try {
        process.kill(-server.pid, sig)
        return true
      } catch {
        return false // no process of the group is left
      }
    }
    signal('SIGTERM')
    await server.exited
    for (const deadline = Date.now() + 30_000; signal(0) && Date.now() < deadline; ) await Bun.sleep(100)
    signal('SIGKILL')
    rmSync(clone, { recursive: true, force: true })
  }
}, 180_000)
