import { afterAll, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { collect, ROOT, runToExit, startServerProcess } from '../support/server-process.ts'
import { growthIn, jsonOf } from '../cli/run.ts'
import { receiver } from '../webhooks/support.ts'

/**
 * `growth worker` beside `npm start` on one embedded database: the server owns it and the worker
 * uses it through the owner's socket. The owner, stopping, used to wait up to 15 s for every
 * connection to end, and a worker's never does (it runs until stopped): each stop of the server took
 * 15 s more. Now the worker's connections (named growth-worker) are let go between their statements;
 * the worker says its claims fail (its log) and that the process stopped (stderr, for the person),
 * waits for the next process to open the database, says so, and goes on. A
 * command's connection is still waited for (test/cli/embedded-shared.test.ts).
 *
 * A worker started first has the database open itself: `npm start` used to be refused then. The
 * server now asks it for the database (it alone offered, beside the lock), takes it over, and the
 * workers go on through the server's socket; any other owner (a server) is not asked, and the
 * second server is refused, naming it.
 */
const EMBEDDED = { DATABASE_URL: '' }
const dataDir = mkdtempSync(join(tmpdir(), 'growth-worker-owner-'))
const processes: { kill(sig?: number | NodeJS.Signals): void }[] = []
afterAll(() => {
  for (const p of processes) p.kill('SIGKILL')
})

async function waitFor(what: string, text: () => string, pattern: RegExp, timeoutMs: number) {
  for (const deadline = Date.now() + timeoutMs; !pattern.test(text()); await Bun.sleep(50)) {
    if (Date.now() > deadline) throw new Error(`${what} never said ${pattern}: ${text()}`)
  }
}

// The embedded database's own sharing, whatever DATABASE_URL says: run on the embedded leg only (.ci/run).
test.skipIf(Boolean(process.env.DATABASE_URL))(
  'the server stops without waiting for a growth worker attached to its embedded database; the worker goes on once the database is opened again',
  async () => {
    const first = await startServerProcess({ ...EMBEDDED, DATA_DIR: dataDir })
    processes.push(first.proc)
    const worker = Bun.spawn([process.execPath, join(ROOT, 'cli/bin/growth.ts'), 'worker'], {
      cwd: ROOT,
      env: { ...process.env, ...EMBEDDED, DATA_DIR: dataDir, LOG_LEVEL: 'info', LOG_FORMAT: 'json' },
      stdout: 'pipe',
      stderr: 'pipe',
    })
    processes.push(worker)
    const log = collect(worker.stdout as ReadableStream<Uint8Array>)
    const said = collect(worker.stderr as ReadableStream<Uint8Array>)
    // Attached to the server's database, not an owner of its own.
    await waitFor('growth worker', said, /running on the embedded database/, 30_000)
    expect(said()).toContain(`(opened by process ${first.proc.pid})`)

    const stopping = Date.now()
    first.proc.kill('SIGTERM')
    expect(await first.proc.exited).toBe(0)
    const stopMs = Date.now() - stopping
    console.log(`the server stopped in ${stopMs} ms with a growth worker attached`)
    // Waiting for the worker would take 15 s and more; a stop with nothing to wait for takes one or two.
    expect(stopMs).toBeLessThan(10_000)

    // The worker stays, says its claims fail while no process has the database open, and goes on
    // once the next server opens it.
    await waitFor('growth worker', log, /"msg":"webhook claim failed"/, 15_000)
    // And tells the person, on stderr, once each way.
    await waitFor('growth worker', said, new RegExp(`The process that had the embedded database in ${dataDir} open \\(${first.proc.pid}\\) has stopped: the workers wait until another opens it \\(npm start, or any growth command\\), then go on\\.`), 10_000)
    expect(worker.exitCode).toBeNull()
    const second = await startServerProcess({ ...EMBEDDED, DATA_DIR: dataDir })
    processes.push(second.proc)
    await waitFor('growth worker', log, /"msg":"webhook claims work again"/, 30_000)
    await waitFor('growth worker', said, new RegExp(`The embedded database in ${dataDir} is open again \\(process ${second.proc.pid}\\): the workers go on\\.`), 10_000)
    expect(said().match(/has stopped/g)).toHaveLength(1)

    worker.kill('SIGTERM')
    expect(await worker.exited).toBe(0)
    second.proc.kill('SIGTERM')
    expect(await second.proc.exited).toBe(0)
  },
  120_000,
)

test.skipIf(Boolean(process.env.DATABASE_URL))(
  'npm start after a growth worker that has the embedded database open: the worker hands it over and delivers through the server; a second server is refused, the first untouched',
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'growth-worker-first-'))
    const allow = { WEBHOOK_ALLOW_PRIVATE_NETWORKS: '127.0.0.0/8' }
    const worker = Bun.spawn([process.execPath, join(ROOT, 'cli/bin/growth.ts'), 'worker'], {
      cwd: ROOT,
      env: { ...process.env, ...EMBEDDED, ...allow, DATA_DIR: dir, LOG_LEVEL: 'info', LOG_FORMAT: 'json' },
      stdout: 'pipe',
      stderr: 'pipe',
    })
    processes.push(worker)
    const said = collect(worker.stderr as ReadableStream<Uint8Array>)
    collect(worker.stdout as ReadableStream<Uint8Array>)
    // The worker made the database and has it open itself.
    await waitFor('growth worker', said, /running on the embedded database/, 60_000)
    expect(said()).not.toContain('opened by process')

    // The server's own workers off: what is delivered below, the growth worker delivered.
    const server = await startServerProcess({ ...EMBEDDED, ...allow, DATA_DIR: dir, WEBHOOK_WORKERS: '0' })
    processes.push(server.proc)
    await waitFor('growth worker', said, new RegExp(`A server asked for the embedded database in ${dir}: handing it over`), 10_000)
    await waitFor('growth worker', said, new RegExp(`The embedded database in ${dir} is open again \\(process ${server.proc.pid}\\): the workers go on\\.`), 10_000)
    expect(worker.exitCode).toBeNull()
    // The server seeded the demo (the worker's new database had no workspace) and serves it.
    const demo = JSON.parse(readFileSync(join(dir, 'demo.json'), 'utf8'))
    const missions = await fetch(`${server.base}/missions`, { headers: { authorization: `Bearer ${demo.tokens.live}` } })
    expect(missions.status).toBe(200)

    // A delivery, made by the growth worker through the server's database.
    const rcv = receiver()
    try {
      const growth = growthIn(dir)
      const endpoint = jsonOf(await growth(['admin', 'webhook', 'create', '--workspace', demo.workspace.id, '--url', rcv.url, '--events', 'webhook.test', '--json'], allow), 'webhook create')
      const queued = jsonOf(await growth(['admin', 'webhook', 'test', endpoint.id, '--json']), 'webhook test')
      await waitFor('the receiver', () => JSON.stringify(rcv.got.map((g) => g.headers['x-service-event-id'])), new RegExp(queued.eventId), 30_000)
      await growth(['admin', 'webhook', 'disable', endpoint.id])
    } finally {
      rcv.stop()
    }

    // A server is not asked for the database: a second start is refused, naming it, and the first goes on.
    const second = await runToExit({ ...EMBEDDED, DATA_DIR: dir })
    expect(second.code).toBe(1)
    expect(second.stderr.trim()).toBe(`error: Another process (${server.proc.pid}) is already serving the embedded database in ${dir}. Stop it, or set DATA_DIR.`)
    expect(server.proc.exitCode).toBeNull()
    expect((await fetch(`${server.base}/missions`, { headers: { authorization: `Bearer ${demo.tokens.live}` } })).status).toBe(200)

    server.proc.kill('SIGTERM')
    expect(await server.proc.exited).toBe(0)
    worker.kill('SIGTERM')
    expect(await worker.exited).toBe(0)
  },
  180_000,
)
