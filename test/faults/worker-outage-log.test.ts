// `growth worker` while its database is away: each poll's claim fails (five a second), and the log
// must say so once and again when claims work, not a warn with a stack per poll (an outage of ten
// minutes was some 3,000 lines per worker). A real worker process on a PostgreSQL instance of the
// file's own, stopped for a few seconds and started again. Each step waits for what the worker says
// (its start line, its first failure, its recovery), never a fixed time alone.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { ROOT } from '../support/server-process.ts'
import { type PrivatePostgres, privatePostgresUnavailable, startPrivatePostgres } from '../support/private-postgres.ts'

const reason = privatePostgresUnavailable()
if (reason) console.warn(`test/faults/worker-outage-log.test.ts skipped: ${reason}`)

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
      if (Date.now() > deadline) throw new Error(`the worker never logged ${what}: ${lines.map((l) => l.msg).join(' | ')}`)
      await Bun.sleep(50)
    }
  }
  return { lines, done, until }
}

describe.skipIf(!!reason)('growth worker while the database is away', () => {
  test('one warn when claims start failing and one info when they work again, not one per poll', async () => {
    const proc = Bun.spawn([process.execPath, 'cli/bin/growth.ts', 'worker'], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: pg.url, WEBHOOK_WORKERS: '1', LOG_FORMAT: 'json', LOG_LEVEL: 'info', GROWTH_SECRETS_KEY: 'a'.repeat(64) },
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
