import { afterAll, expect, test } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { collect, ROOT, startServerProcess } from '../support/server-process.ts'

/**
 * `growth worker` beside `npm start` on one embedded database: the server owns it and the worker
 * uses it through the owner's socket. The owner, stopping, used to wait up to 15 s for every
 * connection to end, and a worker's never does (it runs until stopped): each stop of the server took
 * 15 s more. Now the worker's connections (named growth-worker) are let go between their statements;
 * the worker says its claims fail (its log) and that the process stopped (stderr, for the person),
 * waits for the next process to open the database, says so, and goes on. A
 * command's connection is still waited for (test/cli/embedded-shared.test.ts).
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
