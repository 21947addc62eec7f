/**
 * Load generator for test/bench/pipeline.ts, run in its own process so it does not share the
 * event loop of the server under test:
 *
 *   bun test/bench/load.ts <url> <token | @token-file | -> <seconds> <concurrency> [expected rows]
 *
 * Runs <concurrency> fetch loops against <url> for <seconds>, each request with the next token
 * round-robin (`@file`: one token a line; `-`: no Authorization header). Records every request's
 * latency, counts every answer that is not 200 (and every network failure) as an error, and prints
 * one JSON line on stdout: { requests, seconds, rps, p50ms, p99ms, errors, errorSamples }.
 * With [expected rows], the first body is checked to be { data: [...] } of that many items.
 * With LOAD_BODY set (a JSON text), every request is a POST of that body as application/json, and
 * the answer expected is LOAD_STATUS (default 201) instead of 200.
 */
import { readFileSync } from 'node:fs'

const [url, tokenArg, secondsArg, concurrencyArg, expectArg] = Bun.argv.slice(2)
if (!url || !tokenArg || !secondsArg || !concurrencyArg) {
  console.error('usage: bun test/bench/load.ts <url> <token | @token-file | -> <seconds> <concurrency> [expected rows]')
  process.exit(2)
}
const seconds = Number(secondsArg)
const concurrency = Number(concurrencyArg)
if (!(seconds > 0) || !Number.isInteger(concurrency) || concurrency < 1) {
  console.error(`load.ts: bad seconds (${secondsArg}) or concurrency (${concurrencyArg})`)
  process.exit(2)
}

const tokens =
  tokenArg === '-'
    ? []
    : tokenArg.startsWith('@')
      ? readFileSync(tokenArg.slice(1), 'utf8').split('\n').map((t) => t.trim()).filter(Boolean)
      : [tokenArg]
const headerSets: (Record<string, string> | undefined)[] = tokens.length
  ? tokens.map((t) => ({ Authorization: `Bearer ${t}` }))
  : [undefined]

const expectedRows = expectArg === undefined ? undefined : Number(expectArg)
const postBody = process.env.LOAD_BODY || undefined
const expectedStatus = postBody === undefined ? 200 : Number(process.env.LOAD_STATUS || 201)
const postHeaders = (h: Record<string, string> | undefined) => ({ ...h, 'Content-Type': 'application/json' })

let next = 0
let errors = 0
let checked = false
const errorSamples: string[] = []
const latencies: number[] = []

function noteError(what: string) {
  errors++
  if (errorSamples.length < 5) errorSamples.push(what)
}

async function loop(deadline: number) {
  while (performance.now() < deadline) {
    const headers = headerSets[next++ % headerSets.length]
    const t0 = performance.now()
    try {
      const res = postBody === undefined ? await fetch(url!, { headers }) : await fetch(url!, { method: 'POST', headers: postHeaders(headers), body: postBody })
      const body = await res.text()
      latencies.push(performance.now() - t0)
      if (res.status !== expectedStatus) {
        noteError(`HTTP ${res.status}: ${body.slice(0, 200)}`)
        continue
      }
      if (!checked && expectedRows !== undefined) {
        checked = true
        const data = (JSON.parse(body) as { data?: unknown }).data
        if (!Array.isArray(data) || data.length !== expectedRows) {
          noteError(`unexpected body (wanted data with ${expectedRows} items): ${body.slice(0, 200)}`)
        }
      }
    } catch (err) {
      latencies.push(performance.now() - t0)
      noteError(`fetch failed: ${(err as Error).message}`)
    }
  }
}

const start = performance.now()
const deadline = start + seconds * 1000
await Promise.all(Array.from({ length: concurrency }, () => loop(deadline)))
const elapsed = (performance.now() - start) / 1000

const sorted = Float64Array.from(latencies).sort()
const pct = (p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(p * (sorted.length - 1)))]! : NaN)
const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d

console.log(
  JSON.stringify({
    requests: latencies.length,
    seconds: round(elapsed, 3),
    rps: round(latencies.length / elapsed, 1),
    p50ms: round(pct(0.5)),
    p99ms: round(pct(0.99)),
    errors,
    errorSamples,
  }),
)
