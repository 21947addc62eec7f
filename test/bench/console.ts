/**
 * The console at scale: the inbox's first page, and what open live pages cost the server.
 *
 *   npm run bench:console            (embedded PGlite in a temporary directory)
 *   DATABASE_URL=postgres://... npm run bench:console   (a database of its own on that server, dropped after)
 *
 * 1. A workspace with 10,000 (BENCH_WAITING) sends waiting for a person. GET /console/ (the inbox's
 *    first page, signed in) is timed one request at a time, interleaved with the baseline, GET
 *    /api/v1/approvals?status=pending&limit=25 (the API's first page of the same approvals); the
 *    medians are printed side by side (goal: the inbox under 100 ms), with the page's size beside
 *    the size of the same page when only 30 wait (goal: the same, keyset paging).
 * 2. The server's resident memory after a full collection with no live page open, then with 100
 *    (BENCH_PAGES) open to GET /console/live and an event reaching each of them, then after they
 *    close (goal: 100 pages under 50 MB more than none). The pages' client side runs in this same
 *    process, so the figure is an upper bound of the server's own cost.
 */
import { createDemoWorkspace } from '../../server/src/demo/index.ts'
import { addPerson } from '../../server/src/domain/people.ts'
import { signInLink } from '../../server/src/domain/sign-in.ts'
import { appendEvent } from '../../server/src/store/events.ts'
import type { Sql } from '../../server/src/store/driver/db.ts'
import { inProcessServer } from './in-process-server.ts'
import { envNumber, median, runBenchmark } from './support.ts'

const WAITING = envNumber('BENCH_WAITING', 10_000, true)
const RUNS = envNumber('BENCH_RUNS', 30, true)
const PAGES = envNumber('BENCH_PAGES', 100, true)

const { db, server, close } = await inProcessServer('growth_console')

/** `count` sends waiting for a person, a second apart, expiring in a week. */
async function waitingSends(sql: Sql, workspaceId: string, count: number) {
  await sql`
    INSERT INTO approvals (workspace_id, id, kind, status, summary, subject_id, requested_by, expires_at, created_at)
    SELECT ${workspaceId}, 'apr_bench' || lpad(n::text, 8, '0'), 'send', 'pending', 'Send the spring newsletter to list ' || n,
           'cmp_bench' || n, 'bench', now() + interval '7 days', now() - interval '1 day' + n * interval '1 second'
    FROM generate_series(1, ${count}) AS n`
}

/** A signed-in owner of the workspace: the session cookie, through a one-time link as a browser redeems it. */
async function sessionCookie(sql: Sql, workspaceId: string): Promise<string> {
  const person = await addPerson(sql, { workspaceId, email: `bench-${workspaceId}@example.com`, name: 'Bench Owner', role: 'owner' })
  const link = await signInLink(sql, { personId: person.id, consoleUrl: `${server.url}/console` })
  const page = await fetch(link.url.replace(/^https?:\/\/[^/]+/, server.url))
  const form = page.headers.getSetCookie().find((c) => c.startsWith('growth_signin='))!.split(';')[0]!
  const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())![1]!
  const redeemed = await fetch(link.url.replace(/^https?:\/\/[^/]+/, server.url), {
    method: 'POST',
    redirect: 'manual',
    headers: { Cookie: form, 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ csrf }).toString(),
  })
  return redeemed.headers.getSetCookie().find((c) => c.startsWith('growth_session='))!.split(';')[0]!
}

async function timed(url: string, headers: Record<string, string>): Promise<{ ms: number; bytes: number }> {
  const t0 = performance.now()
  const res = await fetch(url, { headers, redirect: 'manual' })
  const bytes = (await res.arrayBuffer()).byteLength
  const ms = performance.now() - t0
  if (res.status !== 200) throw new Error(`${url}: ${res.status}`)
  return { ms, bytes }
}

const rssMb = () => {
  Bun.gc(true)
  return process.memoryUsage().rss / 1024 / 1024
}
const fmt = (x: number, unit: string) => `${x.toFixed(1)} ${unit}`

async function main(): Promise<number> {
  const sql = db.sql
  const big = await createDemoWorkspace(sql, { name: 'Console bench (big)' })
  const small = await createDemoWorkspace(sql, { name: 'Console bench (small)' })
  await waitingSends(sql, big.workspace.id, WAITING)
  await waitingSends(sql, small.workspace.id, 30)
  const bigCookie = await sessionCookie(sql, big.workspace.id)
  const smallCookie = await sessionCookie(sql, small.workspace.id)

  const inbox: number[] = []
  const api: number[] = []
  let bigBytes = 0
  let smallBytes = 0
  for (let i = 0; i < RUNS + 3; i++) {
    const page = await timed(`${server.url}/console/`, { Cookie: bigCookie })
    const base = await timed(`${server.url}/api/v1/approvals?status=pending&limit=25`, { Authorization: `Bearer ${big.tokens.live}` })
    smallBytes = (await timed(`${server.url}/console/`, { Cookie: smallCookie })).bytes
    bigBytes = page.bytes
    if (i < 3) continue // warm-up
    inbox.push(page.ms)
    api.push(base.ms)
  }
  const inboxMs = median(inbox)
  console.log(`inbox, ${WAITING.toLocaleString('en-US')} waiting: first page ${fmt(inboxMs, 'ms')} median (baseline GET /api/v1/approvals first page: ${fmt(median(api), 'ms')}), goal < 100 ms`)
  console.log(`inbox page size: ${bigBytes.toLocaleString('en-US')} bytes with ${WAITING.toLocaleString('en-US')} waiting, ${smallBytes.toLocaleString('en-US')} bytes with 30 (both 25 items)`)

  // Live pages: none, then PAGES open, each reached by an event, then closed again.
  const before = rssMb()
  const aborts: AbortController[] = []
  const readers: ReadableStreamDefaultReader<Uint8Array>[] = []
  for (let i = 0; i < PAGES; i++) {
    const abort = new AbortController()
    const res = await fetch(`${server.url}/console/live`, { headers: { Cookie: bigCookie, Accept: 'text/event-stream' }, signal: abort.signal })
    if (res.status !== 200 || !res.body) throw new Error(`live page ${i}: ${res.status}`)
    const reader = res.body.getReader()
    await reader.read() // the stream's first event, `ready`: it is open and placed
    aborts.push(abort)
    readers.push(reader)
  }
  // One event reaches every page (a send decided in the inbox's workspace).
  await sql`UPDATE approvals SET status = 'rejected' WHERE workspace_id = ${big.workspace.id} AND id = 'apr_bench00000001'`
  await sql.begin((tx) => appendEvent(tx, big.workspace.id, 'approval.rejected', { approval: { id: 'apr_bench00000001' } }))
  const t0 = performance.now()
  const decoder = new TextDecoder()
  await Promise.all(
    readers.map(async (r) => {
      for (;;) {
        const { value, done } = await r.read()
        if (done) throw new Error('a live page closed before the event reached it')
        if (decoder.decode(value).includes('event: change')) return
      }
    }),
  )
  const reachedMs = performance.now() - t0
  const open = rssMb()
  for (const a of aborts) a.abort()
  await Bun.sleep(500)
  const after = rssMb()
  console.log(`live pages: ${fmt(before, 'MB')} resident with none open, ${fmt(open, 'MB')} with ${PAGES} open (+${fmt(open - before, 'MB')}, goal < 50 MB), ${fmt(after, 'MB')} after they closed`)
  console.log(`an event reached all ${PAGES} pages ${fmt(reachedMs, 'ms')} after its commit (the watcher looks every 500 ms)`)
  return inboxMs < 100 && open - before < 50 ? 0 : 1
}

await runBenchmark(main, close)
