import { existsSync, readdirSync, renameSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import type { PGliteOptions } from '@electric-sql/pglite'

/**
 * How the embedded database (PGlite) is started, for a small resident set.
 *
 * PGlite allocates PostgreSQL's shared buffers inside its WebAssembly memory and touches all of
 * them at start, so `shared_buffers` (128MB, initdb's default) is resident from the first second
 * and is never given back (WebAssembly memory does not shrink). The data files are ordinary files
 * read through the operating system's page cache, so a smaller buffer pool costs a read call on a
 * miss, not a disk access. EMBEDDED_SHARED_BUFFERS = 16MB keeps the server under 256 MB under the
 * benchmark's load (docs/performance.md, test/bench/embedded.ts).
 */
export const EMBEDDED_SHARED_BUFFERS = '16MB'

export function embeddedOptions(defaultStartParams: string[]): PGliteOptions {
  return { startParams: [...defaultStartParams, '-c', `shared_buffers=${EMBEDDED_SHARED_BUFFERS}`] }
}

/**
 * Creates a new embedded database's files in `pgdata`, in a process of its own
 * (embedded-init.ts), so that the server, which then opens them, never holds initdb's memory.
 *
 * On an empty directory PGlite runs initdb in a second, temporary WebAssembly instance (700-1,000
 * MB at its peak). Run inside the server, two full collections gave most of it back, but not all:
 * under the load of npm run bench:embedded a server that had run initdb itself stayed 50 MB above
 * one started on the same data (median 277 against 223 MB), the pages its allocator kept. The files
 * are made in `${pgdata}.new` and renamed into place only once complete, so a first start that is
 * killed leaves no half-made database behind: the next start makes it again.
 */
export async function createEmbeddedFiles(pgdata: string): Promise<void> {
  // Not ours to remove: files where the database should be, but no database (initdb writes PG_VERSION first).
  if (existsSync(pgdata) && readdirSync(pgdata).length > 0) {
    throw new Error(`${pgdata} holds files but no database (no PG_VERSION): move it away, or set DATA_DIR to another directory`)
  }
  const staging = `${pgdata}.new`
  rmSync(staging, { recursive: true, force: true })
  const child = Bun.spawn({
    cmd: [process.execPath, join(import.meta.dir, 'embedded-init.ts'), staging],
    stdout: 'ignore',
    stderr: 'pipe',
  })
  const [stderr, code] = await Promise.all([new Response(child.stderr).text(), child.exited])
  if (code !== 0) {
    rmSync(staging, { recursive: true, force: true })
    throw new Error(`Could not create the embedded database in ${pgdata} (initdb exited with ${code}): ${stderr.trim().split('\n').at(-1) ?? ''}`)
  }
  rmSync(pgdata, { recursive: true, force: true }) // an empty directory, if any
  renameSync(staging, pgdata)
}

/** The resident set above which a growing server collects its garbage (goal: 256 MB under load). */
const RSS_TARGET_BYTES = 200 * 1024 * 1024
/** Only when it grew this much since the last collection: what a collection cannot free, it leaves. */
const REGROWTH_BYTES = 8 * 1024 * 1024
const CHECK_EVERY_MS = 1000
/** At most one full collection in this time, however the resident set stands. */
const MIN_GAP_MS = 3000

/**
 * Keeps the process's resident set steady while it owns an embedded database.
 *
 * JavaScriptCore counts PGlite's WebAssembly memory (128 MB at least) as memory its heap owns, and
 * lets the heap grow in proportion before a full collection: under load the garbage of answered
 * requests piled up by about 1 MB a second (80 s: 91 -> 157 MB of JavaScript heap) while the live
 * objects stayed at about 110,000; a full collection brought them back. So: a full collection (and
 * the freed pages returned at once) when
 * the resident set is above RSS_TARGET_BYTES and has grown since the last one, at most one every
 * MIN_GAP_MS (a collection took 70-230 ms on a busy 2-core machine); none on a quiet server.
 * Returns the stop.
 */
export function startHeapGuard(targetBytes = RSS_TARGET_BYTES): () => void {
  let last = 0
  let afterLast = 0
  const timer = setInterval(() => {
    const rss = process.memoryUsage.rss()
    if (rss <= targetBytes || rss <= afterLast + REGROWTH_BYTES || performance.now() - last < MIN_GAP_MS) return
    Bun.gc(true)
    // And give the freed pages back to the system now, not when the allocator gets round to it.
    Bun.shrink()
    last = performance.now()
    afterLast = process.memoryUsage.rss()
  }, CHECK_EVERY_MS)
  timer.unref?.()
  return () => clearInterval(timer)
}
