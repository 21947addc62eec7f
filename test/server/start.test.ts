import { expect, test } from 'bun:test'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const ROOT = join(import.meta.dir, '../..')

/**
 * Start `bun server/src/main.ts` (what npm start runs; or `command`, e.g. npm start itself) and wait
 * for its banner, as a person at a terminal sees it (LOG_FORMAT=pretty: what a terminal defaults to).
 */
async function start(env: Record<string, string>, command = [process.execPath, 'server/src/main.ts'], opts: { detached?: boolean } = {}) {
  const proc = Bun.spawn(command, {
    detached: opts.detached ?? false,
    cwd: ROOT,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', LOG_FORMAT: 'pretty', ...env },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const reader = proc.stdout.getReader()
  let out = ''
  const deadline = Date.now() + 25_000
  // The banner is one write: the reference line, then the demo credentials when there are any.
  const complete = () => out.includes('reference:') && (!out.includes('Demo workspace') || out.includes('curl -s'))
  while (!complete()) {
    if (Date.now() > deadline) throw new Error(`no banner: ${out}`)
    const { value, done } = await reader.read()
    if (done) throw new Error(`exited early: ${out} ${await new Response(proc.stderr).text()}`)
    out += new TextDecoder().decode(value)
  }
  reader.releaseLock()
  const base = /listening on (\S+)/.exec(out)![1]!
  return { proc, out, base }
}

async function stop(proc: ReturnType<typeof Bun.spawn>) {
  proc.kill('SIGTERM')
  return proc.exited
}

test.skipIf(Boolean(process.env.DATABASE_URL))(
  'npm start on an empty embedded database seeds a demo workspace, prints working credentials in full (later starts their last four and where they are), and stops cleanly on SIGTERM',
  async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'growth-start-'))
    try {
      const first = await start({ DATA_DIR: dataDir })
      const live = /live token: (\S+)/.exec(first.out)![1]!
      const test = /test token: (\S+)/.exec(first.out)![1]!
      expect(first.out).toMatch(/agent Budget Pacer \(agt_\w+\): svc_agt_/)
      // At 127.0.0.1 the console has no passkeys: the banner says what to set (docs/console.md, "Passkeys").
      const port = new URL(first.base).port
      expect(first.out).toContain(`(passkeys need a host name, not 127.0.0.1: start with CONSOLE_URL=http://localhost:${port}/console to add one)`)
      expect(first.out).toContain(`curl -s ${first.base}/missions -H "Authorization: Bearer ${live}"`)
      const missions = await fetch(`${first.base}/missions`, { headers: { Authorization: `Bearer ${live}` } })
      expect(missions.status).toBe(200)
      expect(((await missions.json()) as any).data.length).toBeGreaterThan(0)
      const decisions = await fetch(`${first.base}/decisions?limit=100`, { headers: { Authorization: `Bearer ${test}` } })
      const page = (await decisions.json()) as any
      expect(page.data).toHaveLength(100)
      expect(page.meta.nextCursor).toBeString()
      // The fixtures the README's tour uses, and a file for the shell that only its owner can read.
      expect(first.out).toMatch(/fixtures: openAbTestId=abt_\w+ .*missionId=msn_\w+ campaignId=cmp_\w+/)
      const envFile = join(dataDir, 'demo.env')
      expect(first.out).toContain(`source ${envFile}`)
      expect(statSync(envFile).mode & 0o777).toBe(0o600)
      expect(statSync(join(dataDir, 'demo.json')).mode & 0o777).toBe(0o600)
      expect(readFileSync(envFile, 'utf8')).toContain(`export TOKEN="${live}"`)
      expect(readFileSync(envFile, 'utf8')).toContain(`export BASE="${first.base}"`)
      // What the SDK reads when given no options.
      expect(readFileSync(envFile, 'utf8')).toContain(`export GROWTH_BASE_URL="${first.base}"`)
      expect(readFileSync(envFile, 'utf8')).toContain(`export GROWTH_TOKEN="${live}"`)
      // The console of this server (its own port, not 4000), which `growth admin person link` in a
      // shell that sourced demo.env links to.
      const vars = Object.fromEntries([...readFileSync(envFile, 'utf8').matchAll(/^export (\w+)=(".*")$/gm)].map((m) => [m[1]!, JSON.parse(m[2]!) as string]))
      expect(vars.CONSOLE_URL).toBe(`${first.base.replace(/\/api\/v1$/, '')}/console`)
      const { PORT: _port, HOST: _host, CONSOLE_URL: _console, ...shell } = process.env
      const link = Bun.spawnSync([process.execPath, 'cli/bin/growth.ts', 'admin', 'person', 'link', vars.OWNER!], { cwd: ROOT, env: { ...shell, DATA_DIR: dataDir, ...vars } })
      expect(link.exitCode, link.stderr.toString()).toBe(0)
      expect(link.stdout.toString()).toContain(`${vars.CONSOLE_URL}/signin/`)
      expect(await stop(first.proc)).toBe(0)
      expect(existsSync(join(dataDir, 'owner.lock'))).toBe(false)

      // The second start seeds nothing new, and prints the credentials' last four characters only,
      // and where to read them in full: its output is often a captured log.
      const agents = [...first.out.matchAll(/agent [^(]+ \(agt_\w+\): (svc_agt_\S+)/g)].map((m) => m[1]!)
      expect(agents).toHaveLength(2)
      const second = await start({ DATA_DIR: dataDir })
      for (const secret of [live, test, ...agents]) {
        expect(second.out).not.toContain(secret)
        expect(second.out).not.toContain(secret.slice(-12))
      }
      expect(second.out).toContain(`  live token: svc_live_…${live.slice(-4)}\n`)
      expect(second.out).toContain(`  test token: svc_test_…${test.slice(-4)}\n`)
      for (const agent of agents) expect(second.out).toContain(`: svc_agt_…${agent.slice(-4)}\n`)
      expect(second.out).toContain(`(printed in full on the first start only; read them in ${envFile}, readable only by you)`)
      expect(second.out).toContain(`  source ${envFile}\n  curl -s "$BASE/missions" -H "Authorization: Bearer $TOKEN"`)
      // ... where they are still in full, 0600, and still work.
      expect(readFileSync(envFile, 'utf8')).toContain(`export TOKEN="${live}"`)
      expect(statSync(envFile).mode & 0o777).toBe(0o600)
      const again = await fetch(`${second.base}/missions`, { headers: { Authorization: `Bearer ${live}` } })
      expect(again.status).toBe(200)
      expect(await stop(second.proc)).toBe(0)
    } finally {
      rmSync(dataDir, { recursive: true, force: true })
    }
  },
  60_000,
)

test.skipIf(Boolean(process.env.DATABASE_URL))(
  'npm start whose stdout is no terminal (a process manager, a pipe) prints JSON lines only: the banner is an entry naming where it listens and the file with the demo credentials, never one of them, whatever LOG_LEVEL says',
  async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'growth-start-json-'))
    try {
      // No LOG_FORMAT: stdout is a pipe, so JSON, as under a process manager.
      const { LOG_FORMAT: _format, ...env } = process.env
      const proc = Bun.spawn([process.execPath, 'server/src/main.ts'], {
        cwd: ROOT,
        env: { ...env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'error', DATA_DIR: dataDir },
        stdout: 'pipe',
        stderr: 'pipe',
      })
      const reader = proc.stdout.getReader()
      let out = ''
      const deadline = Date.now() + 25_000
      while (!/Demo workspace.*\n/.test(out)) {
        if (Date.now() > deadline) throw new Error(`no banner: ${out}`)
        const { value, done } = await reader.read()
        if (done) throw new Error(`exited early: ${out} ${await new Response(proc.stderr).text()}`)
        out += new TextDecoder().decode(value)
      }
      reader.releaseLock()
      const lines = out.trim().split('\n')
      // Each line one JSON object (`| jq` reads it all), the banner's two among them.
      const entries = lines.map((line) => JSON.parse(line) as Record<string, string>)
      const listening = entries.find((e) => e.msg?.startsWith('Growth Automation Service listening on '))!
      expect(listening).toMatchObject({ level: 'info', database: `embedded PostgreSQL (PGlite) in ${dataDir}` })
      expect(listening.msg).toBe(`Growth Automation Service listening on ${listening.api}`)
      expect(listening.reference).toBe(`${listening.api}/reference`)
      expect(Date.parse(listening.time!)).toBeGreaterThan(Date.now() - 60_000)
      const envFile = join(dataDir, 'demo.env')
      const demo = JSON.parse(readFileSync(join(dataDir, 'demo.json'), 'utf8'))
      const demoEntry = entries.find((e) => e.msg?.startsWith('Demo workspace'))!
      expect(demoEntry).toMatchObject({ level: 'info', workspaceId: demo.workspace.id, envFile })
      expect(demoEntry.msg).toBe(`Demo workspace: ${demo.workspace.name} (${demo.workspace.id}, plan ${demo.workspace.plan}); its credentials and fixture ids are in ${envFile}`)
      expect(demoEntry.consoleSignIn).toMatch(/^growth admin person link per_\w+$/)
      // This start seeded it, and still no credential is in the log: not in full, not its end, no sign-in link.
      for (const secret of [demo.tokens.live, demo.tokens.test, ...demo.agents.map((a: { credential: string }) => a.credential)]) {
        expect(out).not.toContain(secret.slice(-8))
      }
      expect(out).not.toContain('/signin/')
      // The file has them, and they work.
      expect(readFileSync(envFile, 'utf8')).toContain(`export TOKEN="${demo.tokens.live}"`)
      const missions = await fetch(`${listening.api}/missions`, { headers: { Authorization: `Bearer ${demo.tokens.live}` } })
      expect(missions.status).toBe(200)
      expect(await stop(proc)).toBe(0)
    } finally {
      rmSync(dataDir, { recursive: true, force: true })
    }
  },
  60_000,
)

test.skipIf(Boolean(process.env.DATABASE_URL))(
  'npm start on an embedded database an operator command made (no workspace yet) seeds the demo and prints its credentials in full; a SIGTERM as soon as the banner is out stops it cleanly',
  async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'growth-start-migrated-'))
    try {
      const migrate = Bun.spawn([process.execPath, 'cli/bin/growth.ts', 'admin', 'migrate'], { cwd: ROOT, env: { ...process.env, DATA_DIR: dataDir }, stdout: 'pipe', stderr: 'pipe' })
      expect(await migrate.exited).toBe(0)
      const s = await start({ DATA_DIR: dataDir })
      const live = /live token: (\S+)/.exec(s.out)![1]!
      expect(live).toMatch(/^svc_live_\w{40,}$/)
      expect(readFileSync(join(dataDir, 'demo.env'), 'utf8')).toContain(`export TOKEN="${live}"`)
      expect(await stop(s.proc)).toBe(0)
      // A SIGTERM sent the moment the banner is read stops it gracefully too: the handlers are in place before it prints.
      for (let i = 0; i < 3; i++) {
        const again = await start({ DATA_DIR: dataDir })
        expect(await stop(again.proc)).toBe(0)
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true })
    }
  },
  60_000,
)

test.skipIf(Boolean(process.env.DATABASE_URL))(
  'npm start stopped by a SIGTERM to npm alone (a process manager, a terminal multiplexer) stops the server too, cleanly, and frees its port',
  async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'growth-start-npm-'))
    let group: number | undefined
    try {
      // A process group of its own, only so that the test can clean up whatever outlives npm; the signal goes to npm's pid alone.
      const s = await start({ DATA_DIR: dataDir }, ['npm', 'start', '--silent'], { detached: true })
      group = s.proc.pid
      expect((await fetch(`${s.base}/openapi.json`)).status).toBe(200)
      s.proc.kill('SIGTERM')
      await s.proc.exited
      // The server got the signal (it would have outlived npm in npm's shell): its port answers nothing within a few seconds.
      const deadline = Date.now() + 10_000
      let answered = true
      while (answered && Date.now() < deadline) {
        answered = await fetch(`${s.base}/openapi.json`, { signal: AbortSignal.timeout(1000) }).then(() => true, () => false)
        if (answered) await Bun.sleep(200)
      }
      expect({ stillAnswering: answered }).toEqual({ stillAnswering: false })
    } finally {
      if (group) {
        try {
          process.kill(-group, 'SIGKILL')
        } catch {
          // the group is gone: nothing outlived npm
        }
      }
      rmSync(dataDir, { recursive: true, force: true })
    }
  },
  60_000,
)

test.skipIf(!process.env.DATABASE_URL)('with DATABASE_URL the server migrates, seeds nothing and prints no credentials', async () => {
  const s = await start({})
  try {
    // Which server and database, as growth worker and the admin commands say it; never the user or password.
    const url = new URL(process.env.DATABASE_URL!)
    expect(s.out).toContain(`PostgreSQL server at ${url.host}${url.pathname} (DATABASE_URL)`)
    if (url.password) expect(s.out).not.toContain(url.password)
    expect(s.out).not.toContain('svc_live_')
    const r = await fetch(`${s.base}/openapi.json`)
    expect(r.status).toBe(200)
  } finally {
    expect(await stop(s.proc)).toBe(0)
  }
}, 60_000)

test.skipIf(Boolean(process.env.DATABASE_URL))(
  'npm start where DATA_DIR/pgdata holds files but no database: exit 1, one line saying which and what to do, nothing removed',
  async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'growth-start-stray-'))
    mkdirSync(join(dataDir, 'pgdata'))
    writeFileSync(join(dataDir, 'pgdata', 'notes.txt'), 'not a database')
    try {
      const proc = Bun.spawn([process.execPath, 'server/src/main.ts'], {
        cwd: ROOT,
        env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', DATA_DIR: dataDir },
        stdout: 'pipe',
        stderr: 'pipe',
      })
      const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
      expect(code).toBe(1)
      expect(out).toBe('')
      // Said once (by the process that prepares the database), on one line, without a stack trace.
      expect(err.trim().split('\n')).toEqual([`error: Could not start: ${join(dataDir, 'pgdata')} holds files but no database (no PG_VERSION): move it away, or set DATA_DIR to another directory.`])
      expect(readFileSync(join(dataDir, 'pgdata', 'notes.txt'), 'utf8')).toBe('not a database')
      expect(existsSync(join(dataDir, 'owner.lock'))).toBe(false)
    } finally {
      rmSync(dataDir, { recursive: true, force: true })
    }
  },
  60_000,
)
