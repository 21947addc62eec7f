// `growth worker` and the server while their database is away: each poll's claim fails (five a
// second), each reaper pass (every second), each flush of the call counts and the request log (every
// CALL_COUNT_FLUSH_MS), and the log must say each once and again when it works, not a warn with a
// stack per turn (an outage of ten minutes was some 3,000 lines per loop). Real processes on a
// PostgreSQL instance of the file's own, stopped for a few seconds and started again. Each step
// waits for what the process says (its start line, its first failure, its recovery), never a fixed
// time alone.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createToken } from '../../server/src/domain/credentials.ts'
import { createWorkspace } from '../../server/src/domain/workspaces.ts'
import { openDatabase } from '../../server/src/store/driver/db.ts'
import { ROOT, startBanner } from '../support/server-process.ts'
import { type PrivatePostgres, privatePostgresUnavailable, startPrivatePostgres } from '../support/private-postgres.ts'

const reason = privatePostgresUnavailable()
if (reason) console.warn(`test/faults/outage-log.test.ts skipped: ${reason}`)

let pg: PrivatePostgres
beforeAll(async () => {
  if (!reason) pg = await startPrivatePostgres()
}, 60_000)
afterAll(async () => {
  await pg?.destroy()
})

type Line = Record<string, unknown> & { msg?: string; level?: string }

/** The JSON lines a process writes on stdout, as they come. */
function lineReader(stream: ReadableStream<Uint8Array>) {
  const lines: Line[] = []
  const done = (async () => {
    const decoder = new TextDecoder()
    let rest = ''
    const reader = stream.getReader()
    for (;;) {
      const { value: chunk, done } = await reader.read()
      if (done) break
      rest += decoder.decode(chunk, { stream: true })
      const parts = rest.split('\n')
      rest = parts.pop()!
      for (const l of parts) if (l.trim()) lines.push(JSON.parse(l) as Line)
    }
  })()
  const until = async (what: string, found: (l: Line) => boolean, ms = 30_000) => {
    const deadline = Date.now() + ms
    while (!lines.some(found)) {
      if (Date.now() > deadline) throw new Error(`the process never logged ${what}; its last lines: ${lines.slice(-12).map((l) => JSON.stringify(l).slice(0, 600)).join('\n')}`)
      await Bun.sleep(50)
    }
  }
  return { lines, done, until }
}

describe.skipIf(!!reason)('growth worker while the database is away', () => {
  test('one warn when claims start failing and one info when they work again, not one per poll', async () => {
    const proc = Bun.spawn([process.execPath, 'cli/bin/growth.ts', 'worker'], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: pg.url, WEBHOOK_WORKERS: '1', LOG_FORMAT: 'json', LOG_LEVEL: 'info' },
      stdin: 'ignore',
      stdout: 'pipe',
      stderr: 'pipe',
    })
    const out = lineReader(proc.stdout as ReadableStream<Uint8Array>)
    const stderr = new Response(proc.stderr as ReadableStream).text()
    const claim = (l: Line) => typeof l.msg === 'string' && /webhook claim/.test(l.msg)
    try {
      await out.until('its start', (l) => l.msg === 'webhook delivery workers started')
      await pg.stop()
      await out.until('the first failed claim', (l) => l.msg === 'webhook claim failed')
      // Some 15 polls fail while the database stays away: none of them is a line of its own.
      await Bun.sleep(3000)
      await pg.start()
      await out.until('claims working again', (l) => l.msg === 'webhook claims work again')
    } finally {
      proc.kill('SIGTERM')
    }
    await proc.exited
    await out.done
    const said = out.lines.filter(claim)
    expect(said.length, `${await stderr}\n${said.map((l) => l.msg).join('\n')}`).toBeLessThanOrEqual(3)
    expect(said[0]).toMatchObject({ level: 'warn', msg: 'webhook claim failed', worker: 0, failures: 1 })
    expect(said.at(-1)).toMatchObject({ level: 'info', msg: 'webhook claims work again', worker: 0 })
    expect(said.at(-1)?.failures as number).toBeGreaterThan(5)
  }, 90_000)
})

describe.skipIf(!!reason)('the server while the database is away', () => {
  test('each loop that fails at every turn says so once, and once when it works again; requests keep their own lines; growth_database_up says 0 meanwhile', async () => {
    const proc = Bun.spawn([process.execPath, 'server/src/main.ts'], {
      cwd: ROOT,
      env: {
        ...process.env, DATABASE_URL: pg.url, HOST: '127.0.0.1', PORT: '0', LOG_FORMAT: 'json', LOG_LEVEL: 'info',
        // Flushes five times a second, so the outage fails each writer many times over.
        CALL_COUNT_FLUSH_MS: '200', DB_CONNECT_TIMEOUT_MS: '1000', REQUEST_TIMEOUT_MS: '3000',
        // Its metrics say whether the database answers (growth_database_up), scraped before, during and after.
        METRICS_PORT: '0',
      },
      stdin: 'ignore',
      stdout: 'pipe',
      stderr: 'pipe',
    })
    const out = lineReader(proc.stdout as ReadableStream<Uint8Array>)
    const stderr = new Response(proc.stderr as ReadableStream).text()
    let running = true
    let load: Promise<void> | undefined
    /** growth_database_up before the outage, during it and after. */
    const ups: number[] = []
    try {
      await out.until('its start', (l) => typeof l.msg === 'string' && l.msg.startsWith('Growth Automation Service listening on '))
      const banner = startBanner(JSON.stringify(out.lines.find((l) => String(l.msg).startsWith('Growth Automation Service listening on '))) + '\n')!
      const base = banner.api
      const databaseUp = async () => {
        const text = await (await fetch(banner.metrics!)).text()
        return Number(/^growth_database_up (\S+)$/m.exec(text)?.[1])
      }
      ups.push(await databaseUp())
      const db = await openDatabase({ databaseUrl: pg.url, dataDir: '', poolMax: 1 })
      const ws = await createWorkspace(db.sql, { name: 'Outage log', plan: 'scale' })
      // Several tokens, so the load stays well within each one's 600 calls an hour.
      const tokens = await Promise.all([1, 2, 3, 4].map(() => createToken(db.sql, { workspaceId: ws.id, scopes: 'all' }).then((t) => t.token)))
      // The request log's table held, so the calls answered from here on wait in the writer when the
      // database goes (a call answered while it is away has no workspace to log under); the call
      // counts need no such help: a call answered 500 is counted too.
      const holder = await db.sql.reserve()
      await holder`BEGIN`
      await holder`LOCK TABLE request_log IN ACCESS EXCLUSIVE MODE`
      // Reads all along, so calls are counted and logged up to the moment the database goes.
      load = (async () => {
        for (let i = 0; running; i++) {
          await fetch(`${base}/missions`, { headers: { Authorization: `Bearer ${tokens[i % tokens.length]}` }, signal: AbortSignal.timeout(5000) }).then((r) => r.arrayBuffer(), () => {})
          await Bun.sleep(40)
        }
      })()
      await out.until('a request answered', (l) => l.operation === 'listMissions' && l.status === 200)
      await pg.stop()
      holder.release()
      await db.close().catch(() => {})
      await out.until('the first failed housekeeping', (l) => l.msg === 'webhook housekeeping failed')
      await out.until('a request answered 500', (l) => l.operation === 'listMissions' && l.status === 500)
      // Three more reaper passes, some fifteen flushes and claims, many requests: none is a line of its own.
      await Bun.sleep(3000)
      ups.push(await databaseUp())
      await pg.start()
      await out.until('housekeeping working again', (l) => l.msg === 'webhook housekeeping works again')
      await out.until('a request answered 200 again', (l) => l.operation === 'listMissions' && l.status === 200 && out.lines.indexOf(l) > out.lines.findIndex((x) => x.status === 500))
      await out.until('the request log written again', (l) => l.msg === 'writing the request log works again')
      ups.push(await databaseUp())
    } finally {
      running = false
      await load
      proc.kill('SIGTERM')
    }
    await proc.exited
    await out.done
    expect(ups).toEqual([1, 0, 1])
    // Each request the outage failed keeps a line of its own, with the error's code and message: not
    // the driver's stack, the same for every one of them.
    const failedRequests = out.lines.filter((l) => l.msg === 'request failed')
    expect(failedRequests.length).toBeGreaterThan(0)
    const errors = failedRequests.map((l) => l.error as { code?: string; stack?: string })
    expect(errors.filter((e) => typeof e.code !== 'string' || e.stack !== undefined).slice(0, 3), JSON.stringify([...new Set(errors.map((e) => e.code))])).toEqual([])
    // Lines not about one request (those carry its requestId), by message: each said once at most.
    const said = new Map<string, number>()
    for (const l of out.lines) if (l.requestId === undefined && (l.level === 'warn' || l.level === 'error')) said.set(String(l.msg), (said.get(String(l.msg)) ?? 0) + 1)
    const context = `${await stderr}\n${[...said].map(([m, n]) => `${n} × ${m}`).join('\n')}`
    expect([...said].filter(([, n]) => n > 1), context).toEqual([])
    // What failed at every turn was said, and its recovery too, with the count of the failures between.
    for (const [failed, back] of [
      ['webhook housekeeping failed', 'webhook housekeeping works again'],
      ['writing the request log failed; its entries wait for the next flush', 'writing the request log works again'],
      ['writing the call counts failed; they wait for the next flush', 'writing the call counts works again'],
    ] as const) {
      expect(said.get(failed), `${failed}\n${context}`).toBe(1)
      const recovery = out.lines.find((l) => l.msg === back)
      expect(recovery, `${back}\n${context}`).toMatchObject({ level: 'info' })
      expect(recovery!.failures as number).toBeGreaterThan(2)
    }
  }, 120_000)
})
