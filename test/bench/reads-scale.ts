/**
 * Does a read cost more when the workspace holds more?
 *
 *   npm run bench:scale            (embedded PGlite in a temporary directory)
 *   DATABASE_URL=postgres://... npm run bench:scale   (a database of its own on that server, dropped after)
 *
 * Two demo workspaces in one database, grown to SMALL (1,000) and BIG (100,000; BENCH_ROWS) rows in
 * every table (test/support/scale-seed.ts). Every read of the API (each operation's documented
 * example, as the query-cost test sends it) is timed in both, one request at a time, interleaved;
 * the median of each is printed with big/small (goal: at most 1.3). Then a single-contact POST
 * /contacts in the small workspace, before the big one exists and after, and in the big one: how
 * much one workspace's size costs another's writes.
 */
import { createDemoWorkspace, type DemoWorkspace } from '../../server/src/demo/index.ts'
import { createToken } from '../../server/src/domain/credentials.ts'
import { operations } from '../../server/src/http/operations.ts'
import type { Sql } from '../../server/src/store/driver/db.ts'
import { inProcessServer } from './in-process-server.ts'
import { exampleRequest } from '../../scripts/example-requests.ts'
import { growWorkspace } from '../support/scale-seed.ts'
import { envNumber, median } from './support.ts'

const SMALL = 1_000
const BIG = envNumber('BENCH_ROWS', 100_000, true)
const RUNS = envNumber('BENCH_RUNS', 25, true)

const { db, server, close } = await inProcessServer('growth_scale')
const ms = (x: number) => x.toFixed(2).padStart(8)

/** A workspace with a token per 500 requests (the hourly rate limit is per token). */
async function workspace(sql: Sql, name: string): Promise<{ demo: DemoWorkspace; tokens: string[] }> {
  const demo = await createDemoWorkspace(sql, { name })
  await sql`INSERT INTO allowances (workspace_id, name, amount) VALUES (${demo.workspace.id}, 'contacts', 100000000)`
  const tokens = [demo.tokens.live]
  for (let i = 0; i < 8; i++) tokens.push((await createToken(sql, { workspaceId: demo.workspace.id, scopes: 'all' })).token)
  return { demo, tokens }
}

let sent = 0
/** The size of the last answer each workspace got, so a ratio can be read beside what was answered. */
let lastBytes = 0
async function time(path: string, init: RequestInit, tokens: string[]): Promise<number> {
  const headers = { ...(init.headers as Record<string, string>), Authorization: `Bearer ${tokens[sent++ % tokens.length]}` }
  const t0 = performance.now()
  const res = await fetch(`${server.url}/api/v1${path}`, { ...init, headers })
  lastBytes = (await res.arrayBuffer()).byteLength
  const took = performance.now() - t0
  if (res.status >= 300) throw new Error(`${init.method} ${path}: ${res.status}`)
  return took
}

let contactNo = 0
const postContact = (tokens: string[]) =>
  time('/contacts', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ contacts: [{ email: `bench${++contactNo}@example.com` }] }) }, tokens)

async function postMedian(tokens: string[]) {
  for (let i = 0; i < 20; i++) await postContact(tokens)
  const xs: number[] = []
  for (let i = 0; i < RUNS; i++) xs.push(await postContact(tokens))
  return median(xs)
}

try {
  const t0 = performance.now()
  const small = await workspace(db.sql, 'Small')
  await growWorkspace(db.sql, small.demo.workspace.id, SMALL)
  // Let the load's own after-effects (autovacuum, analyze) pass before timing the small one alone.
  await db.sql`VACUUM ANALYZE`
  const postAlone = await postMedian(small.tokens)
  const big = await workspace(db.sql, 'Big')
  const sizes = await growWorkspace(db.sql, big.demo.workspace.id, BIG)
  await db.sql`VACUUM ANALYZE`
  console.log(`${db.kind === 'server' ? 'PostgreSQL server' : 'embedded PGlite'}; small: ${SMALL.toLocaleString('en')} rows a table, big: ${sizes.contacts!.toLocaleString('en')} contacts, ${sizes.signals!.toLocaleString('en')} signals, ...; set up in ${((performance.now() - t0) / 1000).toFixed(0)} s`)
  console.log(`median of ${RUNS} sequential requests, ms; the answers' sizes in bytes\n${'read'.padEnd(26)}${'small'.padStart(8)}${'big'.padStart(8)}  big/small  ${'bytes small'.padStart(11)} ${'bytes big'.padStart(10)}`)
  const ratios: number[] = []
  for (const op of operations) {
    if (op.method !== 'GET' || op.auth.kind !== 'workspace') continue
    const reqs = await Promise.all([small, big].map((w) => exampleRequest(op, { demo: w.demo, base: server.url })))
    const xs: number[][] = [[], []]
    const bytes = [0, 0]
    for (let i = 0; i < RUNS + 3; i++) {
      for (const [j, w] of [small, big].entries()) {
        const took = await time(reqs[j]!.path, reqs[j]!.init, w.tokens)
        bytes[j] = lastBytes
        if (i >= 3) xs[j]!.push(took)
      }
    }
    const [a, b] = [median(xs[0]!), median(xs[1]!)]
    ratios.push(b / a)
    const flag = b / a > 1.3 ? '> 1.3' : ''
    console.log(`${op.operationId.padEnd(26)}${ms(a)}${ms(b)}  ${(b / a).toFixed(2).padEnd(5)} ${flag.padEnd(5)} ${String(bytes[0]).padStart(11)} ${String(bytes[1]).padStart(10)}`)
  }
  console.log(`reads: ${ratios.length}; median big/small ${median(ratios).toFixed(2)}; worst ${Math.max(...ratios).toFixed(2)}; over 1.3: ${ratios.filter((r) => r > 1.3).length}`)
  const postBeside = await postMedian(small.tokens)
  const postBig = await postMedian(big.tokens)
  console.log(`POST /contacts, one contact: small workspace alone ${postAlone.toFixed(2)} ms, beside the big one ${postBeside.toFixed(2)} ms (${(postBeside / postAlone).toFixed(2)}x), in the big one ${postBig.toFixed(2)} ms (${(postBig / postAlone).toFixed(2)}x)`)
} finally {
  await close()
}
