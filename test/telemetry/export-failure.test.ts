import { afterAll, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type OtlpReceiver, startOtlpReceiver } from '../support/otlp-receiver.ts'
import { type ServerProcess, startServerProcess } from '../support/server-process.ts'

/**
 * A collector that is not there (a wrong OTEL_EXPORTER_OTLP_ENDPOINT, or one that is down) is told
 * in the server's log: one warning naming the endpoint when sending starts failing, nothing more for
 * the failures after it, and one line when spans reach a collector again (server/src/tracing-setup.ts,
 * ReportingExporter), its password never. A real server process; the collector is a real OTLP/HTTP receiver started on
 * the endpoint's port halfway through.
 */

let server: ServerProcess | undefined
let receiver: OtlpReceiver | undefined
const dataDir = mkdtempSync(join(tmpdir(), 'growth-export-failure-'))

afterAll(async () => {
  if (server && server.proc.exitCode === null) server.proc.kill('SIGKILL')
  await receiver?.close()
  rmSync(dataDir, { recursive: true, force: true })
})

/** A port nothing listens on (taken, then given back). */
async function freePort(): Promise<number> {
  const probe = createServer()
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
  const { port } = probe.address() as { port: number }
  await new Promise<void>((resolve) => probe.close(() => resolve()))
  return port
}

type Line = { level: string; msg: string; endpoint?: string; reason?: string }
const lines = (s: ServerProcess): Line[] =>
  s.stdout().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Line)
const about = (s: ServerProcess, words: string) => lines(s).filter((l) => l.msg.includes(words))

async function until(what: string, done: () => boolean, ms = 20_000) {
  const deadline = Date.now() + ms
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${ms} ms; the server printed:\n${server?.stdout().slice(-3000)}`)
    await Bun.sleep(100)
  }
}

test('a collector away is one warning naming the endpoint, and its return one line', async () => {
  const port = await freePort()
  // A collector's password in its URL is printed as *** (the banner, the warning), never as given.
  const endpoint = `http://growth:collector-pass-7f3a@127.0.0.1:${port}`
  server = await startServerProcess({ DATA_DIR: dataDir, WEBHOOK_WORKERS: '0', LOG_LEVEL: 'info', LOG_FORMAT: 'json', OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_TRACES_SAMPLER: 'always_on' })
  const s = server
  // Requests over several export batches (one a second), none of which reaches anything.
  const ask = async (n: number) => {
    for (let i = 0; i < n; i++) expect((await fetch(s.base)).status).toBe(200)
  }
  await ask(3)
  await until('the warning', () => about(s, 'traces could not be sent').length > 0)
  for (let second = 0; second < 3; second++) {
    await ask(3)
    await Bun.sleep(1_000)
  }
  const warned = about(s, 'traces could not be sent')
  expect(warned).toHaveLength(1)
  expect(warned[0]!.level).toBe('warn')
  expect(warned[0]!.endpoint).toBe(`http://growth:***@127.0.0.1:${port}/v1/traces`)
  expect(s.out).toContain(`traces: http://growth:***@127.0.0.1:${port}/v1/traces`)
  expect(warned[0]!.reason).toBeTruthy()

  // The collector comes up on that port: the spans go there, and the log says so once.
  receiver = await startOtlpReceiver({ port })
  await until('the return', () => {
    void fetch(s.base)
    return about(s, 'traces reach the collector again').length > 0
  })
  await ask(3)
  await receiver.until((spans) => spans.length > 0)
  await Bun.sleep(1_500)
  expect(about(s, 'traces reach the collector again')).toHaveLength(1)
  expect(about(s, 'traces could not be sent')).toHaveLength(1)
  expect(s.stdout() + s.stderr()).not.toContain('collector-pass-7f3a')
}, 90_000)
