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
 * On an empty directory PGlite runs initdb in a second, temporary instance (700-1000 MB at its
 * peak). Its WebAssembly memory is only returned once the garbage collector has run twice, which
 * an idle server may not do for a long time: collect now, so a first `npm start` does not keep it.
 */
export async function releaseInitdbMemory(): Promise<void> {
  Bun.gc(true)
  await Bun.sleep(0)
  Bun.gc(true)
}

/** The resident set above which a growing server collects its garbage (goal: 256 MB under load). */
export const RSS_TARGET_BYTES = 200 * 1024 * 1024
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
