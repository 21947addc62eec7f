import { afterAll, expect, test } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort } from '../support/ports.ts'
import { collect, startServerProcess, type ServerProcess } from '../support/server-process.ts'
import { growthIn, jsonOf, ROOT } from './run.ts'

/**
 * `--follow` outlives a restart of the server, as `stripe listen` does: `growth events tail
 * --follow` and `growth logs tail --follow`, real processes following a real server process, keep
 * going when that server stops; each says once that the API is not answering and that it retries,
 * and once that it is back, and the event committed after the restart is printed, once.
 */
const dataDir = mkdtempSync(join(tmpdir(), 'growth-follow-restart-'))
const admin = growthIn(dataDir)
let server: ServerProcess | undefined
const followers: ReturnType<typeof Bun.spawn>[] = []

afterAll(async () => {
  for (const p of followers) p.kill('SIGKILL')
  server?.proc.kill('SIGKILL')
  await server?.proc.exited
})

async function until(what: string, ok: () => boolean, ms = 60_000) {
  const deadline = Date.now() + ms
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await Bun.sleep(100)
  }
}

const count = (text: string, part: string) => text.split(part).length - 1

test(
  'events tail --follow and logs tail --follow wait out a server restart: told once each way, the new event printed once',
  async () => {
    const ws = jsonOf(await admin(['admin', 'workspace', 'create', '--name', 'Restarts', '--json']), 'workspace create')
    const token = jsonOf(await admin(['admin', 'token', 'create', '--workspace', ws.id, '--json']), 'token create').token
    const port = String(await freePort())
    server = await startServerProcess({ DATA_DIR: dataDir, PORT: port })
    const base = server.base
    const addContact = async (email: string) => {
      const r = await fetch(`${base}/contacts`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ contacts: [{ email }] }) })
      expect(r.status).toBe(201)
    }
    await addContact('before.restart@example.com')

    const spawn = (args: string[]) => {
      const proc = Bun.spawn([process.execPath, 'cli/bin/growth.ts', ...args, '--follow', '--interval', '300'], {
        cwd: ROOT,
        env: { ...process.env, GROWTH_BASE_URL: base, GROWTH_TOKEN: token },
        stdout: 'pipe',
        stderr: 'pipe',
      })
      followers.push(proc)
      return { proc, stdout: collect(proc.stdout as ReadableStream<Uint8Array>), stderr: collect(proc.stderr as ReadableStream<Uint8Array>) }
    }
    const events = spawn(['events', 'tail', '--type', 'contact.created'])
    const logs = spawn(['logs', 'tail', '--status', '201'])
    await until('the first event', () => events.stdout().includes('contact.created'))
    await until('the first call', () => logs.stdout().includes('POST /api/v1/contacts'))

    server.proc.kill('SIGTERM')
    await server.proc.exited
    const away = `The API at ${base} is not answering (the connection was refused); retrying every 1 s, doubling to 30 s (Ctrl-C stops).`
    await until('the notice that the API is away', () => events.stderr().includes(away) && logs.stderr().includes(away))
    await Bun.sleep(2_500) // several tries while it is away: the notice is still said once
    server = await startServerProcess({ DATA_DIR: dataDir, PORT: port })
    expect(server.base).toBe(base)
    await addContact('after.restart@example.com')

    await until('the event after the restart', () => count(events.stdout(), 'contact.created') === 2)
    await until('the call after the restart', () => count(logs.stdout(), 'POST /api/v1/contacts') === 2)
    for (const f of [events, logs]) {
      expect(f.proc.exitCode).toBeNull()
      expect(count(f.stderr(), 'is not answering')).toBe(1)
      expect(count(f.stderr(), `The API at ${base} is answering again after `)).toBe(1)
      expect(f.stderr()).not.toContain('error:')
      f.proc.kill('SIGINT')
      expect(await f.proc.exited).toBe(0)
    }
    // Nothing lost, nothing twice: the event stream's two events, each once.
    expect(events.stdout().trim().split('\n')).toHaveLength(2)
  },
  120_000,
)

test(
  'without --follow no answer is still the error, exit 2; and a follower that never reached the API gives up as a command does',
  async () => {
    const port = await freePort()
    const env = { GROWTH_BASE_URL: `http://127.0.0.1:${port}/api/v1`, GROWTH_TOKEN: 'svc_live_x' }
    for (const args of [['events', 'tail'], ['events', 'tail', '--follow']]) {
      const r = await admin(args, env)
      expect(r.code).toBe(2)
      expect(r.stderr).toStartWith(`error: no answer from the API at http://127.0.0.1:${port}/api/v1 (from GROWTH_BASE_URL): the connection was refused`)
    }
  },
  60_000,
)
