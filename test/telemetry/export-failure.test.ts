import { afterAll, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type OtlpReceiver, startOtlpReceiver } from '../support/otlp-receiver.ts'
import { type ServerProcess, startBanner, startServerProcess } from '../support/server-process.ts'

/**
 * A collector that is not there (a wrong OTEL_EXPORTER_OTLP_ENDPOINT, or one that is down) is told
 * in the server's log: one warning naming the endpoint when sending starts failing, nothing more for
 * the failures after it, and one line when spans reach a collector again (server/src/tracing-setup.ts,
 * ReportingExporter), its password never. A real server process; the collector is first a real
 * HTTP server that refuses every export with 400 (not retried: each batch, one a second, fails at
 * once, so a warning said for each failure would show), then a real OTLP/HTTP receiver started on
 * the same port.
 */

let server: ServerProcess | undefined
let receiver: OtlpReceiver | undefined
const dataDir = mkdtempSync(join(tmpdir(), 'growth-export-failure-'))

afterAll(async () => {
  if (server && server.proc.exitCode === null) server.proc.kill('SIGKILL')
  await receiver?.close()
  rmSync(dataDir, { recursive: true, force: true })
})

/** A collector that refuses every export (400, which the exporter does not retry); how many it refused. */
async function refusingCollector(): Promise<{ server: Server; port: number; refused: () => number }> {
  let refused = 0
  const server = createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      refused++
      res.writeHead(400, { 'content-type': 'text/plain' }).end('refused by the test')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { server, port: (server.address() as { port: number }).port, refused: () => refused }
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
  const refusing = await refusingCollector()
  const { port } = refusing
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
  // More batches refused after the warning: still one warning.
  const refusedAtWarning = refusing.refused()
  await until('three more refused exports', () => {
    void fetch(s.base).catch(() => {})
    return refusing.refused() >= refusedAtWarning + 3
  })
  const warned = about(s, 'traces could not be sent')
  expect(warned).toHaveLength(1)
  expect(warned[0]!.level).toBe('warn')
  expect(warned[0]!.endpoint).toBe(`http://growth:***@127.0.0.1:${port}/v1/traces`)
  expect(startBanner(s.out)!.traces).toStartWith(`http://growth:***@127.0.0.1:${port}/v1/traces `)
  expect(warned[0]!.reason).toBeTruthy()

  // The collector comes up on that port: the spans go there, and the log says so once.
  await new Promise<void>((resolve) => refusing.server.close(() => resolve()))
  receiver = await startOtlpReceiver({ port })
  await until('the return', () => {
    void fetch(s.base).catch(() => {})
    return about(s, 'traces reach the collector again').length > 0
  })
  await ask(3)
  await receiver.until((spans) => spans.length > 0)
  await Bun.sleep(1_500)
  expect(about(s, 'traces reach the collector again')).toHaveLength(1)
  expect(about(s, 'traces could not be sent')).toHaveLength(1)
  expect(s.stdout() + s.stderr()).not.toContain('collector-pass-7f3a')
}, 90_000)
